"""The session file format: header and entry views, ids, timestamps, line parsing, migrations.

Each line of a session file is kept as the dict it parsed to (``raw``, camelCase keys as on disk)
plus the original line text; the typed classes below are thin read-only views over ``raw``. That
is what makes round trips lossless: unknown entry types, unknown keys and pi's key order survive,
and an unchanged line is written back byte for byte (spec 30 §2.2, §5.3).

Lines that are not JSON objects are ``CorruptLine``s: skipped for the tree and context, kept
verbatim for any rewrite (decision D-26).

Migrations (spec 30 §2.8) run in place on the parsed list; ``migrate`` reports whether anything
changed so the manager can rewrite the file.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pi_app.agent.types import AgentMessage
from pi_app.ai.codec import encode_json
from pi_app.ai.util.sanitize import loads_clean
from pi_app.coding.messages import message_from_dict

CURRENT_SESSION_VERSION = 3

ENTRY_TYPES = (
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "usage",
    "context_edit",
)


# ---------------------------------------------------------------------------------------------
# Ids and timestamps
# ---------------------------------------------------------------------------------------------


def now_ms() -> int:
    return int(time.time() * 1000)


def iso_from_ms(ms: int) -> str:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` (JavaScript ``toISOString``)."""
    dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def iso_now() -> str:
    return iso_from_ms(now_ms())


def ms_from_iso(value: Any) -> int:
    """Unix ms of an ISO timestamp; 0 when it cannot be read."""
    if not isinstance(value, str) or not value:
        return 0
    try:
        text = value[:-1] + "+00:00" if value.endswith("Z") else value
        dt = datetime.fromisoformat(text)
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        return int(round(dt.timestamp() * 1000))
    except ValueError:
        return 0


def new_entry_id(existing: Callable[[str], bool] | Container[str] = frozenset()) -> str:
    """8 lowercase hex chars unique among ``existing``; a full UUID after 100 collisions."""
    taken: Callable[[str], bool] = existing if callable(existing) else existing.__contains__
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if not taken(candidate):
            return candidate
    return str(uuid.uuid4())


def new_session_id(ms: int | None = None) -> str:
    """A UUIDv7 string: 48-bit Unix ms, version 7, RFC 4122 variant, random rest."""
    ts = (now_ms() if ms is None else ms) & ((1 << 48) - 1)
    rand = int.from_bytes(os.urandom(10), "big")
    rand_a = rand >> 68 & 0xFFF
    rand_b = rand & ((1 << 62) - 1)
    value = ts << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b
    return str(uuid.UUID(int=value))


def session_file_name(header_timestamp: str, session_id: str) -> str:
    return header_timestamp.replace(":", "-").replace(".", "-") + f"_{session_id}.jsonl"


# ---------------------------------------------------------------------------------------------
# Lines, header and entries
# ---------------------------------------------------------------------------------------------


@dataclass(eq=False)
class CorruptLine:
    """A line that is not a JSON object; never interpreted, always written back unchanged."""

    text: str

    def to_line(self) -> str:
        return self.text


@dataclass(eq=False)
class SessionHeader:
    """The first line of a session file, kept as read."""

    raw: dict[str, Any]
    line: str | None = None  # original text while unchanged

    @property
    def type(self) -> str:
        return "session"

    @property
    def id(self) -> str:
        return str(self.raw.get("id") or "")

    @property
    def version(self) -> int:
        v = self.raw.get("version")
        return v if isinstance(v, int) and not isinstance(v, bool) else 1

    @property
    def timestamp(self) -> str:
        return str(self.raw.get("timestamp") or "")

    @property
    def cwd(self) -> str:
        v = self.raw.get("cwd")
        return v if isinstance(v, str) else ""

    @property
    def parent_session(self) -> str | None:
        v = self.raw.get("parentSession")
        return v if isinstance(v, str) and v else None

    def touch(self) -> None:
        self.line = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)

    def to_line(self) -> str:
        return self.line if self.line is not None else encode_json(self.raw)


