"""Content blocks that grow while a reply streams, at a cost proportional to each delta (issue 20).

A Python ``str`` is immutable: ``block.text += delta`` copies the whole text so far on every delta,
and re-parsing a tool call's JSON arguments from the start on every chunk does the same, so a
long reply cost time quadratic in its length. The wire adapters (``MessageBuilder``) and the
scripted provider therefore stream into these subclasses of the plain blocks instead:

- ``GrowingText`` / ``GrowingThinking`` keep the deltas in a list; reading ``text`` /
  ``thinking`` joins them once and keeps the joined string until the next delta.
- ``GrowingToolCall`` keeps the raw argument JSON the same way; ``arguments`` is parsed (best
  effort, ``parse_streaming_json``) only when someone reads it after new raw text arrived.

So a delta costs O(delta) and a reader pays O(size) only when it reads (reading is safe from
another thread while the stream appends). Each block is replaced by
its plain form (``frozen()``) when it closes, so finished messages, session files and codecs see
only ``TextContent``/``ThinkingContent``/``ToolCall``. A growing block compares equal to the plain
block with the same fields.

``growth_stats`` counts every join and every parse; a test streams thousands of deltas through a
whole run and asserts that these counts stay bounded, so a per-delta reader cannot come back
unnoticed.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass
from typing import Any

from pi_app.ai.types import TextContent, ThinkingContent, ToolCall
from pi_app.ai.util.partial_json import parse_streaming_json


@dataclass
class GrowthStats:
    """How many times a growing block copied its whole text (``joins``) or parsed its arguments."""

    joins: int = 0
    parses: int = 0

    def reset(self) -> None:
        self.joins = 0
        self.parses = 0


growth_stats = GrowthStats()


_join_lock = threading.Lock()


def _joined(parts: list[str]) -> str:
    """The pieces joined, kept as the one first piece. A reader may run on another thread than
    the writer (the TUI reads what the agent's thread appends): ``list.append`` is atomic, and a
    reader replaces only the pieces it joined, under a lock shared with other readers."""
    n = len(parts)
    if n == 1:
        return parts[0]
    if n == 0:
        return ""
    with _join_lock:
        n = len(parts)
        text = "".join(parts[:n])
        parts[:n] = (text,)
        growth_stats.joins += 1
    return text


class GrowingText(TextContent):
    """A streaming text block: ``append`` is O(delta), ``text`` joins on read."""

    _parts: list[str]

    @property
    def text(self) -> str:
        return _joined(self._parts)

    @text.setter
    def text(self, value: str) -> None:
        self._parts = [value]

    def append(self, delta: str) -> None:
        self._parts.append(delta)

    def frozen(self) -> TextContent:
        return TextContent(text=self.text, text_signature=self.text_signature, extra=self.extra)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TextContent) and (self.text, self.text_signature, self.extra) == (
            other.text,
            other.text_signature,
            other.extra,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable while it grows: unhashable

    def __copy__(self) -> GrowingText:
        return GrowingText(text=self.text, text_signature=self.text_signature, extra=self.extra)

    def __deepcopy__(self, memo: dict[int, Any]) -> GrowingText:
        return GrowingText(
            text=self.text, text_signature=self.text_signature, extra=copy.deepcopy(self.extra, memo)
        )


class GrowingThinking(ThinkingContent):
    """A streaming thinking block: ``append`` is O(delta), ``thinking`` joins on read."""

    _parts: list[str]

    @property
    def thinking(self) -> str:
        return _joined(self._parts)

    @thinking.setter
    def thinking(self, value: str) -> None:
        self._parts = [value]

    def append(self, delta: str) -> None:
        self._parts.append(delta)

    def frozen(self) -> ThinkingContent:
        return ThinkingContent(
            thinking=self.thinking,
            thinking_signature=self.thinking_signature,
            redacted=self.redacted,
            extra=self.extra,
        )

    def _key(self) -> tuple[Any, ...]:
        return (self.thinking, self.thinking_signature, self.redacted, self.extra)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ThinkingContent) and self._key() == (
            other.thinking,
            other.thinking_signature,
            other.redacted,
            other.extra,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable while it grows: unhashable

    def __copy__(self) -> GrowingThinking:
        return GrowingThinking(
            thinking=self.thinking,
            thinking_signature=self.thinking_signature,
            redacted=self.redacted,
            extra=self.extra,
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> GrowingThinking:
        clone = self.__copy__()
        clone.extra = copy.deepcopy(self.extra, memo)
        return clone


class GrowingToolCall(ToolCall):
    """A streaming tool call: ``append_raw`` is O(delta); ``arguments`` parses on read, once per change.

    Assigning ``arguments`` (a provider that sends them whole) replaces the raw text."""

    _raw: list[str]
    _parsed: dict[str, Any]
    _dirty: bool

    @property
    def arguments(self) -> dict[str, Any]:
        if self._dirty:
            self._dirty = False
            self._parsed = parse_streaming_json(self.raw)
            growth_stats.parses += 1
        return self._parsed

    @arguments.setter
    def arguments(self, value: dict[str, Any]) -> None:
        self._raw = []
        self._parsed = value
        self._dirty = False

    @property
    def raw(self) -> str:
        """The argument JSON received so far."""
        return _joined(self._raw)

    def set_raw(self, raw: str) -> None:
        self._raw = [raw]
        self._dirty = True

    def append_raw(self, delta: str) -> None:
        self._raw.append(delta)
        self._dirty = True

    def frozen(self) -> ToolCall:
        """The plain call; its arguments are the whole raw JSON parsed (``{}`` if not an object)."""
        arguments = self.arguments
        return ToolCall(
            id=self.id,
            name=self.name,
            arguments=arguments if isinstance(arguments, dict) else {},
            thought_signature=self.thought_signature,
            extra=self.extra,
        )

    def _key(self) -> tuple[Any, ...]:
        return (self.id, self.name, self.arguments, self.thought_signature, self.extra)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolCall) and self._key() == (
            other.id,
            other.name,
            other.arguments,
            other.thought_signature,
            other.extra,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable while it grows: unhashable

    def __copy__(self) -> GrowingToolCall:
        clone = GrowingToolCall(
            id=self.id, name=self.name, thought_signature=self.thought_signature, extra=self.extra
        )
        clone._raw = list(self._raw)
        clone._parsed = self._parsed
        clone._dirty = self._dirty
        return clone

    def __deepcopy__(self, memo: dict[int, Any]) -> GrowingToolCall:
        clone = self.__copy__()
        clone._parsed = copy.deepcopy(self._parsed, memo)
        clone.extra = copy.deepcopy(self.extra, memo)
        return clone


def freeze_blocks(content: list[Any]) -> None:
    """Replace every growing block of ``content`` by its plain form, in place."""
    for i, block in enumerate(content):
        frozen = getattr(block, "frozen", None)
        if frozen is not None and isinstance(block, GrowingText | GrowingThinking | GrowingToolCall):
            content[i] = frozen()
