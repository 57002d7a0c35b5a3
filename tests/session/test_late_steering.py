"""A message queued while ``agent_end`` is being handled (after the loop's last steering poll) is
delivered once the run settles, instead of waiting in the pending area until the next prompt."""

from __future__ import annotations

from pathlib import Path

from pi_app.ai.testing import text
from tests.tui.fakes import fake_session_factory


async def test_a_steer_arriving_during_agent_end_is_sent_before_the_run_settles(tmp_path: Path) -> None:
    factory, provider = fake_session_factory(str(tmp_path), [[text("First answer.")], [text("Late answer.")]])
    session = (await factory()).session
    steered: list[bool] = []

    def steer_late(event: object) -> None:
        if getattr(event, "type", "") == "agent_end" and not steered:
            steered.append(True)
            session.steer("one more thing")

    session.subscribe(steer_late)
    await session.prompt("hello")

    assert len(provider.calls) == 2
    assert "one more thing" in str(provider.calls[1].context.messages)
    assert session.agent.queued_messages() == ([], [])
    assert session.get_last_assistant_text() == "Late answer."


async def test_a_run_that_ended_in_an_error_keeps_its_queue(tmp_path: Path) -> None:
    from pi_app.ai.testing import error

    factory, provider = fake_session_factory(str(tmp_path), [[error("boom")]])
    session = (await factory()).session

    def steer_late(event: object) -> None:
        if getattr(event, "type", "") == "agent_end":
            session.steer("kept for later")

    session.subscribe(steer_late)
    await session.prompt("hello")
    assert len(provider.calls) == 1
    steering, _ = session.agent.queued_messages()
    assert len(steering) == 1
