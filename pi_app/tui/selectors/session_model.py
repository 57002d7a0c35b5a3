"""The headless model behind the session picker (``/resume``, ``pi -r``; spec 60 R-SEL-03).

Input: the ``SessionInfo`` list of the current scope (``SessionManager.list`` or ``list_all``).
Output: the rows to show, one per session, and a cursor over them.

- Sort ``threaded`` (default): sessions forked or cloned from another hang below it as a tree;
  at every level the subtree with the newest activity comes first (R-LIST-04, decision D-48).
  ``recent``: flat, newest activity first. ``relevance``: flat, best search match first.
- Search (any sort; the list goes flat while searching): whitespace-separated fuzzy tokens that
  must all match, ``"an exact phrase"`` in quotes, or ``re:<pattern>`` (case-insensitive regex).
  The text searched is the id, the name, every user/assistant text and the folder.
- ``named`` filter: only sessions with a name.
- With a ``content_search`` (the SQLite session store's FTS5 index, issue 25) message text is not
  fuzzy-matched session by session: a session matches when its id, name or folder match, or when
  the index finds the query's words (as prefixes; quoted phrases as phrases) in its messages.
  ``re:`` queries, and stores without an index, search the text as above.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pi_app.coding.fuzzy import fuzzy_match
from pi_app.tui.selectors.list_cursor import ListCursor

if TYPE_CHECKING:
    from pi_app.coding.session.listing import SessionInfo

SORT_MODES = ("threaded", "recent", "relevance")
SORT_LABELS = {"threaded": "Threaded", "recent": "Recent", "relevance": "Fuzzy"}


@dataclass(frozen=True)
class SessionRow:
    info: SessionInfo  # SessionInfo
    depth: int = 0
    is_last: bool = True
    ancestor_continues: tuple[bool, ...] = ()

    def tree_prefix(self) -> str:
        if self.depth == 0:
            return ""
        return "".join("│  " if c else "   " for c in self.ancestor_continues) + (
            "└─ " if self.is_last else "├─ "
        )


@dataclass
class ParsedQuery:
    regex: re.Pattern[str] | None = None
    tokens: list[tuple[str, str]] = field(default_factory=list)  # (kind "fuzzy"|"phrase", value)
    error: str | None = None

    @property
    def empty(self) -> bool:
        return self.regex is None and not self.tokens and self.error is None


def parse_query(query: str) -> ParsedQuery:
    text = query.strip()
    if not text:
        return ParsedQuery()
    if text.startswith("re:"):
        pattern = text[3:].strip()
        if not pattern:
            return ParsedQuery(error="Empty regex")
        try:
            return ParsedQuery(regex=re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            return ParsedQuery(error=f"Invalid regex: {exc}")
    if text.count('"') % 2:  # an unclosed quote: plain words
        return ParsedQuery(tokens=[("fuzzy", word) for word in text.split()])
    tokens: list[tuple[str, str]] = []
    for i, part in enumerate(text.split('"')):
        if i % 2:
            if part.strip():
                tokens.append(("phrase", part.strip()))
        else:
            tokens.extend(("fuzzy", word) for word in part.split())
    return ParsedQuery(tokens=tokens)


ContentSearch = Callable[[str], Mapping[str, int] | None]
"""Query → {session path: rank (0 best)} from a full-text index, or None when it cannot answer."""

CONTENT_MATCH_SCORE = 1000.0  # a session found only by the index ranks after every fuzzy match


def search_text(info: SessionInfo, with_content: bool = True) -> str:
    if not with_content:
        return f"{info.id} {info.name or ''} {info.cwd}"
    return f"{info.id} {info.name or ''} {info.all_messages_text} {info.cwd}"


def match_session(info: SessionInfo, parsed: ParsedQuery, with_content: bool = True) -> float | None:
    """The match score (lower is better), or None when ``info`` does not match."""
    text = search_text(info, with_content)
    if parsed.regex is not None:
        found = parsed.regex.search(text)
        return found.start() * 0.1 if found else None
    score = 0.0
    normalized: str | None = None
    for kind, value in parsed.tokens:
        if kind == "phrase":
            if normalized is None:
                normalized = " ".join(text.lower().split())
            index = normalized.find(" ".join(value.lower().split()))
            if index < 0:
                return None
            score += index * 0.1
        else:
            ok, token_score = fuzzy_match(value, text)
            if not ok:
                return None
            score += token_score
    return score


def _modified(info: SessionInfo) -> float:
    return info.modified.timestamp()


def thread_sessions(sessions: Sequence[Any]) -> list[SessionRow]:
    """Sessions as a forest by ``parent_session_path``; newest subtree first at every level."""
    by_path = {s.path: s for s in sessions}
    children: dict[str | None, list[Any]] = {}
    for s in sessions:
        parent = s.parent_session_path if s.parent_session_path in by_path else None
        children.setdefault(parent, []).append(s)
    newest: dict[str, float] = {}
    # post-order without recursion: a session's subtree time is the max over its descendants
    order: list[Any] = []
    stack = list(children.get(None, []))
    while stack:
        s = stack.pop()
        order.append(s)
        stack.extend(children.get(s.path, []))
    for s in reversed(order):
        newest[s.path] = max([_modified(s), *(newest[c.path] for c in children.get(s.path, []))])
    for kids in children.values():
        kids.sort(key=lambda s: newest[s.path], reverse=True)
    rows: list[SessionRow] = []
    roots = children.get(None, [])
    work: list[tuple[Any, int, bool, tuple[bool, ...]]] = [
        (s, 0, i == len(roots) - 1, ()) for i, s in enumerate(roots)
    ]
    work.reverse()
    while work:
        s, depth, is_last, continues = work.pop()
        rows.append(SessionRow(s, depth, is_last, continues))
        kids = children.get(s.path, [])
        below = (*continues, (not is_last) if depth > 0 else False)
        for i in range(len(kids) - 1, -1, -1):
            work.append((kids[i], depth + 1, i == len(kids) - 1, below))
    return rows


def format_age(modified: datetime, now: datetime) -> str:
    """``now``, ``5m``, ``3h``, ``2d``, ``1w``, ``4mo``, ``1y``."""
    seconds = (now - modified).total_seconds()
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{int(minutes)}m"
    if hours < 24:
        return f"{int(hours)}h"
    if days < 7:
        return f"{int(days)}d"
    if days < 30:
        return f"{int(days // 7)}w"
    if days < 365:
        return f"{int(days // 30)}mo"
    return f"{int(days // 365)}y"


class SessionPickerModel:
    """What the picker shows for one scope's sessions; ``set_sessions`` swaps the scope's list."""

    def __init__(
        self,
        sessions: Sequence[Any] = (),
        *,
        current_path: str | None = None,
        page_size: int = 10,
        sort_mode: str = "threaded",
        content_search: ContentSearch | None = None,
    ) -> None:
        self.sessions: list[Any] = list(sessions)
        self.content_search = content_search
        self.current_path = current_path
        self.sort_mode = sort_mode if sort_mode in SORT_MODES else "threaded"
        self.named_only = False
        self.query = ""
        self.rows: list[SessionRow] = []
        self.error: str | None = None
        self.cursor = ListCursor(0, page_size, wrap=False)
        self._refresh()

    def _refresh(self, keep_top: bool = False) -> None:
        """Rebuild the rows; the selected session stays selected, except that with ``keep_top`` a
        selection still on the first row stays on the first row (sessions arriving while they are
        read must not carry the default choice down the list)."""
        on_top = keep_top and self.cursor.selected == 0
        keep = self.selected.path if self.selected is not None and not on_top else None
        pool = [s for s in self.sessions if (s.name or "").strip()] if self.named_only else self.sessions
        parsed = parse_query(self.query)
        self.error = parsed.error
        if parsed.error:
            self.rows = []
        elif parsed.empty:
            if self.sort_mode == "threaded":
                self.rows = thread_sessions(pool)
            else:
                self.rows = [SessionRow(s) for s in sorted(pool, key=_modified, reverse=True)]
        else:
            hits = self.content_search(self.query) if self.content_search and parsed.regex is None else None
            scored = []
            for s in pool:
                score = match_session(s, parsed, with_content=hits is None)
                if score is None and hits is not None and s.path in hits:
                    score = CONTENT_MATCH_SCORE + hits[s.path]
                if score is not None:
                    scored.append((score, s))
            if self.sort_mode == "recent":
                scored.sort(key=lambda pair: _modified(pair[1]), reverse=True)
            else:
                scored.sort(key=lambda pair: (pair[0], -_modified(pair[1])))
            self.rows = [SessionRow(s) for _, s in scored]
        self.cursor.set_count(len(self.rows))
        if keep is not None:
            for i, row in enumerate(self.rows):
                if row.info.path == keep:
                    self.cursor.select(i)
                    break

    @property
    def selected(self) -> SessionInfo | None:
        return self.rows[self.cursor.selected].info if self.rows else None

    def is_current(self, info: SessionInfo) -> bool:
        return self.current_path is not None and info.path == self.current_path

    def set_sessions(self, sessions: Sequence[Any]) -> None:
        self.sessions = list(sessions)
        self._refresh(keep_top=True)

    def remove(self, path: str) -> None:
        self.sessions = [s for s in self.sessions if s.path != path]
        self._refresh()

    def cycle_sort(self) -> None:
        self.sort_mode = SORT_MODES[(SORT_MODES.index(self.sort_mode) + 1) % len(SORT_MODES)]
        self._refresh()

    def toggle_named(self) -> None:
        self.named_only = not self.named_only
        self._refresh()

    def set_query(self, query: str) -> None:
        self.query = query
        self._refresh()

    def type_text(self, text: str) -> None:
        self.set_query(self.query + text)

    def backspace(self) -> None:
        if self.query:
            self.set_query(self.query[:-1])
