"""pi 1.6.0 theme files: ``vars`` chains, ``okhsl()``/``oklch()``/``#rgb`` colours, ``appearance``,
the five newer optional tokens, the reserved ``system`` theme and ``light/dark`` selections."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from pi_app.coding.resources.oklab import function_to_hex
from pi_app.coding.resources.themes import (
    OPTIONAL_TOKENS,
    THEME_TOKENS,
    ThemeError,
    load_theme_file,
    parse_theme,
)
from pi_app.tui.theme.themes import (
    ThemeManager,
    build_pi_theme,
    builtin_theme_path,
    resolve_selection,
    textual_theme,
)

ROOT = Path(__file__).resolve().parents[2]
PI16_THEME = ROOT / "tests" / "fixtures" / "pi-reference-1.6" / "config-home" / "themes" / "my-theme.json"


def _channels(value: str) -> tuple[int, int, int]:
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


def _close(a: str, b: str, tolerance: int) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(_channels(a), _channels(b), strict=True))


@pytest.fixture(scope="module")
def coloraide():
    base = pytest.importorskip("coloraide")
    from coloraide.spaces.okhsl import Okhsl

    class Color(base.Color):
        pass

    Color.register(Okhsl())
    return Color


def test_1_6_dark_theme_loads_with_every_token(coloraide) -> None:
    spec = load_theme_file(PI16_THEME)
    colors = spec.resolve_colors()
    assert set(colors) == set(THEME_TOKENS) and spec.appearance == "dark"
    raw = json.loads(PI16_THEME.read_text())
    for token, value in raw["colors"].items():
        source = raw["vars"].get(value, value)
        h, s, lightness = (float(x.rstrip("%")) for x in source[len("okhsl(") : -1].split())
        expected = coloraide("okhsl", [h, s / 100, lightness / 100]).convert("srgb").to_string(hex=True)
        assert _close(colors[token], expected, 1), (token, colors[token], expected)
    theme = build_pi_theme(spec)
    assert not theme.is_light
    assert textual_theme(theme).variables["pi-thinking-max"] == colors["thinkingMax"]


def test_okhsl_matches_coloraide_over_a_grid(coloraide) -> None:
    grid = itertools.product(range(0, 360, 29), (0, 0.3, 0.79, 0.81, 1), (0.05, 0.24, 0.5, 0.89))
    for h, s, lightness in grid:
        expected = coloraide("okhsl", [h, s, lightness]).convert("srgb").to_string(hex=True)
        assert _close(function_to_hex(f"okhsl({h} {s * 100}% {lightness * 100}%)"), expected, 1)


def test_oklch_in_gamut_matches_and_out_of_gamut_is_mapped(coloraide) -> None:
    for lightness, chroma, hue in itertools.product((0.3, 0.62, 0.9), (0, 0.05, 0.1), range(0, 360, 45)):
        expected = (
            coloraide(f"oklch({lightness} {chroma} {hue})").convert("srgb").fit("srgb").to_string(hex=True)
        )
        assert _close(function_to_hex(f"oklch({lightness * 100}% {chroma} {hue})"), expected, 1)
    # far outside sRGB: chroma is lowered, lightness and hue stay (CSS's own mapping differs slightly)
    expected = coloraide("oklch(0.5 0.37 253)").convert("srgb").fit("srgb").to_string(hex=True)
    assert _close(function_to_hex("oklch(50% 0.37 253)"), expected, 8)


def _theme(**colors: object) -> dict:
    base = json.loads(builtin_theme_path("dark").read_text())
    base["colors"].update(colors)
    return base


def test_short_hex_vars_chains_and_optional_fallbacks() -> None:
    data = _theme(accent="brand", border="#0af")
    data["vars"] = {**data.get("vars", {}), "brand": "base", "base": "oklch(62% 0.1 200)"}
    for token in OPTIONAL_TOKENS:
        data["colors"].pop(token, None)
    spec = parse_theme(data)
    colors = spec.resolve_colors()
    assert colors["border"] == "#00aaff"
    assert colors["accent"] == function_to_hex("oklch(62% 0.1 200)")
    for token, fallback in OPTIONAL_TOKENS.items():
        assert colors[token] == colors[fallback]


def test_problems_are_named() -> None:
    with pytest.raises(ThemeError, match="Invalid color: okhsl"):
        parse_theme(_theme(accent="okhsl(nonsense)"))
    with pytest.raises(ThemeError, match='appearance: must be "dark" or "light"'):
        parse_theme({**_theme(), "appearance": "dim"})
    with pytest.raises(ThemeError, match='cannot contain "/"'):
        parse_theme({**_theme(), "name": "a/b"})
    with pytest.raises(ThemeError, match="Circular variable reference"):
        parse_theme({**_theme(accent="x"), "vars": {"x": "y", "y": "x"}})


def test_appearance_decides_light_or_dark() -> None:
    data = {**_theme(), "name": "looks-dark", "appearance": "light"}
    assert build_pi_theme(parse_theme(data)).is_light


def test_system_is_reserved_and_follows_the_terminal(tmp_path: Path) -> None:
    path = tmp_path / "system.json"
    path.write_text(json.dumps({**_theme(), "name": "system"}))
    manager = ThemeManager([load_theme_file(path)])
    assert "system" not in manager.names()
    assert any("reserved" in line for line in manager.diagnostics)
    assert manager.initial("system", light_background=True) is None and manager.current.name == "light"
    assert manager.initial("system", light_background=False) is None and manager.current.name == "dark"


def test_a_light_dark_pair_picks_by_the_background() -> None:
    assert resolve_selection("light/dark", True) == "light"
    assert resolve_selection("light/dark", False) == "dark"
    manager = ThemeManager()
    assert manager.initial("light/dark", light_background=True) is None and manager.current.name == "light"
    assert manager.initial("light/dark", light_background=False) is None and manager.current.name == "dark"


def test_activating_system_later_uses_the_background_seen_at_start() -> None:
    manager = ThemeManager()
    manager.initial("dark", light_background=True)
    assert manager.current.name == "dark"
    assert manager.activate("system") is None and manager.current.name == "light"


def test_appearance_reports_parse_to_pseudo_keys() -> None:
    from pi_app.tui.input.keys import PiXTermParser

    parser = PiXTermParser()
    keys = [event.key for event in parser.feed("\x1b[?997;2n\x1b[?997;1n") if hasattr(event, "key")]
    assert keys == ["pi-color-scheme-light", "pi-color-scheme-dark"]


@pytest.mark.parametrize(
    ("setting", "after_light"),
    [(None, "light"), ("system", "light"), ("light/dark", "light"), ("dark", "dark")],
)
async def test_the_system_theme_follows_a_live_appearance_change(
    tmp_path: Path, setting, after_light
) -> None:  # type: ignore[no-untyped-def]
    from textual import events

    from tests.tui.test_app_flows import make_app, started

    agent = tmp_path / "agent"
    agent.mkdir()
    if setting is not None:  # the file for the first frame, the session's settings manager after
        (agent / "settings.json").write_text(json.dumps({"theme": setting}))
    app, _ = make_app(tmp_path, agent_dir=agent, settings={"theme": setting} if setting else None)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        assert app.themes.current.name == "dark"
        app.post_message(events.Key("pi-color-scheme-light", None))
        await pilot.pause(0.1)
        assert app.themes.current.name == after_light
        assert app.editor.text == ""  # the report is not typed into the editor
        app.post_message(events.Key("pi-color-scheme-dark", None))
        await pilot.pause(0.1)
        assert app.themes.current.name == "dark"
