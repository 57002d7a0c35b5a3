"""Awaiting a selector's answer: ``answer = await ask(app, selector)``.

Selectors post messages; command flows (``/tree`` → "Summarize branch?" → loader → navigate)
read better as straight-line code. ``SlotHost`` wraps a selector, shows it in the editor slot
(R-SEL-00) and resolves a future with the first ``Answer`` message the selector posts (its
choice or its cancel). The caller then shows the next step or calls ``app.restore_editor()``.

Flows must run in a worker, never inside a message handler or action of the app: the app keeps
dispatching keys to the selector while the flow waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget

if TYPE_CHECKING:
    from pi_app.tui.host import SelectorHost


@dataclass
class Answer(Message):
    """Base of every selector message that ends the selector (a choice or a cancel)."""


class SlotHost(Vertical):
    """Holds one selector in the editor slot; ``answer`` resolves with its first ``Answer``.

    ``on_side`` receives every other message the selector posts that is an instance of one of
    ``side_messages`` (e.g. label edits in the tree), without ending the selector.
    """

    DEFAULT_CSS = """
    SlotHost { height: auto; }
    """

    def __init__(
        self,
        selector: Widget,
        *,
        side_messages: tuple[type[Message], ...] = (),
        on_side: Callable[[Message], Any] | None = None,
    ) -> None:
        super().__init__()
        self.selector = selector
        self.answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._side_messages = side_messages
        self._on_side = on_side

    @property
    def focus_target(self) -> Widget:
        return self.selector

    def compose(self) -> ComposeResult:
        yield self.selector

    def on_mount(self) -> None:
        self.selector.focus()

    @on(Answer)
    def _answered(self, message: Answer) -> None:
        message.stop()
        if not self.answer.done():
            self.answer.set_result(message)

    @on(Message)
    def _side(self, message: Message) -> None:
        if self._on_side is not None and isinstance(message, self._side_messages):
            message.stop()
            self._on_side(message)

    def on_unmount(self) -> None:
        self.abandoned()

    def abandoned(self) -> None:
        """Replaced by another selector (shown or not): the waiting flow ends."""
        if not self.answer.done():
            self.answer.cancel()


async def ask(app: SelectorHost, selector: Widget, **host_options: Any) -> Answer | None:
    """Show ``selector`` in the editor slot and wait for its answer (None if it was replaced)."""
    host = SlotHost(selector, **host_options)
    app.show_in_editor_slot(host)
    try:
        return await host.answer
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        return None
