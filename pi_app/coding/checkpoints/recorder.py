"""``CheckpointRecorder``: every file change the built-in tools make, as checkpoint entries.

It sits on the session's public seams only: a tool gate (``AgentSession.add_tool_gate``) notes the
state before a ``write``, ``edit`` or ``bash`` call runs, and the ``tool_execution_end`` event the
state after; when they differ, one ``custom`` entry of type ``checkpoint`` is appended (pi 1.6.0
reads such entries and leaves them out of the model's context, so the session file stays its file).

An entry's ``data``: ``{"version": 1, "reason": "tool" | "restore", "tool", "toolCallId",
"files": [{"path", "before", "after"}]}``. ``path`` is relative to the project (``/``-separated)
or absolute outside it; ``before``/``after`` are content digests in the ``ContentStore``, ``null``
for "no such file", or ``"!"`` for "too big to keep" (``TOO_BIG``).

``write``/``edit`` know their one path. For ``bash`` the recorder asks which project files changed
while the command ran: the OS's file notifications (``watch``) say so at once, a scan of sizes and
modification times (``scan``) where notifications are unavailable. The earlier contents come from
the baseline: every project file, compressed in memory, read in a thread when the first prompt
starts (a bash command waits only if it is not finished) and kept current from the notifications.
A headless run (``pi -p``, JSON mode: one short process, often without a command) sets
``baseline_at_start`` False and reads it at its first bash call instead: in a project of a
thousand files the notifier setup and the read cost about half a second of CPU, which otherwise
competed with the run's request and answer for the interpreter (issue 20).
Only the versions a command actually changed go into the store. Decision: the baseline keeps files
up to 1 MiB and 64 MiB (compressed) in all, so a huge tree costs bounded memory; a command's change
to a file outside that is recorded as ``TOO_BIG`` ("not kept", said when restoring). ``write`` and
``edit`` keep files up to ``checkpoints.maxFileBytes`` (32 MiB).
"""

from __future__ import annotations

import asyncio
import os
import threading
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_app.agent.events import AgentStartEvent, ToolExecutionEndEvent
from pi_app.agent.types import BeforeToolCallContext, BeforeToolCallResult
from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.checkpoints.scan import FileStamp, scan_tree
from pi_app.coding.checkpoints.store import ContentStore
from pi_app.coding.checkpoints.watch import DRAIN_TIMEOUT_MS, ProjectWatcher

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession

CHECKPOINT_TYPE = "checkpoint"
# what bash commands can be undone for: files a command changes are found among all of the
# project's, so the baseline keeps only files up to this size, and stops keeping at a total
BASH_MAX_FILE_BYTES = 1024 * 1024
BASH_BASELINE_MAX_BYTES = 64 * 1024 * 1024  # compressed, in memory
TOO_BIG = "!"
FILE_TOOLS = frozenset({"write", "edit"})
State = str | None  # a digest, None (no file) or TOO_BIG


class _Absent:
    """A file that does not exist (in the bash baseline)."""


ABSENT = _Absent()
Kept = bytes | None | _Absent  # a baseline version: zlib-compressed bytes, None (too big), ABSENT


def project_path(path: str, cwd: str) -> str:
    """How a file is named in a checkpoint: relative inside the project, else absolute."""
    full = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
    rel = os.path.relpath(full, cwd)
    return full if rel.startswith("..") else rel.replace(os.sep, "/")


def absolute_path(name: str, cwd: str) -> str:
    return name if os.path.isabs(name) else os.path.join(cwd, name)


def read_state(store: ContentStore, full: str, max_bytes: int | None = None) -> State:
    """Keep the file's current content; its state (``TOO_BIG`` over ``max_bytes``)."""
    try:
        if not os.path.isfile(full):
            return None
        if max_bytes is not None and os.path.getsize(full) > max_bytes:
            return TOO_BIG
        digest = store.put_file(full)
    except OSError:
        return None
    return TOO_BIG if digest is None else digest


@dataclass
class _Pending:
    tool: str
    before: dict[str, State] = field(default_factory=dict)
    file_log_start: int = 0  # bash: the file-tool changes made while it ran are theirs, not its


