"""A TypeScript pi set-up used unchanged (issue 7, acceptance 2).

``tests/fixtures/pi-setup/agent`` is a ``~/.pi/agent`` folder in pi 0.73.1's formats: skills (extra
frontmatter keys, a reference file, a ``disable-model-invocation`` skill), prompt templates (one with
``argument-hint``, one without frontmatter), a theme, ``models.json`` and ``settings.json``. It is
copied as-is into a temporary HOME; the only change is the ``local`` provider's ``baseUrl``, which
must point at the loopback fake server. The installed ``pi`` then runs in print and RPC mode.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pi_app.ai.testing import text
from pi_app.coding.resources.loader import ResourceLoader, TrustPolicy
from pi_app.modes.rpc_client import RpcClient
from tests.e2e.helpers import PI, run_pi
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

SETUP = Path(__file__).resolve().parents[1] / "fixtures" / "pi-setup" / "agent"


def _install(tmp_path: Path, base_url: str) -> PiHome:
    home = PiHome.make(tmp_path)
    shutil.copytree(SETUP, home.agent_dir, dirs_exist_ok=True)
    models = home.agent_dir / "models.json"
    data = json.loads(models.read_text())
    data["providers"]["local"]["baseUrl"] = base_url + "/v1"
    models.write_text(json.dumps(data, indent=2))
    return home


def _user_text(body: dict) -> str:
    [user] = [m for m in body["messages"] if m["role"] == "user"]
    content = user["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content if p["type"] == "text")


def test_print_mode_uses_the_skills_prompts_and_models_json(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        home = _install(tmp_path, server.base_url)
        env = home.env(LOCAL_LLM_KEY="secret-local")
        agent = home.agent_dir
        server.enqueue(text("reviewed"))
        review = run_pi(
            "--no-session",
            "--verbose",
            "-p",
            '/review src/app.py "error handling" naming',
            cwd=home.project,
            env=env,
        )
        server.enqueue(text("fixed"))
        skill = run_pi("--no-session", "-p", "/skill:tdd fix the parser", cwd=home.project, env=env)
        first, second = server.requests

    assert review.returncode == 0 and review.stdout == "reviewed\n", review.stderr
    assert "Warning" not in review.stderr and "error" not in review.stderr.lower(), review.stderr
    # models.json + settings.json: the custom provider and default model, its key (an env var
    # name), its headers and compat flags
    assert first.body["model"] == "qwen3-coder"
    assert first.headers["authorization"] == "Bearer secret-local"
    assert first.headers["x-client"] == "pi-setup"
    assert first.body["messages"][0]["role"] == "system"  # supportsDeveloperRole: false
    assert "max_tokens" in first.body and "max_completion_tokens" not in first.body
    # the prompt template with its arguments
    assert _user_text(first.body) == (
        "Review src/app.py carefully. Focus: error handling naming\nReport problems as a numbered list."
    )
    # the skills in the system prompt: the model-invocable one only, with its absolute location
    system = first.body["messages"][0]["content"]
    assert "<name>tdd</name>" in system and "bug fixes &amp; features" in system
    assert f"<location>{agent / 'skills' / 'tdd' / 'SKILL.md'}</location>" in system
    assert "<name>release</name>" not in system

    assert skill.returncode == 0 and skill.stdout == "fixed\n", skill.stderr
    # the same text the TypeScript pi 0.73.1 sends for this folder
    skill_dir = agent / "skills" / "tdd"
    assert _user_text(second.body) == (
        f'<skill name="tdd" location="{skill_dir / "SKILL.md"}">\n'
        f"References are relative to {skill_dir}.\n\n"
        "# TDD loop\n\n"
        "1. Write a failing test that shows the problem. See [the checklist](references/checklist.md).\n"
        "2. Make it pass with the smallest change.\n"
        "3. Refactor while the tests stay green.\n"
        "</skill>\n\nfix the parser"
    )


async def test_rpc_mode_lists_the_commands_and_models(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        home = _install(tmp_path, server.base_url)
        agent = home.agent_dir
        client = RpcClient(command=[PI], cwd=str(home.project), env=home.env(LOCAL_LLM_KEY="k"))
        await client.start()
        try:
            commands = {c["name"]: c for c in (await client.call("get_commands"))["commands"]}
            models = await client.get_available_models()
            state = await client.get_state()
        finally:
            await client.stop()
    review = str(agent / "prompts" / "review.md")
    assert commands["review"] == {
        "name": "review",
        "description": "Review a file for bugs and style",
        "source": "prompt",
        "location": "user",
        "path": review,
        # the shape pi 0.73.1 sends (checked against the TypeScript pi with this very folder)
        "sourceInfo": {
            "path": review,
            "source": "local",
            "scope": "user",
            "origin": "top-level",
            "baseDir": str(agent / "prompts"),
        },
    }
    assert commands["changelog"]["description"].startswith("Write a changelog entry")
    assert commands["skill:tdd"]["source"] == "skill" and commands["skill:tdd"]["location"] == "user"
    assert "skill:release" in commands  # hidden from the model, still invocable by the user
    local = {m["id"]: m for m in models if m["provider"] == "local"}
    assert local["qwen3-coder"]["name"] == "Qwen3 Coder (local)"
    assert local["qwen3-coder"]["contextWindow"] == 32768
    assert local["llama3.1:8b"]["contextWindow"] == 128000  # custom-model defaults
    assert state["model"]["id"] == "qwen3-coder"


async def test_the_theme_loads_without_diagnostics(tmp_path: Path) -> None:
    """The theme file (with ``$schema``, ``vars`` and ``export``) is found and valid; the TUI applies it."""
    home = _install(tmp_path, "http://127.0.0.1:1")
    loader = ResourceLoader(
        str(home.project), agent_dir=home.agent_dir, settings={}, trust=TrustPolicy(trusted=True)
    )
    await loader.reload()
    themes = loader.get_themes()
    assert [t.name for t in themes.items] == ["nightfall"]
    assert themes.diagnostics == []
    assert themes.items[0].resolve_colors()["accent"] == "#8abeb7"
    assert sorted(s.name for s in loader.get_skills().items) == ["release", "tdd"]
    assert loader.get_skills().diagnostics == [] and loader.get_prompts().diagnostics == []
