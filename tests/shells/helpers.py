"""Building sessions for the shell tests from the public SDK surface only (spec 70 §2.3).

Everything here goes through ``pi_app.ext`` (``create_agent_session``, ``SessionManager``,
``SettingsManager``, ``ModelRegistry``) plus the L1 pieces a host assembles itself (an in-memory
credential store) and the scripted provider of ``pi_app.ai.testing``. No private attribute of a
session or agent is touched, so these helpers are themselves a check of the shell-reuse contract.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai import codec
from pi_app.ai.auth import InMemoryCredentialStore
from pi_app.ai.testing import FakeProvider, fake_model, fake_provider
from pi_app.ext import ModelRegistry, SessionManager, SettingsManager, create_agent_session


def fake_registry(provider: FakeProvider) -> ModelRegistry:
    """A model registry holding only ``provider``, with credentials kept in memory."""
    registry = ModelRegistry(InMemoryCredentialStore(), None, builtin_providers=list)
    registry.models.set_provider(provider)
    return registry


async def scripted_session(
    cwd: str,
    script: Sequence[Any] = (),
    *,
    session_manager: Any = None,
    settings: dict[str, Any] | None = None,
    model: Any = None,
    **kwargs: Any,
) -> tuple[Any, FakeProvider]:
    """An ``AgentSession`` over the scripted provider; extra keywords go to ``create_agent_session``."""
    provider = fake_provider(models=[model or fake_model(context_window=200_000)], script=list(script))
    created = await create_agent_session(
        cwd,
        session_manager=session_manager or SessionManager.in_memory(cwd),
        settings_manager=SettingsManager.in_memory(settings),
        model_registry=fake_registry(provider),
        model=provider.get_models()[0],
        thinking_level=kwargs.pop("thinking_level", "off"),
        no_context_files=kwargs.pop("no_context_files", True),
        **kwargs,
    )
    return created.session, provider


@dataclass
class Recorder:
    """Every session event, in order; subscribe with ``session.subscribe(recorder)``."""

    events: list[Any] = field(default_factory=list)

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.events]


def text_of(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") for part in content)


def message_lines(path: str) -> list[dict[str, Any]]:
    """The ``message`` entries of a session file, in file order."""
    with open(path, encoding="utf-8") as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    return [line for line in lines if line.get("type") == "message"]


def round_trip(value: Any) -> Any:
    """``json.dumps`` then ``json.loads`` with no custom encoder."""
    return json.loads(json.dumps(value))


__all__ = [
    "Recorder",
    "codec",
    "fake_registry",
    "message_lines",
    "round_trip",
    "scripted_session",
    "text_of",
]
