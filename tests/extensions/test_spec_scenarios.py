"""Spec 40 §6 acceptance scenarios: where each one is tested (issue 7, acceptance 1).

Every scenario has at least one test; the ones not covered elsewhere are written below. Names are
``file::test``, relative to ``tests/``.

1. Load and register — ``extensions/test_cli_blackbox.py::test_extension_tool_flags_and_print_mode_ui``
   (installed ``pi -p --tools greet``), ``extensions/test_session_binding.py::test_load_and_register``
   (``get_commands`` lists ``hello`` with source ``extension``),
   ``extensions/test_rpc_blackbox.py::test_rpc_extension_commands_dialogs_errors_and_shutdown`` (RPC
   ``get_commands``).
2. Load failure isolation — ``extensions/test_extension_loading.py::test_failing_setup_leaves_no_residue``,
   ``extensions/test_cli_blackbox.py::test_failing_extensions_leave_pi_running``.
3. Action during setup — ``extensions/test_extension_loading.py::test_actions_raise_during_setup_but_work_in_handlers``.
4. tool_call block and mutate — ``extensions/test_extension_events.py::test_tool_call_mutation_then_block``.
5. tool_call handler crash — ``extensions/test_extension_events.py::test_raising_tool_call_handler_blocks_fail_safe``.
6. tool_result middleware — ``extensions/test_extension_events.py::test_tool_result_middleware``.
7. input transform/handled — ``extensions/test_session_binding.py::test_input_transform_handled_and_command``.
8. before_agent_start chaining — ``extensions/test_session_binding.py::test_before_agent_start_chaining``.
9. Skill listing — ``test_skill_listing_in_the_session_system_prompt`` (below).
10. Skill discovery rules — ``resources/test_skills.py::test_discovery_rules``.
11. Skill validation — ``resources/test_skills.py::test_validation``.
12. Collision diagnostics — ``resources/test_resource_loader.py::test_project_skill_beats_global_and_cli_beats_both``.
13. Symlink dedupe — ``resources/test_resource_loader.py::test_symlinked_skill_loads_once_silently``.
14. /skill invocation — ``resources/test_skills.py::test_skill_command_expansion_and_parse``,
    ``extensions/test_session_binding.py::test_skill_and_template_expansion``.
15. Prompt template arguments — ``resources/test_prompt_templates.py::test_arguments_and_substitution``.
16. Template description fallback — ``resources/test_prompt_templates.py::test_descriptions_and_discovery``.
17. Trust gate — ``resources/test_resource_loader.py::test_untrusted_project_does_not_import_project_code``,
    ``resources/test_resource_loader.py::test_real_trust_policy_with_default_never_and_approve``,
    ``extensions/test_session_binding.py::test_project_trust_is_visible_to_extensions``.
18. project_trust from a global extension —
    ``resources/test_resource_loader.py::test_project_trust_handler_of_a_global_extension_decides``.
19. Reload — ``extensions/test_extension_lifecycle.py::test_reload_reimports_edited_code_and_keeps_flags``,
    ``extensions/test_session_binding.py::test_reload_through_the_binding``.
20. with_session — ``extensions/test_session_binding.py::test_with_session_and_stale_context``.
21. Command conflicts — ``extensions/test_extension_loading.py::test_conflicts_first_extension_wins``,
    ``tui_ext/test_ext_commands.py::test_commands_autocomplete_and_run_even_while_streaming`` (the
    built-in ``/model`` wins in the app).
22. Built-in tool override — ``test_builtin_tool_override_runs_the_extension_and_warns_once`` (below),
    ``extensions/test_tool_registry.py::test_builtin_override_keeps_the_builtin_renderer``,
    ``tui_ext/test_ext_commands.py::test_builtin_tool_override_warns_once_and_runs_the_extension``
    (in the app).
23. models.json minimal custom provider —
    ``models/test_model_registry.py::test_minimal_custom_provider_gets_defaults_and_is_available``.
24. models.json errors keep built-ins — ``models/test_model_registry.py::test_models_json_errors_keep_builtins``,
    ``models/test_models_json_config.py::test_semantic_errors_use_the_spec_texts``.
25. Overrides — ``models/test_model_registry.py::test_provider_and_model_overrides_on_builtins``.
26. API key order — ``models/test_model_registry.py::test_api_key_order``.
27. Extension provider lifecycle — ``extensions/test_extension_lifecycle.py::test_extension_provider_lifecycle``,
    ``models/test_model_registry.py::test_extension_provider_override_and_unregister``.
28. Model patterns — ``models/test_model_resolver.py::test_pattern_prefers_the_alias_over_the_dated_id``,
    ``models/test_model_resolver.py::test_level_suffixes_strict_and_scope_mode``,
    ``test_cli_model_with_an_invalid_level_fails_with_status_1`` (below, installed ``pi``).
29. CLI provider inference — ``models/test_model_resolver.py::test_cli_model_resolution_texts``,
    ``models/test_model_resolver.py::test_inferred_provider_falls_back_to_a_raw_id``.
30. Scoped cycling — ``models/test_model_resolver.py::test_scopes_globs_levels_and_warnings``,
    ``models/test_model_resolver.py::test_cycling_over_a_scope_with_credentials_only``,
    ``test_scoped_cycling_applies_the_level_and_tells_extensions`` (below: the session's
    ``cycle_model`` and ``model_select{source:"cycle"}``); the Ctrl+P key itself is the TUI's (tui-ext).
31. Thinking clamp — ``test_thinking_level_from_an_extension_is_clamped_and_not_saved`` (below).
32. Package filters — ``resources/test_resource_loader.py::test_package_filters``.
33. TypeScript coexistence — ``resources/test_resource_loader.py::test_typescript_extensions_coexist``,
    ``test_typescript_extension_in_settings_warns_in_print_mode`` (below, installed ``pi``).
34. Context files — ``resources/test_resource_loader.py::test_context_files_order``.
35. UI in print mode — ``extensions/test_extension_ui.py::test_print_mode_dialogs_return_cancel_values_at_once``,
    ``extensions/test_cli_blackbox.py::test_extension_tool_flags_and_print_mode_ui``.
36. Dialog timeout — ``extensions/test_extension_ui.py::test_dialog_timeout_counts_down_and_cancels`` and
    ``extensions/test_extension_ui.py::test_dialog_abort_and_answer`` (the settling rules and the
    countdown title); with the Textual pilot:
    ``tui_ext/test_ext_dialogs.py::test_timed_confirm_counts_down_and_resolves_false`` and
    ``tui_ext/test_ext_dialogs.py::test_aborted_confirm_resolves_false_at_abort_time``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import textwrap
from pathlib import Path
from typing import Any

from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.ai.types import ToolResultMessage
from pi_app.coding.models.resolver import ScopedModel
from tests.e2e.helpers import run_pi
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

from .helpers import module_for
from .test_session_binding import make


def write(path: Path, code: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(code))
    return path


async def make_session(
    tmp_path: Path, *turns: Any, model: Any = None, tools: list[str] | None = None
) -> tuple[Any, Any, list[Any], Path]:
    session, binding, _, errors, agent_dir, _ = await make(tmp_path, *turns, model=model, builtin_tools=tools)
    return session, binding, errors, agent_dir


SKILL = """\
---
name: {name}
description: {description}
{extra}---
# {name}

