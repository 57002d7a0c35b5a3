"""Issue 18 acceptance 2, setting by setting: every key of the realistic pi 1.6.0 ``settings.json``
(tests/fixtures/pi-reference-1.6/config-home/settings.json) loads without a warning and reaches
the behaviour 1.6.0 gives it.

``EFFECTS`` has one check per key of the file (a test fails when the fixture gains a key nobody
checked). Each check asserts what the rest of the program reads; where the behaviour itself is
tested elsewhere the check names that test. Keys whose 1.6.0 effect is the absence of something
this pi never does (telemetry, analytics, cache warming, websockets) say so.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_app.coding.settings import SettingsManager

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference-1.6" / "config-home" / "settings.json"
)
RAW: dict[str, Any] = json.loads(FIXTURE.read_text())


@pytest.fixture(scope="module")
def manager(tmp_path_factory: pytest.TempPathFactory) -> SettingsManager:
    agent = tmp_path_factory.mktemp("agent")
    shutil.copy(FIXTURE, agent / "settings.json")
    cwd = tmp_path_factory.mktemp("project")
    return SettingsManager.create(str(cwd), str(agent))


def _compaction(m: SettingsManager) -> None:
    base = m.get_compaction_settings()
    assert (base.enabled, base.reserve_tokens, base.keep_recent_tokens) == (True, 16384, 20000)
    # compaction.modelOverrides: keyed by exact provider/modelId, field by field
    tuned = m.get_compaction_settings("fake/fake-model")
    assert (tuned.reserve_tokens, tuned.keep_recent_tokens) == (8000, 20000)
    assert m.get_compaction_settings("fake/fake-small").reserve_tokens == 16384


def _retry(m: SettingsManager) -> None:
    retry = m.get_retry_settings()
    assert (retry.enabled, retry.max_retries, retry.base_delay_ms) == (True, 2, 500)
    assert (retry.provider.timeout_ms, retry.provider.max_retries, retry.provider.max_retry_delay_ms) == (
        120000,
        0,
        60000,
    )


def _terminal(m: SettingsManager) -> None:
    assert m.get_show_images() is True and m.get_image_width_cells() == 60
    assert m.get_clear_on_shrink() is False and m.get_show_terminal_progress() is False
    assert m.get_hyperlinks() == "auto"


def _not_done_here(_: SettingsManager) -> None:
    """1.6.0's effect is something this pi never does (no telemetry, analytics, cache warming or
    websocket transport): accepted without a warning, nothing to switch off."""


EFFECTS: dict[str, Callable[[SettingsManager], None]] = {
    "$schema": lambda m: m.get_global_settings()["$schema"].endswith("settings.schema.json"),
    "defaultProvider": lambda m: assert_eq(m.get_default_provider(), "fake"),
    "defaultModel": lambda m: assert_eq(m.get_default_model(), "fake-model"),
    "defaultThinkingLevel": lambda m: assert_eq(m.get_default_thinking_level(), "high"),
    # behaviour: tests/e2e/test_pi16_config.py (fake-model starts at medium: top_k 20 is sent)
    "modelThinkingLevels": lambda m: assert_eq(m.get_model_thinking_level("fake", "fake-model"), "medium"),
    "thinkingBudgets": lambda m: assert_eq(m.get_thinking_budgets()["medium"], 8192),
    "enabledModels": lambda m: assert_eq(m.get_enabled_models(), ["fake/*", "anthropic/claude-sonnet-4-5"]),
    "hideThinkingBlock": lambda m: assert_eq(m.get_hide_thinking_block(), False),
    # behaviour: tests/coding/test_cache_notices.py and the app notice in tui/events.py
    "showCacheMissNotices": lambda m: assert_eq(m.get_show_cache_miss_notices(), True),
    "cacheWarming": _not_done_here,
    "steeringMode": lambda m: assert_eq(m.get_steering_mode(), "one-at-a-time"),
    "followUpMode": lambda m: assert_eq(m.get_follow_up_mode(), "all"),
    # behaviour: tests/tui/test_app_keys.py::test_ctrl_g_uses_the_external_editor_setting_first
    "externalEditor": lambda m: assert_eq(m.get_external_editor(), "vim"),
    "doubleEscapeAction": lambda m: assert_eq(m.get_double_escape_action(), "tree"),
    "treeFilterMode": lambda m: assert_eq(m.get_tree_filter_mode(), "no-tools"),
    "defaultProjectTrust": lambda m: assert_eq(m.get_default_project_trust(), "ask"),
    # tool selection edits are issue 18's wire half (i18w); the value is kept in the file
    "defaultTools": lambda m: assert_eq(m.get_global_settings()["defaultTools"], ["+grep", "-write"]),
    "codemode": lambda m: assert_eq(m.get_global_settings()["codemode"]["mode"], "on"),
    "compaction": _compaction,
    "branchSummary": lambda m: assert_eq(
        (m.get_branch_summary_settings().reserve_tokens, m.get_branch_summary_settings().skip_prompt),
        (16384, False),
    ),
    # behaviour: tests/tui/test_pi16_config_app.py (the app starts in my-theme)
    "theme": lambda m: assert_eq(m.get_theme(), "my-theme"),
    "quietStartup": lambda m: assert_eq(m.get_quiet_startup(), "header"),
    "tuiMode": lambda m: None,  # "fullscreen": the only mode this app has
    # behaviour: tests/tui/test_settings_menu_1_6.py::test_resume_hint_exit_output_prints_only_the_hint
    "fullscreenExitOutput": lambda m: assert_eq(m.get_fullscreen_exit_output(), "resume-hint"),
    "fullscreenScrollbar": lambda m: None,  # "auto": the transcript's own scrollbar behaviour
    "fullscreenCopyOnSelect": lambda m: None,  # true: selecting copies (the app's behaviour)
    "fullscreenWheelScrollLines": lambda m: None,  # "auto": the app's wheel handling
    "editorPaddingX": lambda m: assert_eq(m.get_editor_padding_x(), 1),
    # behaviour: tests/tui/test_layout_settings.py
    "outputPad": lambda m: assert_eq(m.get_output_pad(), 1),
    "autocompleteMaxVisible": lambda m: assert_eq(m.get_autocomplete_max_visible(), 8),
    "showHardwareCursor": lambda m: assert_eq(m.get_show_hardware_cursor(), False),
    "terminal": _terminal,
    "images": lambda m: assert_eq((m.get_image_auto_resize(), m.get_block_images()), (True, False)),
    # behaviour: tests/tui/test_layout_settings.py (codeBlockIndent), the mermaid tests (mermaid)
    "markdown": lambda m: assert_eq((m.get_code_block_indent(), m.get_mermaid_mode()), ("  ", "final")),
    "transport": lambda m: assert_eq(m.get_transport(), "sse"),
    "httpIdleTimeoutMs": lambda m: assert_eq(m.get_http_idle_timeout_ms(), 300000),
    "websocketConnectTimeoutMs": _not_done_here,
    "retry": _retry,
    "shellCommandPrefix": lambda m: assert_eq(m.get_shell_command_prefix(), "set -o pipefail"),
    "npmCommand": lambda m: assert_eq(m.get_npm_command(), ["npm"]),
    "packages": lambda m: assert_eq(m.get_packages(), []),
    "extensions": lambda m: assert_eq(m.get_extension_paths(), ["-builtin:mcp"]),
    "skills": lambda m: assert_eq(m.get_skill_paths(), []),
    "prompts": lambda m: assert_eq(m.get_prompt_template_paths(), []),
    "themes": lambda m: assert_eq(m.get_theme_paths(), []),
    "enableSkillCommands": lambda m: assert_eq(m.get_enable_skill_commands(), True),
    "collapseChangelog": lambda m: assert_eq(m.get_collapse_changelog(), True),
    "enableInstallTelemetry": _not_done_here,
    "enableAnalytics": _not_done_here,
    "warnings": _not_done_here,  # anthropicExtraUsage: a notice about Anthropic's paid extra usage
}


def assert_eq(got: object, expected: object) -> None:
    assert got == expected


def test_the_file_loads_without_a_warning(manager: SettingsManager) -> None:
    assert manager.errors == []


def test_every_key_of_the_file_has_a_check() -> None:
    assert sorted(EFFECTS) == sorted(RAW)


@pytest.mark.parametrize("key", sorted(RAW))
def test_setting(key: str, manager: SettingsManager) -> None:
    EFFECTS[key](manager)
