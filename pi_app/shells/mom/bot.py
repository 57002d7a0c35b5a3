"""mom's dispatcher: which conversation a message belongs to, and what happens to it.

Every message is logged in its channel's ``log.jsonl`` and its files are downloaded to the
channel's ``attachments/``. A trigger (a mention, a direct message, a scheduled event) goes to the
conversation's ``Runner``: the channel's, or the thread's when the mention is a reply in a thread
(one session per channel and per thread). Per conversation one run at a time:

- ``stop`` (after the mention) aborts the running run and posts ``_Stopping..._``, edited to
  ``_Stopped_`` when it ended; with nothing running it answers ``_Nothing running_``;
- a user trigger while a run is going gets "Already working. Say `stop` to cancel." and starts
  nothing (its text is in the log, so the next run sees it);
- scheduled events queue behind the running one, at most ``MAX_QUEUED_EVENTS`` per conversation;
  more are dropped with a warning in the channel.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Protocol

from pi_app.shells.mom import workspace as ws
from pi_app.shells.mom.runner import ChatTransport, MomSettings, Runner, RunRequest
from pi_app.shells.mom.slack import ChatMessage

log = logging.getLogger("pi.mom")

MAX_QUEUED_EVENTS = 5
BUSY_TEXT = "Already working. Say `stop` to cancel."


class MomTransport(ChatTransport, Protocol):
    async def download(self, url: str, destination: Path) -> None: ...
    async def user_name(self, user_id: str) -> str: ...


class Mom:
    def __init__(self, settings: MomSettings, transport: MomTransport) -> None:
        self.settings = settings
        self.transport = transport
        self.runners: dict[str, Runner] = {}
        self.queues: dict[str, asyncio.Queue[RunRequest]] = {}
        self.workers: dict[str, asyncio.Task[None]] = {}
        self.tasks: set[asyncio.Task[object]] = set()

    def runner(self, conversation: ws.Conversation) -> Runner:
        runner = self.runners.get(conversation.key)
        if runner is None:
            runner = self.runners[conversation.key] = Runner(self.settings, self.transport, conversation)
        return runner

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- incoming messages ------------------------------------------------------------------------

    def receive(self, message: ChatMessage) -> None:
        """Called on mom's loop for every message Slack delivers."""
        self._spawn(self._receive(message))

    async def _download(self, message: ChatMessage) -> list[tuple[str, Path]]:
        saved = []
        folder = ws.channel_folder(self.settings.workspace, message.channel) / "attachments"
        for file in message.files:
            name = re.sub(r"[^A-Za-z0-9._-]", "_", file.name)
            target = folder / f"{int(time.time() * 1000)}_{name}"
            try:
                await self.transport.download(file.url, target)
                saved.append((file.name, target))
            except Exception as exc:
                log.warning("could not download %s: %s", file.name, exc)
        return saved

    async def _receive(self, message: ChatMessage) -> None:
        files = await self._download(message) if message.files else []
        user_name = await self.transport.user_name(message.user)
        ws.append_log(
            self.settings.workspace,
            message.channel,
            {
                "ts": message.ts,
                "user": message.user,
                "userName": user_name,
                "text": message.text,
                "attachments": [{"original": o, "local": str(p)} for o, p in files],
                "isBot": False,
                "threadTs": message.thread_ts,
            },
        )
        if not message.triggers:
            return
        conversation = ws.Conversation(message.channel, message.thread_ts)
        runner = self.runner(conversation)
        reply_thread = message.thread_ts
        if message.text.strip().lower() == "stop":
            if runner.busy:
                runner.stop_post = await self._say(message.channel, "_Stopping..._", reply_thread)
                runner.abort()
            else:
                await self._say(message.channel, "_Nothing running_", reply_thread)
            return
        if runner.busy or self.workers.get(conversation.key) is not None:
            await self._say(message.channel, BUSY_TEXT, reply_thread)
            return
        request = RunRequest(message.text, user_name, ts=message.ts, attachments=[p for _, p in files])
        self._enqueue(conversation, request)

    async def _say(self, channel: str, text: str, thread_ts: str | None) -> str | None:
        try:
            return await self.transport.post(channel, text, thread_ts)
        except Exception as exc:
            log.warning("could not post %r: %s", text, exc)
            return None

    # -- scheduled events ---------------------------------------------------------------------------

    def scheduled(self, channel: str, text: str) -> None:
        """Called by the events watcher (on mom's loop) when an event is due."""
        conversation = ws.Conversation(channel)
        queue = self.queues.get(conversation.key)
        if queue is not None and queue.qsize() >= MAX_QUEUED_EVENTS:
            self._spawn(
                self._say(
                    channel, f"_Event dropped, {MAX_QUEUED_EVENTS} already waiting: {text[:100]}_", None
                )
            )
            return
        event_file = text.split(":", 2)[1] if text.startswith("[EVENT:") else "event"
        self._enqueue(conversation, RunRequest(text, "EVENT", event_file=event_file))

    # -- the per-conversation worker ----------------------------------------------------------------

    def _enqueue(self, conversation: ws.Conversation, request: RunRequest) -> None:
        queue = self.queues.setdefault(conversation.key, asyncio.Queue())
        queue.put_nowait(request)
        if self.workers.get(conversation.key) is None:
            self.workers[conversation.key] = asyncio.get_running_loop().create_task(self._work(conversation))

    async def _work(self, conversation: ws.Conversation) -> None:
        queue = self.queues[conversation.key]
        runner = self.runner(conversation)
        try:
            while not queue.empty():
                request = queue.get_nowait()
                try:
                    await runner.run(request)
                except Exception:
                    log.exception("%s: run failed", conversation.key)
        finally:
            self.workers.pop(conversation.key, None)

    async def close(self) -> None:
        for runner in self.runners.values():
            runner.abort()
        for task in list(self.workers.values()) + list(self.tasks):
            task.cancel()
        for runner in self.runners.values():
            if runner.session is not None:
                runner.session.dispose()
