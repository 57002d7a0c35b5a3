"""pi 1.6.0 keybindings.json: ``$schema``, ``tui.altScreen.*``, ``tui.editor.historyPrevious/Next``
and ``super+`` keys load without a warning and take effect."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.tui.app import PiApp
from pi_app.tui.input.keybindings import Keybindings
from pi_app.tui.input.keys import KeyPress, normalize, parse_key_id
from tests.tui.fakes import fake_session_factory
from tests.tui.helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]
PI16_KEYS = ROOT / "tests" / "fixtures" / "pi-reference-1.6" / "config-home" / "keybindings.json"


def test_the_1_6_file_loads_without_a_warning() -> None:
    bindings = Keybindings.load(PI16_KEYS)
    assert bindings.warnings == []
    assert bindings.keys("tui.editor.historyPrevious") == ("alt+up",)
    assert bindings.keys("app.clipboard.pasteImage") == ("super+v",)
    assert bindings.keys("tui.altScreen.pageUp") == ()
    assert bindings.keys("app.session.tree") == ("ctrl+shift+t", "alt+shift+t")


def test_super_is_a_modifier() -> None:
    assert parse_key_id("super+k") == "super+k"
    assert parse_key_id("ctrl+super+k") == "ctrl+super+k"
    assert parse_key_id("super+ctrl+k") == "ctrl+super+k"
    assert normalize("super+v", None) == KeyPress("super+v")  # Textual's name with Kitty's protocol
    assert normalize("ctrl+super+k", None).key_id == "ctrl+super+k"


async def test_history_keys_browse_wherever_the_cursor_is(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "keybindings.json").write_text(
        json.dumps(
            {
                "$schema": "https://pi.dev/schemas/keybindings.schema.json",
                "tui.editor.historyPrevious": "alt+up",
                "tui.editor.historyNext": "alt+down",
            }
        )
    )
    factory, _ = fake_session_factory(str(tmp_path))
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=agent)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.keybindings.warnings == []
        await pilot.press(*"/hotkeys", "enter")
        await pilot.press("escape")
        await pilot.press(*"line one", "shift+enter", *"line two", "up")  # cursor on the first line
        assert app.editor.text == "line one\nline two"
        await pilot.press("alt+up")
        assert app.editor.text == "/hotkeys"
        await pilot.press("alt+down")
        assert app.editor.text == ""
