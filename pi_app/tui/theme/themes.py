"""Themes in the app: pi theme files to ``PiTheme`` objects and Textual themes; switching; hot reload.

Parsing and validation of the JSON belong to ``pi_app.coding.resources.themes`` (``ThemeSpec``,
decision D-34); this module only turns a valid spec into what the app draws with:

* ``PiTheme`` — the object transcript blocks render with (``name``, ``version``, ``fg``, ``bg``,
  ``is_light``; the ``BlockTheme`` protocol of ``blocks/theme.py``). ``""`` is the terminal default
  (a null style); an integer is an xterm-256 index.
* ``textual_theme`` — a Textual ``Theme`` (``pi-<name>``) whose base colours come from the pi
  tokens (R-THEME-05) and whose variables expose all 51 tokens as ``$pi-<kebab-token>`` for TCSS.
* ``ThemeManager`` — the available themes (built-ins ``dark`` and ``light`` first, then the
  resource loader's themes or the user's theme directory; decision D-21), the active theme, and
  ``activate(name)``, which never replaces the active theme with one that fails to load: it returns
  the error text instead (decision D-40). The app re-reads the active custom theme's file when
  ``watch.FileWatcher`` reports a change (R-THEME-04).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rich.color import Color as RichColor
from rich.style import Style
from textual.theme import Theme

from pi_app.coding.resources.themes import (
    BACKGROUND_TOKENS,
    BUILTIN_THEME_NAMES,
    SYSTEM_THEME,
    THEME_TOKENS,
    ColorValue,
    ThemeError,
    ThemeSpec,
    load_theme_file,
)

PACKAGE_DATA = Path(__file__).resolve().parents[2] / "data"
"""``pi_app/data``, where the built-in themes are (a plain folder of the package)."""

_versions = itertools.count(1)

_DEFAULT_BACKGROUND = {False: "#18181e", True: "#f8f8f8"}
_DEFAULT_FOREGROUND = {False: "#d4d4d4", True: "#1e1e1e"}


@dataclass(frozen=True)
class PiTheme:
    """A theme ready to draw with: resolved colours and the Rich styles built from them."""

    name: str
    version: int
    colors: Mapping[str, ColorValue]
    """Every token resolved: ``"#rrggbb"``, an xterm index, or ``""`` (terminal default)."""
    fg: Mapping[str, Style] = field(default_factory=dict)
    bg: Mapping[str, Style] = field(default_factory=dict)
    export: Mapping[str, ColorValue] = field(default_factory=dict)
    is_light: bool = False
    source_path: Path | None = None

    def hex(self, token: str, fallback: str | None = None) -> str | None:
        """The token as ``#rrggbb`` (xterm indices converted); ``fallback`` for the default colour."""
        return color_hex(self.colors.get(token, ""), fallback)


def color_hex(value: ColorValue, fallback: str | None = None) -> str | None:
    if isinstance(value, int):
        triplet = RichColor.from_ansi(value).get_truecolor()
        return f"#{triplet.red:02x}{triplet.green:02x}{triplet.blue:02x}"
    return value or fallback


def _rich_color(value: ColorValue) -> RichColor | None:
    if isinstance(value, int):
        return RichColor.from_ansi(value)
    return RichColor.parse(value) if value else None


def _luminance(hex_color: str) -> float:
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b


def build_pi_theme(spec: ThemeSpec, version: int | None = None) -> PiTheme:
    """A ``PiTheme`` for a validated spec (raises ``ThemeError`` for unresolved variables)."""
    colors = spec.resolve_colors()
    fg: dict[str, Style] = {}
    bg: dict[str, Style] = {}
    for token in THEME_TOKENS:
        color = _rich_color(colors[token])
        if token in BACKGROUND_TOKENS:
            bg[token] = Style(bgcolor=color) if color else Style.null()
        else:
            fg[token] = Style(color=color) if color else Style.null()
    probe = color_hex(colors["userMessageBg"]) or color_hex(colors["selectedBg"]) or "#000000"
    return PiTheme(
        name=spec.name,
        version=version if version is not None else next(_versions),
        colors=colors,
        fg=fg,
        bg=bg,
        export=spec.resolve_export(),
        is_light=spec.appearance == "light" if spec.appearance else _luminance(probe) > 0.5,
        source_path=Path(spec.file_path) if spec.file_path else None,
    )


def kebab(token: str) -> str:
    out = []
    for char in token:
        if char.isupper():
            out.append("-" + char.lower())
        else:
            out.append(char)
    return "".join(out)


def textual_theme_name(name: str) -> str:
    return f"pi-{name}"


def theme_variables(theme: PiTheme) -> dict[str, str]:
    """``pi-<kebab-token>`` -> colour for every token (default colour -> text or background)."""
    foreground = theme.hex("text", _DEFAULT_FOREGROUND[theme.is_light]) or ""
    background = _background(theme)
    variables = {}
    for token in THEME_TOKENS:
        fallback = background if token in BACKGROUND_TOKENS else foreground
        variables[f"pi-{kebab(token)}"] = theme.hex(token, fallback) or fallback
    return variables


def _background(theme: PiTheme) -> str:
    return color_hex(theme.export.get("pageBg", ""), None) or _DEFAULT_BACKGROUND[theme.is_light]


