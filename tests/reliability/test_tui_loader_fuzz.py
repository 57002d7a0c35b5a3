"""The full-screen app's own file loaders under random input (issue 12 item 3).

``keybindings.json`` (``pi_app.tui.input.keybindings``, R-KEY-03/04) and theme files as the app loads
them (``pi_app.tui.theme.themes``: discovery, start-up selection, hot reload; R-THEME-02…05, D-40) get
random and near-valid documents from hypothesis. Each must load, or be skipped with one warning
line naming the file; the app's state stays usable (every effective key converts to a Textual key,
the active theme builds a Textual theme) and the file is never rewritten.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_app.coding.resources.themes import EXPORT_KEYS, THEME_TOKENS
from pi_app.tui.input.keybindings import ACTIONS, Keybindings, display_key, load_defaults, resolve_action
from pi_app.tui.input.keys import parse_key_id, to_textual_key
from pi_app.tui.theme.themes import ThemeManager, discover_user_themes, textual_theme, theme_variables
from tests.reliability.helpers import fuzz_settings

FUZZ = fuzz_settings(60)

# Documents no JSON reader should be crashed by (Python's json raises RecursionError and a
# non-JSONDecodeError ValueError for these).
PATHOLOGICAL = [
    "[" * 50_000 + "]" * 50_000,
    '{"a": ' * 50_000 + "1" + "}" * 50_000,
    '{"app.interrupt": ' + "9" * 5000 + "}",
    '{"name": "x", "colors": {"accent": ' + "7" * 5000 + "}}",
    "\ufeff{}",
    "",
    "\x00\x01\x02",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner)),
    max_leaves=8,
)
garbage_text = st.one_of(
    st.text(max_size=80),
    st.binary(max_size=60).map(lambda b: b.decode("utf-8", errors="surrogateescape")),
    json_values.map(json.dumps),
    json_values.map(lambda v: json.dumps(v)[: max(1, len(json.dumps(v)) // 2)]),
)


def _fresh_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="pi-tui-fuzz-"))


def _write(path: Path, document: str) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document, encoding="utf-8", errors="surrogateescape")
    return path.read_bytes()


def _decoded(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError):
        return None


# ---------------------------------------------------------------------------------------------
# keybindings.json
# ---------------------------------------------------------------------------------------------

ACTION_NAMES = [a.id for a in ACTIONS] + [a.alias for a in ACTIONS if a.alias]
key_parts = st.sampled_from(
    ["ctrl", "Ctrl", "alt", "shift", "super", "meta", "", "a", "Z", "9", "+", "-", "]", "é", "enter",
     "Escape", "pageUp", "pagedown", "f1", "space", " ", "tab", "ctrl+", "++"]
)  # fmt: skip
key_strings = st.one_of(
    st.lists(key_parts, min_size=1, max_size=4).map("+".join),
    st.text(max_size=10),
)
binding_values = st.one_of(key_strings, st.lists(st.one_of(key_strings, scalars), max_size=4), json_values)
keybinding_documents = st.one_of(
    garbage_text,
    st.dictionaries(
        st.one_of(st.sampled_from(ACTION_NAMES), st.text(max_size=12)), binding_values, max_size=8
    ).map(json.dumps),
)


def _check_entry(bindings: Keybindings, data: dict[str, Any], name: str, value: Any) -> None:
    """Each entry is either applied or named in a one-line warning."""
    action_id = resolve_action(name)
    if action_id is None:
        assert any(f"unknown action {json.dumps(name)}" in w for w in bindings.warnings), bindings.warnings
        return
    values = [value] if isinstance(value, str) else value
    parsed = (
        [parse_key_id(v) if isinstance(v, str) else None for v in values]
        if isinstance(values, list)
        else [None]
    )
    if None in parsed:
        assert any(f"invalid key for {json.dumps(name)}" in w for w in bindings.warnings), bindings.warnings
        return
    if name != action_id and action_id in data and resolve_action(action_id) == action_id:
        return  # the namespaced id wins over its flat alias; checked on its own entry
    assert list(bindings.keys(action_id)) == list(dict.fromkeys(parsed))


@FUZZ
@given(document=keybinding_documents)
def test_random_keybindings_files_apply_or_warn_and_are_never_rewritten(document: str) -> None:
    path = _fresh_dir() / "keybindings.json"
    before = _write(path, document)

    bindings = Keybindings.load(path)

    assert path.read_bytes() == before
    for warning in bindings.warnings:
        assert warning and "\n" not in warning and "Traceback" not in warning
        assert str(path) in warning  # the user learns which file to fix
    data = _decoded(path)
    if not isinstance(data, dict):
        assert bindings.keys("app.interrupt") == tuple(load_defaults()["app.interrupt"])
        assert len(bindings.warnings) == 1
    else:
        for name, value in data.items():
            _check_entry(bindings, data, name, value)
    for action in ACTIONS:  # whatever was loaded, the app can bind and display every key
        for key in bindings.keys(action.id):
            assert to_textual_key(key)
            assert display_key(key)


@pytest.mark.parametrize("document", PATHOLOGICAL, ids=range(len(PATHOLOGICAL)))
def test_pathological_keybindings_files_fall_back_to_the_defaults(document: str, tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    before = _write(path, document)
    bindings = Keybindings.load(path)
    assert path.read_bytes() == before
    assert bindings.keys("app.interrupt") == tuple(load_defaults()["app.interrupt"])
    if document.strip("\ufeff") not in ("{}", ""):
        assert len(bindings.warnings) == 1 and str(path) in bindings.warnings[0]


# ---------------------------------------------------------------------------------------------
# Theme files as the app loads them
# ---------------------------------------------------------------------------------------------

color_values = st.one_of(
    st.sampled_from(["#ff0000", "#00FF7f", "", "#fff", "#gg0000", "accentVar", "missingVar", "red"]),
    st.integers(min_value=-3, max_value=260),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
)
near_valid_themes = st.fixed_dictionaries(
    {
        "name": st.one_of(st.just("mine"), st.sampled_from(["dark", "", "other"]), scalars),
        "colors": st.dictionaries(
            st.one_of(st.sampled_from(THEME_TOKENS), st.text(max_size=6)), color_values, max_size=4
        ).map(lambda some: {**{token: "#336699" for token in THEME_TOKENS}, **some}),
    },
    optional={
        "vars": st.dictionaries(st.sampled_from(["accentVar", "loop", "x"]), color_values, max_size=3),
        "export": st.one_of(st.dictionaries(st.sampled_from([*EXPORT_KEYS, "bogus"]), color_values), scalars),
        "$schema": scalars,
    },
).map(json.dumps)
theme_documents = st.one_of(garbage_text, near_valid_themes)


@FUZZ
@given(document=theme_documents, replacement=theme_documents)
def test_random_theme_files_are_used_or_reported_and_never_rewritten(document: str, replacement: str) -> None:
    themes_dir = _fresh_dir() / "themes"
    path = themes_dir / "mine.json"
    before = _write(path, document)

    specs, problems = discover_user_themes(themes_dir)
    manager = ThemeManager(specs, diagnostics=problems)
    warning = manager.initial("mine", light_background=False)

    assert path.read_bytes() == before
    for line in [*problems, *([warning] if warning else [])]:
        assert line and "\n" not in line and "Traceback" not in line
    if specs:
        assert problems == []
    else:
        assert len(problems) == 1 and str(path) in problems[0]
    if warning is None:
        assert manager.current.name == "mine" and specs[0].name == "mine"
    else:
        assert manager.current.name == "dark" and "mine" in warning
    assert textual_theme(manager.current).name == f"pi-{manager.current.name}"
    assert len(theme_variables(manager.current)) == len(THEME_TOKENS)

    # Hot reload after the file changed: a broken edit keeps the working theme (D-40).
    shown = manager.current
    after = _write(path, replacement)
    error = manager.activate("mine")
    assert path.read_bytes() == after
    if error is None:
        assert manager.current.name == "mine"
        textual_theme(manager.current)
    else:
        assert manager.current is shown and error.startswith('Failed to load theme "mine"')


@pytest.mark.parametrize("document", PATHOLOGICAL, ids=range(len(PATHOLOGICAL)))
def test_pathological_theme_files_are_reported_not_raised(document: str, tmp_path: Path) -> None:
    path = tmp_path / "themes" / "mine.json"
    before = _write(path, document)
    specs, problems = discover_user_themes(path.parent)
    manager = ThemeManager(specs, diagnostics=problems)
    warning = manager.initial("mine", light_background=True)
    assert path.read_bytes() == before
    assert specs == [] and len(problems) == 1 and str(path) in problems[0]
    assert manager.current.name == "light" and warning and "mine" in warning
