"""Ctrl+X (pi 1.6.0's ``app.message.copy``) copies the last assistant message, or the selection.

The real app over the real ``AgentSession``; the model is scripted.
"""

from __future__ import annotations

import json
from pathlib import Path

from pi_app.ai.testing import text
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started


async def test_ctrl_x_copies_the_last_assistant_message(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("First **answer**.")], [text("Second `answer`.")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "Error: No agent messages to copy yet." in notes(app))
        await pilot.press(*"one", "enter")
        await wait_for(pilot, lambda: "First answer." in notes(app) and not app.is_working)
        await pilot.press(*"two", "enter")
        await wait_for(pilot, lambda: "Second answer." in notes(app) and not app.is_working)
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "Copied last agent message to clipboard" in notes(app))
        assert app.clipboard == "Second `answer`."
        assert app.editor.text == ""  # the key typed nothing


async def test_app_message_copy_is_remappable_in_the_keybindings_file(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "keybindings.json").write_text(json.dumps({"app.message.copy": "f3"}))
    app, _ = make_app(tmp_path, [[text("Remapped.")]], agent_dir=agent_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press(*"hi", "enter")
        await wait_for(pilot, lambda: "Remapped." in notes(app) and not app.is_working)
        await pilot.press("ctrl+x")
        await pilot.pause()
        assert app.clipboard != "Remapped."
        await pilot.press("f3")
        await wait_for(pilot, lambda: app.clipboard == "Remapped.")
        await submit_hotkeys(pilot)
        await wait_for(pilot, lambda: "Copy the selection or the last answer" in notes(app))
        assert any(
            "Copy the selection or the last answer" in line and "F3" in line
            for line in notes(app).splitlines()
        )


async def submit_hotkeys(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*"/hotkeys", "enter")
