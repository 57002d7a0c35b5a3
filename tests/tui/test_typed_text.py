"""Every character a terminal sends as text reaches the editor unchanged (issue 17, defect 1).

Keys travel the real path: the terminal's bytes through ``PiXTermParser`` (Textual's parser plus
pi's additions), the resulting ``Key`` events posted to the running app as its driver would, the
app's dispatch, the key normaliser and the editor.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual import events

from pi_app.ai.testing import text
from pi_app.tui.app import PiApp
from pi_app.tui.input.keys import PiXTermParser, normalize
from tests.tui.fakes import fake_session_factory
from tests.tui.helpers import wait_for

MIXED = "你好，世界。€→“引号”😀"


def key_events(typed: str) -> list[events.Key]:
    """The key events a terminal's bytes for ``typed`` become."""
    if not typed:
        return []
    parser = PiXTermParser()
    return [e for e in [*parser.feed(typed), *parser.feed("")] if isinstance(e, events.Key)]


async def type_into(pilot: Any, app: PiApp, typed: str) -> None:
    """Post the key events for ``typed`` to the app in one burst, as the driver does, and let the
    app work through them."""
    for event in key_events(typed):
        event.set_sender(app)
        app._driver.send_message(event)  # the driver's own entry point (as Pilot.press uses)
    await pilot.pause()
    await pilot.pause()


def test_the_normaliser_keeps_the_text_of_characters_textual_names_by_unicode_name() -> None:
    for character in "，。！？「」€→“”‘’—…😀\u200d\ufe0f":
        (event,) = key_events(character)
        assert len(event.key) > 1  # e.g. "fullwidth_comma": the names that used to be dropped
        assert normalize(event.key, event.character).character == character


async def test_cjk_punctuation_symbols_and_emoji_typed_reach_the_session(tmp_path: Path) -> None:
    factory, provider = fake_session_factory(str(tmp_path), [[text("ok")]])
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await type_into(pilot, app, MIXED + "👩\u200d💻❤\ufe0f🇯🇵")
        assert app.editor.text == MIXED + "👩\u200d💻❤\ufe0f🇯🇵"
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(provider.calls) and not app.session.is_streaming)
        assert provider.calls[0].context.messages[-1].content[0].text == MIXED + "👩\u200d💻❤\ufe0f🇯🇵"


# -- property: any text typed as key events lands in the editor unchanged ------------------------

TYPED_CHARACTERS = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"))
GRAPHEME_CLUSTERS = st.sampled_from(
    [
        "👩\u200d💻",  # ZWJ sequence
        "👨\u200d👩\u200d👧\u200d👦",
        "❤\ufe0f",  # variation selector
        "1\ufe0f\u20e3",  # keycap
        "👍🏽",  # skin-tone modifier
        "🇯🇵",  # regional indicators
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # tag sequence
        "e\u0301",  # combining mark
        "\u1100\u1161\u11a8",  # Hangul jamo
        "क्षि",  # Devanagari conjunct
        "\u00a0",  # no-break space
    ]
)
TYPED_TEXT = st.lists(st.one_of(TYPED_CHARACTERS, GRAPHEME_CLUSTERS), max_size=12).map("".join)


class AppInThread:
    """One running app (its own thread and loop) that many Hypothesis examples type into."""

    def __init__(self, app: PiApp) -> None:
        self.app = app
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._pilot: Any = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._error: BaseException | None = None

    async def _main(self) -> None:
        try:
            async with self.app.run_test(size=(100, 30)) as pilot:
                await wait_for(pilot, lambda: self.app.session is not None)
                self._loop, self._stop, self._pilot = asyncio.get_running_loop(), asyncio.Event(), pilot
                self._ready.set()
                await self._stop.wait()
        except BaseException as error:  # surfaced by __enter__ / run
            self._error = error
            self._ready.set()

    def __enter__(self) -> AppInThread:
        self._thread.start()
        assert self._ready.wait(60), "the app did not start"
        if self._error is not None:
            raise self._error
        return self

    def run(self, step: Callable[[Any], Awaitable[str]]) -> str:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(step(self._pilot), self._loop).result(30)

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


def test_any_printable_text_or_grapheme_cluster_typed_lands_in_the_editor_unchanged(tmp_path: Path) -> None:
    factory, _ = fake_session_factory(str(tmp_path))
    app = PiApp(session_factory=factory, cwd=str(tmp_path), animate=False, agent_dir=tmp_path / "agent")

    with AppInThread(app) as running:

        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
        @given(TYPED_TEXT)
        def typed_text_is_kept(typed: str) -> None:
            async def step(pilot: Any) -> str:
                app.editor.set_text("")
                await type_into(pilot, app, typed)
                for _ in range(50):  # a loaded machine may need a few more turns of the loop
                    if app.editor.text == typed:
                        break
                    await pilot.pause(0.02)
                return app.editor.text

            assert running.run(step) == typed

        typed_text_is_kept()
