"""Snapshots of the app's main views (issue 9, acceptance 2). Each docstring says what to see.

The conversation is a stored session replayed at start-up (as after ``pi -c``), so nothing
depends on timing: tool blocks from history show no duration.
"""

from __future__ import annotations

from pi_app.ai.testing import fake_model
from pi_app.ai.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_app.tui.app import PiApp
from tests.tui.fakes import history_session_factory

CWD = "/home/user/project"

ANSWER = """Here is the **plan**:

- read the config
- fix the loop in `total()`

```python
def total(items):
    return sum(item.price for item in items)
```"""

DIFF = " 1 def total(items):\n-2     return sum(items)\n+2     return sum(item.price for item in items)\n 3 "


def turn() -> list[object]:
    return [
        UserMessage(content=[TextContent(text="fix the total function")], timestamp=1),
        AssistantMessage(
            content=[
                TextContent(text=ANSWER),
                ToolCall(id="call-ls", name="bash", arguments={"command": "ls src"}),
            ],
            stop_reason="toolUse",
            timestamp=2,
        ),
        ToolResultMessage(
            tool_call_id="call-ls",
            tool_name="bash",
            content=[TextContent(text="app.py\nconfig.toml\nmodels.py\n")],
            timestamp=3,
        ),
        AssistantMessage(
            content=[
                ToolCall(
                    id="call-edit",
                    name="edit",
                    arguments={
                        "path": "src/app.py",
                        "edits": [{"oldText": "sum(items)", "newText": "sum(item.price for item in items)"}],
                    },
                )
            ],
            stop_reason="toolUse",
            timestamp=4,
        ),
        ToolResultMessage(
            tool_call_id="call-edit",
            tool_name="edit",
            content=[TextContent(text="Successfully replaced 1 block(s) in src/app.py.")],
            details={"diff": DIFF, "firstChangedLine": 2},
            timestamp=5,
        ),
        AssistantMessage(content=[TextContent(text="Done: `total()` now sums the prices.")], timestamp=6),
    ]


def app_with(messages: list[object], **kwargs: object) -> PiApp:
    factory, _ = history_session_factory(CWD, messages, **kwargs)  # type: ignore[arg-type]
    return PiApp(session_factory=factory, cwd=CWD, animate=False)


async def wait_ready(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    for _ in range(300):
        if app.session is not None:
            break
        await pilot.pause(0.02)
    await pilot.pause(0.2)


def test_app_finished_turn(snap_compare) -> None:
    """A finished turn at 100x50: the grey user box; the answer in markdown (bold, ``-`` bullets,
    inline code in teal, a Python block between its fences with keywords blue and strings orange);
    a green bash box ``$ ls src`` with three grey lines; a green edit box ``edit src/app.py`` with a
    red ``-2`` line and a green ``+2`` line whose changed part is in reverse video; the final
    sentence; the footer with ``fake-model``."""
    assert snap_compare(app_with(turn()), terminal_size=(100, 50), run_before=wait_ready)


def test_app_finished_turn_light(snap_compare) -> None:
    """The same turn with the built-in light theme: light page, dark text, pale user box, pale
    green tool boxes, darker syntax colours."""
    app = app_with(turn(), settings={"theme": "light"})

    async def switch(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_ready(pilot)
        assert pilot.app.theme_controller.switch("light", persist=False) is None
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(100, 50), run_before=switch)


def test_app_thinking_expanded(snap_compare) -> None:
    """A reasoning model's answer: the thinking shown in grey italics above the answer; the footer
    shows ``thinker • high`` and the editor rules are in the ``high`` thinking colour (violet)."""
    messages = [
        UserMessage(content=[TextContent(text="why is the sky blue?")], timestamp=1),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="The user asks about Rayleigh scattering.\nShort answer is best."),
                TextContent(text="Shorter wavelengths scatter more, so blue light fills the sky."),
            ],
            timestamp=2,
        ),
    ]
    app = app_with(messages, models=[fake_model("thinker", reasoning=True)], thinking_level="high")
    assert snap_compare(app, terminal_size=(80, 24), run_before=wait_ready)


def test_app_model_selector(snap_compare) -> None:
    """Ctrl+L: the model selector in place of the editor: title ``Select model``, a notice about
    credentials, an empty search line, three models with ``→ ✓ alpha-1`` selected, their provider
    beside them, and the key hints."""
    models = [fake_model("alpha-1"), fake_model("beta-2"), fake_model("gamma-3")]
    app = app_with([], models=models)

    async def open_selector(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_ready(pilot)
        await pilot.press("ctrl+l")
        for _ in range(100):
            if pilot.app.screen.query("#model-selector"):
                break
            await pilot.pause(0.02)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_selector)


