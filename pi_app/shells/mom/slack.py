"""Slack over Socket Mode with the official ``slack_bolt`` / ``slack_sdk``.

``SlackBot`` connects a Bolt ``App`` through slack_sdk's built-in Socket Mode client (a WebSocket
out to Slack: no public endpoint, no extra dependency), turns ``app_mention`` and ``message``
events into ``ChatMessage``s for mom's loop, and is mom's ``ChatTransport``: post, edit, delete,
upload and download through the Web API. The Web API calls are blocking (slack_sdk's ``WebClient``
over urllib); the transport runs each in a worker thread so mom's asyncio loop never waits.

``MOM_SLACK_API_URL`` points the Web API at another base URL (a Slack-compatible gateway, or the
tests' fake Slack); the Socket Mode URL comes from ``apps.connections.open`` as usual.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient

log = logging.getLogger("pi.mom")

DEFAULT_API_URL = "https://slack.com/api/"


@dataclass
class ChatFile:
    name: str
    url: str


@dataclass
class ChatMessage:
    channel: str
    user: str
    text: str
    ts: str
    thread_ts: str | None = None  # set when the message is a reply in a thread
    triggers: bool = False  # a mention (or a direct message): mom should answer
    is_dm: bool = False
    files: list[ChatFile] = field(default_factory=list)


class SlackBot:
    """The Bolt app, its Socket Mode connection, and the Web API as mom's transport."""

    def __init__(
        self,
        app_token: str,
        bot_token: str,
        on_message: Callable[[ChatMessage], None],
        api_url: str | None = None,
    ) -> None:
        self.bot_token = bot_token
        self.api_url = api_url or DEFAULT_API_URL
        self.client = WebClient(token=bot_token, base_url=self.api_url)
        self.app_client = WebClient(base_url=self.api_url)
        self.on_message = on_message
        self.app_token = app_token
        self.bot_user_id = ""
        self._names: dict[str, str] = {}
        self._names_lock = threading.Lock()
        self._handler: SocketModeHandler | None = None

    # -- incoming ----------------------------------------------------------------------------

    def connect(self) -> None:
        """Identify the bot, register the listeners and open the Socket Mode connection (blocking)."""
        self.bot_user_id = str(self.client.auth_test()["user_id"])
        app = App(client=self.client, logger=log)
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)
        self._handler = SocketModeHandler(app, self.app_token, web_client=self.app_client, logger=log)
        self._handler.connect()

    def close(self) -> None:
        if self._handler is not None:
            self._handler.close()

    def _strip_mention(self, text: str) -> str:
        return re.sub(rf"<@{re.escape(self.bot_user_id)}>\s*", "", text).strip()

    def _to_message(self, event: dict[str, Any], triggers: bool) -> ChatMessage:
        thread = event.get("thread_ts")
        files = [
            ChatFile(str(f.get("name") or f.get("id") or "file"), str(f["url_private_download"]))
            for f in event.get("files") or []
            if isinstance(f, dict) and f.get("url_private_download")
        ]
        return ChatMessage(
            channel=str(event.get("channel", "")),
            user=str(event.get("user", "")),
            text=self._strip_mention(str(event.get("text") or "")),
            ts=str(event.get("ts", "")),
            thread_ts=str(thread) if thread and thread != event.get("ts") else None,
            triggers=triggers,
            is_dm=event.get("channel_type") == "im",
            files=files,
        )

    def _on_mention(self, event: dict[str, Any]) -> None:
        self.on_message(self._to_message(event, triggers=True))

    def _on_message(self, event: dict[str, Any]) -> None:
        if event.get("bot_id") or event.get("subtype") not in (None, "file_share", "thread_broadcast"):
            return
        mentioned = f"<@{self.bot_user_id}>" in str(event.get("text") or "")
        is_dm = event.get("channel_type") == "im"
        if mentioned and not is_dm:
            return  # the app_mention event carries it
        self.on_message(self._to_message(event, triggers=is_dm))

    # -- the transport -------------------------------------------------------------------------

    async def post(self, channel: str, text: str, thread_ts: str | None = None) -> str:
        response = await asyncio.to_thread(
            self.client.chat_postMessage, channel=channel, text=text, thread_ts=thread_ts, mrkdwn=True
        )
        return str(response["ts"])

    async def update(self, channel: str, ts: str, text: str) -> None:
        await asyncio.to_thread(self.client.chat_update, channel=channel, ts=ts, text=text)

    async def delete(self, channel: str, ts: str) -> None:
        await asyncio.to_thread(self.client.chat_delete, channel=channel, ts=ts)

    async def upload(self, channel: str, path: Path, title: str | None, thread_ts: str | None) -> None:
        await asyncio.to_thread(
            self.client.files_upload_v2,
            channel=channel,
            file=str(path),
            filename=path.name,
            title=title or path.name,
            thread_ts=thread_ts,
        )

    async def download(self, url: str, destination: Path) -> None:
        destination.parent.mkdir(parents=True, exist_ok=True)
        headers = {"Authorization": f"Bearer {self.bot_token}"}
        async with httpx.AsyncClient(follow_redirects=True, timeout=60) as client:
            async with client.stream("GET", url, headers=headers) as response:
                response.raise_for_status()
                with open(destination, "wb") as fh:
                    async for chunk in response.aiter_bytes():
                        fh.write(chunk)

    async def user_name(self, user_id: str) -> str:
        with self._names_lock:
            if user_id in self._names:
                return self._names[user_id]
        try:
            info = await asyncio.to_thread(self.client.users_info, user=user_id)
            user = info["user"]
            name = str(
                user.get("profile", {}).get("display_name") or user.get("real_name") or user.get("name")
            )
        except Exception:
            name = user_id
        with self._names_lock:
            self._names[user_id] = name
        return name

    async def channel_name(self, channel: str) -> str:
        try:
            info = await asyncio.to_thread(self.client.conversations_info, channel=channel)
            return "#" + str(info["channel"].get("name") or channel)
        except Exception:
            return channel
