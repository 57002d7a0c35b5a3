"""The extension UI of RPC mode: dialogs and notices travel to the client (R-RPC-21..23, 40 R-UI-07).

``RpcUIContext`` implements ``ExtensionUIContext``. A dialog (``select``, ``confirm``, ``input``,
``editor``) writes ``{"type":"extension_ui_request","id":<uuid>,"method":…}`` and waits for the
client's ``extension_ui_response`` with that id; a timeout (seconds in Python, milliseconds on the
wire), an abort signal or the end of input resolves it with the cancel value (``None``/``False``).
An already-aborted signal sends nothing. Fire-and-forget methods (``notify``, ``setStatus``,
``setWidget`` with string lines, ``setTitle``, ``set_editor_text``) write one request and return.
TUI-only methods degrade as R-RPC-23 lists.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.extensions.ui import NoOpUIContext, settle_dialog


class RpcUIContext(NoOpUIContext):
    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._closed = False

    # -- the response side ------------------------------------------------------------------------

    def resolve(self, request_id: str, response: dict[str, Any]) -> bool:
        """Deliver a client's ``extension_ui_response``; an unknown id is ignored (returns False)."""
        future = self._pending.get(str(request_id))
        if future is None or future.done():
            return False
        future.set_result(response)
        return True

    def close(self) -> None:
        """No answer can arrive any more (stdin ended): every open dialog gets its cancel value."""
        self._closed = True
        for future in list(self._pending.values()):
            if not future.done():
                future.set_result({"cancelled": True})

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    # -- dialogs ----------------------------------------------------------------------------------

    async def _dialog(
        self, method: str, fields: dict[str, Any], *, signal: AbortSignal | None, timeout: float | None
    ) -> dict[str, Any] | None:
        if self._closed or (signal is not None and signal.aborted):
            return None
        request_id = str(uuid.uuid4())
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        request: dict[str, Any] = {"type": "extension_ui_request", "id": request_id, "method": method}
        request.update({k: v for k, v in fields.items() if v is not None})
        if timeout is not None:
            request["timeout"] = int(timeout * 1000)
        try:
            self._send(request)
            answer = await settle_dialog(future, cancel_value=None, timeout=timeout, signal=signal)
        finally:
            self._pending.pop(request_id, None)
        if answer is None or answer.get("cancelled"):
            return None
        return answer

    async def select(
        self,
        title: str,
        options: list[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
        **_: Any,
    ) -> str | None:
        answer = await self._dialog(
            "select", {"title": title, "options": list(options)}, signal=signal, timeout=timeout
        )
        return _string(answer)

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
        **_: Any,
    ) -> bool:
        answer = await self._dialog(
            "confirm", {"title": title, "message": message}, signal=signal, timeout=timeout
        )
        return bool(answer.get("confirmed")) if answer is not None else False

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
        **_: Any,
    ) -> str | None:
        answer = await self._dialog(
            "input", {"title": title, "placeholder": placeholder}, signal=signal, timeout=timeout
        )
        return _string(answer)

    async def editor(
        self,
        title: str,
        prefill: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
        **_: Any,
    ) -> str | None:
        answer = await self._dialog(
            "editor", {"title": title, "prefill": prefill}, signal=signal, timeout=timeout
        )
        return _string(answer)

    # -- fire and forget --------------------------------------------------------------------------

    def _notice(self, method: str, **fields: Any) -> None:
        request = {"type": "extension_ui_request", "id": str(uuid.uuid4()), "method": method}
        request.update({k: v for k, v in fields.items() if v is not None})
        self._send(request)

    def notify(self, message: str, level: str = "info") -> None:
        self._notice("notify", message=message, notifyType=level)

    def set_status(self, key: str, text: str | None) -> None:
        self._notice("setStatus", statusKey=key, statusText=text)

    def set_widget(self, key: str, content: Any, *, placement: str = "aboveEditor", **_: Any) -> None:
        if content is not None and not (
            isinstance(content, list) and all(isinstance(x, str) for x in content)
        ):
            return  # component factories cannot cross the wire (R-RPC-22)
        self._notice("setWidget", widgetKey=key, widgetLines=content, widgetPlacement=placement)

    def set_title(self, title: str) -> None:
        self._notice("setTitle", title=title)

    def set_editor_text(self, text: str) -> None:
        self._notice("set_editor_text", text=text)

    def paste_to_editor(self, text: str) -> None:
        self.set_editor_text(text)

    def set_theme(self, name_or_theme: Any) -> dict[str, Any]:
        return {"success": False, "error": "Theme switching not supported in RPC mode"}


def _string(answer: dict[str, Any] | None) -> str | None:
    if answer is None:
        return None
    value = answer.get("value")
    return value if isinstance(value, str) else None
