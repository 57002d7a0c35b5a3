"""Print mode: ``pi -p "prompt" [more prompts…]`` (spec 60 §3.14).

Each prompt runs to completion in turn. Afterwards the last assistant message decides the
outcome: ``error``/``aborted`` -> its error text on stderr and exit 1; otherwise each of its text
blocks on its own line on stdout and exit 0 (on a terminal, control characters in it are shown as
visible stand-ins; a pipe or a file gets the text as the model wrote it). Nothing else reaches stdout: the answer is written
through the guarded ``LineWriter`` (``pi_app.modes.output``), so a stray ``print`` goes to stderr.

A failed context-overflow recovery removes the error reply from the transcript (R-RETRY-06), so
the outcome is taken from the run's events, not from the transcript: otherwise pi would exit 0
silently, or print an earlier turn's answer as if it were this one's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pi_app.ai.types import TextContent
from pi_app.coding.agent_session import NoModelError
from pi_app.modes.output import LineWriter
from pi_app.terminal_text import visible_controls

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession


async def run_prompts(
    session: AgentSession, first_text: str | None, images: Sequence[Any], more: Sequence[str]
) -> None:
    if first_text is not None:
        await session.prompt(first_text, images or None)
    for text in more:
        await session.prompt(text)


async def run_print_mode(
    session: AgentSession, out: LineWriter, first_text: str | None, images: Sequence[Any], more: Sequence[str]
) -> int:
    if first_text is None and not more:
        sys.stderr.write("Error: no prompt given (pass a message, @file, or pipe text on stdin)\n")
        return 2
    outcome = _RunOutcome()
    mcp_output = getattr(session, "mcp_output", None)
    if mcp_output is not None:  # /mcp prints the servers' status (issue 22)
        mcp_output.append(lambda line: out.write(line + "\n"))
    unsubscribe = session.subscribe(outcome.on_event)
    try:
        await run_prompts(session, first_text, images, more)
    except NoModelError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    finally:
        unsubscribe()
    if outcome.failure is not None:
        sys.stderr.write(f"{outcome.failure}\n")
        sys.stderr.flush()
        return 1
    message = outcome.last_reply
    if message is None:
        return 0
    if message.stop_reason in ("error", "aborted"):
        sys.stderr.write(f"{message.error_message or f'Request {message.stop_reason}'}\n")
        sys.stderr.flush()
        return 1
    for block in message.content:
        if isinstance(block, TextContent):  # on a terminal, model text must not drive it (issue 19 item 5)
            out.write((visible_controls(block.text) if out.is_terminal else block.text) + "\n")
    out.close()
    return 0


class _RunOutcome:
    """The last assistant reply of this run and a failure that came after it, seen as events."""

    def __init__(self) -> None:
        self.last_reply: Any = None
        self.failure: str | None = None

    def on_event(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind == "message_end" and getattr(event.message, "role", None) == "assistant":
            self.last_reply = event.message
            self.failure = None
        elif kind == "compaction_end" and event.reason == "overflow" and event.result is None:
            if event.error_message and not event.aborted:
                self.failure = event.error_message