def test_app_settings(snap_compare) -> None:
    """``/settings``: every setting with its value in a second column (``Auto-compact true``,
    ``Theme dark``, …), the first row selected, ``(1/23)`` and the key hints."""
    app = app_with([])

    async def open_settings(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_ready(pilot)
        await pilot.press(*"/settings", "enter")
        for _ in range(100):
            if pilot.app.screen.query("#settings-selector"):
                break
            await pilot.pause(0.02)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(80, 30), run_before=open_settings)


def test_app_hotkeys(snap_compare) -> None:
    """``/hotkeys``: four tables (Navigation, Transcript, Editing, Other) of actions and their effective keys,
    e.g. ``New line | Shift+Enter / Ctrl+J`` and ``Cycle thinking level | Shift+Tab``; scrolled to
    the top, the last row shows ``↓ Jump to latest message · Ctrl+End`` over the table."""
    app = app_with([])

    async def show(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_ready(pilot)
        await pilot.press(*"/hotkeys", "enter")
        await pilot.pause(0.3)
        pilot.app.transcript.scroll_top()
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(100, 60), run_before=show)


def test_app_search_bar(snap_compare) -> None:
    """Ctrl+Shift+F and ``needle``: a box at the top right of the transcript with ``needle``, a
    caret, ``2/3`` and ``↑ Shift+Enter · ↓ Enter`` in its lower border; the three ``needle`` words
    in the transcript (after CJK punctuation and an emoji) are underlined, the current one (the
    second) reversed."""
    messages = [
        UserMessage(content=[TextContent(text="找一下 needle，好吗？😀")], timestamp=1),
        AssistantMessage(
            content=[TextContent(text="「引号」里有 needle。\n\n- one 😀 NEEDLE\n- two")], timestamp=2
        ),
    ]
    app = app_with(messages)

    async def search(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_ready(pilot)
        await pilot.press("ctrl+shift+f", *"needle")
        await pilot.pause(0.1)
        await pilot.press("shift+enter")
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(90, 24), run_before=search)


DIAGRAM_REPLY = """The flow：

```mermaid
graph TD
    A[开始，准备] --> B{Is it ok? 😀}
    B -->|yes| C[Ship it]
    B -->|no| D[Fix it]
    D --> B
```"""

MATH_REPLY = r"""Inline: $E = mc^2$, $\alpha + \beta \le \sqrt{x_1^2}$ and $\mathbb{R}^n \to \mathbb{R}$; $5 and $10 stay text.

$$
\sum_{i=1}^{n} i = \frac{n(n+1)}{2}
$$

Not drawable, shown as written: $\begin{pmatrix}1&2\end{pmatrix}$"""


def _reply(question: str, answer: str) -> list[object]:
    return [
        UserMessage(content=[TextContent(text=question)], timestamp=1),
        AssistantMessage(content=[TextContent(text=answer)], timestamp=2),
    ]


def test_app_mermaid_diagram(snap_compare) -> None:
    """A mermaid block drawn as a diagram: four boxes (``开始，准备`` at the top, the decision
    ``Is it ok? 😀`` with ◇ marks, ``Ship it`` and ``Fix it`` side by side), arrows ▼ labelled
    ``yes`` and ``no``, and a line from ``Fix it`` back up to the decision; lines grey, labels white;
    no ```` ```mermaid ```` fences."""
    assert snap_compare(
        app_with(_reply("画个流程图", DIAGRAM_REPLY)), terminal_size=(90, 34), run_before=wait_ready
    )


def test_app_math(snap_compare) -> None:
    """Math in Unicode: ``E = mc²``, ``α + β ≤ √x₁²``, ``ℝⁿ → ℝ`` inline, ``$5 and $10`` left as
    text; the display formula two columns in over three rows: ``n`` above ``∑`` above ``i=1``, then
    ``i =`` and ``n(n+1)`` over a ``──────`` rule over ``2``; the matrix (which cannot be drawn) as
    its ``$…$`` source."""
    assert snap_compare(
        app_with(_reply("math please", MATH_REPLY)), terminal_size=(100, 20), run_before=wait_ready
    )


def test_app_login_api_key_providers(snap_compare, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """/login → "Sign in with an API key": title ``Select provider to configure:``, an empty
    search line, the featured ``→ Radius ✦`` and ``OpenRouter ✦`` first, then the others by name
    (Amazon Bedrock, Ant Ling, Anthropic, …), each with ``not configured`` beside it, a ``(1/42)``
    counter and the key hints."""
    from tests.ai.test_catalog import ALL_VARS

    for var in ALL_VARS:
        monkeypatch.delenv(var, raising=False)
    app = app_with([])

    async def open_list(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_ready(pilot)
        await pilot.press(*"/login", "enter")
        for _ in range(100):
            if pilot.app.screen.query("#login-method"):
                break
            await pilot.pause(0.02)
        await pilot.press("down", "enter")
        for _ in range(200):
            if pilot.app.screen.query("#login-api-key-selector"):
                break
            await pilot.pause(0.02)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_list)
