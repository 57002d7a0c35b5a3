"""Transcript layout settings every block reads while rendering (pi 1.6.0's settings).

- ``output_pad()`` — ``outputPad`` (0 or 1, default 1): the columns of horizontal padding of
  messages, tool output, ``!`` command output and summary blocks, on each side.
- ``code_block_indent()`` — ``markdown.codeBlockIndent`` (default two spaces): the prefix of every
  line of a rendered code block.

The app sets them from the settings before it renders the header and the session's history
(``configure``); they are process-wide because a block renders without knowing the app.
"""

from __future__ import annotations

DEFAULTS: dict[str, int | str] = {"output_pad": 1, "code_block_indent": "  "}
_state = dict(DEFAULTS)


def reset() -> None:
    """Back to the defaults (the app calls it when it stops)."""
    _state.update(DEFAULTS)


def configure(*, output_pad: int | None = None, code_block_indent: str | None = None) -> None:
    if output_pad is not None:
        _state["output_pad"] = 1 if output_pad else 0
    if code_block_indent is not None:
        _state["code_block_indent"] = code_block_indent


def output_pad() -> int:
    return int(_state["output_pad"])


def code_block_indent() -> str:
    return str(_state["code_block_indent"])
