"""``/thinking [level]``: the thinking-level picker and the direct form (issue 17, pi 1.6.0's ``/thinking``).

The picker lists the levels the current model supports (``pi_app.ai.thinking``), the session's
level marked ``✓`` and preselected, the saved default noted as ``· default``. Enter sets the level
for this session only; ``app.thinking.save`` (Ctrl+S) sets it and saves it as the default for new
sessions; Escape cancels. ``/thinking <level>`` sets a supported level at once (case-insensitive);
an unknown one is an error line naming the levels the model offers. As in 1.6.0, the status line
is ``Thinking level: <level>`` (``Default thinking level: <level>`` after saving). Changing the
level goes through ``AgentSession.set_thinking_level``, so the session file records it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_app.tui.editor.autocomplete import AutocompleteItem
from pi_app.tui.selectors.select_list import SelectItem, SelectList

if TYPE_CHECKING:
    from pi_app.tui.host import SessionHost

LEVEL_DESCRIPTIONS: dict[str, str] = {
    "off": "No reasoning",
    "minimal": "Minimal reasoning (about 1k tokens)",
    "low": "Brief reasoning (about 2k tokens)",
    "medium": "Moderate reasoning (about 8k tokens)",
    "high": "Thorough reasoning (about 16k tokens)",
    "xhigh": "Extra-high reasoning (about 32k tokens)",
    "max": "Most reasoning the model allows",
}


def available_levels(app: SessionHost) -> list[str]:
    """The levels the session's current model supports (only ``off`` without a reasoning model)."""
    return list(app.snapshot.thinking_levels)


def level_items(levels: list[str], current: str, default: str | None) -> list[SelectItem]:
    items = []
    for level in levels:
        description = LEVEL_DESCRIPTIONS.get(level, "")
        if level == default:
            description = f"{description} · default" if description else "default"
        items.append(
            SelectItem(
                value=level, label=level, description=description, marker="✓ " if level == current else "  "
            )
        )
    return items


async def apply_level(app: SessionHost, level: str, *, save: bool) -> None:
    """Set ``level`` on the session (saved as the default only when ``save``) and report it."""
    try:
        await app.bridge.request(lambda s: s.set_thinking_level(level, persist_default=save))
    except Exception as exc:
        app.show_error(str(exc) or type(exc).__name__)
        return
    if save and app.settings is not None:
        # set_thinking_level saves only a change; saving the level already in use must save too
        try:
            app.settings.set_default_thinking_level(level)
        except Exception as exc:
            app.show_warning(f"Could not save the setting: {exc}")
    app.refresh_footer()
    app.show_status(f"Default thinking level: {level}" if save else f"Thinking level: {level}")


def open_thinking_selector(app: SessionHost) -> None:
    levels = available_levels(app)
    current = app.snapshot.thinking_level or "off"
    default = app.settings.get_default_thinking_level() if app.settings is not None else None

    def choose(level: str, save: bool) -> None:
        app.restore_editor()
        app.run_worker(apply_level(app, level, save=save), group="command", exit_on_error=False)

    def save_highlighted() -> None:
        item = selector.model.current()
        if item is not None:
            choose(item.value, True)

    kb = app.keybindings
    hint = (
        f"{kb.hint('tui.select.confirm')} select · {kb.hint('app.thinking.save')} set as default · "
        f"{kb.hint('tui.select.cancel')} cancel · {kb.hint('app.thinking.cycle')} cycles levels in-session"
    )
    selector = SelectList(
        level_items(levels, current, default),
        title="Thinking level",
        keybindings=kb,
        theme=app.themes.current,
        hint=hint,
        on_select=lambda item: choose(item.value, False),
        on_cancel=app.restore_editor,
        extra_keys={"app.thinking.save": save_highlighted},
        id="thinking-selector",
    )
    selector.model.select_value(current)
    app.show_in_editor_slot(selector)


async def thinking_command(app: SessionHost, args: str) -> None:
    """``/thinking``: the picker; ``/thinking <level>``: that level, if the model supports it."""
    if app.session is None:
        app.show_status("Still starting up…")
        return
    wanted = args.strip()
    if not wanted:
        open_thinking_selector(app)
        return
    levels = available_levels(app)
    level = next((candidate for candidate in levels if candidate == wanted.lower()), None)
    if level is None:
        app.show_error(f'Unknown thinking level "{wanted}". Available levels: {", ".join(levels)}.')
        return
    await apply_level(app, level, save=False)


def thinking_argument_completions(app: SessionHost) -> Callable[[str], list[AutocompleteItem] | None]:
    """``/thinking <tab>``: the current model's levels, fuzzy-matched."""
    from pi_app.coding.fuzzy import fuzzy_filter

    def complete(argument: str) -> list[AutocompleteItem] | None:
        if app.session is None:
            return None
        return [
            AutocompleteItem(level, level) for level in fuzzy_filter(available_levels(app), argument, str)
        ]

    return complete
