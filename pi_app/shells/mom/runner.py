"""One conversation's agent: its pi session, and how a run shows up in Slack.

A ``Runner`` owns one ``AgentSession`` (built with ``create_agent_session`` on a fixed session
file in the conversation's folder) and subscribes to it once; each run sets a fresh ``_Run``
record that the listener maps to chat calls, all through one ``OutboundQueue``:

- the run starts with a main post (``_Thinking_``, or ``_Starting event: <file>_``);
- each tool call adds a label line ``_→ <label>_`` to the main post; its end posts the details to
  the thread (``✓``/``✗``, tool, label, seconds, arguments, result); a failing tool also adds
  ``_Error: <first 200 characters>_`` to the main post;
- assistant text between tool calls and thinking go to the thread;
- at the end the final answer replaces the main post (split at Slack's limit, the rest posted
  after it in order); an answer starting with ``[SILENT]`` deletes the thread posts (newest
  first) and the main post; an error shows "Sorry, something went wrong" with the error in the
  thread; an aborted run says ``_Stopped_``; a usage line goes to the thread when the run cost.

Decision: a tool call's label is made from its arguments (``$ <command>``, ``Reading <path>``,
…) instead of an extra required ``label`` argument, so mom uses pi's own tools unchanged.
The system prompt is rebuilt before every run (memory read fresh) and set on the session's agent
state, a public attribute (spec 70 R-SEAM-05).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pi_app.ext import (
    AbortSignal,
    AgentToolResult,
    ImageContent,
    ModelRegistry,
    SessionManager,
    SettingsManager,
    ToolParams,
    create_agent_session,
    create_bash_tool,
    create_edit_tool,
    create_read_tool,
    create_write_tool,
    define_tool,
    text_blocks,
    text_result,
)
from pi_app.shells.mom import workspace as ws
from pi_app.shells.mom.outbound import OutboundQueue, split_for_slack
from pi_app.shells.mom.sandbox import Sandbox, bash_operations, host_path

if TYPE_CHECKING:
    from pi_app.ext import AgentSession, Model

log = logging.getLogger("pi.mom")

MAIN_LIMIT = 35_000
THREAD_LIMIT = 20_000
IMAGE_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


class ChatTransport(Protocol):
    async def post(self, channel: str, text: str, thread_ts: str | None = None) -> str: ...
    async def update(self, channel: str, ts: str, text: str) -> None: ...
    async def delete(self, channel: str, ts: str) -> None: ...
    async def upload(self, channel: str, path: Path, title: str | None, thread_ts: str | None) -> None: ...
    async def channel_name(self, channel: str) -> str: ...


@dataclass
class MomSettings:
    workspace: Path
    sandbox: Sandbox
    model_registry: ModelRegistry
    model: Model | None = None
    forbidden: list[Path] = field(default_factory=list)  # mom's own files: attach never sends them


@dataclass
class RunRequest:
    text: str  # what goes to the model after the timestamp/user prefix
    user_name: str
    ts: str | None = None  # the triggering message (None for scheduled events)
    event_file: str | None = None
    attachments: list[Path] = field(default_factory=list)


def label_for(tool: str, args: object) -> str:
    a = args if isinstance(args, dict) else {}
    if isinstance(a.get("label"), str):
        return a["label"]
    if tool == "bash":
        first = str(a.get("command", "")).strip().splitlines()
        command = first[0] if first else ""
        return "$ " + (command[:77] + "..." if len(command) > 80 else command)
    verbs = {"read": "Reading", "write": "Writing", "edit": "Editing", "attach": "Uploading"}
    if tool in verbs and a.get("path"):
        return f"{verbs[tool]} {a['path']}"
    return tool


def format_args(args: object) -> str:
    if not isinstance(args, dict):
        return json.dumps(args, ensure_ascii=False)
    shown = {k: v for k, v in args.items() if k != "label"}
    if "path" in shown and ("offset" in shown or "limit" in shown):
        offset = int(shown.pop("offset", 1) or 1)
        limit = shown.pop("limit", None)
        shown["path"] = (
            f"{shown['path']}:{offset}-{offset + int(limit)}" if limit else f"{shown['path']}:{offset}-"
        )
    if list(shown) == ["command"]:
        return str(shown["command"])
    return "\n".join(
        f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}" for k, v in shown.items()
    )


def result_text(result: AgentToolResult | object) -> str:
    return "\n".join(text for text in text_blocks(getattr(result, "content", None)) if text) or "(no output)"


def _cap(text: str, limit: int, note: str) -> str:
    return text if len(text) <= limit else text[: limit - len(note) - 1] + "\n" + note


class _Run:
    """The Slack side of one run: main post, thread posts, the queue, usage."""

    def __init__(self, transport: ChatTransport, channel: str, reply_thread: str | None) -> None:
        self.transport = transport
        self.channel = channel
        self.reply_thread = reply_thread  # where the main post goes (None: the channel)
        self.main_ts: str | None = None
        self.main_lines: list[str] = []
        self.working = True
        self.thread_posts: list[str] = []
        self.tool_starts: dict[str, float] = {}
        self.tool_labels: dict[str, str] = {}
        self.final: str | None = None  # the answer chunk that replaces the main post
        self.cost = 0.0
        self.tokens = 0
        self.queue = OutboundQueue(report=self._report_failure)

    @property
    def thread(self) -> str | None:
        return self.reply_thread or self.main_ts

    async def _report_failure(self, text: str) -> None:
        if self.thread:
            self.thread_posts.append(await self.transport.post(self.channel, text, self.thread))

    def main_text(self) -> str:
        if self.final is not None:
            return self.final
        text = "\n".join(self.main_lines)
        return _cap(text, MAIN_LIMIT, "_(truncated, see the thread)_") + (" ..." if self.working else "")

    def start(self, first_line: str) -> None:
        self.main_lines.append(first_line)

        async def post_main() -> None:
            self.main_ts = await self.transport.post(self.channel, self.main_text(), self.reply_thread)

        self.queue.enqueue(post_main, "posting the main message")

    def refresh_main(self) -> None:
        async def update() -> None:
            if self.main_ts is None:  # the first post failed: post again instead of editing nothing
                self.main_ts = await self.transport.post(self.channel, self.main_text(), self.reply_thread)
            else:
                await self.transport.update(self.channel, self.main_ts, self.main_text())

        self.queue.enqueue(update, "updating the main message")

    def add_main_line(self, line: str) -> None:
        self.main_lines.append(line)
        self.refresh_main()

    def post_thread(self, text: str, what: str) -> None:
        async def post() -> None:
            if self.thread is None:
                return
            for chunk in split_for_slack(_cap(text, THREAD_LIMIT, "_(truncated)_")):
                self.thread_posts.append(await self.transport.post(self.channel, chunk, self.thread))

        self.queue.enqueue(post, what)


class Runner:
    """The agent of one conversation (a channel, or one thread of it)."""

    def __init__(
        self, settings: MomSettings, transport: ChatTransport, conversation: ws.Conversation
    ) -> None:
        self.settings = settings
        self.transport = transport
        self.conversation = conversation
        self.folder = conversation.folder(settings.workspace)
        self.session: AgentSession | None = None
        self.run_state: _Run | None = None
        self.busy = False
        self.stop_post: str | None = None
        self._channel_name: str | None = None

    # -- the session -----------------------------------------------------------------------------

    def _tools(self) -> dict[str, object]:
        cwd = str(self.folder)
        tools: dict[str, object] = {}
        if self.settings.sandbox.kind == "host":
            tools["read"] = create_read_tool(cwd)
        tools["bash"] = create_bash_tool(
            cwd, operations=bash_operations(self.settings.sandbox, self.settings.workspace)
        )
        if self.settings.sandbox.kind == "host":
            tools["edit"] = create_edit_tool(cwd)
            tools["write"] = create_write_tool(cwd)
        tools["attach"] = self._attach_tool()
        return tools

    def _attach_tool(self) -> object:
        runner = self

        class AttachParams(ToolParams):
            path: str
            title: str | None = None

        async def attach(
            params: AttachParams, signal: AbortSignal | None, on_update: object, ctx: object
        ) -> AgentToolResult:
            path = host_path(
                runner.settings.sandbox, runner.settings.workspace, params.path, runner.folder
            ).resolve()
            if not path.is_file():
                raise ValueError(f"no such file: {params.path}")
            if any(path == f or f in path.parents for f in runner.settings.forbidden):
                raise ValueError(f"{params.path} is one of mom's own files and is never uploaded")
            run = runner.run_state
            if run is None:
                raise ValueError("attach works only during a run")
            await runner.transport.upload(run.channel, path, params.title, run.thread)
            return text_result(f"Uploaded {path.name}")

        return define_tool(
            "attach",
            "Upload a file from the workspace to this Slack conversation (the user sees it in the thread).",
            AttachParams,
            attach,
            prompt_snippet="Upload a workspace file to the Slack conversation",
        )

    async def ensure_session(self) -> AgentSession:
        if self.session is not None:
            return self.session
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / "context.jsonl"
        created = await create_agent_session(
            str(self.folder),
            session_manager=SessionManager.open(str(path), str(self.folder)),
            settings_manager=SettingsManager.in_memory({"compaction": {"enabled": True}}),
            model_registry=self.settings.model_registry,
            model=self.settings.model,
            thinking_level="off",
            base_tools_override=self._tools(),
            system_prompt="You are mom.",
            no_context_files=True,
        )
        for warning in created.warnings:
            log.warning("%s: %s", self.conversation.key, warning)
        self.session = created.session
        self.session.subscribe(self._on_event)
        return self.session

    def _system_prompt(self, session: AgentSession, channel_name: str) -> str:
        sandbox = self.settings.sandbox
        if sandbox.kind == "docker":
            from pi_app.shells.mom.sandbox import CONTAINER_WORKSPACE

            workspace_path = CONTAINER_WORKSPACE
            rel = self.folder.relative_to(self.settings.workspace)
            folder = f"{CONTAINER_WORKSPACE}/{rel}"
        else:
            workspace_path, folder = str(self.settings.workspace), str(self.folder)
        return ws.system_prompt(
            workspace_path=workspace_path,
            channel_path=folder,
            channel=self.conversation.channel,
            channel_name=channel_name,
            environment=sandbox.describe(),
            memory=ws.read_memory(self.settings.workspace, self.conversation.channel),
            tools=[t.name for t in session.agent.state.tools],
        )

    # -- events -> Slack ------------------------------------------------------------------------

    def _on_event(self, event: object) -> None:
        run = self.run_state
        if run is None:
            return
        kind = getattr(event, "type", "")
        if kind == "tool_execution_start":
            call_id = str(getattr(event, "tool_call_id", ""))
            label = label_for(str(getattr(event, "tool_name", "")), getattr(event, "args", {}))
            run.tool_starts[call_id] = time.monotonic()
            run.tool_labels[call_id] = label
            run.add_main_line(f"_→ {label}_")
        elif kind == "tool_execution_end":
            call_id = str(getattr(event, "tool_call_id", ""))
            name = str(getattr(event, "tool_name", ""))
            seconds = time.monotonic() - run.tool_starts.pop(call_id, time.monotonic())
            label = run.tool_labels.pop(call_id, name)
            is_error = bool(getattr(event, "is_error", False))
            result = result_text(getattr(event, "result", None))
            args = self._args_of(call_id)
            details = f"*{'✗' if is_error else '✓'} {name}*: {label} ({seconds:.1f}s)\n"
            if args:
                details += f"```\n{args}\n```\n"
            details += f"*Result:*\n```\n{result}\n```"
            run.post_thread(details, f"posting the {name} details")
            if is_error:
                run.add_main_line(f"_Error: {result[:200]}_")
        elif kind == "message_end":
            message = getattr(event, "message", None)
            if getattr(message, "role", None) != "assistant":
                return
            usage = getattr(message, "usage", None)
            if usage is not None:
                run.cost += float(getattr(getattr(usage, "cost", None), "total", 0.0) or 0.0)
                run.tokens += int(getattr(usage, "total_tokens", 0) or 0)
            content = getattr(message, "content", []) or []
            has_tools = any(getattr(c, "type", None) == "toolCall" for c in content)
            for part in content:
                if getattr(part, "type", None) == "thinking" and getattr(part, "thinking", "").strip():
                    run.post_thread(f"_{part.thinking.strip()}_", "posting thinking")
                elif has_tools and getattr(part, "type", None) == "text" and part.text.strip():
                    run.post_thread(part.text.strip(), "posting the answer so far")
        elif kind == "compaction_start":
            run.add_main_line("_Compacting context..._")
        elif kind == "auto_retry_start":
            run.add_main_line(
                f"_Retrying ({getattr(event, 'attempt', '?')}/{getattr(event, 'max_attempts', '?')})..._"
            )

    def _args_of(self, call_id: str) -> str:
        session = self.session
        if session is None:
            return ""
        for message in reversed(session.messages):
            for part in getattr(message, "content", None) or []:
                if getattr(part, "type", None) == "toolCall" and getattr(part, "id", None) == call_id:
                    return format_args(getattr(part, "arguments", {}))
        return ""

    # -- a run ----------------------------------------------------------------------------------

    def _user_text(self, request: RunRequest) -> tuple[str, list[ImageContent]]:
        stamp = datetime.now().astimezone().isoformat(sep=" ", timespec="seconds")
        lines = []
        if request.ts is not None:
            unseen = ws.unseen_messages(self.settings.workspace, self.conversation, request.ts)
            if unseen:
                lines.append("<channel_messages_since_your_last_run>")
                lines += [f"[{e.get('userName') or e.get('user')}]: {e.get('text')}" for e in unseen]
                lines.append("</channel_messages_since_your_last_run>")
        lines.append(f"[{stamp}] [{request.user_name}]: {request.text}")
        images: list[ImageContent] = []
        others = []
        for path in request.attachments:
            mime = IMAGE_TYPES.get(path.suffix.lower())
            if mime:
                import base64

                images.append(ImageContent(data=base64.b64encode(path.read_bytes()).decode(), mime_type=mime))
            else:
                others.append(str(path))
        if others:
            lines += ["<slack_attachments>", *others, "</slack_attachments>"]
        return "\n".join(lines), images

    async def run(self, request: RunRequest) -> None:
        self.busy = True
        try:
            await self._run(request)
        finally:
            self.busy = False
            self.run_state = None
            if self.stop_post is not None:
                stop_post, self.stop_post = self.stop_post, None
                try:
                    await self.transport.update(self.conversation.channel, stop_post, "_Stopped_")
                except Exception as exc:
                    log.warning("could not edit the stop message: %s", exc)

    async def _run(self, request: RunRequest) -> None:
        session = await self.ensure_session()
        if self._channel_name is None:
            self._channel_name = await self.transport.channel_name(self.conversation.channel)
        session.agent.state.system_prompt = self._system_prompt(session, self._channel_name)
        run = _Run(self.transport, self.conversation.channel, self.conversation.thread_ts)
        self.run_state = run
        run.start(f"_Starting event: {request.event_file}_" if request.event_file else "_Thinking_")
        text, images = self._user_text(request)
        if request.ts is not None:
            ws.mark_seen(self.settings.workspace, self.conversation, request.ts)
        try:
            await session.prompt(text, images or None)
        except Exception as exc:  # no model, or a bug: tell the channel instead of going quiet
            log.exception("run failed")
            run.working = False
            run.main_lines = ["Sorry, something went wrong"]
            run.refresh_main()
            run.post_thread(f"Error: {exc}", "posting the error")
            await run.queue.flush()
            return
        last = session.get_last_assistant_message()
        stop_reason = getattr(last, "stop_reason", "stop")
        run.working = False
        final = (session.get_last_assistant_text() or "").strip()
        if stop_reason == "aborted":
            run.main_lines.append("_Stopped_")
            run.refresh_main()
        elif stop_reason == "error":
            run.main_lines = ["Sorry, something went wrong"]
            run.refresh_main()
            run.post_thread(
                f"Error: {getattr(last, 'error_message', None) or 'unknown error'}", "posting the error"
            )
        elif final.startswith("[SILENT]"):
            run.queue.enqueue(lambda: self._delete_all(run), "deleting the silent run's posts")
        else:
            chunks = split_for_slack(final or "_(no answer)_")
            run.final = chunks[0]
            run.refresh_main()
            for chunk in chunks[1:]:
                run.queue.enqueue(self._poster(run, chunk), "posting the rest of the answer")
            ws.append_log(
                self.settings.workspace,
                self.conversation.channel,
                {
                    "ts": f"{time.time():.6f}",
                    "user": "bot",
                    "userName": "mom",
                    "text": final,
                    "isBot": True,
                    "threadTs": self.conversation.thread_ts,
                },
            )
            if run.cost > 0:
                run.post_thread(f"_Usage: {run.tokens} tokens, ${run.cost:.4f}_", "posting the usage")
        await run.queue.flush()

    def _poster(self, run: _Run, text: str) -> Callable[[], Awaitable[None]]:
        async def post() -> None:
            await self.transport.post(run.channel, text, run.reply_thread)

        return post

    async def _delete_all(self, run: _Run) -> None:
        for ts in reversed(run.thread_posts):
            await self.transport.delete(run.channel, ts)
        run.thread_posts.clear()
        if run.main_ts is not None:
            await self.transport.delete(run.channel, run.main_ts)

    def abort(self) -> None:
        if self.session is not None:
            self.session.abort()
