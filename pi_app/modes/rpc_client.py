"""A typed asyncio client for ``pi --mode rpc`` (spec 60 §3.17, decision D-33).

``RpcClient`` spawns ``[sys.executable, "-m", "pi_app", "--mode", "rpc", …]`` with pipes, reads
stdout with the RPC framing (records split on ``\\n`` only), keeps stderr for error messages, and
numbers requests ``req_<n>``. Every command of the protocol has an async method returning the
response's ``data``; a ``success: false`` response raises ``RpcError`` with the server's message.

Events go to listeners registered with ``on_event``; ``wait_for_idle`` resolves on ``agent_settled``
(as pi 1.6.0's client does: ``agent_end`` can be followed by a retry or queued work),
``wait_for_event(type)`` on any other event type. ``prompt``/``steer``/``follow_up`` return the
response's ``disposition`` (``started``/``queued``/``handled``; no run follows ``handled``). Extension dialogs reach
the handler given to ``on_ui_request`` and are answered with ``respond_ui``.

If the child exits, pending requests fail at once with its exit code and the tail of its stderr.

Example::

    async with RpcClient(cli_args=["--no-session"]) as client:
        events = await client.prompt_and_wait("list the files")
        print(await client.get_last_assistant_text())
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from pi_app.modes.rpc.framing import RecordSplitter

EventListener = Callable[[dict[str, Any]], Any]
STDERR_TAIL = 4000


class RpcError(RuntimeError):
    """The server answered ``success: false`` (``command`` names it) or the child went away."""

    def __init__(self, message: str, command: str | None = None) -> None:
        super().__init__(message)
        self.command = command


class RpcClient:
    def __init__(
        self,
        cli_args: Sequence[str] = (),
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        provider: str | None = None,
        model: str | None = None,
        command: Sequence[str] | None = None,
    ) -> None:
        args = list(command or [sys.executable, "-m", "pi_app"]) + ["--mode", "rpc"]
        if provider:
            args += ["--provider", provider]
        if model:
            args += ["--model", model]
        self.args = args + list(cli_args)
        self.cwd = cwd
        self.env = env
        self.process: asyncio.subprocess.Process | None = None
        self._next_id = 0
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._listeners: list[EventListener] = []
        self._ui_handler: EventListener | None = None
        self._stderr = bytearray()
        self._tasks: list[asyncio.Task[Any]] = []
        self._exit_error: RpcError | None = None

    # -- lifecycle --------------------------------------------------------------------------------

    async def start(self) -> RpcClient:
        self.process = await asyncio.create_subprocess_exec(
            *self.args,
            cwd=self.cwd,
            env=self.env if self.env is not None else dict(os.environ),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=1 << 20,
        )
        self._tasks = [
            asyncio.ensure_future(self._read_stdout()),
            asyncio.ensure_future(self._read_stderr()),
        ]
        try:
            await asyncio.wait_for(self.process.wait(), 0.1)
        except TimeoutError:
            return self
        await asyncio.sleep(0)  # let the readers drain what the child wrote
        raise RpcError(f"pi exited during start-up with code {self.process.returncode}: {self.stderr_tail()}")

    async def stop(self) -> int | None:
        """SIGTERM, then SIGKILL after 1 s; returns the exit code."""
        proc = self.process
        if proc is None:
            return None
        if proc.returncode is None:
            try:
                proc.terminate()
                await asyncio.wait_for(proc.wait(), 1.0)
            except TimeoutError:
                try:
                    proc.kill()
                except ProcessLookupError:
                    pass  # it exited between the timeout and the kill
                await proc.wait()
            except ProcessLookupError:
                pass
        for task in self._tasks:
            try:
                await asyncio.wait_for(task, 1.0)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
        return proc.returncode

    async def close_stdin(self) -> int | None:
        """End the input (EOF) and wait for the child to shut down by itself."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.close()
        return await self.process.wait()

    async def __aenter__(self) -> RpcClient:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    def stderr_tail(self) -> str:
        return self._stderr[-STDERR_TAIL:].decode("utf-8", errors="replace")

    # -- plumbing ---------------------------------------------------------------------------------

    async def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        splitter = RecordSplitter()
        while True:
            chunk = await self.process.stdout.read(65536)
            if not chunk:
                break
            for record in splitter.feed(chunk):
                self._handle(record)
        for record in splitter.finish():
            self._handle(record)
        code = await self.process.wait()
        self._exit_error = RpcError(f"pi exited with code {code}: {self.stderr_tail()}")
        for future in self._pending.values():
            if not future.done():
                future.set_exception(self._exit_error)
        self._pending.clear()

    async def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        while chunk := await self.process.stderr.read(65536):
            self._stderr.extend(chunk)
            del self._stderr[: max(0, len(self._stderr) - 8 * STDERR_TAIL)]

    def _handle(self, record: bytes) -> None:
        message = json.loads(record.decode("utf-8"))
        if message.get("type") == "response":
            future = self._pending.pop(str(message.get("id")), None) if "id" in message else None
            if future is not None and not future.done():
                future.set_result(message)
                return
        if message.get("type") == "extension_ui_request" and self._ui_handler is not None:
            self._ui_handler(message)
        for listener in list(self._listeners):
            listener(message)

    async def send_raw(self, line: str | bytes) -> None:
        """Write a raw record (tests use it for malformed input)."""
        assert self.process is not None and self.process.stdin is not None
        data = line.encode("utf-8") if isinstance(line, str) else line
        self.process.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        await self.process.stdin.drain()

    async def request(self, command: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        """Send a command and return the whole response (successful or not)."""
        if self._exit_error is not None:
            raise self._exit_error
        self._next_id += 1
        request_id = f"req_{self._next_id}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        await self.send_raw(json.dumps({"id": request_id, **command}, ensure_ascii=False))
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            self._pending.pop(request_id, None)
            raise RpcError(f"Timed out waiting for {command.get('type')}: {self.stderr_tail()}") from None

    async def call(self, kind: str, timeout: float = 60, **fields: Any) -> Any:
        response = await self.request(
            {"type": kind, **{k: v for k, v in fields.items() if v is not None}}, timeout
        )
        if not response.get("success"):
            raise RpcError(str(response.get("error")), response.get("command"))
        return response.get("data")

    # -- events -----------------------------------------------------------------------------------

    def on_event(self, listener: EventListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def on_ui_request(self, handler: EventListener | None) -> None:
        self._ui_handler = handler

    async def wait_for_event(self, event_type: str, timeout: float = 60) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

        def listener(event: dict[str, Any]) -> None:
            if event.get("type") == event_type and not future.done():
                future.set_result(event)

        unsubscribe = self.on_event(listener)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise RpcError(f"Timed out waiting for {event_type}: {self.stderr_tail()}") from None
        finally:
            unsubscribe()

    async def wait_for_idle(self, timeout: float = 60) -> None:
        await self.wait_for_event("agent_settled", timeout)

    async def collect_events(self, timeout: float = 60) -> list[dict[str, Any]]:
        """Every event until the next ``agent_settled`` (included)."""
        events: list[dict[str, Any]] = []
        unsubscribe = self.on_event(events.append)
        try:
            await self.wait_for_idle(timeout)
        finally:
            unsubscribe()
        return events

    async def prompt_and_wait(
        self, message: str, images: list[dict[str, Any]] | None = None, timeout: float = 60
    ) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        unsubscribe = self.on_event(events.append)
        try:
            idle = asyncio.ensure_future(self.wait_for_idle(timeout))
            await asyncio.sleep(0)
            try:
                disposition = await self.prompt(message, images)
            except BaseException:
                idle.cancel()
                raise
            if disposition == "handled":  # no run started: nothing will settle
                idle.cancel()
            else:
                await idle
        finally:
            unsubscribe()
        return events

    async def respond_ui(
        self,
        request_id: str,
        *,
        value: str | None = None,
        confirmed: bool | None = None,
        cancelled: bool = False,
    ) -> None:
        answer: dict[str, Any] = {"type": "extension_ui_response", "id": request_id}
        if cancelled:
            answer["cancelled"] = True
        elif confirmed is not None:
            answer["confirmed"] = confirmed
        else:
            answer["value"] = value
        await self.send_raw(json.dumps(answer, ensure_ascii=False))

    # -- commands ---------------------------------------------------------------------------------

    async def prompt(
        self, message: str, images: list[dict[str, Any]] | None = None, streaming_behavior: str | None = None
    ) -> str | None:
        data = await self.call("prompt", message=message, images=images, streamingBehavior=streaming_behavior)
        return _disposition(data)

    async def steer(self, message: str, images: list[dict[str, Any]] | None = None) -> str | None:
        return _disposition(await self.call("steer", message=message, images=images))

    async def follow_up(self, message: str, images: list[dict[str, Any]] | None = None) -> str | None:
        return _disposition(await self.call("follow_up", message=message, images=images))

    async def abort(self) -> None:
        await self.call("abort")

    async def clear_queue(self) -> dict[str, list[str]]:
        return await self.call("clear_queue")

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        return await self.call("new_session", parentSession=parent_session)

    async def get_state(self) -> dict[str, Any]:
        return await self.call("get_state")

    async def get_messages(self) -> list[dict[str, Any]]:
        return (await self.call("get_messages"))["messages"]

    async def set_model(self, provider: str, model_id: str) -> dict[str, Any]:
        return await self.call("set_model", provider=provider, modelId=model_id)

    async def cycle_model(self) -> dict[str, Any] | None:
        return await self.call("cycle_model")

    async def get_available_models(self) -> list[dict[str, Any]]:
        return (await self.call("get_available_models"))["models"]

    async def set_thinking_level(self, level: str) -> None:
        await self.call("set_thinking_level", level=level)

    async def cycle_thinking_level(self) -> dict[str, Any] | None:
        return await self.call("cycle_thinking_level")

    async def get_available_thinking_levels(self) -> list[str]:
        return (await self.call("get_available_thinking_levels"))["levels"]

    async def set_steering_mode(self, mode: str) -> None:
        await self.call("set_steering_mode", mode=mode)

    async def set_follow_up_mode(self, mode: str) -> None:
        await self.call("set_follow_up_mode", mode=mode)

    async def compact(self, custom_instructions: str | None = None, timeout: float = 120) -> dict[str, Any]:
        return await self.call("compact", timeout=timeout, customInstructions=custom_instructions)

    async def set_auto_compaction(self, enabled: bool) -> None:
        await self.call("set_auto_compaction", enabled=enabled)

    async def set_auto_retry(self, enabled: bool) -> None:
        await self.call("set_auto_retry", enabled=enabled)

    async def abort_retry(self) -> None:
        await self.call("abort_retry")

    async def bash(
        self, command: str, exclude_from_context: bool = False, timeout: float = 120
    ) -> dict[str, Any]:
        return await self.call(
            "bash", timeout=timeout, command=command, excludeFromContext=exclude_from_context
        )

    async def abort_bash(self) -> None:
        await self.call("abort_bash")

    async def get_session_stats(self) -> dict[str, Any]:
        return await self.call("get_session_stats")

    async def export_html(self, output_path: str | None = None) -> str:
        return (await self.call("export_html", outputPath=output_path))["path"]

    async def switch_session(self, session_path: str) -> dict[str, Any]:
        return await self.call("switch_session", sessionPath=session_path)

    async def fork(self, entry_id: str) -> dict[str, Any]:
        return await self.call("fork", entryId=entry_id)

    async def clone(self) -> dict[str, Any]:
        return await self.call("clone")

    async def get_fork_messages(self) -> list[dict[str, str]]:
        return (await self.call("get_fork_messages"))["messages"]

    async def get_entries(self, since: str | None = None) -> dict[str, Any]:
        return await self.call("get_entries", since=since)

    async def get_tree(self) -> dict[str, Any]:
        return await self.call("get_tree")

    async def get_last_assistant_text(self) -> str | None:
        return (await self.call("get_last_assistant_text"))["text"]

    async def set_session_name(self, name: str) -> None:
        await self.call("set_session_name", name=name)

    async def get_commands(self) -> list[dict[str, Any]]:
        return (await self.call("get_commands"))["commands"]


def _disposition(data: Any) -> str | None:
    """``data.disposition`` of a prompt/steer/follow_up response (None from an older pi)."""
    value = data.get("disposition") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None
