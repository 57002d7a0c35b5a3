"""Which tool block a tool-call id means right now (issue 17, defect 3).

Providers and local servers reuse tool-call ids (``call_0`` in every turn, sometimes twice in one
message), so an id alone never names a block: it names a block *of the current assistant turn*.
``TurnToolCalls`` holds that turn's blocks in call order; ``begin_turn()`` (a new assistant
message) forgets the ids of earlier turns, whose blocks stay in the transcript untouched.

Within one turn a repeated id is resolved by order: the k-th tool call with an id in the message is
the k-th block with it; an execution start takes the first block with that id not yet started; a
update goes to the running one with the same arguments, a result to the first one still running
(else the first not done): end events carry no arguments, so two parallel calls sharing an id in
one message are told apart by completion order only. Blocks are keyed in the
transcript by their own serial key, never by the call id.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_app.tui.transcript.blocks.tool import ToolBlock


class TurnToolCalls:
    """The tool blocks, found by call id: events resolve within the current turn; mapping-like
    reads fall back to the latest block with the id."""

    def __init__(self) -> None:
        self._blocks: list[ToolBlock] = []
        """This turn's blocks, in call order."""
        self._latest: dict[str, ToolBlock] = {}
        """Every id's most recent block, whatever the turn (lookups by tests and extensions)."""
        self._all: list[ToolBlock] = []
        self._started: set[str] = set()

    def begin_turn(self) -> None:
        """A new assistant message: earlier turns' ids no longer take new events."""
        self._blocks = []
        self._started = set()

    def clear(self) -> None:
        self.begin_turn()
        self._latest.clear()
        self._all.clear()

    def add(self, block: ToolBlock) -> None:
        self._blocks.append(block)
        self._all.append(block)
        self._latest[block.call_id] = block

    def with_id(self, call_id: str) -> list[ToolBlock]:
        return [block for block in self._blocks if block.call_id == call_id]

    def nth(self, call_id: str, index: int) -> ToolBlock | None:
        """The ``index``-th block (0-based) of this turn whose call has ``call_id``."""
        same = self.with_id(call_id)
        return same[index] if index < len(same) else None

    def to_start(self, call_id: str) -> ToolBlock | None:
        """The block an execution start with ``call_id`` belongs to (marked started)."""
        for block in self.with_id(call_id):
            if block.key not in self._started:
                self._started.add(block.key)
                return block
        return None

    def mark_started(self, block: ToolBlock) -> None:
        self._started.add(block.key)

    def for_update(self, call_id: str, args: object = None) -> ToolBlock | None:
        """The block an update or result with ``call_id`` (and ``args``, when known) belongs to."""
        same = self.with_id(call_id)
        running = [b for b in same if b.key in self._started and not b.done]
        if running:
            return next((b for b in running if args is not None and b.args == args), running[0])
        return next((b for b in same if not b.done), None)

    def get(self, call_id: str, default: ToolBlock | None = None) -> ToolBlock | None:
        """The block ``call_id`` means now: this turn's first not finished (else its latest), or
        the latest block of an earlier turn with that id."""
        same = self.with_id(call_id)
        if not same:
            return self._latest.get(call_id, default)
        return next((b for b in same if not b.done), same[-1])

    def __getitem__(self, call_id: str) -> ToolBlock:
        block = self.get(call_id)
        if block is None:
            raise KeyError(call_id)
        return block

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._latest

    def __len__(self) -> int:
        return len(self._latest)

    def __iter__(self) -> Iterator[str]:
        return iter(self._latest)

    def values(self) -> list[ToolBlock]:
        """Every tool block of the transcript, in order (sweeps over unfinished ones)."""
        return list(self._all)
