"""The extension-UI sub-protocol over RPC (R-RPC-21..23): dialogs become ``extension_ui_request``
lines answered by ``extension_ui_response``; timeouts, aborts and end of input resolve them with
the cancel value; fire-and-forget requests; TUI-only methods degrade."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_app.ai.event_stream import AbortController
from tests.modes.rpc_harness import make_harness


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    return str(tmp_path)


def _requests(h, method: str) -> list[dict]:
    return [x for x in h.lines() if x.get("type") == "extension_ui_request" and x["method"] == method]


async def test_confirm_round_trip_while_other_commands_are_answered(cwd: str) -> None:
    h = await make_harness(cwd)
    ui = h.server.ui
    answer = asyncio.ensure_future(ui.confirm("Delete?", "Really delete a.txt?"))
    request = await h.wait_for(lambda x: x.get("type") == "extension_ui_request")
    assert request["method"] == "confirm" and request["title"] == "Delete?"
    assert request["message"] == "Really delete a.txt?" and "timeout" not in request
    # the reader keeps serving while the dialog waits (70 R-SRV-03)
    assert (await h.request({"id": "s", "type": "get_state"}))["success"] is True
    h.send({"type": "extension_ui_response", "id": "not-a-pending-id", "confirmed": False})  # ignored
    h.send({"type": "extension_ui_response", "id": request["id"], "confirmed": True})
    assert await asyncio.wait_for(answer, 5) is True
    assert ui.pending_count == 0
    await h.close()


async def test_select_input_editor_values_and_cancel(cwd: str) -> None:
    h = await make_harness(cwd)
    ui = h.server.ui
    select = asyncio.ensure_future(ui.select("Pick", ["a", "b"]))
    request = await h.wait_for(lambda x: x.get("method") == "select")
    assert request["options"] == ["a", "b"]
    h.send({"type": "extension_ui_response", "id": request["id"], "value": "b"})
    assert await asyncio.wait_for(select, 5) == "b"

    text = asyncio.ensure_future(ui.input("Name", "type here"))
    request = await h.wait_for(lambda x: x.get("method") == "input")
    assert request["placeholder"] == "type here"
    h.send({"type": "extension_ui_response", "id": request["id"], "cancelled": True})
    assert await asyncio.wait_for(text, 5) is None

    edited = asyncio.ensure_future(ui.editor("Edit", "draft"))
    request = await h.wait_for(lambda x: x.get("method") == "editor")
    assert request["prefill"] == "draft"
    h.send({"type": "extension_ui_response", "id": request["id"], "value": "final"})
    assert await asyncio.wait_for(edited, 5) == "final"
    await h.close()


async def test_timeout_abort_and_end_of_input_give_the_cancel_value(cwd: str) -> None:
    h = await make_harness(cwd)
    ui = h.server.ui
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await ui.confirm("Quick?", "no answer", timeout=0.1) is False
    assert loop.time() - started < 3
    assert _requests(h, "confirm")[0]["timeout"] == 100

    controller = AbortController()
    controller.abort()
    before = len(h.lines())
    assert await ui.select("Never sent", ["x"], signal=controller.signal) is None
    assert len(h.lines()) == before  # an already-aborted signal sends nothing

    controller = AbortController()
    pending = asyncio.ensure_future(ui.input("Aborted later"))
    pending_signal = asyncio.ensure_future(ui.input("Aborted", signal=controller.signal))
    await h.wait_for(lambda x: x.get("title") == "Aborted")
    controller.abort()
    assert await asyncio.wait_for(pending_signal, 5) is None
    assert await h.close() == 0  # EOF: open dialogs resolve with their cancel value
    assert await asyncio.wait_for(pending, 5) is None


async def test_fire_and_forget_requests_and_degraded_methods(cwd: str) -> None:
    h = await make_harness(cwd)
    ui = h.server.ui
    ui.notify("Saved", "warning")
    ui.set_status("mode", "plan")
    ui.set_status("mode", None)
    ui.set_widget("todo", ["- a", "- b"], placement="belowEditor")
    ui.set_widget("component", lambda *_: None)  # factories cannot cross the wire
    ui.set_title("pi: work")
    ui.paste_to_editor("pasted")
    methods = [
        (x["method"], {k: v for k, v in x.items() if k not in ("type", "id", "method")}) for x in h.lines()
    ]
    assert methods == [
        ("notify", {"message": "Saved", "notifyType": "warning"}),
        ("setStatus", {"statusKey": "mode", "statusText": "plan"}),
        ("setStatus", {"statusKey": "mode"}),
        ("setWidget", {"widgetKey": "todo", "widgetLines": ["- a", "- b"], "widgetPlacement": "belowEditor"}),
        ("setTitle", {"title": "pi: work"}),
        ("set_editor_text", {"text": "pasted"}),
    ]
    assert all(isinstance(x["id"], str) and x["id"] for x in h.lines())
    assert await ui.custom(lambda *_: None) is None
    assert ui.get_editor_text() == "" and ui.get_tools_expanded() is False and ui.get_all_themes() == []
    assert ui.set_theme("dark") == {"success": False, "error": "Theme switching not supported in RPC mode"}
    await h.close()
