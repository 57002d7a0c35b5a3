"""The app over a real ``AgentSession`` with extensions bound, the way ``pi`` launches it.

``extension_app(tmp_path, extension_paths, script)`` returns ``(app, provider, agent_dir)``: a
``PiApp`` whose session factory loads the extensions through a ``ResourceLoader`` (``-e`` paths),
builds the session over the scripted provider and attaches an ``ExtensionBinding`` in TUI mode —
the app itself hands over the UI context and starts the extensions, as in production.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_app.ai.testing import fake_provider
from pi_app.tui.app import PiApp

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"


def write_extension(path: Path, code: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(code))
    return path


def extension_app(
    tmp_path: Path,
    extension_paths: Sequence[Path | str],
    script: Sequence[Any] = (),
    *,
    models: Sequence[Any] | None = None,
    **app_kw: Any,
) -> tuple[PiApp, Any, Path]:
    agent_dir = tmp_path / "home" / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    cwd = tmp_path / "proj"
    cwd.mkdir(exist_ok=True)
    provider = fake_provider(script=list(script), models=list(models) if models is not None else None)

    async def factory() -> Any:
        from pi_app.ai.auth import InMemoryCredentialStore
        from pi_app.coding.extensions.session_binding import ExtensionBinding
        from pi_app.coding.models.registry import ModelRegistry
        from pi_app.coding.resources.loader import ResourceLoader, TrustPolicy
        from pi_app.coding.sdk import create_agent_session

        loader = ResourceLoader(
            cwd,
            agent_dir=agent_dir,
            settings={},
            trust=TrustPolicy(trusted=True),
            additional_extension_paths=[str(p) for p in extension_paths],
            no_context_files=True,
            offline=True,
        )
        await loader.reload()
        registry = ModelRegistry(InMemoryCredentialStore(), None)
        registry.models.set_provider(provider)
        created = await create_agent_session(
            str(cwd),
            agent_dir=agent_dir,
            model=provider.models[0],
            stream_fn=provider.fake.stream_simple,
            resource_loader=loader,
            no_context_files=True,
            model_registry=registry,
        )
        await ExtensionBinding.attach(created.session, loader, mode="tui")
        return created

    app = PiApp(session_factory=factory, cwd=str(cwd), animate=False, agent_dir=agent_dir, **app_kw)
    return app, provider, agent_dir


def transcript_text(app: PiApp) -> str:
    return "\n".join(app.transcript.plain_lines())
