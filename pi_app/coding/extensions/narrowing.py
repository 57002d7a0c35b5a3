"""Typed narrowing helpers for built-in tool events (spec 40 §2.7).

``is_tool_call_event_type("bash", event)`` is true for a ``tool_call`` event of the built-in bash
tool, so an extension can read ``event.input["command"]`` knowing its shape (the tools spec).
"""

from __future__ import annotations

from typing import Any

BUILTIN_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls")


def is_tool_call_event_type(tool_name: str, event: Any) -> bool:
    return getattr(event, "type", None) == "tool_call" and getattr(event, "tool_name", None) == tool_name


def is_tool_result_event_type(tool_name: str, event: Any) -> bool:
    return getattr(event, "type", None) == "tool_result" and getattr(event, "tool_name", None) == tool_name


def is_bash_tool_result(event: Any) -> bool:
    return is_tool_result_event_type("bash", event)


def is_read_tool_result(event: Any) -> bool:
    return is_tool_result_event_type("read", event)


def is_edit_tool_result(event: Any) -> bool:
    return is_tool_result_event_type("edit", event)


def is_write_tool_result(event: Any) -> bool:
    return is_tool_result_event_type("write", event)


def is_grep_tool_result(event: Any) -> bool:
    return is_tool_result_event_type("grep", event)


def is_find_tool_result(event: Any) -> bool:
    return is_tool_result_event_type("find", event)


def is_ls_tool_result(event: Any) -> bool:
    return is_tool_result_event_type("ls", event)