Body text.
"""


async def test_skill_listing_in_the_session_system_prompt(tmp_path: Path) -> None:
    """Scenario 9."""
    skills = tmp_path / "home" / ".pi" / "agent" / "skills"
    tdd = write(
        skills / "tdd" / "SKILL.md", SKILL.format(name="tdd", description="Tests <first> & always", extra="")
    )
    write(
        skills / "secret" / "SKILL.md",
        SKILL.format(name="secret", description="Hidden", extra="disable-model-invocation: true\n"),
    )
    session, binding, errors, _ = await make_session(tmp_path)
    prompt = session.system_prompt
    assert prompt.count("<skill>") == 1
    assert "<name>tdd</name>" in prompt
    assert "<description>Tests &lt;first&gt; &amp; always</description>" in prompt
    assert f"<location>{tdd.resolve()}</location>" in prompt
    assert "secret" not in prompt
    # with --tools bash (no read tool to open a skill file) the skills section is absent
    write(tmp_path / "bash-only" / "home" / ".pi" / "agent" / "skills" / "tdd" / "SKILL.md", tdd.read_text())
    session, binding, *_ = await make_session(tmp_path / "bash-only", tools=["bash"])
    assert binding.loader.get_skills().items  # the skill is loaded ...
    assert "<skill>" not in session.system_prompt and "tdd" not in session.system_prompt  # ... not listed
    binding.apply_tools()  # a rebuild (extension tool change, reload) keeps it that way
    assert "<skill>" not in session.system_prompt
    assert errors == []


OVERRIDE = """
from pi_app.ext import ToolDefinition, text_result

