"""Pytest fixtures around the fakes (registered for every test by ``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.llm_server import FakeLLMServer


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    """A started loopback LLM server; ``base_url`` has no path (OpenAI-style clients add ``/v1``)."""
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()
