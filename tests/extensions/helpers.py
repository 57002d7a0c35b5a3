"""Test support: a recording ``ExtensionHost`` and helpers to write and load extensions."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from pi_app.coding.extensions.loader import ExtensionSource, load_extensions, next_generation
from pi_app.coding.extensions.runner import ExtensionRunner
from pi_app.coding.extensions.runtime import ExtensionHost, ExtensionRuntime
from pi_app.coding.extensions.types import ExtensionError


class FakeHost(ExtensionHost):
    def __init__(self, cwd: str = "/tmp") -> None:
        self._cwd = cwd
        self.calls: list[tuple[str, Any]] = []
        self.active_tools = ["read", "bash"]
        self.level = "medium"
        self.trusted = True
        self.refreshed = 0
        self.session_name: str | None = None

    @property
    def cwd(self) -> str:
        return self._cwd

    @property
    def thinking_level(self) -> str:
        return self.level

    def is_project_trusted(self) -> bool:
        return self.trusted

    def send_message(self, message: dict[str, Any], trigger_turn: bool, deliver_as: str) -> None:
        self.calls.append(("send_message", (message, trigger_turn, deliver_as)))

    def send_user_message(self, content: Any, deliver_as: str | None, expand: bool) -> None:
        self.calls.append(("send_user_message", (content, deliver_as, expand)))

    def append_entry(self, custom_type: str, data: Any) -> None:
        self.calls.append(("append_entry", (custom_type, data)))

    def set_session_name(self, name: str | None) -> None:
        self.session_name = name

    def get_session_name(self) -> str | None:
        return self.session_name

    def get_active_tools(self) -> list[str]:
        return list(self.active_tools)

    def set_active_tools(self, names: list[str]) -> None:
        self.active_tools = names

    def set_thinking_level(self, level: str) -> None:
        self.level = level

    def refresh_tools(self) -> None:
        self.refreshed += 1


def write(path: Path, code: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(code))
    return path


async def load(
    paths: list[Path],
    cwd: Path,
    *,
    registry: Any = None,
    factories: list[Any] | None = None,
    **runner_kw: Any,
) -> tuple[ExtensionRunner, list[ExtensionError]]:
    """Load extensions into a fresh runtime; returns the runner and a live list of its errors."""
    generation = next_generation()
    runtime = ExtensionRuntime(model_registry=registry, import_generation=generation)
    sources = [ExtensionSource(str(p), str(p)) for p in paths]
    loaded = await load_extensions(
        sources, str(cwd), runtime=runtime, generation=generation, factories=factories or []
    )
    runner = ExtensionRunner(loaded, cwd=str(cwd), model_registry=registry, **runner_kw)
    errors: list[ExtensionError] = []
    runner.on_error(errors.append)
    return runner, errors


def module_for(path: Path) -> Any:
    """The most recently imported extension module loaded from ``path``."""
    import sys

    matches = [
        m
        for n, m in sys.modules.items()
        if n.startswith("pi_ext_g") and getattr(m, "__file__", None) == str(path)
    ]
    if not matches:
        raise LookupError(f"no extension module for {path}")
    return matches[-1]
