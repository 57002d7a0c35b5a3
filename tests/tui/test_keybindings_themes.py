"""Keybindings (R-KEY-03/04, D-41), themes (R-THEME, D-40), fuzzy matching (R-AC-10): no app needed."""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.coding.fuzzy import fuzzy_filter, fuzzy_score
from pi_app.coding.resources.themes import THEME_TOKENS, load_theme_file
from pi_app.tui.input.keybindings import ACTIONS, Keybindings, display_key, load_defaults, parse_overrides
from pi_app.tui.input.keys import normalize
from pi_app.tui.theme.themes import ThemeManager, build_pi_theme, builtin_theme_path, textual_theme

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_cover_every_action_and_nothing_else() -> None:
    defaults = load_defaults()
    assert set(defaults) == {action.id for action in ACTIONS}
    assert defaults["tui.input.newLine"] == ["shift+enter", "ctrl+j"]
    assert defaults["app.model.cycleBackward"] == ["ctrl+shift+p"]


def test_the_top_level_file_is_the_packaged_one() -> None:
    assert json.loads((ROOT / "keybindings" / "defaults.json").read_text()) == json.loads(
        (ROOT / "pi_app" / "data" / "keybindings" / "defaults.json").read_text()
    )


def test_a_user_entry_replaces_the_defaults_and_an_empty_list_unbinds(tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    path.write_text(json.dumps({"newLine": ["ctrl+j"], "app.tools.expand": [], "tui.editor.undo": "Ctrl+Z"}))
    bindings = Keybindings.load(path)
    assert bindings.warnings == []
    assert not bindings.matches(normalize("shift+enter"), "tui.input.newLine")
    assert bindings.matches(normalize("ctrl+j"), "newLine")
    assert bindings.keys("app.tools.expand") == ()
    assert bindings.hint("app.tools.expand") == ""
    assert bindings.display("tui.input.newLine") == "Ctrl+J"
    assert bindings.keys("tui.editor.undo") == ("ctrl+z",)


def test_the_namespaced_id_wins_over_its_old_name() -> None:
    overrides, warnings = parse_overrides({"tui.input.newLine": "ctrl+j", "newLine": "alt+n"}, "f")
    assert overrides == {"tui.input.newLine": ["ctrl+j"]} and warnings == []
    overrides, _ = parse_overrides({"newLine": "alt+n", "tui.input.newLine": "ctrl+j"}, "f")
    assert overrides == {"tui.input.newLine": ["ctrl+j"]}


def test_bad_files_and_entries_are_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    path.write_text("{not json")
    bindings = Keybindings.load(path)
    assert len(bindings.warnings) == 1 and str(path) in bindings.warnings[0]
    assert bindings.keys("app.interrupt") == ("escape",)
    _, warnings = parse_overrides(["a list"], "f")
    assert warnings == ["Ignoring f: it must contain a JSON object"]


def test_key_display_capitalises_each_part() -> None:
    assert display_key("ctrl+shift+p") == "Ctrl+Shift+P"
    assert display_key("shift+pageUp") == "Shift+PageUp"
    assert display_key("escape") == "Esc"


def test_builtin_themes_define_every_token() -> None:
    for name in ("dark", "light"):
        spec = load_theme_file(builtin_theme_path(name))
        assert set(spec.resolve_colors()) == set(THEME_TOKENS)
        assert spec.name == name
    dark = build_pi_theme(load_theme_file(builtin_theme_path("dark")))
    assert dark.hex("accent") == "#8abeb7" and dark.hex("userMessageBg") == "#343541" and not dark.is_light
    light = build_pi_theme(load_theme_file(builtin_theme_path("light")))
    assert light.is_light


def test_textual_theme_exposes_every_token_as_a_css_variable() -> None:
    theme = textual_theme(build_pi_theme(load_theme_file(builtin_theme_path("dark"))))
    assert theme.name == "pi-dark"
    assert theme.variables["pi-md-heading"] == "#f0c674"
    assert theme.variables["pi-thinking-xhigh"] == "#d183e8"
    assert len([k for k in theme.variables if k.startswith("pi-")]) == len(THEME_TOKENS)


def test_a_custom_theme_cannot_replace_a_builtin_and_first_name_wins(tmp_path: Path) -> None:
    data = json.loads(builtin_theme_path("dark").read_text())
    data["name"] = "dark"
    one = tmp_path / "one.json"
    one.write_text(json.dumps(data))
    manager = ThemeManager([load_theme_file(one)])
    assert manager.names() == ["dark", "light"]
    assert any("collides with a built-in" in line for line in manager.diagnostics)


def test_an_invalid_selection_at_startup_falls_back_to_the_background() -> None:
    manager = ThemeManager()
    warning = manager.initial("no-such-theme", light_background=True)
    assert manager.current.name == "light"
    assert warning is not None and "no-such-theme" in warning
    assert manager.initial(None, light_background=False) is None and manager.current.name == "dark"


def test_fuzzy_prefers_consecutive_and_word_start_matches() -> None:
    assert fuzzy_score("set", "settings") is not None
    assert fuzzy_score("xyz", "settings") is None
    ranked = fuzzy_filter(["scoped-models", "session", "settings"], "se", lambda s: s)
    assert ranked[0] in ("session", "settings") and ranked[-1] == "scoped-models"
    assert fuzzy_filter(["gpt-4o", "claude"], "4gpt", lambda s: s) == ["gpt-4o"]  # swapped parts
    assert fuzzy_filter(["a", "b"], "", lambda s: s) == ["a", "b"]
    assert fuzzy_filter(["openai gpt-4", "anthropic claude"], "claude anth", lambda s: s) == [
        "anthropic claude"
    ]
