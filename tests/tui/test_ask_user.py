"""The one way another thread asks the user something: ``SessionBridge.ask_user`` (issue 21).

The asking side waits on its own loop (the agent loop, an extension's loop); the question's flow
runs on the UI thread. Here a plain asyncio loop on a thread of its own stands in for the app: it
runs each posted ``QuestionAsked`` flow as a task, as ``PiApp`` runs it in a worker.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.message import Message

from pi_app.tui.bridge.messages import QuestionAsked
from pi_app.tui.bridge.session import SessionBridge


class FakeUi:
    """The app's side: a loop on its own thread that runs the flows the bridge posts."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.accepting = True
        """False: the app is closing (``post_message`` returns False)."""
        self.run_flows = True
        """False: the app took the question but closed before running its flow."""
        self.asked = threading.Event()

    def post(self, message: Message) -> bool:
        if not self.accepting:
            return False
        if isinstance(message, QuestionAsked):
            if self.run_flows:
                self.loop.call_soon_threadsafe(lambda: self.loop.create_task(message.flow()))
            self.asked.set()
        return True

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture
def ui() -> Iterator[FakeUi]:
    fake = FakeUi()
    yield fake
    fake.close()


def make_bridge(ui: FakeUi, factory: Callable[[], Any] | None = None) -> SessionBridge:
    async def no_session() -> Any:
        raise RuntimeError("no session in this test")

    return SessionBridge(ui.post, factory or no_session)


def test_the_flow_runs_on_the_ui_thread_and_its_answer_comes_back(ui: FakeUi) -> None:
    bridge = make_bridge(ui)
    threads: list[threading.Thread] = []

    async def flow() -> str:
        threads.append(threading.current_thread())
        return "yes"

    assert asyncio.run(bridge.ask_user(flow, "default")) == "yes"
    assert threads == [ui.thread]


def test_an_asker_that_stops_waiting_cancels_the_flow(ui: FakeUi) -> None:
    """A timeout (or an abort) on the asking side cancels the flow on the UI thread: the flow's
    clean-up runs there (``slot.ask`` takes its widget out of the slot)."""
    bridge = make_bridge(ui)
    started, cleaned_up = threading.Event(), threading.Event()

    async def flow() -> str:
        started.set()
        try:
            await asyncio.Event().wait()  # the user never answers
        finally:
            cleaned_up.set()
        return "never"

    async def ask() -> str:
        return await asyncio.wait_for(bridge.ask_user(flow, "default"), 0.3)

    with pytest.raises(TimeoutError):
        asyncio.run(ask())
    assert started.is_set() and cleaned_up.wait(5)


def test_closing_the_app_answers_a_waiting_asker_with_the_default(ui: FakeUi) -> None:
    """The app took the question but closes before the user answers: ``stop`` (the app's
    unmount) gives the asker its default answer; it does not hang."""
    bridge = make_bridge(ui)
    ui.run_flows = False

    async def flow() -> str:
        return "never run"

    def close_the_app() -> None:
        ui.asked.wait(5)
        bridge.stop()

    threading.Thread(target=close_the_app).start()
    assert asyncio.run(asyncio.wait_for(bridge.ask_user(flow, "default"), 5)) == "default"


def test_a_question_for_an_app_that_is_gone_gets_the_default_at_once(ui: FakeUi) -> None:
    bridge = make_bridge(ui)
    ui.accepting = False

    async def flow() -> str:
        return "never run"

    assert asyncio.run(bridge.ask_user(flow, "default")) == "default"


def test_the_agent_thread_waiting_for_an_answer_gets_the_default_when_the_app_closes(ui: FakeUi) -> None:
    """The agent loop asks (here while the session is being built, like the trust question) and
    the app closes: ``ask_user`` returns the default on the agent loop before the loop ends."""
    answers: list[str] = []
    ui.run_flows = False

    async def never_answered() -> str:
        return "never run"

    async def factory() -> Any:
        answers.append(await bridge.ask_user(never_answered, "default"))
        await asyncio.Event().wait()  # cancelled with the loop

    bridge = make_bridge(ui, factory)
    agent = threading.Thread(target=bridge.run)
    agent.start()
    assert ui.asked.wait(5) and bridge.loop is not None
    # the agent loop is busy when the app closes: the default answer and the loop's stop arrive
    # together, and the loop would end before the asker woke up
    busy = threading.Event()
    bridge.loop.call_soon_threadsafe(lambda: (busy.set(), time.sleep(0.3)))
    assert busy.wait(5)
    bridge.stop()
    agent.join(5)
    assert not agent.is_alive() and answers == ["default"]
