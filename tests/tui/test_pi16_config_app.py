"""Issue 18 acceptance 2 in the full-screen app: the realistic pi 1.6.0 configuration
(tests/fixtures/pi-reference-1.6/config-home: models, settings, keybindings, theme) starts the app
with no warning, with the user's theme, keys and layout settings in force, and a conversation
with the fake server answers (the models.json provider works)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_app.ai.testing import text
from pi_app.coding.launch import LaunchOptions
from pi_app.tui.app import PiApp
from pi_app.tui.transcript.blocks import layout
from tests.e2e.test_pi16_config import install_pi16_config
from tests.fakes.llm_server import FakeLLMServer
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import notes


async def test_the_app_starts_with_the_1_6_config_and_no_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llm_server: FakeLLMServer
) -> None:
    agent_dir = tmp_path / "agent"
    install_pi16_config(agent_dir, llm_server.base_url)
    cwd = tmp_path / "project"
    cwd.mkdir()
    for name, value in {
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_OFFLINE": "1",
        "FAKE_API_KEY": "k123",
        "TEAM_NAME": "team-a",
    }.items():
        monkeypatch.setenv(name, value)
    llm_server.enqueue(text("hello from the fake model"))
    app = PiApp(
        LaunchOptions(no_session=True, cwd=str(cwd)), cwd=str(cwd), animate=False, agent_dir=agent_dir
    )
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_for(pilot, lambda: app.session is not None, 20)
        await pilot.pause(0.2)
        shown = notes(app)
        assert "arning" not in shown and "rror" not in shown, shown
        assert app.themes.diagnostics == []
        assert app.keybindings.warnings == []
        assert app.themes.current.name == "my-theme"  # "theme": "my-theme" (vars + okhsl colours)
        assert app.keybindings.keys("app.session.new") == ("ctrl+shift+n",)
        assert app.editor.padding_x == 1  # editorPaddingX
        assert app.editor.max_visible_items == 8  # autocompleteMaxVisible
        assert layout.output_pad() == 1 and layout.code_block_indent() == "  "  # outputPad, markdown
        assert app.session.model is not None and app.session.model.id == "fake-model"
        await pilot.press(*"hi", "enter")
        await wait_for(pilot, lambda: "hello from the fake model" in notes(app), 20)
        request = llm_server.requests[-1]
        assert request.headers["authorization"] == "Bearer k123"
        assert request.body["temperature"] == 0.6