class CheckpointRecorder:
    def __init__(self, session: AgentSession, store: ContentStore) -> None:
        self.session = session
        self.store = store
        self.cwd = session.cwd
        self._pending: dict[str, _Pending] = {}
        # the bash baseline: each project file's stamp and its content, compressed, in memory
        self._index: dict[str, tuple[FileStamp, Kept]] = {}
        self._indexed: asyncio.Future[None] | None = None
        self._watcher: ProjectWatcher | None = None
        self._baseline_bytes = 0
        self._file_log: list[str] = []  # the path of every write/edit call that ended, in order
        self.baseline_at_start = True  # False: read the baseline at the first bash call
        self._remove_gate = session.add_tool_gate(self._before)
        self._unsubscribe = session.subscribe(self._on_event)

    def close(self) -> None:
        self._remove_gate()
        self._unsubscribe()
        if self._watcher is not None:
            self._watcher.close()

    # -- before ---------------------------------------------------------------------------------

    async def _before(
        self, ctx: BeforeToolCallContext, _signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        call = ctx.tool_call
        args = call.arguments if isinstance(call.arguments, dict) else {}
        if call.name in FILE_TOOLS and isinstance(args.get("path"), str):
            name = project_path(args["path"], self.cwd)
            state = await asyncio.to_thread(read_state, self.store, absolute_path(name, self.cwd))
            self._pending[call.id] = _Pending(call.name, {name: state})
        elif call.name == "bash":
            await self._ensure_index()
            await asyncio.to_thread(self._refresh_index)  # changes made outside pi: not the command's
            self._pending[call.id] = _Pending("bash", file_log_start=len(self._file_log))
        return None

    async def _ensure_index(self) -> None:
        self._start_index()
        assert self._indexed is not None
        await asyncio.shield(self._indexed)

    def _start_index(self) -> None:
        """Build the baseline on a daemon thread: a process that ends (``pi -p``) never waits
        for it, as it would for the loop's executor."""
        if self._indexed is not None:
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._indexed = done

        def finish(error: BaseException | None) -> None:
            if done.done():
                return
            if error is None:
                done.set_result(None)
            else:
                done.set_exception(error)

        def run() -> None:
            try:
                self._build_index()
            except BaseException as exc:  # reported to the bash call that waits for it
                error: BaseException | None = exc
            else:
                error = None
            try:
                loop.call_soon_threadsafe(finish, error)
            except RuntimeError:  # the loop is closed: nobody waits any more
                pass

        threading.Thread(target=run, name="pi-checkpoint-baseline", daemon=True).start()

    def _build_index(self) -> None:
        """The bash baseline: watch the project, then keep every file as it is now (once)."""
        self._watcher = ProjectWatcher.start(self.cwd)
        self._refresh_from_scan()

    def _refresh_index(self, after_command: bool = False) -> dict[str, tuple[Kept, Kept]]:
        """Bring the index up to the project as it is now, reading only what changed; returns
        each changed file's version before and after. ``after_command``: a command just ended,
        give its last changes a few milliseconds to come through."""
        if self._watcher is None:
            return self._refresh_from_scan()
        changes: dict[str, tuple[Kept, Kept]] = {}
        for name in self._watcher.drain(DRAIN_TIMEOUT_MS if after_command else 1):
            full = os.path.join(self.cwd, name)
            try:
                stat = os.stat(full)
                stamp = FileStamp(stat.st_size, stat.st_mtime_ns) if os.path.isfile(full) else None
            except OSError:
                stamp = None
            old = self._index.get(name)
            if stamp is None:
                if old is not None:
                    del self._index[name]
                    changes[name] = (old[1], ABSENT)
                continue
            new = self._keep(name, stamp)
            if old is None or old[1] != new:
                changes[name] = (old[1] if old is not None else ABSENT, new)
        return changes

    def _refresh_from_scan(self) -> dict[str, tuple[Kept, Kept]]:
        scan = scan_tree(self.cwd)
        changes: dict[str, tuple[Kept, Kept]] = {}
        for name, stamp in scan.files.items():
            known = self._index.get(name)
            if known is None or known[0] != stamp:
                new = self._keep(name, stamp)
                if known is None or known[1] != new:
                    changes[name] = (known[1] if known is not None else ABSENT, new)
        for name in [n for n in self._index if n not in scan.files]:
            changes[name] = (self._index.pop(name)[1], ABSENT)
        return changes

    def _keep(self, name: str, stamp: FileStamp) -> Kept:
        """Read the file into the index (compressed, in memory), within the baseline's caps."""
        old = self._index.get(name)
        if old is not None and isinstance(old[1], bytes):
            self._baseline_bytes -= len(old[1])
        kept: Kept = None
        if stamp.size <= BASH_MAX_FILE_BYTES and self._baseline_bytes < BASH_BASELINE_MAX_BYTES:
            try:
                with open(os.path.join(self.cwd, name), "rb") as handle:
                    kept = zlib.compress(handle.read(BASH_MAX_FILE_BYTES + 1), 1)
            except OSError:
                kept = ABSENT
        if isinstance(kept, bytes):
            self._baseline_bytes += len(kept)
        self._index[name] = (stamp, kept)
        return kept

    def _state(self, kept: Kept) -> State:
        """A baseline version as a checkpoint state (its content goes into the store now)."""
        if isinstance(kept, _Absent):
            return None
        if kept is None:
            return TOO_BIG
        return self.store.put(zlib.decompress(kept)) or TOO_BIG

    # -- after ----------------------------------------------------------------------------------

    async def _on_event(self, event: object) -> None:
        if isinstance(event, AgentStartEvent):
            if self.baseline_at_start:
                self._start_index()
            return
        if not isinstance(event, ToolExecutionEndEvent):
            return
        pending = self._pending.pop(event.tool_call_id, None)
        if pending is None:
            return
        if pending.tool == "bash":
            changes = await asyncio.to_thread(self._refresh_index, True)
            # tools run in parallel: what a write/edit of the same batch changed is recorded by it
            theirs = set(self._file_log[pending.file_log_start :])
            theirs.update(name for p in self._pending.values() for name in p.before)
            mine = sorted((name, vs) for name, vs in changes.items() if name not in theirs)
            files: list[dict[str, State]] = await asyncio.to_thread(
                lambda: [
                    {"path": n, "before": self._state(old), "after": self._state(new)}
                    for n, (old, new) in mine
                ]
            )
        else:
            files = []
            for name, before in pending.before.items():
                self._file_log.append(name)
                state = await asyncio.to_thread(read_state, self.store, absolute_path(name, self.cwd))
                if state != before:
                    files.append({"path": name, "before": before, "after": state})
        if files:
            self.record(files, tool=pending.tool, tool_call_id=event.tool_call_id)

    def record(
        self,
        files: list[dict[str, State]],
        *,
        tool: str | None,
        tool_call_id: str | None = None,
        reason: str = "tool",
    ) -> str:
        data: dict[str, Any] = {"version": 1, "reason": reason, "files": files}
        if tool is not None:
            data["tool"] = tool
        if tool_call_id is not None:
            data["toolCallId"] = tool_call_id
        return self.session.session_manager.append_custom_entry(CHECKPOINT_TYPE, data)
