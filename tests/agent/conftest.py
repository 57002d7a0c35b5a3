"""Fixtures for the agent-layer tests: a scripted provider, an Agent wired to it, a recorder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from pi_app.agent import Agent
from pi_app.agent.testing import EventRecorder
from pi_app.ai.testing import FakeProvider, fake_provider
from pi_app.ai.types import Model


@dataclass
class Harness:
    agent: Agent
    provider: FakeProvider
    recorder: EventRecorder

    @property
    def calls(self) -> list[Any]:
        return self.provider.calls


@pytest.fixture
def provider() -> FakeProvider:
    return fake_provider()


@pytest.fixture
def model(provider: FakeProvider) -> Model:
    return provider.models[0]


@pytest.fixture
def harness(provider: FakeProvider) -> Callable[..., Harness]:
    """``harness(turn, turn, …, tools=[…], messages=[…], **agent_options)``."""

    def build(
        *turns: Any, tools: Sequence[Any] = (), messages: Sequence[Any] = (), **options: Any
    ) -> Harness:
        provider.enqueue(*turns)
        agent = Agent(
            stream_fn=provider.stream_simple,
            initial_state={"model": provider.models[0], "tools": list(tools), "messages": list(messages)},
            **options,
        )
        recorder = EventRecorder()
        agent.subscribe(recorder)
        return Harness(agent, provider, recorder)

    return build
