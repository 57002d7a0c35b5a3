"""Theme files: the pure-data ``ThemeSpec`` and its validation (60 R-THEME-02, 40 R-RES-10, D-34).

A theme file is pi 1.6.0's JSON (0.73.1's is a subset): ``{"$schema"?, "name", "appearance"?,
"vars"?, "colors": {tokens}, "export"?}``. A colour is ``"#rrggbb"`` or ``"#rgb"``,
``"oklch(L C H)"``, ``"okhsl(H S% L%)"`` (both turned into ``#rrggbb`` when resolved, see
``pi_app.coding.resources.oklab``), an xterm-256 index 0..255, the name of a ``vars`` entry
(variables may name variables), or ``""`` (terminal default). 1.6.0's five newer tokens are
optional and fall back as 1.6.0 documents (``OPTIONAL_TOKENS``); ``appearance`` (``"dark"`` or
``"light"``) says which background the theme is made for. ``system`` is a reserved name (the
theme that follows the terminal's light or dark background) and names cannot contain ``/``. This module knows nothing about Textual: ``pi_app/tui/theme/themes.py`` turns a
valid spec (``resolve_colors``) into Textual themes.

Error texts: ``Failed to parse theme <path>: <error>``; ``Invalid theme "<name>":`` followed by the
missing tokens under ``Missing required color tokens:`` and then the other problems;
``Variable reference not found: <name>``; ``Circular variable reference detected: <name>``;
``Invalid hex color: <value>``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_app.coding.resources.diagnostics import PathMetadata, ResourceDiagnostic, error, warning
from pi_app.coding.resources.ignore_rules import discover_files

THEME_TOKENS: tuple[str, ...] = (
    # core UI
    "accent",
    "border",
    "borderAccent",
    "borderMuted",
    "success",
    "error",
    "warning",
    "muted",
    "dim",
    "text",
    "thinkingText",
    # backgrounds and content
    "selectedBg",
    "userMessageBg",
    "userMessageText",
    "customMessageBg",
    "customMessageText",
    "customMessageLabel",
    "toolPendingBg",
    "toolSuccessBg",
    "toolErrorBg",
    "toolTitle",
    "toolOutput",
    # markdown
    "mdHeading",
    "mdLink",
    "mdLinkUrl",
    "mdCode",
    "mdCodeBlock",
    "mdCodeBlockBorder",
    "mdQuote",
    "mdQuoteBorder",
    "mdHr",
    "mdListBullet",
    # tool diffs
    "toolDiffAdded",
    "toolDiffRemoved",
    "toolDiffContext",
    # syntax
    "syntaxComment",
    "syntaxKeyword",
    "syntaxFunction",
    "syntaxVariable",
    "syntaxString",
    "syntaxNumber",
    "syntaxType",
    "syntaxOperator",
    "syntaxPunctuation",
    # thinking-level borders
    "thinkingOff",
    "thinkingMinimal",
    "thinkingLow",
    "thinkingMedium",
    "thinkingHigh",
    "thinkingXhigh",
    # bash mode
    "bashMode",
    # pi 1.6.0: fullscreen scrollbar and transcript search, the max thinking level (optional)
    "scrollbarTrack",
    "scrollbarThumb",
    "searchMatchBg",
    "searchMatchText",
    "thinkingMax",
)
OPTIONAL_TOKENS: dict[str, str] = {
    "scrollbarTrack": "muted",
    "scrollbarThumb": "text",
    "searchMatchBg": "selectedBg",
    "searchMatchText": "text",
    "thinkingMax": "thinkingXhigh",
}
BACKGROUND_TOKENS = frozenset(
    {
        "selectedBg",
        "userMessageBg",
        "customMessageBg",
        "toolPendingBg",
        "toolSuccessBg",
        "toolErrorBg",
        "searchMatchBg",
    }
)
EXPORT_KEYS = ("pageBg", "cardBg", "infoBg")
BUILTIN_THEME_NAMES = ("dark", "light")
SYSTEM_THEME = "system"
APPEARANCES = ("dark", "light")
_TOP_LEVEL_KEYS = frozenset({"$schema", "name", "appearance", "vars", "colors", "export"})
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")

ColorValue = str | int


class ThemeError(ValueError):
    """A theme file that cannot be used; ``str(error)`` is the text to show."""


@dataclass(frozen=True)
class ThemeSpec:
    """A theme file as loaded: its colours, variables and export colours."""

    name: str
    colors: dict[str, ColorValue]
    vars: dict[str, ColorValue] = field(default_factory=dict)
    export: dict[str, ColorValue] = field(default_factory=dict)
    file_path: str | None = None
    source_info: PathMetadata = field(default_factory=PathMetadata)
    appearance: str | None = None  # "dark" | "light" | None (decided from the colours)

    def resolve_colors(self) -> dict[str, ColorValue]:
        """Every token with variables resolved: ``"#rrggbb"``, an int 0..255 or ``""``; an omitted
        optional token takes its fallback's colour."""
        out: dict[str, ColorValue] = {}
        for token in THEME_TOKENS:
            source = token if token in self.colors else OPTIONAL_TOKENS[token]
            out[token] = resolve_color(self.colors[source], self.vars)
        return out

    def resolve_export(self) -> dict[str, ColorValue]:
        return {key: resolve_color(value, self.vars) for key, value in self.export.items()}


