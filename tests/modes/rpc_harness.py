"""An in-process RPC server over the scripted provider, for fast protocol tests.

``RpcHarness`` runs the real ``RpcServer`` on the test's loop with a real ``AgentSession``; input
records are fed through a queue and output lines are captured from an in-memory binary stream.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from pi_app.ai.auth import InMemoryCredentialStore
from pi_app.ai.testing import fake_model, fake_provider
from pi_app.modes.rpc.framing import LineWriter, split_records
from pi_app.modes.rpc.server import RpcServer


class RpcHarness:
    def __init__(self, session: Any, provider: Any) -> None:
        self.session = session
        self.provider = provider
        self.stream = io.BytesIO()
        self.server = RpcServer(session, LineWriter(self.stream))
        self._input: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.stop = asyncio.Event()
        self.task = asyncio.ensure_future(self.server.serve(self._records(), self.stop))

    async def _records(self) -> AsyncIterator[bytes]:
        while (record := await self._input.get()) is not None:
            yield record

    def send_raw(self, data: bytes) -> None:
        for record in split_records(data):
            self._input.put_nowait(record)

    def send(self, command: dict[str, Any]) -> None:
        self.send_raw(json.dumps(command, ensure_ascii=False).encode() + b"\n")

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(r) for r in self.stream.getvalue().split(b"\n") if r]

    def responses(self, request_id: Any = None) -> list[dict[str, Any]]:
        out = [line for line in self.lines() if line.get("type") == "response"]
        return out if request_id is None else [r for r in out if r.get("id") == request_id]

    async def wait_for(self, predicate: Any, timeout: float = 10) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for line in self.lines():
                if predicate(line):
                    return line
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no matching line; got {[x.get('type') for x in self.lines()]}")
            await asyncio.sleep(0.01)

    async def response(self, request_id: Any, timeout: float = 10) -> dict[str, Any]:
        return await self.wait_for(
            lambda x: x.get("type") == "response" and x.get("id") == request_id, timeout
        )

    async def request(self, command: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
        self.send(command)
        return await self.response(command["id"], timeout)

    async def close(self, timeout: float = 10) -> int:
        self._input.put_nowait(None)
        return await asyncio.wait_for(self.task, timeout)


async def make_harness(
    cwd: str,
    script: Sequence[Any] = (),
    *,
    models: Sequence[Any] | None = None,
    settings: dict[str, Any] | None = None,
    session_dir: str | None = None,
) -> RpcHarness:
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.sdk import create_agent_session
    from pi_app.coding.session.manager import SessionManager
    from pi_app.coding.settings import SettingsManager

    provider = fake_provider(script=list(script), models=models)
    registry = ModelRegistry(InMemoryCredentialStore(), None)
    registry.models.set_provider(provider)
    created = await create_agent_session(
        cwd,
        session_manager=SessionManager.create(cwd, session_dir)
        if session_dir
        else SessionManager.in_memory(cwd),
        settings_manager=SettingsManager.in_memory(settings),
        model_registry=registry,
        model=provider.get_models()[0],
        no_context_files=True,
    )
    return RpcHarness(created.session, provider)


__all__ = ["RpcHarness", "fake_model", "make_harness"]
