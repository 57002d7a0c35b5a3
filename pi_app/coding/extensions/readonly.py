"""``ReadonlySessionManager``: what ``ctx.session_manager`` exposes (spec 40 §2.5, R-EXT-27).

Only reading methods pass through; there is no attribute that can append, rewrite or delete
entries. Extensions persist state by appending through their API (``append_entry``,
``send_message``, ``set_label``, ``set_session_name``) or through tool results.
"""

from __future__ import annotations

from typing import Any

READ_METHODS = frozenset(
    {
        "get_entries",
        "get_branch",
        "get_leaf_id",
        "get_leaf_entry",
        "get_entry",
        "get_label",
        "get_session_file",
        "get_session_id",
        "get_session_name",
        "get_session_dir",
        "get_header",
        "get_tree",
        "get_cwd",
        "get_children",
        "build_session_context",
    }
)


class ReadonlySessionManager:
    __slots__ = ("_manager",)

    def __init__(self, manager: Any) -> None:
        object.__setattr__(self, "_manager", manager)

    def __getattr__(self, name: str) -> Any:
        if name not in READ_METHODS:
            raise AttributeError(f"The session manager given to extensions is read-only: no {name!r}")
        return getattr(self._manager, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("The session manager given to extensions is read-only")

    def __dir__(self) -> list[str]:
        return sorted(n for n in READ_METHODS if hasattr(self._manager, n))
