"""``CheckpointRecorder``: every file change the built-in tools make, as checkpoint entries.

It sits on the session's public seams only: a tool gate (``AgentSession.add_tool_gate``) notes the
state before a ``write``, ``edit`` or ``bash`` call runs, and the ``tool_execution_end`` event the
state after; when they differ, one ``custom`` entry of type ``checkpoint`` is appended (pi 1.6.0
reads such entries and leaves them out of the model's context, so the session file stays its file).

An entry's ``data``: ``{"version": 1, "reason": "tool" | "restore", "tool", "toolCallId",
"files": [{"path", "before", "after"}]}``. ``path`` is relative to the project (``/``-separated)
or absolute outside it; ``before``/``after`` are content digests in the ``ContentStore``, ``null``
for "no such file", or ``"!"`` for "too big to keep" (``TOO_BIG``).

``write``/``edit`` know their one path. For ``bash`` the recorder compares the project's files by
size and modification time before and after the command (``scan``); their earlier contents come
from the recorder's index, which the first command fills with every file of the project (in a
thread, once) and later commands keep current by storing only what changed. Decision: the index
keeps files up to 1 MiB and 256 MiB in all (a command's change to a bigger file is recorded as
``TOO_BIG``, "not kept"), so the first command in a huge tree cannot copy it into the store;
``write`` and ``edit`` keep files up to ``checkpoints.maxFileBytes`` (32 MiB).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_app.agent.events import ToolExecutionEndEvent
from pi_app.agent.types import BeforeToolCallContext, BeforeToolCallResult
from pi_app.coding.checkpoints.scan import FileStamp, TreeScan, scan_tree
from pi_app.coding.checkpoints.store import ContentStore

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession

CHECKPOINT_TYPE = "checkpoint"
# what bash commands can be undone for: files a command changes are found among all of the
# project's, so the baseline keeps only files up to this size, and stops keeping at a total
BASH_MAX_FILE_BYTES = 1024 * 1024
BASH_BASELINE_MAX_BYTES = 256 * 1024 * 1024
TOO_BIG = "!"
FILE_TOOLS = frozenset({"write", "edit"})
State = str | None  # a digest, None (no file) or TOO_BIG


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
    scan: TreeScan | None = None
    file_log_start: int = 0  # bash: the file-tool changes made while it ran are theirs, not its


class CheckpointRecorder:
    def __init__(self, session: AgentSession, store: ContentStore) -> None:
        self.session = session
        self.store = store
        self.cwd = session.cwd
        self._pending: dict[str, _Pending] = {}
        # the bash baseline: each project file's stamp and the state kept for it
        self._index: dict[str, tuple[FileStamp, State]] = {}
        self._indexed: asyncio.Future[None] | None = None
        self._baseline_bytes = 0
        self._file_log: list[str] = []  # the path of every write/edit call that ended, in order
        self._remove_gate = session.add_tool_gate(self._before)
        self._unsubscribe = session.subscribe(self._on_event)

    def close(self) -> None:
        self._remove_gate()
        self._unsubscribe()

    # -- before ---------------------------------------------------------------------------------

    async def _before(self, ctx: BeforeToolCallContext, _signal: Any) -> BeforeToolCallResult | None:
        call = ctx.tool_call
        args = call.arguments if isinstance(call.arguments, dict) else {}
        if call.name in FILE_TOOLS and isinstance(args.get("path"), str):
            name = project_path(args["path"], self.cwd)
            state = await asyncio.to_thread(read_state, self.store, absolute_path(name, self.cwd))
            self._pending[call.id] = _Pending(call.name, {name: state})
        elif call.name == "bash":
            await self._ensure_index()
            scan = await asyncio.to_thread(self._refresh_index)
            self._pending[call.id] = _Pending("bash", scan=scan, file_log_start=len(self._file_log))
        return None

    async def _ensure_index(self) -> None:
        if self._indexed is None:
            self._indexed = asyncio.ensure_future(asyncio.to_thread(self._refresh_index))
        await asyncio.shield(self._indexed)

    def _refresh_index(self) -> TreeScan:
        """Bring the index up to the project as it is now (only changed files are read)."""
        scan = scan_tree(self.cwd)
        for name, stamp in scan.files.items():
            known = self._index.get(name)
            if known is None or known[0] != stamp:
                room = self._baseline_bytes < BASH_BASELINE_MAX_BYTES and stamp.size <= BASH_MAX_FILE_BYTES
                state = (
                    read_state(self.store, os.path.join(self.cwd, name), BASH_MAX_FILE_BYTES)
                    if room
                    else TOO_BIG
                )
                if state not in (None, TOO_BIG):
                    self._baseline_bytes += stamp.size
                self._index[name] = (stamp, state)
        for name in [n for n in self._index if n not in scan.files]:
            del self._index[name]
        return scan

    # -- after ----------------------------------------------------------------------------------

    async def _on_event(self, event: object) -> None:
        if not isinstance(event, ToolExecutionEndEvent):
            return
        pending = self._pending.pop(event.tool_call_id, None)
        if pending is None:
            return
        if pending.scan is not None:
            before_index = dict(self._index)
            after = await asyncio.to_thread(self._refresh_index)
            # tools run in parallel: what a write/edit of the same batch changed is recorded by it
            theirs = set(self._file_log[pending.file_log_start :])
            theirs.update(name for p in self._pending.values() for name in p.before)
            files = [
                f
                for f in _tree_changes(pending.scan, after, before_index, self._index)
                if f["path"] not in theirs
            ]
        else:
            files = []
            for name, before in pending.before.items():
                self._file_log.append(name)
                state = await asyncio.to_thread(read_state, self.store, absolute_path(name, self.cwd))
                if state != before:
                    files.append({"path": name, "before": before, "after": state})
                if name in self._index:  # keep the bash baseline in step with the tool's change
                    self._forget(name)
        if files:
            self.record(files, tool=pending.tool, tool_call_id=event.tool_call_id)

    def _forget(self, name: str) -> None:
        self._index.pop(name, None)

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


def _tree_changes(
    before: TreeScan,
    after: TreeScan,
    index_before: dict[str, tuple[FileStamp, State]],
    index_after: dict[str, tuple[FileStamp, State]],
) -> list[dict[str, State]]:
    changes: list[dict[str, State]] = []
    for name in sorted(set(before.files) | set(after.files)):
        old, new = before.files.get(name), after.files.get(name)
        if old == new:
            continue
        old_state = index_before[name][1] if old is not None and name in index_before else None
        new_state = index_after[name][1] if new is not None and name in index_after else None
        if old_state != new_state or old is None or new is None:
            changes.append({"path": name, "before": old_state, "after": new_state})
    return changes
