"""Session trees for the navigation tests, built through the real ``SessionManager``."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from pi_app.ai.types import ToolCall
from pi_app.coding.session import SessionManager
from tests.session.helpers import PI_REFERENCE, assistant, tool_result, user

__all__ = ["PI_REFERENCE", "Branched", "branched_session", "ticking_clock"]


def ticking_clock(start_ms: int = 1_790_000_000_000) -> Any:
    """A clock that moves one second per call, so children sort in creation order."""
    counter = itertools.count()
    return lambda: start_ms + 1000 * next(counter)


class Branched:
    """Ids of the entries of ``branched_session``."""

    def __init__(self, sm: SessionManager, ids: dict[str, str]) -> None:
        self.sm = sm
        self.ids = ids

    def __getitem__(self, name: str) -> str:
        return self.ids[name]


def branched_session(directory: Path | None = None, cwd: str = "/home/user/project") -> Branched:
    """hello → hi; then two branches: "plan the refactor" (with a bash tool call) and, later,
    "write the tests" (the leaf)."""
    sm = SessionManager(cwd, directory, persist=directory is not None, clock=ticking_clock())
    ids: dict[str, str] = {}
    ids["model"] = sm.append_model_change("fake", "fake-model")
    ids["thinking"] = sm.append_thinking_level_change("off")
    ids["hello"] = sm.append_message(user("hello"))
    ids["hi"] = sm.append_message(assistant("hi there"))
    ids["plan"] = sm.append_message(user("plan the refactor"))
    call = ToolCall(id="call_1", name="bash", arguments={"command": "ls -la"})
    ids["calls"] = sm.append_message(assistant("", tool_calls=[call], stop_reason="toolUse"))
    ids["ls"] = sm.append_message(tool_result("call_1", "a.txt\nb.txt"))
    ids["planned"] = sm.append_message(assistant("here is the plan"))
    sm.branch(ids["hi"])
    ids["tests"] = sm.append_message(user("write the tests"))
    ids["written"] = sm.append_message(assistant("tests written"))
    return Branched(sm, ids)


def showcase_session(directory: Path | None = None, cwd: str = "/home/user/project") -> Branched:
    """Three branches, a label and a branch summary: the session the snapshots show.

    hello → hi there, then: "write the tests" (left behind, summarised), "plan the refactor" (with
    a bash call; the active branch continues after the summary) and "explain it simply"."""
    b = branched_session(directory, cwd)
    sm, ids = b.sm, b.ids
    ids["label"] = sm.append_label_change(ids["hello"], "start")
    ids["summary"] = sm.branch_with_summary(
        ids["planned"], "The user tried writing the tests first, then came back to the refactor plan."
    )
    ids["continue"] = sm.append_message(user("continue with step one"))
    ids["done"] = sm.append_message(assistant("step one is done"))
    sm.branch(ids["hi"])
    ids["explain"] = sm.append_message(user("explain it simply"))
    ids["simple"] = sm.append_message(assistant("it moves code around"))
    sm.branch(ids["done"])
    return b
