"""Selectors and dialogs draw with the active theme, never a built-in palette (issue 17, defect 5).

The custom theme ``neon`` gives every colour token its own unusual colour; every coloured cell of
an open /tree, /fork, /resume picker, choice selector and extension select dialog must use one of
them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual.widget import Widget

from pi_app.tui.extensions.dialogs import SelectDialog
from pi_app.tui.extensions.queue import DialogRequest
from pi_app.tui.selectors.choice import ChoiceSelector
from pi_app.tui.selectors.fork import ForkSelector
from pi_app.tui.selectors.lines import LineView
from pi_app.tui.selectors.navigation import session_picker
from pi_app.tui.selectors.slot import SlotHost
from pi_app.tui.selectors.tree import TreeNavigator
from tests.tui_nav.app_helpers import CWD, make_app, selector, submit, wait_for
from tests.tui_nav.helpers import showcase_session

ROOT = Path(__file__).parents[2]


def write_neon_theme() -> set[str]:
    """Install ``neon`` in the agent dir; returns every colour it can draw with."""
    theme = json.loads((ROOT / "themes" / "dark.json").read_text())
    theme["name"] = "neon"
    theme["vars"] = {}
    palette = set()
    for index, token in enumerate(sorted(theme["colors"])):
        colour = f"#{0xA0 + index % 90:02x}{0x10 + index:02x}{0xF0 - index:02x}"
        theme["colors"][token] = colour
        palette.add(colour)
    themes = Path(os.environ["PI_CODING_AGENT_DIR"]) / "themes"
    themes.mkdir(parents=True, exist_ok=True)
    (themes / "neon.json").write_text(json.dumps(theme))
    return palette


def drawn_colours(widget: Widget) -> set[str]:
    """Every foreground/background colour in the painted lines under ``widget``."""
    colours: set[str] = set()
    for view in widget.query(LineView):
        for y in range(view.size.height):
            for segment in view.render_line(y):
                style = segment.style
                if style is None:
                    continue
                for colour in (style.color, style.bgcolor):
                    if colour is not None and colour.triplet is not None:
                        colours.add(colour.triplet.hex)
    return colours


async def assert_themed(pilot: Any, widget: Widget, palette: set[str]) -> None:
    await pilot.pause(0.1)
    colours = drawn_colours(widget)
    assert colours, "nothing coloured was drawn"
    assert colours <= palette, f"colours outside the theme: {colours - palette}"


async def test_selectors_and_dialogs_use_the_active_custom_theme(tmp_path: Path) -> None:
    palette = write_neon_theme()
    app, _ = make_app(None, manager=showcase_session().sm)
    async with app.run_test(size=(100, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.theme_controller.switch("neon", persist=False) is None
        await pilot.pause(0.1)

        await submit(app, pilot, "/tree")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is not None)
        await assert_themed(pilot, selector(app, TreeNavigator), palette)
        await pilot.press("escape")
        await wait_for(pilot, lambda: selector(app, TreeNavigator) is None)

        await submit(app, pilot, "/fork")
        await wait_for(pilot, lambda: selector(app, ForkSelector) is not None)
        await assert_themed(pilot, selector(app, ForkSelector), palette)
        await pilot.press("escape")
        await wait_for(pilot, lambda: selector(app, ForkSelector) is None)

        picker = session_picker(CWD, str(tmp_path / "sessions"), None, None, page_size=10)
        app.show_in_editor_slot(SlotHost(picker))
        await assert_themed(pilot, picker, palette)
        await pilot.press("escape")

        choice = ChoiceSelector("Summarize branch?", ["No summary", "Summarize"])
        app.show_in_editor_slot(SlotHost(choice))
        await assert_themed(pilot, choice, palette)
        await pilot.press("escape")

        request = DialogRequest("select", "Pick a fruit", lambda r: SelectDialog(r, ["apple", "pear"]))
        app.run_worker(app.ext.dialogs.ask(request))
        await wait_for(pilot, lambda: bool(app.screen.query(SelectDialog)))
        await assert_themed(pilot, app.screen.query_one(SelectDialog), palette)
