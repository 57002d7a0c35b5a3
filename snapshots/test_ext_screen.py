"""The app with extensions on screen (80x24): the example custom footer and a widget.

What the SVG should show: the start-up header at the top; above the editor, the widget's lines
``Plan: 2/3 steps done``, ``☑ read the spec``, ``☑ write the code``, ``☐ land it`` (the last in
the ANSI yellow the extension asked for); the empty editor between its rules; then, instead of the
built-in two-line footer, the example footer's single line
``fake/fake-model  |  thinking: off  |  context 0%`` (no working directory, no token figures).
"""

from __future__ import annotations

from pathlib import Path

from tests.tui_ext.fakes import EXAMPLES, extension_app, write_extension

WIDGET = """
def setup(pi):
    @pi.on("session_start")
    def show(event, ctx):
        ctx.ui.set_widget("plan", [
            "Plan: 2/3 steps done",
            "\\u2611 read the spec",
            "\\u2611 write the code",
            "\\x1b[33m\\u2610 land it\\x1b[0m",
        ])
"""


def test_custom_footer_and_widget(snap_compare, tmp_path: Path) -> None:
    widget = write_extension(tmp_path / "ext" / "plan_widget.py", WIDGET)
    app, _, _ = extension_app(tmp_path, [EXAMPLES / "custom_footer.py", widget])

    async def wait_ready(pilot) -> None:
        for _ in range(300):
            surface = app.ext.surface
            if surface.footer_widget is not None and "plan" in surface.widgets:
                break
            await pilot.pause(0.02)
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=(80, 24), run_before=wait_ready)
