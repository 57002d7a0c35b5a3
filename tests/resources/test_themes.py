"""Theme files: ThemeSpec validation and error texts (60 R-THEME-02, 40 R-RES-10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.coding.resources.diagnostics import PathMetadata
from pi_app.coding.resources.themes import (
    OPTIONAL_TOKENS,
    THEME_TOKENS,
    ThemeError,
    load_theme_file,
    load_themes_from_path,
)


def theme_data(name: str = "mine", **overrides: object) -> dict:
    colors = {
        token: (i % 256 if i % 3 == 0 else f"#{i:02x}{i:02x}{i:02x}") for i, token in enumerate(THEME_TOKENS)
    }
    colors["accent"] = "brand"
    colors["text"] = ""
    data = {
        "$schema": "https://example.invalid/theme-schema.json",
        "name": name,
        "vars": {"brand": "base", "base": "#8abeb7"},
        "colors": colors,
        "export": {"pageBg": "#18181e", "cardBg": "#1e1e24", "infoBg": "#3c3728"},
    }
    data.update(overrides)
    return data


def write(path: Path, data: object) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_typescript_pi_theme_loads_unchanged(tmp_path: Path) -> None:
    spec = load_theme_file(write(tmp_path / "mine.json", theme_data()))
    # 0.73.1's 51 tokens are required; 1.6.0's five newer ones are optional with fallbacks
    assert len(THEME_TOKENS) == 56 and len(THEME_TOKENS) - len(OPTIONAL_TOKENS) == 51
    resolved = spec.resolve_colors()
    assert resolved["accent"] == "#8abeb7" and resolved["text"] == ""
    assert spec.resolve_export()["pageBg"] == "#18181e"


def test_missing_tokens_and_other_errors_are_listed(tmp_path: Path) -> None:
    data = theme_data()
    del data["colors"]["mdHeading"]
    del data["colors"]["bashMode"]
    data["colors"]["border"] = 300
    with pytest.raises(ThemeError) as err:
        load_theme_file(write(tmp_path / "t.json", data))
    lines = str(err.value).splitlines()
    assert lines[0] == 'Invalid theme "mine":'
    assert lines[1] == "Missing required color tokens:"
    assert "  - mdHeading" in lines and "  - bashMode" in lines
    assert any("colors.border" in line and "outside 0-255" in line for line in lines)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"vars": {"brand": "nope"}}, "Variable reference not found: nope"),
        ({"vars": {"brand": "base", "base": "brand"}}, "Circular variable reference detected: brand"),
        ({"vars": {"brand": "#12345"}}, "Invalid hex color: #12345"),
    ],
)
def test_variable_and_hex_errors(tmp_path: Path, change: dict, message: str) -> None:
    with pytest.raises(ThemeError, match=message):
        load_theme_file(write(tmp_path / "t.json", theme_data(**change)))


def test_parse_errors_and_directory_loading(tmp_path: Path) -> None:
    bad = write(tmp_path / "broken.json", "{nope")
    with pytest.raises(ThemeError, match=f"Failed to parse theme {bad}"):
        load_theme_file(bad)
    write(tmp_path / "good.json", theme_data("good"))
    themes, diagnostics = load_themes_from_path(tmp_path, PathMetadata(), recursive=False)
    assert [t.name for t in themes] == ["good"]
    assert [d.path for d in diagnostics] == [str(bad)]
    write(tmp_path / "theme.txt", "x")
    _, diagnostics = load_themes_from_path(tmp_path / "theme.txt", PathMetadata(), recursive=False)
    assert [d.message for d in diagnostics] == ["theme path is not a json file"]
