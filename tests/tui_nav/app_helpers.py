"""The real ``PiApp`` over a persisted session in a temp folder, answered by the scripted provider."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pi_app.ai.auth import InMemoryCredentialStore
from pi_app.ai.testing import fake_provider, text
from pi_app.tui.app import PiApp

CWD = "/home/user/project"


def echo_turn(model: Any, context: Any, options: Any) -> list[Any]:
    """Answers every request with ``answer: <last user text>`` (summaries included)."""
    last = context.messages[-1]
    content = (
        last.content
        if isinstance(last.content, str)
        else "".join(getattr(b, "text", "") for b in last.content)
    )
    return [text(f"answer: {' '.join(content.split())[:40]}")]


def session_factory(
    session_dir: Path | None,
    *,
    open_path: Path | None = None,
    cwd: str = CWD,
    manager: Any = None,
    script: Any = None,
) -> tuple[Callable[[], Awaitable[Any]], Any]:
    """``manager`` (a prepared ``SessionManager``) wins over ``open_path``, which wins over a new
    session in ``session_dir``."""
    provider = fake_provider(script=script if script is not None else [echo_turn] * 50)

    async def factory() -> Any:
        from pi_app.coding.models.registry import ModelRegistry
        from pi_app.coding.sdk import create_agent_session
        from pi_app.coding.session.manager import SessionManager
        from pi_app.coding.settings import SettingsManager

        registry = ModelRegistry(InMemoryCredentialStore(), None)
        registry.models.set_provider(provider)
        if manager is not None:
            sm = manager
        elif open_path is not None:
            sm = SessionManager.open(open_path, session_dir)
        else:
            sm = SessionManager.create(cwd, session_dir)
        return await create_agent_session(
            cwd,
            session_manager=sm,
            settings_manager=SettingsManager.in_memory(),
            model_registry=registry,
            model=provider.get_models()[0],
            no_context_files=True,
            continuing=manager is not None or open_path is not None,
        )

    return factory, provider


def make_app(session_dir: Path | None, **kwargs: Any) -> tuple[PiApp, Any]:
    factory, provider = session_factory(session_dir, **kwargs)
    return PiApp(session_factory=factory, cwd=CWD, animate=False), provider


async def wait_for(pilot: Any, condition: Callable[[], Any], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.02)


async def idle(app: PiApp, pilot: Any) -> None:
    """Wait until the agent is not streaming and queued UI work has run."""
    await wait_for(pilot, lambda: app.session is not None and not app.session.is_streaming)
    await pilot.pause(0.05)


async def submit(app: PiApp, pilot: Any, text: str) -> None:
    """Put ``text`` in the editor and press Enter (typing key by key is slow and tested elsewhere)."""
    app.editor.text = text
    await pilot.press("enter")


async def send(app: PiApp, pilot: Any, prompt: str) -> None:
    """Submit ``prompt`` and wait for the reply to finish."""
    count = len(app.session.messages)
    await submit(app, pilot, prompt)
    await wait_for(pilot, lambda: len(app.session.messages) >= count + 2 and not app.session.is_streaming)
    await pilot.pause(0.05)


def selector(app: PiApp, kind: type) -> Any:
    """The selector of type ``kind`` in the editor slot, or None."""
    found = app.screen.query(kind)
    return found.first() if found else None


def file_entries(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def user_texts(entries: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in entries:
        m = e.get("message") or {}
        if e.get("type") == "message" and m.get("role") == "user":
            c = m["content"]
            out.append(c if isinstance(c, str) else "".join(b.get("text", "") for b in c))
    return out