def textual_theme(theme: PiTheme) -> Theme:
    """The Textual theme for ``theme`` (R-THEME-05)."""
    foreground = theme.hex("text", _DEFAULT_FOREGROUND[theme.is_light])
    background = _background(theme)
    accent = theme.hex("accent", foreground)
    return Theme(
        name=textual_theme_name(theme.name),
        primary=theme.hex("border", accent) or "#5f87ff",
        secondary=theme.hex("borderAccent", accent),
        accent=accent,
        warning=theme.hex("warning", foreground),
        error=theme.hex("error", foreground),
        success=theme.hex("success", foreground),
        foreground=foreground,
        background=background,
        surface=background,
        panel=theme.hex("selectedBg", background),
        dark=not theme.is_light,
        variables={
            **theme_variables(theme),
            "border": theme.hex("borderMuted", foreground) or "",
            "text-muted": theme.hex("muted", foreground) or "",
        },
    )


def builtin_theme_path(name: str) -> Path:
    return PACKAGE_DATA / "themes" / f"{name}.json"


def load_builtin_specs() -> dict[str, ThemeSpec]:
    return {name: load_theme_file(builtin_theme_path(name)) for name in BUILTIN_THEME_NAMES}


def builtin_theme(name: str = "dark") -> PiTheme:
    return build_pi_theme(load_builtin_specs()[name])


class ThemeManager:
    """The available themes and the active one; see the module docstring."""

    def __init__(self, specs: Iterable[ThemeSpec] = (), *, diagnostics: Iterable[str] = ()) -> None:
        self.specs: dict[str, ThemeSpec] = load_builtin_specs()
        self.diagnostics: list[str] = list(diagnostics)
        self.add_specs(specs)
        self.current: PiTheme = build_pi_theme(self.specs["dark"])
        self.light_background = False

    def add_specs(self, specs: Iterable[ThemeSpec]) -> None:
        """Add custom themes; built-in names cannot be replaced and the first of a name wins."""
        for spec in specs:
            if spec.name == SYSTEM_THEME:
                self.diagnostics.append(f'Theme "system" from {spec.file_path} ignored (a reserved name)')
                continue
            if spec.name in BUILTIN_THEME_NAMES:
                self.diagnostics.append(f'Theme "{spec.name}" from {spec.file_path} collides with a built-in')
                continue
            if spec.name in self.specs:
                winner = self.specs[spec.name].file_path
                if winner == spec.file_path:  # the same file found twice (loader and discovery)
                    continue
                self.diagnostics.append(f'Theme "{spec.name}" from {spec.file_path} ignored ({winner} wins)')
                continue
            self.specs[spec.name] = spec

    def names(self) -> list[str]:
        return list(self.specs)

    def load(self, name: str) -> PiTheme:
        """Build theme ``name`` fresh from its file (custom themes are re-read); raises ``ThemeError``."""
        spec = self.specs.get(name)
        if spec is None:
            raise ThemeError(f'Theme "{name}" not found')
        if spec.file_path and name not in BUILTIN_THEME_NAMES and Path(spec.file_path).exists():
            spec = load_theme_file(spec.file_path, spec.source_info)
            if spec.name != name:
                raise ThemeError(f'Theme file {spec.file_path} now names "{spec.name}", not "{name}"')
            self.specs[name] = spec
        return build_pi_theme(spec)

    def activate(self, name: str) -> str | None:
        """Make ``name`` the active theme; on failure keep the current one and return the error.

        ``system`` and ``"light/dark"`` pairs resolve by the terminal background seen at start-up."""
        name = resolve_selection(name, self.light_background) or name
        if name == SYSTEM_THEME:
            name = "light" if self.light_background else "dark"
        try:
            self.current = self.load(name)
        except ThemeError as exc:
            return f'Failed to load theme "{name}": {exc}'
        return None

    def activate_theme(self, theme: PiTheme) -> None:
        self.current = theme

    def initial(self, selected: str | None, light_background: bool) -> str | None:
        """Start-up selection (R-THEME-03): the setting, else the background; a warning on fallback.

        pi 1.6.0's forms: ``system`` (the default) follows the terminal's light or dark background
        (here with the built-in light or dark theme), and ``"<light>/<dark>"`` names the theme for a
        light and for a dark terminal."""
        self.light_background = light_background
        fallback = "light" if light_background else "dark"
        selected = resolve_selection(selected, light_background)
        if not selected or selected == SYSTEM_THEME:
            self.activate(fallback)
            return None
        error = self.activate(selected)
        if error is not None:
            self.activate(fallback)
            return f"{error}; using {fallback}"
        return None


def resolve_selection(selected: str | None, light_background: bool) -> str | None:
    """The theme a ``theme`` setting names for this terminal: ``light/dark`` picks one side."""
    if selected and "/" in selected:
        light, _, dark = selected.partition("/")
        return (light if light_background else dark).strip() or None
    return selected


def discover_user_themes(directory: Path) -> tuple[list[ThemeSpec], list[str]]:
    """Themes in one directory (``<agentDir>/themes``): valid specs and one line per broken file."""
    specs: list[ThemeSpec] = []
    problems: list[str] = []
    if not directory.is_dir():
        return specs, problems
    for path in sorted(directory.glob("*.json")):
        try:
            specs.append(load_theme_file(path))
        except ThemeError as exc:
            problems.append(f"{one_line(str(exc))} ({path})")
    return specs, problems


def one_line(message: str) -> str:
    """A multi-line theme error as one line: ``Invalid theme "x": Missing required color tokens: a, b``."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not lines:
        return message
    head, items = lines[0], [line.removeprefix("- ").strip() for line in lines[1:]]
    out = head
    for item in items:
        out += (" " if out.endswith(":") else ", ") + item
    return out
