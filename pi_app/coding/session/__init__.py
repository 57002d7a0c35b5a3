"""Session persistence: pi's v3 JSONL format, the entry tree, context building and listing.

The listing names load on first use (a new session never lists; start-up cost).
"""

from typing import TYPE_CHECKING

from pi_app.coding.lazy_exports import lazy_exports
from pi_app.coding.session.context import SessionContext, build_session_context
from pi_app.coding.session.format import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    CorruptLine,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
    iso_now,
    new_entry_id,
    new_session_id,
)
from pi_app.coding.session.manager import EntryNotFoundError, SessionManager, SessionTreeNode
from pi_app.coding.session.storage import (
    InMemorySessionStorage,
    JsonlSessionStorage,
    SessionStorage,
    SessionWriteError,
)

if TYPE_CHECKING:
    from pi_app.coding.session.listing import SessionInfo, SessionMatch, looks_like_path

_LAZY_EXPORTS = {"SessionInfo": "listing", "SessionMatch": "listing", "looks_like_path": "listing"}

__all__ = [
    "CURRENT_SESSION_VERSION",
    "BranchSummaryEntry",
    "CompactionEntry",
    "CorruptLine",
    "CustomEntry",
    "CustomMessageEntry",
    "EntryNotFoundError",
    "InMemorySessionStorage",
    "JsonlSessionStorage",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "SessionContext",
    "SessionEntry",
    "SessionHeader",
    "SessionInfo",
    "SessionInfoEntry",
    "SessionManager",
    "SessionMatch",
    "SessionStorage",
    "SessionTreeNode",
    "SessionWriteError",
    "ThinkingLevelChangeEntry",
    "UnknownEntry",
    "build_session_context",
    "iso_now",
    "looks_like_path",
    "new_entry_id",
    "new_session_id",
]

__getattr__ = lazy_exports(__name__, _LAZY_EXPORTS, globals())
