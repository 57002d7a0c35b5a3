"""``pi mom`` against a local fake Slack (Web API + Socket Mode WebSocket) and the fake LLM server.

Issue 26, acceptance 1: a mention starts a run in that channel's workspace; tool labels and thread
details are posted in order even when one API call fails; a second mention while busy gets the
busy reply; ``stop`` aborts; a 100,000-character answer arrives in ordered chunks; a scheduled
event triggers a run. Also: ``[SILENT]``, file downloads and ``attach`` uploads, threads.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from pi_app.ai.testing import tool_call

from .conftest import MomRun
from .fake_slack import Message


def _final(mom: MomRun, text: str, channel: str = "C1") -> Message:
    return mom.slack.wait_for(
        lambda: next((m for m in mom.slack.channel_messages(channel) if m.text == text), None),
        40,
        f"answer {text!r}",
    )


def _thread(mom: MomRun, main: Message) -> list[Message]:
    return [m for m in mom.slack.channel_messages(main.channel) if m.thread_ts == main.ts]


def _bodies(mom: MomRun) -> list[dict]:
    return [r.body for r in mom.llm.requests if r.api == "openai-completions"]


def _last_user_text(body: dict) -> str:
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def test_a_mention_runs_in_the_channels_workspace(mom: MomRun) -> None:
    (mom.workspace / "C1").mkdir(parents=True, exist_ok=True)
    (mom.workspace / "C1" / "MEMORY.md").write_text("The build server is ci-7.")
    mom.llm.enqueue(tool_call("bash", {"command": "pwd > where.txt && echo listed"}))
    mom.llm.enqueue("text 'Done: it is ci-7'")
    mom.slack.mention("where are you?")

    main = _final(mom, "Done: it is ci-7")
    folder = mom.workspace / "C1"
    assert (folder / "where.txt").read_text().strip() == str(folder)
    assert main.edits[0] == "_Thinking_ ..."
    assert "_→ $ pwd > where.txt && echo listed_" in main.edits[-1]
    [details] = _thread(mom, main)
    assert details.text.startswith("*✓ bash*: $ pwd > where.txt && echo listed (")
    assert "pwd > where.txt && echo listed" in details.text and "listed" in details.text.split("*Result:*")[1]
    body = _bodies(mom)[0]
    system = body["messages"][0]["content"]
    assert "C1" in system and "The build server is ci-7." in system
    assert "[alice]: where are you?" in _last_user_text(body)
    assert (folder / "context.jsonl").exists()
    logged = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    assert [(e["userName"], e["text"], e["isBot"]) for e in logged] == [
        ("alice", "where are you?", False),
        ("mom", "Done: it is ci-7", True),
    ]
    assert mom.slack.acks  # the Socket Mode envelope was acknowledged


def test_labels_and_details_stay_in_order_when_one_call_fails(mom: MomRun) -> None:
    mom.llm.enqueue(tool_call("bash", {"command": "echo first"}))
    mom.llm.enqueue(tool_call("bash", {"command": "echo second"}))
    mom.llm.enqueue(tool_call("bash", {"command": "echo third"}))
    mom.llm.enqueue("text 'All three ran'")
    mom.slack.fail("chat.postMessage", after=1)  # the main post works, the first thread post fails
    mom.slack.mention("run three commands")

    main = _final(mom, "All three ran")
    thread = [m.text for m in _thread(mom, main)]
    assert thread[0].startswith("Error: posting the bash details") and "internal_error" in thread[0]
    assert [t.split("\n")[0].split(" (")[0] for t in thread[1:]] == [
        "*✓ bash*: $ echo second",
        "*✓ bash*: $ echo third",
    ]
    labels = [line for line in main.edits[-1].split("\n") if line.startswith("_→")]
    assert labels == ["_→ $ echo first_", "_→ $ echo second_", "_→ $ echo third_ ..."]


def test_a_second_mention_while_busy_gets_the_busy_reply(mom: MomRun) -> None:
    mom.llm.enqueue("delay 2", "text 'slow answer'")
    mom.slack.mention("think hard")
    mom.slack.wait_for(lambda: mom.slack.channel_messages(), 20, "the Thinking post")
    mom.slack.mention("are you there?")
    busy = _final(mom, "Already working. Say `stop` to cancel.")
    _final(mom, "slow answer")
    assert len(_bodies(mom)) == 1  # the second mention started no run
    assert busy.thread_ts is None


def test_stop_aborts_the_run(mom: MomRun) -> None:
    mom.slack.mention("stop")
    _final(mom, "_Nothing running_")
    mom.llm.enqueue(tool_call("bash", {"command": "sleep 60"}))
    started = time.monotonic()
    mom.slack.mention("wait a minute")
    mom.slack.wait_for(
        lambda: any("_→ $ sleep 60_" in m.text for m in mom.slack.channel_messages()), 30, "the sleep label"
    )
    mom.slack.mention("stop")
    stopped = _final(mom, "_Stopped_")
    assert "_Stopping..._" in stopped.edits
    main = mom.slack.wait_for(
        lambda: next(
            (m for m in mom.slack.channel_messages() if m.text.endswith("_Stopped_") and "sleep" in m.text),
            None,
        ),
        20,
        "the main post marked stopped",
    )
    assert "_→ $ sleep 60_" in main.text
    assert time.monotonic() - started < 40  # the sleep was killed, not waited for


def test_a_100000_character_answer_arrives_in_ordered_chunks(mom: MomRun) -> None:
    answer = "".join(f"{i:07d}\n" for i in range(12_500))  # 100,000 characters, each line numbered
    assert len(answer) == 100_000
    mom.llm.enqueue(f"text '{answer}'")
    mom.slack.mention("print a lot")

    def three_chunks() -> list[Message] | None:
        posts = mom.slack.channel_messages()
        return posts if len(posts) == 3 and posts[-1].text.endswith("0012499") else None

    posts = mom.slack.wait_for(three_chunks, 60, "three chunks")
    chunks = [m.text for m in posts]  # the main post (edited to the first chunk), then two more, in order
    assert all(len(c) <= 40_000 for c in chunks)
    assert chunks[0].endswith("_(continued 1...)_") and chunks[1].endswith("_(continued 2...)_")
    joined = "".join(c.rsplit("\n_(continued", 1)[0] if "_(continued" in c else c for c in chunks)
    assert joined == answer.strip()


def test_a_scheduled_event_triggers_a_run(mom: MomRun) -> None:
    mom.llm.enqueue("text 'The build is green'")
    events = mom.workspace / "events"
    events.mkdir(parents=True, exist_ok=True)
    (events / "check-build.json").write_text(
        json.dumps({"type": "immediate", "channelId": "C1", "text": "check the build"})
    )
    main = _final(mom, "The build is green")
    assert main.edits[0] == "_Starting event: check-build.json_ ..."
    assert "[EVENT:check-build.json:immediate:immediate] check the build" in _last_user_text(_bodies(mom)[0])
    mom.slack.wait_for(lambda: not (events / "check-build.json").exists(), 10, "the event file to go")


def test_a_silent_answer_deletes_its_posts(mom: MomRun) -> None:
    mom.llm.enqueue(tool_call("bash", {"command": "echo nothing new"}))
    mom.llm.enqueue("text '[SILENT]'")
    (mom.workspace / "events").mkdir(parents=True, exist_ok=True)
    (mom.workspace / "events" / "poll.json").write_text(
        json.dumps({"type": "immediate", "channelId": "C1", "text": "poll"})
    )
    mom.slack.wait_for(lambda: len(mom.llm.requests) == 2, 30, "both model turns")
    mom.slack.wait_for(
        lambda: mom.slack.messages and all(m.deleted for m in mom.slack.messages), 20, "every post deleted"
    )
    deletes = [c.params["ts"] for c in mom.slack.calls if c.method == "chat.delete"]
    main = mom.slack.messages[0]
    assert deletes[-1] == main.ts and len(deletes) == 2  # the thread post first, the main post last


def test_channel_files_are_downloaded_and_attach_uploads(mom: MomRun) -> None:
    mom.slack.files["notes.txt"] = b"meeting at noon"
    url = f"http://127.0.0.1:{mom.slack.port}/files/notes.txt"
    mom.llm.enqueue(tool_call("write", {"path": "report.txt", "content": "all good\n"}))
    mom.llm.enqueue(tool_call("attach", {"path": "report.txt", "title": "Report"}))
    mom.llm.enqueue("text 'Attached the report'")
    mom.slack.mention("read this", files=[{"id": "F9", "name": "notes.txt", "url_private_download": url}])
    main = _final(mom, "Attached the report")
    [saved] = list((mom.workspace / "C1" / "attachments").iterdir())
    assert saved.name.endswith("_notes.txt") and saved.read_bytes() == b"meeting at noon"
    assert f"<slack_attachments>\n{saved}\n</slack_attachments>" in _last_user_text(_bodies(mom)[0])
    data = [u for u in mom.slack.uploads if "bytes" in u]
    complete = [u for u in mom.slack.uploads if "complete" in u]
    assert data and data[0]["bytes"] == b"all good\n"
    assert complete and complete[0]["channel_id"] == "C1" and complete[0]["thread_ts"] == main.ts


def test_a_thread_is_its_own_conversation(mom: MomRun) -> None:
    mom.llm.enqueue("text 'in the channel'")
    mom.slack.mention("hello")
    channel_answer = _final(mom, "in the channel")
    mom.llm.enqueue("text 'in the thread'")
    mom.slack.mention("and here?", thread_ts=channel_answer.ts)
    thread_answer = _final(mom, "in the thread")
    assert thread_answer.thread_ts == channel_answer.ts
    thread_session = mom.workspace / "C1" / "threads" / channel_answer.ts / "context.jsonl"
    assert thread_session.exists()
    second = _bodies(mom)[1]
    assert "in the channel" not in json.dumps(second["messages"])  # a fresh session, not the channel's


def test_the_workspace_must_not_hold_moms_credentials(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        "MOM_SLACK_APP_TOKEN": "a",
        "MOM_SLACK_BOT_TOKEN": "b",
    }
    done = subprocess.run(
        [sys.executable, "-m", "pi_app", "mom", str(tmp_path / ".pi")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert "must not contain or sit inside mom's own folder" in line