def _check_value(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return f"must be a string or an integer 0-255, got {json.dumps(value)}"
    if isinstance(value, int) and not 0 <= value <= 255:
        return f"integer {value} is outside 0-255"
    return None


def resolve_color(
    value: ColorValue, variables: dict[str, ColorValue], _seen: tuple[str, ...] = ()
) -> ColorValue:
    if isinstance(value, int):
        return value
    if value == "" or value.startswith("#"):
        if value and not _HEX.match(value):
            raise ThemeError(f"Invalid hex color: {value}")
        if len(value) == 4:  # "#0af" -> "#00aaff"
            value = "#" + "".join(ch * 2 for ch in value[1:])
        return value.lower() if value else value
    from pi_app.coding.resources import oklab

    if oklab.is_color_function(value):
        try:
            return oklab.function_to_hex(value)
        except (oklab.ColorSyntaxError, ValueError, ZeroDivisionError):
            raise ThemeError(f"Invalid color: {value}") from None
    if value in _seen:
        raise ThemeError(f"Circular variable reference detected: {value}")
    if value not in variables:
        raise ThemeError(f"Variable reference not found: {value}")
    return resolve_color(variables[value], variables, (*_seen, value))


def parse_theme(
    data: Any, file_path: str | None = None, source_info: PathMetadata | None = None
) -> ThemeSpec:
    """Validate decoded JSON; raises ``ThemeError`` with the R-THEME-02 texts."""
    if not isinstance(data, dict):
        raise ThemeError("Invalid theme: the file must contain a JSON object")
    name = data.get("name")
    label = name if isinstance(name, str) and name else (Path(file_path).stem if file_path else "?")
    problems: list[str] = []
    if not isinstance(name, str) or not name:
        problems.append("name: a non-empty string is required")
    elif "/" in name:
        problems.append('name: cannot contain "/" (it separates the light and dark theme in settings)')
    appearance = data.get("appearance")
    if appearance is not None and appearance not in APPEARANCES:
        problems.append('appearance: must be "dark" or "light"')
    for key in data:
        if key not in _TOP_LEVEL_KEYS:
            problems.append(f"{key}: unknown property")
    colors = data.get("colors")
    missing: list[str] = []
    if not isinstance(colors, dict):
        problems.append("colors: an object is required")
        colors = {}
    else:
        missing = [token for token in THEME_TOKENS if token not in colors and token not in OPTIONAL_TOKENS]
        for key, value in colors.items():
            if key not in THEME_TOKENS:
                problems.append(f"colors.{key}: unknown color token")
            elif (problem := _check_value(value)) is not None:
                problems.append(f"colors.{key}: {problem}")
    variables = data.get("vars", {})
    if not isinstance(variables, dict):
        problems.append("vars: an object is required")
        variables = {}
    for key, value in variables.items():
        if (problem := _check_value(value)) is not None:
            problems.append(f"vars.{key}: {problem}")
    export = data.get("export", {})
    if not isinstance(export, dict):
        problems.append("export: an object is required")
        export = {}
    for key, value in export.items():
        if key not in EXPORT_KEYS:
            problems.append(f"export.{key}: unknown property")
        elif (problem := _check_value(value)) is not None:
            problems.append(f"export.{key}: {problem}")
    if missing or problems:
        lines = [f'Invalid theme "{label}":']
        if missing:
            lines.append("Missing required color tokens:")
            lines.extend(f"  - {token}" for token in missing)
        lines.extend(f"  - {problem}" for problem in problems)
        raise ThemeError("\n".join(lines))
    spec = ThemeSpec(
        str(name),
        dict(colors),
        dict(variables),
        dict(export),
        file_path,
        source_info or PathMetadata(),
        appearance if isinstance(appearance, str) else None,
    )
    spec.resolve_colors()  # unknown or circular vars, bad hex values
    spec.resolve_export()
    return spec


def load_theme_file(path: str | Path, source_info: PathMetadata | None = None) -> ThemeSpec:
    """Read and validate one theme file; raises ``ThemeError``."""
    target = Path(path)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: also 5000-digit numbers
        raise ThemeError(f"Failed to parse theme {target}: {exc}") from exc
    return parse_theme(data, str(target), source_info)


def discover_theme_files(directory: Path, *, recursive: bool) -> list[Path]:
    return discover_files(directory, ".json", recursive=recursive)


def load_themes_from_path(
    path: str | Path, source_info: PathMetadata, *, recursive: bool, explicit: bool = False
) -> tuple[list[ThemeSpec], list[ResourceDiagnostic]]:
    target = Path(path)
    if not target.exists():
        return [], [error("Theme path does not exist", str(target))] if explicit else []
    if target.is_file():
        if target.suffix != ".json":
            return [], [warning("theme path is not a json file", str(target))]
        files = [target]
    else:
        files = discover_theme_files(target, recursive=recursive)
    themes: list[ThemeSpec] = []
    diagnostics: list[ResourceDiagnostic] = []
    for file in files:
        try:
            themes.append(load_theme_file(file, source_info))
        except ThemeError as exc:
            diagnostics.append(warning(str(exc), str(file)))
    return themes, diagnostics
