"""Issue 21, acceptance 4: with the UI thread artificially slowed, no frame shows the footer and the
transcript from two different moments of the session.

The session publishes a frozen ``SessionSnapshot`` with each batch of events (built on the agent
loop); the app applies a batch's messages in order and paints only once the batch's snapshot is in.
The test records every snapshot the session builds, and at every frame painted during a turn (a
streamed reply, a tool call, a second streamed reply, with usage after each) it checks that the
footer shows every field of one published snapshot, the pending area that snapshot's queues, and
that the transcript has applied exactly the events of the batch that snapshot came with.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from textual.screen import Screen

from pi_app.ai.testing import delay, text, tool_call, usage
from pi_app.coding.agent_session import AgentSession
from pi_app.coding.session_port import SessionSnapshot
from pi_app.tui.app import PiApp
from pi_app.tui.bridge.messages import SessionMessage
from pi_app.tui.transcript.feed import TranscriptFeed
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, started

SLOW_S = 0.004  # per streamed delta and tool event handled on the UI thread
# the model pauses between the turn's parts long enough for a frame to be painted even on a busy
# machine: the test needs frames from several batches (with 0.02 s it saw one in six runs under load)
PAUSE_S = 0.25


def footer_fields(app: PiApp) -> tuple[Any, ...]:
    s = app.footer.state
    return (
        s.model_id,
        s.provider,
        s.thinking_level,
        s.session_name,
        s.usage,
        s.subscription,
        s.context_tokens,
        s.context_window,
        s.auto_compact,
        s.save_error,
    )


def snapshot_fields(snapshot: SessionSnapshot) -> tuple[Any, ...]:
    return (
        snapshot.model_id,
        snapshot.provider,
        snapshot.thinking_level,
        snapshot.session_name,
        snapshot.usage,
        snapshot.subscription,
        snapshot.context_tokens,
        snapshot.context_window,
        snapshot.auto_compact,
        snapshot.save_error,
    )


async def test_a_slowed_ui_never_paints_the_footer_and_transcript_from_two_moments(
    tmp_path: Path, monkeypatch: Any
) -> None:
    answer = "".join(f"word{i} " for i in range(80))
    script = [
        [
            text("Let me look.", chunks=12),
            delay(PAUSE_S),
            tool_call("bash", {"command": "echo hi"}, id="c1"),
            usage(input=1200, output=40),
        ],
        [text(answer, chunks=80), delay(PAUSE_S), text(" Done.", chunks=3), usage(input=2600, output=120)],
    ]
    app, _ = make_app(tmp_path, script)

    published: dict[int, SessionSnapshot] = {}
    lock = threading.Lock()
    build = AgentSession.snapshot

    def recording_snapshot(self: AgentSession) -> SessionSnapshot:
        snapshot = build(self)
        with lock:
            published[snapshot.seq] = snapshot
        return snapshot

    monkeypatch.setattr(AgentSession, "snapshot", recording_snapshot)

    applied = {"seq": 0}  # the snapshot seq of the last session message the app applied
    live = PiApp._live

    def recording_live(self: PiApp, message: SessionMessage) -> bool:
        ok = live(self, message)
        if ok:
            applied["seq"] = message.snapshot.seq
        return ok

    monkeypatch.setattr(PiApp, "_live", recording_live)

    for name in ("message_updated", "tool_started", "tool_ended"):  # the slowed UI thread
        original = getattr(TranscriptFeed, name)

        def slowed(self: TranscriptFeed, message: Any, _original: Any = original) -> None:
            time.sleep(SLOW_S)
            _original(self, message)

        monkeypatch.setattr(TranscriptFeed, name, slowed)

    frames: list[tuple[int, int, tuple[Any, ...], tuple[list[str], list[str]], str]] = []
    recording = {"on": False}
    refresh = Screen._compositor_refresh

    def recording_refresh(self: Screen[Any]) -> None:
        if recording["on"] and self is app.main_screen:
            pending = app.pending
            streaming = app.transcript.streaming
            frames.append(
                (
                    app.footer.shown_seq,
                    applied["seq"],
                    footer_fields(app),
                    (list(pending.steering), list(pending.follow_up)),
                    streaming.plain_text() if streaming is not None else "",
                )
            )
        refresh(self)

    monkeypatch.setattr(Screen, "_compositor_refresh", recording_refresh)

    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.pause(0.3)  # start-up requests (the model list) are over
        recording["on"] = True
        app.router.submit("go")
        await wait_for(pilot, lambda: not app.is_working and app.footer.state.usage.input == 3800, timeout=60)
        await pilot.pause()
        recording["on"] = False

    turn = [f for f in frames if f[1]]
    assert len(turn) >= 3, frames  # the turn was painted several times
    assert len({f[0] for f in turn}) >= 2  # across several snapshots
    for shown_seq, applied_seq, fields, queues, _streamed in frames:
        snapshot = published[shown_seq]
        assert fields == snapshot_fields(snapshot)  # every footer field from that one snapshot
        assert queues == (list(snapshot.steering), list(snapshot.follow_up))
        if applied_seq:  # from the turn's first message on
            assert applied_seq == shown_seq  # the transcript has applied exactly that batch
    seqs = [f[0] for f in frames]
    assert seqs == sorted(seqs)  # never back to an older moment
    texts = [f[4] for f in frames if f[4]]
    assert texts and all((answer + " Done.").startswith(t) or "Let me look.".startswith(t) for t in texts)
