"""The headless model behind the ``/tree`` navigator (spec 60 R-SEL-01, spec 30 R-TREE-09).

It takes ``SessionManager.get_tree()`` once, flattens it depth-first (children oldest first, but
the child holding the current leaf always first, so the active branch reads straight down), and
then keeps a *visible* list: the rows that pass the filter mode, match every search token and are
not inside a folded subtree. Connectors are recomputed on the visible tree, so a hidden entry never
leaves a gap: its descendants hang from the nearest visible ancestor.

Layout rules (what a pi user sees):
- a chain of single children stays flat; the children of a branch point get ``├─``/``└─``
  connectors and one more level of indent, and so does the first generation below each of them;
- several roots are shown as branches of an invisible root;
- roots and branch-segment starts that have visible children are foldable: ``⊟`` when open,
  ``⊞`` when folded;
- nodes on the root→leaf path carry a ``•``; the leaf itself ends with ``← active``.

Everything is index arithmetic over flat lists, so moving the selection is O(1) and a rebuild
(filter, search, fold, label) is O(entries) without recursion; 20,000-entry sessions stay fluid.
No Textual here: the widget in ``tree.py`` renders the ``RowView``s this model hands out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from itertools import compress
from typing import Any

from pi_app.ai.util.content_text import content_text
from pi_app.coding.session.format import iso_now, ms_from_iso
from pi_app.coding.session.tree_filter import (
    TREE_FILTER_MODES,
    raw_entry_class,
    searchable_text,
    visible_in_mode,
)

MAX_TEXT = 200
FILTER_BADGES = {"no-tools": "[no-tools]", "user-only": "[user]", "labeled-only": "[labeled]", "all": "[all]"}

Segment = tuple[str, str | None]
"""A run of text and the theme token that colours it (None: the default text colour)."""


@dataclass(frozen=True, slots=True)
class RowView:
    """One visible line of the navigator, ready to paint."""

    entry_id: str
    selected: bool
    prefix: str
    fold_marker: str
    on_path: bool
    is_leaf: bool
    label: str | None
    label_time: str | None
    content: tuple[Segment, ...]

    def plain(self) -> str:
        """The line as plain text (what tests and screen readers see)."""
        parts = ["› " if self.selected else "  ", self.prefix, self.fold_marker]
        if self.on_path:
            parts.append("• ")
        if self.label:
            parts.append(f"[{self.label}] ")
        if self.label_time:
            parts.append(f"{self.label_time} ")
        parts.extend(text for text, _ in self.content)
        if self.is_leaf:
            parts.append(" ← active")
        return "".join(parts)


def _one_line(text: str) -> str:
    return " ".join(text.replace("\t", " ").split("\n")).strip()[:MAX_TEXT]


@lru_cache(maxsize=4)
def _home_for(home_env: str | None) -> str:
    return os.path.expanduser("~")


def _shorten_home(path: str) -> str:
    home = _home_for(os.environ.get("HOME"))  # expanduser is slow for thousands of rows
    return "~" + path[len(home) :] if home and home != "~" and path.startswith(home) else path


def format_tool_call(name: str, args: Any) -> str:
    """The one-line summary a tool result shows in the tree, e.g. ``[bash: ls -la]``."""
    args = args if isinstance(args, dict) else {}
    path = _shorten_home(str(args.get("path") or args.get("file_path") or ""))
    if name == "read":
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) else 1
            end = f"-{start + limit - 1}" if isinstance(limit, int) else ""
            path += f":{start}{end}"
        return f"[read: {path}]"
    if name in ("write", "edit"):
        return f"[{name}: {path}]"
    if name == "bash":
        command = str(args.get("command") or "")
        short = " ".join(command.replace("\t", " ").split("\n")).strip()[:50]
        return f"[bash: {short}{'...' if len(command) > 50 else ''}]"
    where = _shorten_home(str(args.get("path") or "."))
    if name == "grep":
        return f"[grep: /{args.get('pattern', '')}/ in {where}]"
    if name == "find":
        return f"[find: {args.get('pattern', '')} in {where}]"
    if name == "ls":
        return f"[ls: {where}]"
    import json

    encoded = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    return f"[{name}: {encoded[:40]}{'...' if len(encoded) > 40 else ''}]"


def _collect_tool_calls(raw: dict[str, Any], tool_calls: dict[str, dict[str, Any]]) -> None:
    """Index the tool-call blocks of an assistant message entry by call id."""
    if raw.get("type") != "message":
        return
    message = raw.get("message")
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id"):
                tool_calls[str(block["id"])] = block


def entry_segments(raw: dict[str, Any], tool_calls: dict[str, dict[str, Any]]) -> tuple[Segment, ...]:
    """How one entry reads in the tree: a coloured kind prefix and its text on one line."""
    kind = raw.get("type")
    if kind == "message":
        message = raw.get("message")
        if not isinstance(message, dict):
            message = {}
        role = message.get("role")
        if role == "user":
            return (("user: ", "accent"), (_one_line(content_text(message.get("content"))), None))
        if role == "assistant":
            text = _one_line(content_text(message.get("content")))
            head: Segment = ("assistant: ", "success")
            if text:
                return (head, (text, None))
            if message.get("stopReason") == "aborted":
                return (head, ("(aborted)", "muted"))
            if message.get("errorMessage"):
                return (head, (_one_line(str(message["errorMessage"]))[:80], "error"))
            return (head, ("(no content)", "muted"))
        if role == "toolResult":
            call = tool_calls.get(str(message.get("toolCallId") or ""))
            if call is not None:
                return ((format_tool_call(str(call.get("name") or ""), call.get("arguments")), "muted"),)
            return ((f"[{message.get('toolName') or 'tool'}]", "muted"),)
        if role == "bashExecution":
            return ((f"[bash]: {_one_line(str(message.get('command') or ''))}", "dim"),)
        return ((f"[{role}]", "dim"),)
    if kind == "custom_message":
        text = _one_line(content_text(raw.get("content")))
        return ((f"[{raw.get('customType', '')}]: ", "customMessageLabel"), (text, None))
    if kind == "compaction":
        tokens = found if isinstance(found := raw.get("tokensBefore"), int) else 0
        return ((f"[compaction: {round(tokens / 1000)}k tokens]", "borderAccent"),)
    if kind == "branch_summary":
        return (("[branch summary]: ", "warning"), (_one_line(str(raw.get("summary") or "")), None))
    if kind == "model_change":
        return ((f"[model: {raw.get('modelId', '')}]", "dim"),)
    if kind == "thinking_level_change":
        return ((f"[thinking: {raw.get('thinkingLevel', '')}]", "dim"),)
    if kind == "custom":
        return ((f"[custom: {raw.get('customType', '')}]", "dim"),)
    if kind == "label":
        return ((f"[label: {raw.get('label') or '(cleared)'}]", "dim"),)
    if kind == "session_info":
        return ((f"[title: {raw.get('name') or 'empty'}]", "dim"),)
    if kind == "context_edit":  # pi 1.6.0: an edit of what an earlier entry contributes
        what = "drops" if raw.get("replacement") is None else "rewrites"
        return ((f"[context edit {what} {raw.get('targetId', '')}]", "dim"),)
    if kind == "usage":
        return ((f"[usage: {raw.get('kind') or 'other'}]", "dim"),)
    return ((f"[{kind}]", "dim"),)


def _id_of(node: Any) -> str:
    value = node.entry.raw.get("id")
    return value if isinstance(value, str) else ""


def format_label_time(timestamp: str, now: datetime | None = None) -> str:
    """``14:05`` today, ``3/9 14:05`` this year, ``25/3/9 14:05`` before (local time)."""
    ms = ms_from_iso(timestamp)
    if not ms:
        return ""
    when = datetime.fromtimestamp(ms / 1000)
    now = now or datetime.now()
    clock = when.strftime("%H:%M")
    if when.date() == now.date():
        return clock
    if when.year == now.year:
        return f"{when.month}/{when.day} {clock}"
    return f"{when.year % 100:02d}/{when.month}/{when.day} {clock}"


_HIDDEN = -2
"""``_nearest`` marker of a row inside a folded subtree."""


def _covers(old_tokens: list[str], new_tokens: list[str]) -> bool:
    """True when every row matching ``new_tokens`` also matches ``old_tokens`` (each old token
    lies inside a new one), so a narrowing search only re-tests the rows that matched before."""
    return all(any(old in new for new in new_tokens) for old in old_tokens)


class TreeNavModel:
    """Flattened, filtered, foldable view of a session tree with one selected row.

    Per-row state lives in flat lists indexed by row (depth-first order). The per-parent lists
    (``_kids``, ``_last_kid``, ``_nearest``) have one extra slot at the end for the invisible
    root, so index ``-1`` (the parent of a root) reads that slot without a branch.
    """

    def __init__(
        self,
        roots: Sequence[Any],
        current_leaf_id: str | None,
        *,
        page_size: int = 10,
        filter_mode: str = "default",
        selected_id: str | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.leaf_id = current_leaf_id
        self.page_size = max(1, page_size)
        self.filter_mode = filter_mode if filter_mode in TREE_FILTER_MODES else "default"
        self.search = ""
        self.show_label_timestamps = False
        self.folded: set[str] = set()
        self._now = now
        self._flatten(roots)
        self._search_text: list[str | None] = [None] * len(self._nodes)
        self._segments: list[tuple[Segment, ...] | None] = [None] * len(self._nodes)
        self._warm_row = 0  # rows before it have their search text (see ``warm_search``)
        self._mode_passes: dict[str, list[bool]] = {}
        self._passes_key: tuple[str, list[str]] | None = None
        self._passes: list[bool] = []
        self.selected = 0
        self._last_id: str | None = None
        self._apply(selected_id if selected_id is not None else current_leaf_id)

    # -- building -------------------------------------------------------------------------------

    def _active_path(self, roots: Sequence[Any]) -> set[str]:
        """Ids on the root→leaf path."""
        parent_of: dict[Any, str | None] = {node.entry.raw.get("id"): None for node in roots}
        stack = list(roots)
        while stack:
            node = stack.pop()
            children = node.children
            while children:  # walk a chain of single children without the stack
                entry_id = node.entry.raw.get("id")
                if not isinstance(entry_id, str):
                    entry_id = ""
                for child in children:
                    parent_of[child.entry.raw.get("id")] = entry_id
                if len(children) > 1:
                    stack.extend(children[1:])
                node = children[0]
                children = node.children
        parent_of.pop("", None)  # id-less entries never join the path
        active: set[str] = set()
        cursor = self.leaf_id
        while cursor and cursor in parent_of and cursor not in active:
            active.add(cursor)
            cursor = parent_of[cursor]
        return active

    def _flatten(self, roots: Sequence[Any]) -> None:
        active = self.active_path = self._active_path(roots)

        def ordered(nodes: Sequence[Any]) -> list[Any]:
            """Oldest first, but the child on the active path leads."""
            if len(nodes) < 2 or not active:
                return list(nodes)
            lead = [n for n in nodes if _id_of(n) in active]
            return lead + [n for n in nodes if _id_of(n) not in active] if lead else list(nodes)

        nodes: list[Any] = []
        ids: list[str] = []
        parent_rows: list[int] = []
        classes: list[str] = []
        labeled: set[int] = set()
        tool_calls: dict[str, dict[str, Any]] = {}
        add_node, add_id, add_parent, add_class = nodes.append, ids.append, parent_rows.append, classes.append
        # two parallel stacks instead of (node, parent) tuples: fewer objects for the cyclic GC
        work = list(reversed(ordered(roots)))
        work_parent = [-1] * len(work)
        while work:
            node = work.pop()
            parent_row = work_parent.pop()
            while True:  # down the first child of each node; later siblings wait on the stack
                row = len(nodes)
                add_node(node)
                add_parent(parent_row)
                raw = node.entry.raw
                entry_id = raw.get("id")
                add_id(entry_id if isinstance(entry_id, str) else "")
                kind = raw_entry_class(raw)
                add_class(kind)
                if kind == "other" or kind == "empty-assistant":  # what an assistant message gets
                    _collect_tool_calls(raw, tool_calls)
                if node.label is not None:
                    labeled.add(row)
                children = node.children
                if not children:
                    break
                if len(children) > 1:
                    children = ordered(children)
                    work.extend(reversed(children[1:]))
                    work_parent.extend([row] * (len(children) - 1))
                node = children[0]
                parent_row = row
        self._nodes = nodes
        self._ids = ids
        self._parent_row = parent_rows
        self._classes = classes
        self._labeled = labeled
        self._tool_calls = tool_calls
        self._row_of: dict[str, int] = {entry_id: row for row, entry_id in enumerate(ids) if entry_id}
        leaf_id = self.leaf_id
        self._leaf_rows = [row for row, entry_id in enumerate(ids) if entry_id == leaf_id]

    def _mode_pass_list(self) -> list[bool]:
        """Which rows the filter mode shows (cached per mode until a label changes)."""
        mode = self.filter_mode
        cached = self._mode_passes.get(mode)
        if cached is not None:
            return cached
        classes = self._classes
        table = {kind: visible_in_mode(kind, mode, is_leaf=False, labeled=False) for kind in set(classes)}
        passes = [table[kind] for kind in classes]
        ids, leaf_id = self._ids, self.leaf_id
        for row in self._labeled.union(self._leaf_rows):
            passes[row] = visible_in_mode(
                classes[row], mode, is_leaf=ids[row] == leaf_id, labeled=self._nodes[row].label is not None
            )
        self._mode_passes[mode] = passes
        return passes

    def _search_text_of(self, row: int) -> str:
        text = self._search_text[row]
        if text is None:  # what the entry says, plus what the row shows (e.g. "[bash: ls]")
            # segments are not cached here: thousands of tuples kept alive would make the
            # cyclic GC run full collections; only the painted rows keep theirs
            segments = self._segments[row] or entry_segments(self._nodes[row].entry.raw, self._tool_calls)
            shown = "".join(part for part, _ in segments)
            text = self._search_text[row] = f"{searchable_text(self._nodes[row])} {shown}".lower()
        return text

    def warm_search(self, budget: int) -> bool:
        """Build the search text of up to ``budget`` more rows ahead of the first search letter
        (the navigator calls this while idle); True once every row has one."""
        texts, start = self._search_text, self._warm_row
        end = min(len(texts), start + budget)
        for row in range(start, end):
            if texts[row] is None:
                self._search_text_of(row)
        self._warm_row = end
        return end >= len(texts)

    def _pass_list(self) -> list[bool]:
        """Rows that pass the filter mode and match every search token (cached)."""
        mode, tokens = self.filter_mode, self.search.lower().split()
        key = (mode, tokens)
        if self._passes_key == key:
            return self._passes
        mode_passes = self._mode_pass_list()
        if not tokens:
            passes = mode_passes
        else:
            previous = self._passes_key
            narrowing = previous is not None and previous[0] == mode and _covers(previous[1], tokens)
            candidates = self._passes if narrowing else mode_passes
            passes = [False] * len(candidates)
            texts = self._search_text
            for row in compress(range(len(candidates)), candidates):
                text = texts[row]
                if text is None:
                    text = self._search_text_of(row)
                for token in tokens:
                    if token not in text:
                        break
                else:
                    passes[row] = True
        self._passes_key, self._passes = key, passes
        return passes

    def _apply(self, keep_id: str | None) -> None:
        """Recompute the visible rows and their connectors; keep ``keep_id`` (or its nearest
        visible ancestor) selected."""
        passes = self._pass_list()
        parent_row, ids, folded = self._parent_row, self._ids, self.folded
        count = len(parent_row)
        folded_rows = {row for row in range(count) if ids[row] in folded} if folded else set()
        nearest = [-1] * (count + 1)  # nearest visible ancestor-or-self, or _HIDDEN
        vparent = [-1] * count
        kids = [0] * (count + 1)  # visible children
        last_kid = [-1] * (count + 1)
        visible: list[int] = []
        for row in range(count):
            parent = parent_row[row]
            if folded_rows and (nearest[parent] == _HIDDEN or parent in folded_rows):
                nearest[row] = _HIDDEN
            elif passes[row]:
                anchor = nearest[parent]
                vparent[row] = anchor
                kids[anchor] += 1
                last_kid[anchor] = row
                visible.append(row)
                nearest[row] = row
            else:
                nearest[row] = nearest[parent]
        pos = [-1] * count
        for position, row in enumerate(visible):
            pos[row] = position
        self._visible = visible
        self._pos = pos
        self._vparent = vparent
        self._kids = kids
        self._last_kid = last_kid
        self.multiple_roots = kids[-1] > 1
        self._layout_rows()
        self._select_nearest(keep_id)

    def _display_indent(self, indent: int) -> int:
        return max(0, indent - 1) if self.multiple_roots else indent

    def _layout_rows(self) -> None:
        """Indent and gutters of every visible row, parents first. A row hangs from a connector
        when its visible parent (or the invisible root) has more than one visible child."""
        self._prefixes: dict[int, str] = {}
        count = len(self._parent_row)
        vparent, kids, last_kid = self._vparent, self._kids, self._last_kid
        indent = [0] * count
        gutters: list[tuple[tuple[int, bool], ...]] = [()] * count
        root_indent = 1 if self.multiple_roots else 0
        for row in self._visible:
            parent = vparent[row]
            if parent < 0:
                indent[row] = root_indent
                continue
            up_indent = indent[parent]
            grandparent = vparent[parent]
            parent_branched = kids[grandparent] > 1  # the parent hangs from a connector
            if kids[parent] > 1 or (parent_branched and up_indent > 0):
                indent[row] = up_indent + 1
            else:
                indent[row] = up_indent
            if parent_branched and grandparent >= 0:  # the parent drew a connector
                position = max(0, self._display_indent(up_indent) - 1)
                gutters[row] = (*gutters[parent], (position, last_kid[grandparent] != parent))
            else:
                gutters[row] = gutters[parent]
        self._indent = indent
        self._gutters = gutters

    def _select_nearest(self, entry_id: str | None) -> None:
        visible = self._visible
        if not visible:
            self.selected = 0
            return
        row = self._row_of.get(entry_id) if entry_id else None
        while row is not None and row >= 0:
            if self._pos[row] >= 0:
                self.selected = self._pos[row]
                break
            row = self._parent_row[row]
        else:
            self.selected = len(visible) - 1
        self._last_id = self.selected_id

    # -- queries --------------------------------------------------------------------------------

    @property
    def visible_count(self) -> int:
        return len(self._visible)

    @property
    def selected_id(self) -> str | None:
        if not self._visible:
            return None
        return self._ids[self._visible[self.selected]]

    @property
    def selected_node(self) -> Any:
        return self._nodes[self._visible[self.selected]] if self._visible else None

    def visible_ids(self) -> list[str]:
        ids = self._ids
        return [ids[row] for row in self._visible]

    def is_foldable(self, row: int) -> bool:
        if not self._kids[row]:
            return False
        parent = self._vparent[row]
        return parent < 0 or self._kids[parent] > 1

    def window(self) -> tuple[int, int]:
        """``[start, end)`` of the visible rows to show: the selection stays centred."""
        count, page = len(self._visible), self.page_size
        start = max(0, min(self.selected - page // 2, count - page))
        return start, min(start + page, count)

    def rows(self) -> list[RowView]:
        start, end = self.window()
        return [self.row_view(i) for i in range(start, end)]

    def row_view(self, position: int) -> RowView:
        row = self._visible[position]
        node = self._nodes[row]
        entry_id = self._ids[row]
        folded = entry_id in self.folded
        # a root's connector is the invisible root's, never drawn
        parent = self._vparent[row]
        connector = parent >= 0 and self._kids[parent] > 1
        segments = self._row_segments(row)
        label_time = None
        if self.show_label_timestamps and node.label and node.label_timestamp:
            label_time = format_label_time(node.label_timestamp, self._now() if self._now else None)
        return RowView(
            entry_id=entry_id,
            selected=position == self.selected,
            prefix=self._prefix(row, connector, folded),
            fold_marker="⊞ " if folded and not connector else "",
            on_path=entry_id in self.active_path,
            is_leaf=entry_id == self.leaf_id and bool(entry_id),
            label=node.label,
            label_time=label_time,
            content=segments,
        )

    def _row_segments(self, row: int) -> tuple[Segment, ...]:
        segments = self._segments[row]
        if segments is None:
            segments = self._segments[row] = entry_segments(self._nodes[row].entry.raw, self._tool_calls)
        return segments

    def _prefix(self, row: int, connector: bool, folded: bool) -> str:
        """Gutters and connector of ``row`` (cached until the next filter, search or fold)."""
        cached = self._prefixes.get(row)
        if cached is None:
            cached = self._prefixes[row] = self._build_prefix(row, connector, folded)
        return cached

    def _build_prefix(self, row: int, connector: bool, folded: bool) -> str:
        levels = self._display_indent(self._indent[row])
        connector_level = levels - 1 if connector else -1
        gutters = dict(reversed(self._gutters[row]))  # the first gutter at a level wins
        parts = []
        for level in range(levels):
            if level in gutters:
                parts.append("│  " if gutters[level] else "   ")
            elif level == connector_level:
                mark = "⊞" if folded else "⊟" if self.is_foldable(row) else "─"
                is_last = self._last_kid[self._vparent[row]] == row
                parts.append(("└" if is_last else "├") + mark + " ")
            else:
                parts.append("   ")
        return "".join(parts)

    def status_text(self) -> str:
        """``(3/120) [no-tools]``: position, then the active filter and label-time badges."""
        badges = ""
        if self.filter_mode in FILTER_BADGES:
            badges += " " + FILTER_BADGES[self.filter_mode]
        if self.show_label_timestamps:
            badges += " [+label time]"
        if not self._visible:
            return f"(0/0){badges}"
        return f"({self.selected + 1}/{len(self._visible)}){badges}"

    # -- moves ----------------------------------------------------------------------------------

    def _moved(self) -> None:
        self._last_id = self.selected_id

    def move_up(self) -> None:
        if self._visible:
            self.selected = (self.selected - 1) % len(self._visible)
            self._moved()

    def move_down(self) -> None:
        if self._visible:
            self.selected = (self.selected + 1) % len(self._visible)
            self._moved()

    def page_up(self) -> None:
        if self._visible:
            self.selected = max(0, self.selected - self.page_size)
            self._moved()

    def page_down(self) -> None:
        if self._visible:
            self.selected = min(len(self._visible) - 1, self.selected + self.page_size)
            self._moved()

    def select(self, entry_id: str) -> bool:
        """Select ``entry_id`` if it is visible."""
        row = self._row_of.get(entry_id)
        if row is None or self._pos[row] < 0:
            return False
        self.selected = self._pos[row]
        self._moved()
        return True

    def fold_or_up(self) -> None:
        """Fold the selected branch if it is open, else jump to the previous branch-segment start."""
        if not self._visible:
            return
        row = self._visible[self.selected]
        entry_id = self._ids[row]
        if self.is_foldable(row) and entry_id not in self.folded:
            self.folded.add(entry_id)
            self._apply(entry_id)
            return
        current = row
        while True:
            parent = self._vparent[current]
            if parent < 0:
                break
            if self._kids[parent] > 1 and self._pos[current] < self.selected:
                break
            current = parent
        self.selected = self._pos[current]
        self._moved()

    def unfold_or_down(self) -> None:
        """Unfold the selected branch if it is folded, else jump to the next branch-segment start
        (or the end of the branch)."""
        if not self._visible:
            return
        row = self._visible[self.selected]
        entry_id = self._ids[row]
        if entry_id in self.folded:
            self.folded.discard(entry_id)
            self._apply(entry_id)
            return
        current = row
        while True:
            kids = self._kids[current]
            if not kids:
                break
            # visible rows are in depth-first order: the first visible child comes right after
            current = self._visible[self._pos[current] + 1]
            if kids > 1:
                break
        self.selected = self._pos[current]
        self._moved()

    # -- filter and search ----------------------------------------------------------------------

    def _refilter(self) -> None:
        self.folded.clear()
        self._apply(self._last_id)

    def set_filter(self, mode: str) -> None:
        self.filter_mode = mode if mode in TREE_FILTER_MODES else "default"
        self._refilter()

    def toggle_filter(self, mode: str) -> None:
        """``mode`` if it is not active, else back to ``default`` (the Ctrl+T/U/L/A keys)."""
        self.set_filter("default" if self.filter_mode == mode else mode)

    def cycle_filter(self, step: int = 1) -> None:
        index = TREE_FILTER_MODES.index(self.filter_mode)
        self.set_filter(TREE_FILTER_MODES[(index + step) % len(TREE_FILTER_MODES)])

    def type_text(self, text: str) -> None:
        self.search += text
        self._refilter()

    def backspace(self) -> None:
        if self.search:
            self.search = self.search[:-1]
            self._refilter()

    def clear_search(self) -> bool:
        """Clear a non-empty search; False when there was nothing to clear."""
        if not self.search:
            return False
        self.search = ""
        self._refilter()
        return True

    def toggle_label_timestamps(self) -> None:
        self.show_label_timestamps = not self.show_label_timestamps

    def set_label(self, entry_id: str, label: str | None, timestamp: str | None = None) -> None:
        """Reflect a label change (already written to the session) in the view."""
        row = self._row_of.get(entry_id)
        if row is None:
            return
        node = self._nodes[row]
        node.label = label or None
        node.label_timestamp = (timestamp or iso_now()) if label else None
        if node.label is None:
            self._labeled.discard(row)
        else:
            self._labeled.add(row)
        self._search_text[row] = None
        self._mode_passes.clear()
        self._passes_key = None
        self._apply(self._last_id)