@dataclass(eq=False)
class SessionEntry:
    """Base view of one tree entry. ``raw`` is the on-disk dict; subclasses add typed accessors."""

    raw: dict[str, Any]
    line: str | None = None
    _message: Any = field(default=None, repr=False)

    @property
    def type(self) -> str:
        return str(self.raw.get("type") or "")

    @property
    def id(self) -> str:
        v = self.raw.get("id")
        return v if isinstance(v, str) else ""

    @property
    def parent_id(self) -> str | None:
        v = self.raw.get("parentId")
        return v if isinstance(v, str) else None

    @property
    def timestamp(self) -> str:
        v = self.raw.get("timestamp")
        return v if isinstance(v, str) else ""

    @property
    def timestamp_ms(self) -> int:
        return ms_from_iso(self.timestamp)

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)

    def touch(self) -> None:
        """Mark the raw dict as changed so the next rewrite re-encodes it."""
        self.line = None
        self._message = None

    def to_line(self) -> str:
        return self.line if self.line is not None else encode_json(self.raw)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, parent_id={self.parent_id!r})"


class MessageEntry(SessionEntry):
    @property
    def message(self) -> AgentMessage:
        if self._message is None:
            self._message = message_from_dict(self.raw.get("message"))
        return self._message

    @property
    def role(self) -> str:
        m = self.raw.get("message")
        return str(m.get("role") or "") if isinstance(m, dict) else ""


class ThinkingLevelChangeEntry(SessionEntry):
    @property
    def thinking_level(self) -> str:
        return str(self.raw.get("thinkingLevel") or "off")


class ModelChangeEntry(SessionEntry):
    @property
    def provider(self) -> str:
        return str(self.raw.get("provider") or "")

    @property
    def model_id(self) -> str:
        return str(self.raw.get("modelId") or "")


class _SummaryEntry(SessionEntry):
    """Shared accessors of ``compaction`` and ``branch_summary`` entries."""

    @property
    def summary(self) -> str:
        return str(self.raw.get("summary") or "")

    @property
    def details(self) -> Any:
        return self.raw.get("details")

    @property
    def from_hook(self) -> bool:
        return bool(self.raw.get("fromHook"))


class CompactionEntry(_SummaryEntry):
    @property
    def first_kept_entry_id(self) -> str | None:
        v = self.raw.get("firstKeptEntryId")
        return v if isinstance(v, str) else None

    @property
    def tokens_before(self) -> int:
        v = self.raw.get("tokensBefore")
        return v if isinstance(v, int) else 0


class BranchSummaryEntry(_SummaryEntry):
    @property
    def from_id(self) -> str:
        return str(self.raw.get("fromId") or "")


class CustomEntry(SessionEntry):
    @property
    def custom_type(self) -> str:
        return str(self.raw.get("customType") or "")

    @property
    def data(self) -> Any:
        return self.raw.get("data")


class CustomMessageEntry(SessionEntry):
    @property
    def custom_type(self) -> str:
        return str(self.raw.get("customType") or "")

    @property
    def content(self) -> Any:
        return self.raw.get("content")

    @property
    def display(self) -> bool:
        return bool(self.raw.get("display", True))

    @property
    def details(self) -> Any:
        return self.raw.get("details")


class LabelEntry(SessionEntry):
    @property
    def target_id(self) -> str:
        return str(self.raw.get("targetId") or "")

    @property
    def label(self) -> str | None:
        v = self.raw.get("label")
        return v if isinstance(v, str) and v else None


class SessionInfoEntry(SessionEntry):
    @property
    def name(self) -> str | None:
        v = self.raw.get("name")
        return v.strip() if isinstance(v, str) and v.strip() else None


class UsageEntry(SessionEntry):
    """pi 1.6.0: model usage that is no assistant message (e.g. ``kind: "cache_warm"``); counted in
    the session's totals, never part of the context."""

    @property
    def kind(self) -> str:
        return str(self.raw.get("kind") or "")

    @property
    def usage(self) -> dict[str, Any]:
        v = self.raw.get("usage")
        return v if isinstance(v, dict) else {}


class ContextEditEntry(SessionEntry):
    """pi 1.6.0: an append-only edit of one earlier entry's contribution to the context.

    ``replacement`` is None (leave the target out) or ``{"content": text-or-blocks}``; a bare text
    or block list is read as that content too."""

    @property
    def target_id(self) -> str:
        return str(self.raw.get("targetId") or "")

    @property
    def omits(self) -> bool:
        return self.raw.get("replacement") is None

    @property
    def replacement_content(self) -> Any:
        value = self.raw.get("replacement")
        if isinstance(value, dict):
            return value.get("content")
        return value


class UnknownEntry(SessionEntry):
    """An entry type this version does not know: part of the tree, never part of the context."""