def setup(pi):
    async def read(tool_call_id, params, signal, on_update, ctx):
        return text_result(f"remote contents of {params['path']}")

    pi.register_tool(ToolDefinition(name="read", label="Read", description="Read over SSH",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        execute=read))
"""


async def test_builtin_tool_override_runs_the_extension_and_warns_once(tmp_path: Path) -> None:
    """Scenario 22 (session part): the extension's ``read`` runs; one override warning, once."""
    ext = write(tmp_path / "home" / ".pi" / "agent" / "extensions" / "remote.py", OVERRIDE)
    session, binding, errors, _ = await make_session(
        tmp_path, [tool_call("read", {"path": "a.txt"})], [text("done")]
    )
    assert binding.take_override_warnings() == [
        f'Extension tool "read" from {ext} replaces the built-in tool'
    ]
    assert binding.take_override_warnings() == []
    await session.prompt("read a.txt")
    [result] = [m for m in session.messages if isinstance(m, ToolResultMessage)]
    assert result.content[0].text == "remote contents of a.txt"
    assert [t.name for t in session.agent.state.tools].count("read") == 1
    binding.refresh_tools()
    assert binding.take_override_warnings() == []  # a refresh does not warn again
    assert errors == []


LEVELS = """
def setup(pi):
    async def level(args, ctx):
        pi.set_thinking_level(args)
        ctx.ui.notify(pi.get_thinking_level())

    pi.register_command("level", handler=level)
"""


async def test_thinking_level_from_an_extension_is_clamped_and_not_saved(tmp_path: Path) -> None:
    """Scenario 31: ``xhigh`` mapped to null clamps to ``high``; a non-reasoning model gets ``off``;
    the saved ``defaultThinkingLevel`` is untouched by extension calls (D-10)."""
    write(tmp_path / "home" / ".pi" / "agent" / "extensions" / "levels.py", LEVELS)
    base = fake_provider(script=[]).models[0]
    reasoning = dataclasses.replace(base, reasoning=True, thinking_level_map={"xhigh": None})
    session, binding, errors, agent_dir = await make_session(tmp_path, model=reasoning)
    settings = agent_dir / "settings.json"
    settings.write_text(json.dumps({"defaultThinkingLevel": "low"}))
    session.settings_manager.reload()
    await session.prompt("/level xhigh")
    assert session.thinking_level == "high"
    await session.prompt("/level minimal")
    assert session.thinking_level == "minimal"

    plain = dataclasses.replace(base, reasoning=False)
    session2, *_ = await make_session(tmp_path / "plain", model=plain)
    await session2.prompt("/level high")
    assert session2.thinking_level == "off"
    assert json.loads(settings.read_text()) == {"defaultThinkingLevel": "low"}
    assert errors == []


def _sonnet_models_json(home: PiHome, base_url: str) -> None:
    config = {
        "providers": {
            "fake": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "fake-key",
                "models": [{"id": "claude-sonnet-4-5"}, {"id": "claude-sonnet-4-5-20250929"}],
            }
        }
    }
    (home.agent_dir / "models.json").write_text(json.dumps(config))


def test_cli_model_with_an_invalid_level_fails_with_status_1(tmp_path: Path) -> None:
    """Scenario 28, CLI half: ``--model sonnet:turbo`` is not found (strict), exit status 1;
    ``--provider fake --model sonnet:high`` picks the alias ``claude-sonnet-4-5``."""
    home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        _sonnet_models_json(home, server.base_url)
        failed = run_pi("--model", "sonnet:turbo", "-p", "hi", cwd=home.project, env=home.env())
        server.enqueue(text("ok"))
        worked = run_pi(
            "--provider",
            "fake",
            "--model",
            "sonnet:high",
            "--no-session",
            "-p",
            "hi",
            cwd=home.project,
            env=home.env(),
        )
        assert worked.returncode == 0, worked.stderr
        assert server.requests[-1].body["model"] == "claude-sonnet-4-5"
    assert failed.returncode == 1
    assert failed.stderr.strip().splitlines()[-1] == (
        'Model "sonnet:turbo" not found. Use --list-models to see available models.'
    )
    assert failed.stdout == ""


