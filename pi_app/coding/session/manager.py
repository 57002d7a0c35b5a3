"""``SessionManager``: one session as an append-only tree of entries in a JSONL file (spec 30 §2.7).

It is storage plus tree and knows nothing of LLMs, settings or the agent loop. Appends attach to
the current leaf and move it; the leaf is not stored in the file (on load it is the last entry).

Persistence rules:
- a new session writes nothing until a user or assistant message exists, then writes header and
  all buffered entries in one truncating write; afterwards each entry is one appended line. (R-SES-05
  waits for the assistant; issue 19 item 7 asks for the user's prompt to be on disk before the
  request starts, so a signal during the first request cannot lose it.)
- a loaded file is only ever appended to, except after a migration (whole-file atomic rewrite
  with a ``.bak-<ts>`` copy kept) and after a failed write (the next append rewrites it all);
- unreadable lines are skipped for the tree but kept and written back verbatim (D-26); before
  the first append to a file whose last byte is not ``\\n`` a newline is written so a torn line
  never swallows the new entry;
- a file that is not empty and whose first JSON object is not a header is refused with
  ``NotASessionFileError`` and left untouched, as pi 1.6.0 does (issue 19 item 3: ``--session
  ./README.md`` used to rename the user's file aside and write a session in its place).

Single writer: session files are not locked (R-SES-14).
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_app.agent.types import AgentMessage
from pi_app.ai.codec import to_json_value
from pi_app.coding import paths
from pi_app.coding.messages import message_to_dict
from pi_app.coding.session.context import SessionContext, build_session_context, path_to
from pi_app.coding.session.format import (
    CorruptLine,
    FileItem,
    LabelEntry,
    MessageEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    build_header,
    iso_from_ms,
    make_entry,
    migrate,
    new_entry_id,
    new_session_id,
    now_ms,
    parse_session_text,
    session_file_name,
)
from pi_app.coding.session.storage import (
    InMemorySessionStorage,
    SessionStorage,
    SessionWriteError,
    default_session_storage,
)

if TYPE_CHECKING:
    from pi_app.coding.session.listing import ProgressCallback, SessionInfo, SessionMatch


def _listing() -> Any:
    """Session listing and header reading, loaded when a run opens or lists sessions (a new session
    never does; start-up cost)."""
    from pi_app.coding.session import listing

    return listing


STORED_ROLES = frozenset({"user", "assistant", "toolResult", "bashExecution", "custom"})


class EntryNotFoundError(KeyError):
    def __init__(self, entry_id: str | None) -> None:
        super().__init__(entry_id)
        self.entry_id = entry_id

    def __str__(self) -> str:
        return f"Entry {self.entry_id} not found"


@dataclass(eq=False)
class SessionTreeNode:
    """An entry of the session tree with its children and label."""

    entry: SessionEntry
    children: list[SessionTreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None


def _stamp(ms: int) -> str:
    return iso_from_ms(ms).replace(":", "-").replace(".", "-")


# A new session's file is written once it holds one of these (see the module docstring).
_WORTH_WRITING = frozenset(("user", "assistant"))


class NotASessionFileError(ValueError):
    """A file that exists, is not empty and is not a session: pi will not open (or overwrite) it."""

    def __init__(self, path: str) -> None:
        super().__init__(f"Session file is not a valid pi session: {path}")
        self.path = path


def check_session_file(path: str, storage: SessionStorage | None = None) -> None:
    """Raise ``NotASessionFileError`` unless ``path`` is missing, empty or starts with a session
    header (read from its first line; the full parse only when that line is not a header)."""
    path = os.path.abspath(path)
    storage = storage or default_session_storage()
    if _listing().read_header(path, storage) is not None:
        return
    text = storage.load(path)
    if text is not None and text.strip() and parse_session_text(text).header is None:
        raise NotASessionFileError(path)


class SessionManager:
    """One session: its header, its entries in file order, the tree indexes and the leaf."""

    def __init__(
        self,
        cwd: str,
        session_dir: str | Path | None,
        session_file: str | Path | None = None,
        persist: bool = True,
        storage: SessionStorage | None = None,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.cwd = cwd
        self.session_dir = str(session_dir) if session_dir else ""
        self.persist = persist
        self.storage: SessionStorage = storage or (
            default_session_storage() if persist else InMemorySessionStorage()
        )
        self.clock = clock
        self.warnings: list[str] = []
        self.skipped_lines = 0
        self.session_file: str | None = None
        self._items: list[FileItem] = []
        self._header: SessionHeader = build_header("", "", cwd)
        self._entries: list[SessionEntry] = []
        self._compaction_cache: tuple[tuple[Any, ...], SessionEntry | None] | None = None
        self._by_id: dict[str, SessionEntry] = {}
        self._children: dict[str | None, list[SessionEntry]] | None = None
        self._labels: dict[str, str] = {}
        self._label_ts: dict[str, str] = {}
        self._leaf_id: str | None = None
        self._flushed = False
        self._dirty = False
        self._needs_newline = False
        self._has_messages = False
        if session_file is not None:
            self.set_session_file(str(session_file))
        else:
            self.new_session()

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def create(
        cls, cwd: str, session_dir: str | Path | None = None, storage: SessionStorage | None = None
    ) -> SessionManager:
        """A new session in ``session_dir`` (default: the project's dir); nothing written yet."""
        directory = session_dir or paths.resolve_session_dir(cwd)
        return cls(cwd, directory, storage=storage)

    @classmethod
    def open(
        cls,
        path: str | Path,
        session_dir: str | Path | None = None,
        cwd: str | None = None,
        storage: SessionStorage | None = None,
    ) -> SessionManager:
        """Open ``path`` (created on first assistant reply if it does not exist)."""
        path = os.path.abspath(str(path))
        header = _listing().read_header(path, storage)
        header_cwd = header.get("cwd") if header else None
        the_cwd = header_cwd if isinstance(header_cwd, str) and header_cwd else (cwd or os.getcwd())
        return cls(the_cwd, session_dir or os.path.dirname(path), session_file=path, storage=storage)

    @classmethod
    def in_memory(cls, cwd: str) -> SessionManager:
        return cls(cwd, None, persist=False)

    @classmethod
    def continue_recent(
        cls, cwd: str, session_dir: str | Path | None = None, storage: SessionStorage | None = None
    ) -> SessionManager:
        directory = str(session_dir or paths.resolve_session_dir(cwd))
        recent = _listing().find_most_recent_session(directory, storage)
        if recent is not None:
            return cls.open(recent, directory, cwd=cwd, storage=storage)
        return cls(cwd, directory, storage=storage)

    @classmethod
    def list(
        cls,
        cwd: str,
        session_dir: str | Path | None = None,
        on_progress: ProgressCallback | None = None,
        storage: SessionStorage | None = None,
        on_info: Callable[[SessionInfo], None] | None = None,
    ) -> builtins.list[SessionInfo]:
        """The project's sessions, newest activity first; ``on_info`` gets each one as it is read
        (newest files first), before the whole list is ready."""
        directory = str(session_dir or paths.resolve_session_dir(cwd))
        return _listing().list_sessions_in(directory, storage, on_progress, on_info)

    @classmethod
    def list_all(
        cls,
        on_progress: ProgressCallback | None = None,
        storage: SessionStorage | None = None,
        on_info: Callable[[SessionInfo], None] | None = None,
    ) -> builtins.list[SessionInfo]:
        return _listing().list_all_sessions(None, storage, on_progress, on_info)

    @classmethod
    def find_by_prefix(
        cls,
        prefix: str,
        cwd: str,
        session_dir: str | Path | None = None,
        storage: SessionStorage | None = None,
    ) -> SessionMatch | None:
        """Resolve ``--session <id-prefix>``: current project first, then every project (R-LIST-06)."""
        directory = str(session_dir or paths.resolve_session_dir(cwd))
        return _listing().find_session_by_prefix(prefix, directory, storage)

    @classmethod
    def for_session_id(
        cls,
        session_id: str,
        cwd: str,
        session_dir: str | Path | None = None,
        storage: SessionStorage | None = None,
    ) -> SessionManager:
        """``--session-id <id>`` (R-LIST-07): the project session with exactly that id, else a new
        session that will carry it."""
        directory = str(session_dir or paths.resolve_session_dir(cwd))
        for info in _listing().list_sessions_in(directory, storage):
            if info.id == session_id:
                return cls.open(info.path, directory, cwd=cwd, storage=storage)
        manager = cls(cwd, directory, storage=storage)
        manager.new_session(id=session_id)
        return manager

    @classmethod
    def fork_from(
        cls,
        source_path: str | Path,
        target_cwd: str,
        session_dir: str | Path | None = None,
        storage: SessionStorage | None = None,
    ) -> SessionManager:
        """Copy another project's session (whole tree) into a new file for ``target_cwd`` (R-LIST-08)."""
        source_path = os.path.abspath(str(source_path))
        store = storage or default_session_storage()
        text = store.load(source_path)
        parsed = parse_session_text(text or "")
        if parsed.header is None:
            raise ValueError(f"Cannot fork: source session file is empty or invalid: {source_path}")
        directory = str(session_dir or paths.resolve_session_dir(target_cwd))
        manager = cls(target_cwd, directory, storage=store)
        manager._header = build_header(
            manager.get_session_id(), manager._header.timestamp, target_cwd, source_path
        )
        entries = [item for item in parsed.items if isinstance(item, SessionEntry)]
        manager._items = [manager._header, *entries]
        manager._reindex()
        manager._write_all()
        return manager

    # -- switching files ------------------------------------------------------------------------

    def new_session(self, parent_session: str | None = None, id: str | None = None) -> str | None:
        """Start an empty session (new header, new file name in the same dir); nothing is written."""
        ms = self.clock()
        session_id = id or new_session_id(ms)
        self._header = build_header(session_id, iso_from_ms(ms), self.cwd, parent_session)
        self._items = [self._header]
        self._reset_state()
        self._flushed = False
        self._needs_newline = False
        if self.persist and self.session_dir:
            self.session_file = os.path.join(
                self.session_dir, session_file_name(self._header.timestamp, session_id)
            )
        else:
            self.session_file = None
        self._reindex()
        return self.session_file

    def set_session_file(self, path: str) -> None:
        """Load ``path``; a missing file starts a new session that will be written there (R-SES-07).

        Raises ``NotASessionFileError`` (nothing changed, the file untouched) when ``path`` holds
        something that is not a session."""
        path = os.path.abspath(path)
        text = self.storage.load(path)
        if text is None or not text.strip():
            self.new_session()
            self.session_file = path
            return
        parsed = parse_session_text(text)
        if parsed.header is None:
            raise NotASessionFileError(path)
        self.session_file = path
        self._items = parsed.items
        self._header = parsed.header
        self.skipped_lines = parsed.skipped_lines
        self._needs_newline = not parsed.ends_with_newline
        self._reset_state()
        self._flushed = True
        if parsed.skipped_lines:
            self.warnings.append(
                f"Skipped {parsed.skipped_lines} unreadable line(s) in {path}; they are kept in the file"
            )
        if migrate(self._items, self._header):
            backup = f"{path}.bak-{_stamp(self.clock())}"
            self.storage.copy(path, backup)
            self._reindex()
            self._write_all()
            self.warnings.append(f"Upgraded {path} to session format v3 (previous version kept in {backup})")
        self._reindex()

    def _reset_state(self) -> None:
        self._entries = []
        self._by_id = {}
        self._children = None
        self._labels = {}
        self._label_ts = {}
        self._leaf_id = None
        self._dirty = False
        self._has_messages = False

    def _reindex(self) -> None:
        self._entries = [item for item in self._items if isinstance(item, SessionEntry)]
        self._by_id = {}
        self._children = None
        self._labels = {}
        self._label_ts = {}
        self._has_messages = False
        by_id = self._by_id
        for entry in self._entries:  # inlined _index: this loop runs once per line on every load
            raw = entry.raw
            entry_id = raw.get("id")
            if type(entry_id) is str and entry_id:
                by_id[entry_id] = entry
            kind = raw.get("type")
            if kind == "label":
                self._index_label(entry)  # type: ignore[arg-type]  # a "label" line makes a LabelEntry
            elif kind == "message" and not self._has_messages:
                message = raw.get("message")
                self._has_messages = isinstance(message, dict) and message.get("role") in _WORTH_WRITING
        self._leaf_id = (self._entries[-1].id or None) if self._entries else None

    def _index_label(self, entry: LabelEntry) -> None:
        if entry.label:
            self._labels[entry.target_id] = entry.label
            self._label_ts[entry.target_id] = entry.timestamp
        else:
            self._labels.pop(entry.target_id, None)
            self._label_ts.pop(entry.target_id, None)

    def _index(self, entry: SessionEntry) -> None:
        if entry.id:
            self._by_id[entry.id] = entry
        if isinstance(entry, LabelEntry):
            self._index_label(entry)
        elif isinstance(entry, MessageEntry) and entry.role in _WORTH_WRITING:
            self._has_messages = True
        if self._children is not None:
            self._children.setdefault(entry.parent_id, []).append(entry)

    # -- writing --------------------------------------------------------------------------------

    def _full_text(self) -> str:
        return "".join(item.to_line() + "\n" for item in self._items)

    def _write_all(self) -> None:
        if not self.persist or self.session_file is None:
            return
        try:
            self.storage.rewrite(self.session_file, self._full_text())
        except SessionWriteError:
            self._dirty = True
            raise
        self._flushed = True
        self._dirty = False
        self._needs_newline = False

    def _persist(self, entry: SessionEntry) -> None:
        if not self.persist or self.session_file is None:
            return
        if not self._flushed:
            if self._has_messages:
                self._write_all()
            return
        if self._dirty:
            self._write_all()
            return
        text = entry.to_line() + "\n"
        if self._needs_newline:
            text = "\n" + text
        try:
            self.storage.append(self.session_file, text)
        except SessionWriteError:
            self._dirty = True
            raise
        self._needs_newline = False

    def _append(self, head: dict[str, Any], body: dict[str, Any], tree_first: bool = True) -> str:
        entry_id = new_entry_id(self._by_id)
        tree = {"id": entry_id, "parentId": self._leaf_id, "timestamp": iso_from_ms(self.clock())}
        raw = {**head, **tree, **body} if tree_first else {**head, **body, **tree}
        return self._add(make_entry(raw))

    def _add(self, entry: SessionEntry) -> str:
        self._items.append(entry)
        self._entries.append(entry)
        self._index(entry)
        self._leaf_id = entry.id
        self._persist(entry)
        return entry.id

    # -- append API (R-SES-08) ------------------------------------------------------------------

    def append_message(self, message: AgentMessage | dict[str, Any]) -> str:
        data = message_to_dict(message)
        role = data.get("role")
        if role not in STORED_ROLES:
            raise ValueError(f"Messages with role {role!r} cannot be stored as message entries")
        entry_id = new_entry_id(self._by_id)
        raw = {
            "type": "message",
            "id": entry_id,
            "parentId": self._leaf_id,
            "timestamp": iso_from_ms(self.clock()),
            "message": data,
        }
        entry = MessageEntry(raw)
        if not isinstance(message, dict):
            entry._message = message
        return self._add(entry)

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append({"type": "thinking_level_change"}, {"thinkingLevel": thinking_level})

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append({"type": "model_change"}, {"provider": provider, "modelId": model_id})

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = None,
        usage: dict[str, Any] | None = None,
    ) -> str:
        """Record a compaction; ``first_kept_entry_id`` must be on the current path (spec 30 §5.14a)."""
        if first_kept_entry_id not in {e.id for e in self.get_branch()}:
            raise ValueError(
                f"Compaction keeps entry {first_kept_entry_id}, which is not on the current branch"
            )
        body: dict[str, Any] = {
            "summary": summary,
            "firstKeptEntryId": first_kept_entry_id,
            "tokensBefore": int(tokens_before),
        }
        if details is not None:
            body["details"] = details
        if from_hook is not None:
            body["fromHook"] = from_hook
        if usage is not None:
            body["usage"] = usage
        return self._append({"type": "compaction"}, body)

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        body: dict[str, Any] = {"customType": custom_type}
        if data is not None:
            body["data"] = data
        return self._append({"type": "custom"}, body, tree_first=False)

    def append_custom_message_entry(
        self, custom_type: str, content: str | builtins.list[Any], display: bool, details: Any = None
    ) -> str:
        body: dict[str, Any] = {
            "customType": custom_type,
            "content": content if isinstance(content, str) else [to_json_value(b) for b in content],
            "display": display,
        }
        if details is not None:
            body["details"] = details
        return self._append({"type": "custom_message"}, body, tree_first=False)

    def append_session_info(self, name: str) -> str:
        return self._append({"type": "session_info"}, {"name": (name or "").strip()})

    def append_label_change(self, target_id: str, label: str | None) -> str:
        if target_id not in self._by_id:
            raise EntryNotFoundError(target_id)
        body: dict[str, Any] = {"targetId": target_id}
        if label:
            body["label"] = label
        return self._append({"type": "label"}, body)

    # -- readers (R-SES-12) ---------------------------------------------------------------------

    def get_header(self) -> SessionHeader:
        return self._header

    def get_entries(self) -> builtins.list[SessionEntry]:
        return list(self._entries)

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        return self._by_id.get(entry_id)

    def get_children(self, parent_id: str | None) -> builtins.list[SessionEntry]:
        if self._children is None:
            children: dict[str | None, list[SessionEntry]] = {}
            for entry in self._entries:
                children.setdefault(entry.parent_id, []).append(entry)
            self._children = children
        return list(self._children.get(parent_id, []))

    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def latest_compaction(self) -> SessionEntry | None:
        """The newest compaction entry on the current branch, or None.

        Asked on every footer refresh and before every turn; walking the branch each time cost
        time growing with the session (issue 20), so the answer is kept until an entry is added
        or the leaf moves."""
        from pi_app.coding.session.format import CompactionEntry

        key = (self._leaf_id, len(self._entries), id(self._entries))
        cached = self._compaction_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        found = None
        for entry in reversed(self.get_branch()):
            if isinstance(entry, CompactionEntry):
                found = entry
                break
        self._compaction_cache = (key, found)
        return found

    def get_leaf_entry(self) -> SessionEntry | None:
        return self._by_id.get(self._leaf_id) if self._leaf_id else None

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def get_label_timestamp(self, entry_id: str) -> str | None:
        return self._label_ts.get(entry_id)

    def get_session_id(self) -> str:
        return self._header.id

    def get_session_file(self) -> str | None:
        return self.session_file

    def get_session_dir(self) -> str:
        return self.session_dir

    def uses_default_session_dir(self) -> bool:
        """The session lives in its folder's default place (``~/.pi/agent/sessions/<cwd>``), so
        ``pi --session <id>`` finds it without ``--session-dir``."""
        if not self.session_dir:
            return True
        return os.path.realpath(self.session_dir) == os.path.realpath(paths.default_session_dir(self.cwd))

    def get_cwd(self) -> str:
        return self.cwd

    def is_persisted(self) -> bool:
        return self.persist

    def export_jsonl(self, target: str | Path) -> Path:
        """Write the active branch to ``target`` as a session file of its own (``/export x.jsonl``).

        As pi 1.6.0 does: a fresh header (this session's id and cwd, the current version and time)
        and the root-to-leaf entries re-chained so each one's parent is the entry before it; other
        branches are left out. Atomic; the session's own file is not touched.
        """
        from pi_app.ai.codec import encode_json
        from pi_app.coding.filelock import atomic_write
        from pi_app.coding.session.format import CURRENT_SESSION_VERSION, iso_now

        header = {
            "type": "session",
            "version": CURRENT_SESSION_VERSION,
            "id": self.get_session_id(),
            "timestamp": iso_now(),
            "cwd": self.get_cwd(),
        }
        lines = [encode_json(header)]
        parent_id: str | None = None
        for entry in self.get_branch():
            lines.append(encode_json({**entry.raw, "parentId": parent_id}))
            parent_id = entry.id
        path = Path(target)
        atomic_write(path, "".join(line + "\n" for line in lines))
        return path

    def is_flushed(self) -> bool:
        return self._flushed

    def get_entries_since(self, entry_id: str | None) -> builtins.list[SessionEntry]:
        """Entries appended after ``entry_id`` in file order (unknown id: all entries)."""
        for i, entry in enumerate(self._entries):
            if entry.id == entry_id:
                return self._entries[i + 1 :]
        return list(self._entries)

    def get_session_name(self) -> str | None:
        for entry in reversed(self._entries):
            if isinstance(entry, SessionInfoEntry):
                return entry.name
        return None

    def get_branch(self, from_id: str | None = None) -> builtins.list[SessionEntry]:
        """Root→entry path starting at ``from_id`` (default: the leaf); [] for an unknown start."""
        start = from_id if from_id is not None else self._leaf_id
        if start is None or start not in self._by_id:
            return []
        return path_to(start, self._by_id)

    def get_tree(self) -> builtins.list[SessionTreeNode]:
        """Root nodes; children sorted by timestamp (ties in file order). Built without recursion.

        Reads ``raw`` directly (not the ``id``/``parent_id`` properties): this runs once per
        ``/tree`` open over every entry of the session."""
        labels, label_ts = self._labels, self._label_ts
        nodes: dict[str, SessionTreeNode] = {}
        order: list[SessionTreeNode] = []
        ids: list[str] = []
        for entry in self._entries:
            entry_id = entry.raw.get("id")
            if not isinstance(entry_id, str):
                entry_id = ""
            node = SessionTreeNode(entry, [], labels.get(entry_id), label_ts.get(entry_id))
            if entry_id:
                nodes[entry_id] = node
            order.append(node)
            ids.append(entry_id)
        roots: list[SessionTreeNode] = []
        for node, entry_id in zip(order, ids, strict=True):
            parent_id = node.entry.raw.get("parentId")
            parent = nodes.get(parent_id) if isinstance(parent_id, str) and parent_id != entry_id else None
            if parent is None:
                roots.append(node)
            else:
                parent.children.append(node)
        for node in order:
            if len(node.children) > 1:
                node.children.sort(key=lambda n: n.entry.timestamp_ms)
        return roots

    def build_session_context(self) -> SessionContext:
        return build_session_context(self._entries, self._leaf_id, self._by_id)

    def get_file_text(self) -> str:
        """What the file holds (or would hold once flushed), in order."""
        return self._full_text()

    # -- tree moves (R-TREE-05…07) --------------------------------------------------------------

    def branch(self, entry_id: str) -> None:
        if entry_id not in self._by_id:
            raise EntryNotFoundError(entry_id)
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        self._leaf_id = None

    def branch_with_summary(
        self,
        from_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
        usage: dict[str, Any] | None = None,
    ) -> str:
        """Move the leaf to ``from_id`` (None: a new root) and append a ``branch_summary`` there.

        Its ``fromId`` is the leaf being left, whose path the summary describes (pi 1.6.0's
        session format; "root" when there was none)."""
        if from_id is not None and from_id not in self._by_id:
            raise EntryNotFoundError(from_id)
        abandoned = self._leaf_id
        self._leaf_id = from_id
        body: dict[str, Any] = {"fromId": abandoned if abandoned is not None else "root", "summary": summary}
        if details is not None:
            body["details"] = details
        if usage is not None:  # what generating the summary cost (pi 1.6.0; counted in the totals)
            body["usage"] = usage
        if from_hook is not None:
            body["fromHook"] = from_hook
        return self._append({"type": "branch_summary"}, body)

    def create_branched_session(self, leaf_id: str | None) -> str | None:
        """Write the root→``leaf_id`` path (labels re-created) into a new session file (R-NAV-06)."""
        path = self.get_branch(leaf_id) if leaf_id is not None else []
        if not path:
            raise EntryNotFoundError(leaf_id)
        kept = [e for e in path if not isinstance(e, LabelEntry)]
        previous_file = self.session_file if self.persist else None
        labels = [
            (e.id, self._labels[e.id], self._label_ts.get(e.id, "")) for e in kept if e.id in self._labels
        ]
        self.new_session(parent_session=previous_file)
        entries: list[SessionEntry] = []
        for entry in kept:
            parent = entries[-1].id if entries else None
            if entry.parent_id == parent:
                entries.append(make_entry(entry.raw, entry.line))
            else:
                # Its parent was a dropped label entry. pi 0.73.1 keeps the dangling parentId, which
                # cuts the copied path in two on reload; re-link to the previous kept entry instead.
                entries.append(make_entry({**entry.raw, "parentId": parent}))
        taken = {e.id for e in entries}
        parent = entries[-1].id if entries else None
        for target_id, label, timestamp in labels:
            label_id = new_entry_id(taken)
            taken.add(label_id)
            raw = {
                "type": "label",
                "id": label_id,
                "parentId": parent,
                "timestamp": timestamp or iso_from_ms(self.clock()),
                "targetId": target_id,
                "label": label,
            }
            entries.append(make_entry(raw))
            parent = label_id
        self._items = [self._header, *entries]
        self._reindex()
        if self._has_messages:
            self._write_all()
        return self.session_file


__all__ = [
    "CorruptLine",
    "EntryNotFoundError",
    "SessionManager",
    "SessionTreeNode",
    "SessionWriteError",
]