ENTRY_CLASSES: dict[str, type[SessionEntry]] = {
    "message": MessageEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "model_change": ModelChangeEntry,
    "compaction": CompactionEntry,
    "branch_summary": BranchSummaryEntry,
    "custom": CustomEntry,
    "custom_message": CustomMessageEntry,
    "label": LabelEntry,
    "session_info": SessionInfoEntry,
    "usage": UsageEntry,
    "context_edit": ContextEditEntry,
}

FileItem = SessionHeader | SessionEntry | CorruptLine


def make_entry(raw: dict[str, Any], line: str | None = None) -> SessionEntry:
    kind = raw.get("type")
    cls = ENTRY_CLASSES.get(kind, UnknownEntry) if isinstance(kind, str) else UnknownEntry
    return cls(raw, line)


def is_header(raw: Any) -> bool:
    return isinstance(raw, dict) and raw.get("type") == "session" and isinstance(raw.get("id"), str)


def parse_line(line: str) -> dict[str, Any] | None:
    """The JSON object on ``line``, or None when it is not one."""
    try:
        value = loads_clean(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


@dataclass
class ParsedFile:
    """A session file read line by line: header, entries and corrupt lines in file order."""

    items: list[FileItem]  # header/entries/corrupt lines in file order
    header: SessionHeader | None
    skipped_lines: int
    ends_with_newline: bool


def parse_session_text(text: str) -> ParsedFile:
    """Split on ``\\n``, ignore blank lines, keep everything else (spec 30 R-SES-02)."""
    items: list[FileItem] = []
    header: SessionHeader | None = None
    skipped = 0
    seen_object = False
    for line in text.split("\n"):
        if not line.strip():
            continue
        raw = parse_line(line)
        if raw is None:
            items.append(CorruptLine(line))
            skipped += 1
        elif not seen_object and is_header(raw):
            seen_object = True
            header = SessionHeader(raw, line)
            items.append(header)
        else:
            seen_object = True
            items.append(make_entry(raw, line))
    return ParsedFile(items, header, skipped, text.endswith("\n") or not text)


def build_header(
    session_id: str, timestamp: str, cwd: str, parent_session: str | None = None
) -> SessionHeader:
    raw: dict[str, Any] = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": session_id,
        "timestamp": timestamp,
        "cwd": cwd,
    }
    if parent_session:
        raw["parentSession"] = parent_session
    return SessionHeader(raw)


# ---------------------------------------------------------------------------------------------
# Migrations
# ---------------------------------------------------------------------------------------------


def _migrate_v1_to_v2(items: list[FileItem]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    entry_at: dict[int, SessionEntry] = {}
    index = 0
    # Index into the file's list of parsed objects, header = 0 (pi's v1 firstKeptEntryIndex).
    for item in items:
        if isinstance(item, CorruptLine):
            continue
        if isinstance(item, SessionEntry):
            entry_at[index] = item
        index += 1
    for item in items:
        if not isinstance(item, SessionEntry):
            continue
        new_id = new_entry_id(taken)
        taken.add(new_id)
        _set_tree_keys(item, new_id, previous)
        previous = new_id
    for item in items:
        if isinstance(item, SessionEntry) and item.type == "compaction" and "firstKeptEntryIndex" in item.raw:
            legacy = item.raw.pop("firstKeptEntryIndex")
            target = entry_at.get(legacy) if isinstance(legacy, int) else None
            if target is not None:
                item.raw["firstKeptEntryId"] = target.id
            item.touch()


def _set_tree_keys(entry: SessionEntry, entry_id: str, parent_id: str | None) -> None:
    # pi assigns the new keys onto the existing object, so they land after the old ones.
    entry.raw["id"] = entry_id
    entry.raw["parentId"] = parent_id
    entry.touch()


def _migrate_v2_to_v3(items: list[FileItem]) -> None:
    for item in items:
        if isinstance(item, MessageEntry):
            msg = item.raw.get("message")
            if isinstance(msg, dict) and msg.get("role") == "hookMessage":
                msg["role"] = "custom"
                item.touch()


def migrate(items: list[FileItem], header: SessionHeader) -> bool:
    """Bring ``items`` to the current version in place; True when anything changed."""
    version = header.version
    if version >= CURRENT_SESSION_VERSION:
        return False
    if version < 2:
        _migrate_v1_to_v2(items)
    if version < 3:
        _migrate_v2_to_v3(items)
    header.raw["version"] = CURRENT_SESSION_VERSION
    header.touch()
    return True
