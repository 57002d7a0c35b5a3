"""Waiting for an answer in the editor slot: ``answer = await ask(app, widget)``.

This is the one way the UI thread shows a widget where the editor is and waits for what the user
answers there: the app's command flows (``/tree`` → "Summarize branch?" → loader → navigate read
as straight-line code), the trust question, the login dialog's inputs and the extensions' dialogs
(``extensions.queue``). ``SlotHost`` wraps the widget, shows it in the editor slot (R-SEL-00) and
resolves an ``asyncio`` future with the next ``Answer`` message the widget posts (its choice or its
cancel); ``answer_in`` waits for the next one of a widget already shown (the login dialog asked
again). The caller then shows the next step or calls ``app.restore_editor()``; with
``close=True`` the widget leaves the slot however the wait ends.

A question asked from another thread (the agent loop, an extension's loop) does not come here
directly: it goes through ``SessionBridge.ask_user``, which runs a flow that calls ``ask`` on this
thread. When the asking side gives up (a timeout, an abort, the app closing), that flow's task is
cancelled: ``ask`` then takes its widget out of the slot and lets the cancellation through.

Flows must run in a worker, never inside a message handler or action of the app: the app keeps
dispatching keys to the widget while the flow waits.
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

from pi_app.tui.editor.slot import APP
from pi_app.tui.input.focus import focus_target_of

if TYPE_CHECKING:
    from pi_app.tui.host import SelectorHost


@dataclass
class Answer(Message):
    """Base of every selector message that ends the selector (a choice or a cancel)."""


class SlotHost(Vertical):
    """Holds one widget in the editor slot; ``next_answer`` resolves with the next ``Answer`` it posts.

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
        self._answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self.left = False
        """The host has left the slot (closed or replaced): no answer will come any more."""
        self._side_messages = side_messages
        self._on_side = on_side

    @property
    def focus_target(self) -> Widget:
        return focus_target_of(self.selector)

    def compose(self) -> ComposeResult:
        yield self.selector

    def on_mount(self) -> None:
        self.focus_target.focus()  # the widget's own target: a dialog's input is mounted by now

    def next_answer(self) -> asyncio.Future[Answer]:
        """The future of the widget's next ``Answer`` (cancelled when the host leaves the slot first)."""
        if self._answer.done():
            self._answer = asyncio.get_running_loop().create_future()
            if self.left:
                self._answer.cancel()
        return self._answer

    @on(Answer)
    def _answered(self, message: Answer) -> None:
        message.stop()
        if not self._answer.done():
            self._answer.set_result(message)

    @on(Message)
    def _side(self, message: Message) -> None:
        if self._on_side is not None and isinstance(message, self._side_messages):
            message.stop()
            self._on_side(message)

    def on_unmount(self) -> None:
        self.abandoned()

    def abandoned(self) -> None:
        """Replaced by another selector (shown or not), or closed: the waiting flow ends."""
        self.left = True
        if not self._answer.done():
            self._answer.cancel()


async def ask(
    app: SelectorHost,
    selector: Widget,
    *,
    owner: str = APP,
    close: bool = False,
    **host_options: Any,
) -> Answer | None:
    """Show ``selector`` in the editor slot (``owner``: see ``EditorSlot.show``) and wait for its
    answer; None if it left the slot first (replaced or closed). With ``close`` it leaves the slot
    once answered; without, the caller shows the next step or restores the editor."""
    host = SlotHost(selector, **host_options)
    app.show_in_editor_slot(host, owner)
    try:
        return await answer_in(app, host, close=close)
    except asyncio.CancelledError:  # the side that asked gave up: its widget leaves the slot
        _leave(app, host)
        raise


async def answer_in(app: SelectorHost, host: SlotHost, *, close: bool = False) -> Answer | None:
    """Wait for the next answer of the widget ``host`` shows (a dialog asked again); None if the
    host leaves the slot first. A cancelled wait is passed on and leaves the host where it is: who
    showed it decides (``ask`` takes it away; a login's dialog stays for the login's next step).
    With ``close`` the host leaves once answered."""
    try:
        answer = await host.next_answer()
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        return None
    if close:
        _leave(app, host)
    return answer


def _leave(app: SelectorHost, host: SlotHost) -> None:
    if not host.left and app.has_screen:
        app.editor_slot.close(host)
