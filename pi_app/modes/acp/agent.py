"""``PiAcpAgent``: pi's sessions behind the Agent Client Protocol (``pi --mode acp``).

An editor speaks ACP to pi over stdio (JSON-RPC 2.0, one message per line) through the maintained
``agent-client-protocol`` library; this class answers its requests with the same ``AgentSession``
that RPC mode drives, built by ``pi_app.coding.launch.build_session`` from the command line (model,
tools, extensions, settings) and the folder the editor names:

- ``session/new`` starts a pi session in that folder (a normal session file, so ``pi -r`` finds it
  later); ``session/load`` opens one by id and replays its conversation as ``session/update``s;
  ``session/list`` lists the folder's sessions, newest first.
- ``session/prompt`` runs one prompt to the end (retries and compaction included) while streaming
  text, thinking and tool calls (``pi_app.modes.acp.updates``); it answers with the stop reason:
  ``end_turn``, ``max_tokens``, or ``cancelled`` after ``session/cancel``, which aborts the run.
- Permission (decision): before ``write``, ``edit``, ``bash`` and any tool that is not one of pi's
  read-only built-ins runs, the editor is asked (``session/request_permission``) with allow once,
  allow always (for that tool, in that session) and reject; ``write``/``edit`` show the diff.
  A rejection becomes the tool's error result, which the model sees; cancelling answers it.
- Files: when the editor offers ``fs/read_text_file`` / ``fs/write_text_file``, the file tools go
  through it (``client_files``), else through the disk.

MCP servers the editor passes in ``session/new`` are not started (pi reads its own ``mcp.json``);
``authenticate`` has no methods to offer: pi's keys and sign-ins come from its own configuration.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp import helpers as h
from acp import schema as s
from acp.interfaces import Client

from pi_app import __version__
from pi_app.agent.types import BeforeToolCallContext, BeforeToolCallResult
from pi_app.ai.types import AssistantMessage, ImageContent
from pi_app.coding.agent_session import AgentSession
from pi_app.coding.launch import LaunchError, LaunchHost, LaunchOptions, build_session
from pi_app.modes.acp.client_files import (
    ClientEditOperations,
    ClientFiles,
    ClientReadOperations,
    ClientWriteOperations,
)
from pi_app.modes.acp.updates import UpdateMapper, absolute, history_updates, tool_title
from pi_app.modes.console import write_stderr_line

READ_ONLY_TOOLS = frozenset({"read", "grep", "find", "ls"})
DECLINED = "The user declined this tool call."
ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE = "allow_once", "allow_always", "reject_once"
PERMISSION_OPTIONS = [
    s.PermissionOption(option_id=ALLOW_ONCE, name="Allow", kind="allow_once"),
    s.PermissionOption(option_id=ALLOW_ALWAYS, name="Always allow this tool", kind="allow_always"),
    s.PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"),
]
MAX_DIFF_BYTES = 2_000_000  # a bigger file is still written; its diff is not sent to the editor

PromptBlock = (
    s.TextContentBlock
    | s.ImageContentBlock
    | s.AudioContentBlock
    | s.ResourceContentBlock
    | s.EmbeddedResourceContentBlock
)


@dataclasses.dataclass
class EditorSession:
    """One ACP session: the pi session behind it and what the editor decided so far."""

    session: AgentSession
    cwd: str
    mapper: UpdateMapper
    files: ClientFiles
    always_allowed: set[str] = dataclasses.field(default_factory=set)
    cancelled: bool = False
    prompting: bool = False


def prompt_to_pi(blocks: list[PromptBlock]) -> tuple[str, list[ImageContent]]:
    """ACP prompt content as pi's prompt text and images: embedded files (the editor's @-mentions)
    are inlined as ``<file>`` blocks, linked resources named by their URI."""
    parts: list[str] = []
    images: list[ImageContent] = []
    for block in blocks:
        if isinstance(block, s.TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, s.ImageContentBlock):
            images.append(ImageContent(data=block.data, mime_type=block.mime_type))
        elif isinstance(block, s.EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, s.TextResourceContents):
                parts.append(f'<file name="{_uri_path(resource.uri)}">\n{resource.text}\n</file>')
            else:
                parts.append(f"[attached: {_uri_path(resource.uri)}]")
        elif isinstance(block, s.ResourceContentBlock):
            parts.append(f"@{_uri_path(block.uri)}")
    return "\n".join(part for part in parts if part), images


def _uri_path(uri: str) -> str:
    return uri[len("file://") :] if uri.startswith("file://") else uri


def stop_reason_of(session: AgentSession, cancelled: bool) -> s.StopReason:
    if cancelled:
        return "cancelled"
    last = next((m for m in reversed(session.messages) if isinstance(m, AssistantMessage)), None)
    if last is not None and last.stop_reason == "aborted":
        return "cancelled"
    if last is not None and last.stop_reason == "length":
        return "max_tokens"
    return "end_turn"


class PiAcpAgent:
    """The ACP agent side; ``options`` are the command line's, ``build`` builds one pi session."""

    def __init__(self, options: LaunchOptions, build: Any = build_session) -> None:
        self.options = options
        self._build = build
        self._client: Client | None = None
        self._capabilities = s.ClientCapabilities()
        self._sessions: dict[str, EditorSession] = {}

    # -- connection -------------------------------------------------------------------------------

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    @property
    def client(self) -> Client:
        if self._client is None:
            raise RequestError.internal_error({"message": "no client connected"})
        return self._client

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: s.ClientCapabilities | None = None,
        client_info: s.Implementation | None = None,
        **_: Any,
    ) -> s.InitializeResponse:
        self._capabilities = client_capabilities or s.ClientCapabilities()
        return s.InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=s.AgentCapabilities(
                load_session=True,
                prompt_capabilities=s.PromptCapabilities(image=True, embedded_context=True, audio=False),
                session_capabilities=s.SessionCapabilities(list=s.SessionListCapabilities()),
            ),
            agent_info=s.Implementation(name="pi", title="pi", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **_: Any) -> s.AuthenticateResponse:
        return s.AuthenticateResponse()

    # -- sessions ---------------------------------------------------------------------------------

    async def new_session(self, cwd: str, mcp_servers: Any = None, **_: Any) -> s.NewSessionResponse:
        editor = await self._open(cwd, None)
        return s.NewSessionResponse(session_id=editor.session.session_id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> s.LoadSessionResponse:
        editor = self._sessions.get(session_id) or await self._open(cwd, session_id)
        for update in history_updates(editor.session.messages, editor.cwd):
            await self.client.session_update(session_id=session_id, update=update)
        return s.LoadSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> s.ListSessionsResponse:
        from pi_app.coding import paths
        from pi_app.coding.session.listing import list_sessions_in
        from pi_app.coding.settings import SettingsManager

        folder = os.path.abspath(cwd or os.getcwd())
        settings = SettingsManager.create(folder, paths.agent_dir())
        directory = paths.resolve_session_dir(folder, self.options.session_dir, settings.get_session_dir())
        infos = await asyncio.to_thread(list_sessions_in, str(directory))
        return s.ListSessionsResponse(
            sessions=[
                s.SessionInfo(
                    session_id=info.id,
                    cwd=info.cwd,
                    title=info.name or info.first_message[:80] or None,
                    updated_at=info.modified.isoformat(),
                )
                for info in infos
            ]
        )

    async def close_session(self, session_id: str, **_: Any) -> s.CloseSessionResponse:
        editor = self._sessions.pop(session_id, None)
        if editor is not None:
            editor.session.abort()
            editor.session.dispose()
        return s.CloseSessionResponse()

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> s.SetSessionModeResponse:
        return s.SetSessionModeResponse()

    async def _open(self, cwd: str, session_id: str | None) -> EditorSession:
        folder = os.path.abspath(cwd)
        if not os.path.isdir(folder):
            raise RequestError.invalid_params({"cwd": f"not a folder: {cwd}"})
        options = dataclasses.replace(
            self.options, cwd=folder, session=session_id, continue_=False, resume=False, messages=[]
        )
        files = ClientFiles(
            self.client,
            session_id or "",
            can_read=bool(self._capabilities.fs and self._capabilities.fs.read_text_file),
            can_write=bool(self._capabilities.fs and self._capabilities.fs.write_text_file),
        )
        tools = _file_tools(folder, files)
        try:
            created = await self._build(
                options, host=LaunchHost(report=write_stderr_line), base_tools_override=tools
            )
        except LaunchError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        session: AgentSession = created.session
        files.session_id = session.session_id
        editor = EditorSession(session, folder, UpdateMapper(folder), files)
        self._sessions[session.session_id] = editor
        session.subscribe(lambda event: self._forward(editor, event))
        session.add_tool_gate(lambda ctx, _signal: self._ask_permission(editor, ctx))
        return editor

    # -- prompts ----------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[PromptBlock], **_: Any) -> s.PromptResponse:
        editor = self._session(session_id)
        if editor.prompting:
            raise RequestError.invalid_request({"message": "a prompt is already running in this session"})
        text, images = prompt_to_pi(prompt)
        editor.cancelled = False
        editor.prompting = True
        try:
            await editor.session.prompt(text, images or None)
            error = _last_error(editor.session)
            if error and not editor.cancelled:
                await self.client.session_update(
                    session_id=session_id, update=h.update_agent_message_text(f"\n\nError: {error}")
                )
        finally:
            editor.prompting = False
        return s.PromptResponse(stop_reason=stop_reason_of(editor.session, editor.cancelled))

    async def cancel(self, session_id: str, **_: Any) -> None:
        editor = self._sessions.get(session_id)
        if editor is not None and editor.prompting:
            editor.cancelled = True
            editor.session.abort()

    def _session(self, session_id: str) -> EditorSession:
        editor = self._sessions.get(session_id)
        if editor is None:
            raise RequestError.invalid_params({"sessionId": f"unknown session: {session_id}"})
        return editor

    async def _forward(self, editor: EditorSession, event: object) -> None:
        for update in editor.mapper.map(event):
            await self.client.session_update(session_id=editor.session.session_id, update=update)

    # -- permission -------------------------------------------------------------------------------

    async def _ask_permission(
        self, editor: EditorSession, ctx: BeforeToolCallContext
    ) -> BeforeToolCallResult | None:
        call = ctx.tool_call
        if call.name in READ_ONLY_TOOLS or call.name in editor.always_allowed:
            return None
        args = call.arguments if isinstance(call.arguments, dict) else {}
        diff = await _diff_for(call.name, args, editor.cwd, editor.files)
        if diff is not None:
            editor.mapper.diffs[call.id] = diff
        session_id = editor.session.session_id
        already_shown = call.id in editor.mapper.announced  # tool_execution_start came first
        start = editor.mapper.tool_call_start(call.id, call.name, args, "pending")
        if not already_shown:
            await self.client.session_update(session_id=session_id, update=start)
        elif start.content:
            await self.client.session_update(
                session_id=session_id, update=h.update_tool_call(call.id, content=start.content)
            )
        request = s.ToolCallUpdate(
            tool_call_id=call.id,
            title=tool_title(call.name, args, editor.cwd),
            kind=start.kind,
            status="pending",
            content=start.content,
            locations=start.locations,
            raw_input=args,
        )
        response = await self.client.request_permission(
            session_id=session_id, tool_call=request, options=PERMISSION_OPTIONS
        )
        outcome = response.outcome
        if isinstance(outcome, s.AllowedOutcome) and outcome.option_id in (ALLOW_ONCE, ALLOW_ALWAYS):
            if outcome.option_id == ALLOW_ALWAYS:
                editor.always_allowed.add(call.name)
            return None
        editor.mapper.diffs.pop(call.id, None)
        return BeforeToolCallResult(block=True, reason=DECLINED)


def _last_error(session: AgentSession) -> str | None:
    last = next((m for m in reversed(session.messages) if isinstance(m, AssistantMessage)), None)
    if last is not None and last.stop_reason == "error":
        return last.error_message or "the model request failed"
    return None


def _file_tools(cwd: str, files: ClientFiles) -> dict[str, Any]:
    from pi_app.coding.tools import ToolsOptions, create_all_tools

    operations = {
        "read": ClientReadOperations(files),
        "write": ClientWriteOperations(files),
        "edit": ClientEditOperations(files),
    }
    return create_all_tools(cwd, ToolsOptions(operations=operations))


async def _diff_for(
    name: str, args: dict[str, Any], cwd: str, files: ClientFiles
) -> s.FileEditToolCallContent | None:
    """The whole-file diff a ``write`` or ``edit`` would make (of the editor's buffer when it
    serves files), for the editor to show with the permission request."""
    path = args.get("path")
    if not isinstance(path, str) or name not in ("write", "edit"):
        return None
    full = absolute(path, cwd)
    if name == "write":
        content = args.get("content")
        if not isinstance(content, str):
            return None
        return h.tool_diff_content(full, content, await _current_text(full, files))
    from pi_app.coding.tools.edit import preview_edit
    from pi_app.coding.tools.edit_diff import EditError

    edits = args.get("edits")
    if not isinstance(edits, list):
        edits = [{"oldText": args.get("oldText", ""), "newText": args.get("newText", "")}]
    try:
        old_text, new_text = await preview_edit(path, edits, cwd, ClientEditOperations(files))
    except (EditError, OSError, KeyError, TypeError):
        return None  # the edit itself reports the problem when it runs
    return h.tool_diff_content(full, new_text, old_text)


async def _current_text(path: str, files: ClientFiles) -> str | None:
    """The file's text now, or None when it does not exist yet (or is too big or not text)."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_DIFF_BYTES:
            return None
        return (await files.read_bytes(path)).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


async def run_acp_mode(options: LaunchOptions) -> int:
    """``pi --mode acp``: serve ACP on stdin/stdout until the editor closes the connection."""
    import logging

    from acp import run_agent

    from pi_app.modes.acp.stdio import protocol_streams

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    reader, writer = await protocol_streams()
    agent = PiAcpAgent(options)
    try:
        # a subset of acp.Agent: its router answers the methods pi lacks with method-not-found
        await run_agent(agent, writer, reader)  # type: ignore[arg-type]
    finally:
        for editor in list(agent._sessions.values()):
            editor.session.abort()
            editor.session.dispose()
    return 0