def test_typescript_extension_in_settings_warns_in_print_mode(tmp_path: Path) -> None:
    """Scenario 33 through the installed ``pi``: an auto-discovered ``legacy.ts`` is ignored
    silently, the same file listed in settings gets one warning; ``new.py`` loads either way."""
    home = PiHome.make(tmp_path)
    ext = home.agent_dir / "extensions"
    write(ext / "legacy.ts", "export default function (pi) {}\n")
    write(ext / "new.py", "def setup(pi):\n    import sys; print('new.py loaded', file=sys.stderr)\n")
    with FakeLLMServer() as server:
        home.point_at(server.base_url)
        server.enqueue(text("one"))
        quiet = run_pi("--no-session", "-p", "hi", cwd=home.project, env=home.env())
        home.write_settings({"extensions": ["./extensions/legacy.ts"]})
        server.enqueue(text("two"))
        warned = run_pi("--no-session", "-p", "hi", cwd=home.project, env=home.env())
    assert quiet.returncode == 0 and quiet.stdout == "one\n", quiet.stderr
    assert quiet.stderr.strip().splitlines() == ["new.py loaded"]
    assert warned.returncode == 0 and warned.stdout == "two\n", warned.stderr
    assert (
        "Warning: TypeScript/JavaScript extensions are not supported by this version of pi "
        f"({ext / 'legacy.ts'})" in warned.stderr.splitlines()
    )
    assert "new.py loaded" in warned.stderr


SELECT = """
SEEN = []

def setup(pi):
    @pi.on("model_select")
    def model(event, ctx):
        SEEN.append(("model", event.model.id, getattr(event.previous_model, "id", None), event.source))

    @pi.on("thinking_level_select")
    def level(event, ctx):
        SEEN.append(("level", event.level, event.previous_level))
"""


async def test_scoped_cycling_applies_the_level_and_tells_extensions(tmp_path: Path) -> None:
    """Scenario 30 (session part): cycling stays in the scope, applies its level clamped to the
    model, fires ``model_select{source:"cycle"}`` and ``thinking_level_select``; a scope with one
    usable model has nothing to cycle."""
    agent = tmp_path / "home" / ".pi" / "agent"
    models = {
        "alpha": {"id": "alpha", "reasoning": True},
        "beta": {"id": "beta", "reasoning": True, "thinkingLevelMap": {"high": None}},
    }
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "local": {
                        "baseUrl": "http://127.0.0.1:9/v1",
                        "api": "openai-completions",
                        "apiKey": "k",
                        "models": list(models.values()),
                    }
                }
            }
        )
    )
    ext = write(agent / "extensions" / "select.py", SELECT)
    session, binding, errors, _ = await make_session(tmp_path)
    alpha = session.model_registry.find("local", "alpha")
    beta = session.model_registry.find("local", "beta")
    await session.set_model(alpha)
    session.scoped_models = [ScopedModel(alpha, "high"), ScopedModel(beta, "high")]
    await asyncio.sleep(0)
    seen = module_for(ext).SEEN
    assert ("model", "alpha", "fake-model", "set") in seen
    seen.clear()

    cycled = await session.cycle_model()
    await asyncio.sleep(0)
    assert cycled is not None and cycled.model.id == "beta"
    assert session.thinking_level == "medium"  # "high" is unmapped for beta: clamped
    assert ("model", "beta", "alpha", "cycle") in seen and seen[-1][:2] == ("level", "medium")
    seen.clear()
    cycled = await session.cycle_model()
    await asyncio.sleep(0)
    assert cycled is not None and cycled.model.id == "alpha" and session.thinking_level == "high"
    assert seen == [("model", "alpha", "beta", "cycle"), ("level", "high", "medium")]

    session.scoped_models = [ScopedModel(alpha, None)]
    assert await session.cycle_model() is None  # nothing to cycle
    assert errors == []
