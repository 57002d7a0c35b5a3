"""mom's data folder: one sub-folder per channel (and per thread), memory files, the message log.

::

    <workspace>/
      MEMORY.md                 memory shared by every channel
      events/                   scheduled events (see events.py)
      <channel>/
        MEMORY.md               this channel's memory
        log.jsonl               every message of the channel (users and mom), never compacted
        context.jsonl           the pi session of the channel's conversation
        attachments/            files users shared, downloaded
        threads/<ts>/context.jsonl   a conversation started in a thread

``log.jsonl`` lines are ``{"date", "ts", "user", "userName", "text", "attachments": [{"original",
"local"}], "isBot", "threadTs"?}``. Before each run the entries logged since the conversation's
previous run (messages nobody mentioned mom in) go into the prompt; the conversation remembers the
last ``ts`` it saw in ``.synced`` beside its session, so nothing is fed twice and two equal texts
sent at different times are both kept (deduplication by message id, spec 70 §5.2).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path


@dataclass(frozen=True)
class Conversation:
    """One agent session: a channel, or a thread of a channel."""

    channel: str
    thread_ts: str | None = None

    @property
    def key(self) -> str:
        return f"{self.channel}:{self.thread_ts}" if self.thread_ts else self.channel

    def folder(self, workspace: Path) -> Path:
        base = workspace / _safe(self.channel)
        return base / "threads" / _safe(self.thread_ts) if self.thread_ts else base


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "_"


def channel_folder(workspace: Path, channel: str) -> Path:
    return workspace / _safe(channel)


def append_log(workspace: Path, channel: str, entry: dict[str, object]) -> None:
    folder = channel_folder(workspace, channel)
    folder.mkdir(parents=True, exist_ok=True)
    record = {"date": datetime.now(UTC).isoformat(), **entry}
    with open(folder / "log.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def read_log(workspace: Path, channel: str) -> list[dict[str, object]]:
    path = channel_folder(workspace, channel) / "log.jsonl"
    entries = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn or hand-edited line is skipped, never rewritten
        if isinstance(entry, dict) and isinstance(entry.get("ts"), str):
            entries.append(entry)
    return entries


def unseen_messages(
    workspace: Path, conversation: Conversation, exclude_ts: str | None
) -> list[dict[str, object]]:
    """Human messages of the conversation logged after its last run, oldest first."""
    folder = conversation.folder(workspace)
    try:
        last = float((folder / ".synced").read_text().strip() or 0)
    except (FileNotFoundError, ValueError):
        last = 0.0
    found = []
    for entry in read_log(workspace, conversation.channel):
        ts = str(entry["ts"])
        if entry.get("isBot") or ts == exclude_ts or float(ts) <= last:
            continue
        if entry.get("threadTs") != conversation.thread_ts:
            continue
        found.append(entry)
    return sorted(found, key=lambda e: float(str(e["ts"])))


def mark_seen(workspace: Path, conversation: Conversation, ts: str) -> None:
    folder = conversation.folder(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".synced").write_text(ts)


def read_memory(workspace: Path, channel: str) -> str:
    parts = []
    for title, path in (
        ("Global Workspace Memory", workspace / "MEMORY.md"),
        ("Channel-Specific Memory", channel_folder(workspace, channel) / "MEMORY.md"),
    ):
        try:
            content = path.read_text(encoding="utf-8").strip()
        except (FileNotFoundError, UnicodeDecodeError):
            content = ""
        if content:
            parts.append(f"### {title}\n{content}")
    return "\n\n".join(parts) if parts else "(no working memory yet)"


def system_prompt(
    *,
    workspace_path: str,
    channel_path: str,
    channel: str,
    channel_name: str,
    environment: str,
    memory: str,
    tools: list[str],
) -> str:
    """The prompt mom rebuilds before every run (memory is read fresh each time)."""
    return f"""You are mom, a helpful coding agent that lives in Slack. Be concise; no emoji unless asked.

## Slack
You are answering in channel {channel_name} ({channel}). Write Slack mrkdwn, not Markdown:
*bold*, _italic_, `code`, ```code blocks```, <https://url|text>. No # headings.
Run `date` when you need the current time.

## Environment
Commands run on {environment}. The workspace is {workspace_path}; this conversation's folder
(your working directory) is {channel_path}. Tools: {", ".join(tools)}.
- {channel_path}/log.jsonl holds every message of this channel, one JSON object per line
  (date, ts, user, userName, text, attachments, isBot); grep it for history older than this conversation.
- Files users share are downloaded to {channel_path}/attachments/.
- attach uploads a file from the workspace to this conversation.

## Memory
Keep lasting facts in {workspace_path}/MEMORY.md (every channel) or {channel_path}/MEMORY.md (this
channel): edit the files yourself. Current memory:

{memory}

## Events
You can wake yourself up later by writing a JSON file into {workspace_path}/events/ (a unique name):
- {{"type": "immediate", "channelId": "{channel}", "text": "..."}} runs as soon as it is seen
- {{"type": "one-shot", "channelId": "{channel}", "text": "...", "at": "2025-01-31T09:00:00+01:00"}}
- {{"type": "periodic", "channelId": "{channel}", "text": "...", "schedule": "0 9 * * 1-5",
   "timezone": "Europe/Vienna"}} (cron: minute hour day-of-month month day-of-week)
Delete a file to cancel it. A run woken by an event starts with [EVENT:<file>:<type>:<when>].
If a periodic check finds nothing worth saying, answer exactly [SILENT] and nothing is posted.
"""
