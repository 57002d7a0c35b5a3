"""Extensions in ``pi --mode rpc`` through the installed ``pi`` (spec 60 R-RPC-12..14, R-RPC-20..23,
R-RPC-30; spec 40 R-EXT-10, R-EXT-48; issue acceptance 3 in RPC mode).

The extension's dialogs travel as ``extension_ui_request`` lines answered with
``extension_ui_response``; its commands are listed by ``get_commands`` and run through ``prompt``
even while the agent streams; handler errors arrive as ``extension_error`` events; load errors are
one stderr line naming the file; ``ctx.shutdown()`` ends the process with status 0.
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from pi_app.ai.testing import delay, text
from pi_app.modes.rpc_client import RpcClient, RpcError
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

ASKER = """
def setup(pi):
    print("noise from setup")  # stdout is the protocol: this must reach stderr (spec 60 scenario 25)

    async def ask(args, ctx):
        ok = await ctx.ui.confirm("Proceed?", f"Run {args}?")
        ctx.ui.notify(f"answer: {ok}", "info")
        ctx.ui.set_status("probe", f"has_ui={ctx.has_ui} mode={ctx.mode}")

    async def quick(args, ctx):
        late = await ctx.ui.confirm("Quick?", "No one answers", timeout=0.2)
        ctx.ui.notify(f"timed out: {late}", "warning")

    pi.register_command("ask", description="Ask before running", handler=ask)
    pi.register_command("quick", handler=quick)
    pi.register_command("bye", handler=lambda args, ctx: ctx.shutdown())

    @pi.on("input")
    def swallow(event, ctx):
        if event.text == "ping":
            return {"action": "handled"}

    @pi.on("agent_start")
    def boom(event, ctx):
        raise ValueError("handler exploded")
"""


def _write(path: Path, code: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(code))
    return path


def _home(tmp_path: Path) -> tuple[PiHome, Path]:
    home = PiHome.make(tmp_path)
    ext = home.agent_dir / "extensions"
    _write(ext / "asker.py", ASKER)
    _write(ext / "broken.py", "def setup(pi):\n    return (\n")
    _write(ext / "raises.py", "def setup(pi):\n    raise RuntimeError('setup exploded')\n")
    return home, ext


async def _wait_for_request(client: RpcClient, method: str, timeout: float = 20) -> dict:
    future: asyncio.Future[dict] = asyncio.get_running_loop().create_future()

    def listener(event: dict) -> None:
        if event.get("type") == "extension_ui_request" and event.get("method") == method:
            if not future.done():
                future.set_result(event)

    unsubscribe = client.on_event(listener)
    try:
        return await asyncio.wait_for(future, timeout)
    finally:
        unsubscribe()


async def test_rpc_extension_commands_dialogs_errors_and_shutdown(tmp_path: Path) -> None:
    home, ext = _home(tmp_path)
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(delay(0.6), text("slow answer"))
        client = RpcClient(command=[PI], cwd=str(home.project), env=home.env())
        await client.start()
        try:
            commands = (await client.call("get_commands"))["commands"]
            ask = next(c for c in commands if c["name"] == "ask")
            assert ask["source"] == "extension" and ask["description"] == "Ask before running"
            assert ask["path"] == str(ext / "asker.py")

            # a confirm dialog round trip, then fire-and-forget notify/setStatus
            confirm = asyncio.ensure_future(_wait_for_request(client, "confirm"))
            notify = asyncio.ensure_future(_wait_for_request(client, "notify"))
            status = asyncio.ensure_future(_wait_for_request(client, "setStatus"))
            assert await client.prompt("/ask deploy") == "handled"  # pi 1.6.0's data.disposition
            request = await confirm
            assert request["title"] == "Proceed?" and request["message"] == "Run deploy?"
            await client.respond_ui(request["id"], confirmed=True)
            assert (await notify)["message"] == "answer: True"
            assert (await status)["statusText"] == "has_ui=True mode=rpc"

            # an unanswered dialog with a timeout resolves False on its own (ms on the wire)
            notify = asyncio.ensure_future(_wait_for_request(client, "notify"))
            confirm = asyncio.ensure_future(_wait_for_request(client, "confirm"))
            await client.prompt("/quick")
            assert (await confirm)["timeout"] == 200
            assert (await notify)["message"] == "timed out: False"

            # a handler error is an extension_error event; the run still completes
            errors: list[dict] = []
            client.on_event(lambda e: errors.append(e) if e.get("type") == "extension_error" else None)
            idle = asyncio.ensure_future(client.wait_for_idle(30))
            started = asyncio.ensure_future(client.wait_for_event("agent_start", 20))
            assert await client.prompt("ping") == "handled"  # an input handler consumed it: no run
            await asyncio.sleep(0)
            assert await client.prompt("hi") == "started"
            await started
            # extension commands run at once even while the agent streams (R-EXT-48) ...
            notify = asyncio.ensure_future(_wait_for_request(client, "notify"))
            confirm = asyncio.ensure_future(_wait_for_request(client, "confirm"))
            await client.prompt("/ask now", streaming_behavior="steer")
            await client.respond_ui((await confirm)["id"], cancelled=True)
            assert (await notify)["message"] == "answer: False"
            # ... but cannot be queued as steering text
            try:
                await client.steer("/ask later")
                raise AssertionError("steering an extension command must fail")
            except RpcError as exc:
                assert "cannot be queued" in str(exc)
            await idle
            assert await client.get_last_assistant_text() == "slow answer"
            assert errors == [
                {
                    "type": "extension_error",
                    "extensionPath": str(ext / "asker.py"),
                    "event": "agent_start",
                    "error": "handler exploded",
                }
            ]

            # ctx.shutdown(): the process ends by itself with status 0 after the command's response
            await client.prompt("/bye")
            assert client.process is not None
            assert await asyncio.wait_for(client.process.wait(), 20) == 0
        finally:
            await client.stop()
    stderr = client.stderr_tail()
    lines = stderr.splitlines()
    assert any(
        line.startswith(f"Extension error ({ext / 'broken.py'}): Failed to load extension: SyntaxError")
        for line in lines
    ), stderr
    assert (
        f"Extension error ({ext / 'raises.py'}): Failed to load extension: RuntimeError: setup exploded"
        in lines
    )
    assert "Traceback" not in stderr
    assert "noise from setup" in lines
