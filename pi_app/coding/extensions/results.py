"""Normalising what handlers return (spec 40 R-EXT-26).

A handler may return the typed result dataclass of ``types.py``, a ``dict`` with the same
snake_case keys, or None. ``normalise_result`` turns either form into a plain dict of the keys that
were given: unknown keys are reported (the runner warns once per extension and event) and ignored;
a value of the wrong type makes the whole result invalid (an ``ExtensionError``; the result is
ignored). For ``tool_result`` a key that is absent keeps the current value ([D-7]), which is why
``ToolResultPatch`` uses ``UNSET`` rather than None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from pi_app.coding.extensions.types import UNSET

Check = Callable[[Any], bool]


def _bool(value: Any) -> bool:
    return isinstance(value, bool)


def _opt_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _opt_list(value: Any) -> bool:
    return value is None or isinstance(value, list)


def _opt_str_list(value: Any) -> bool:
    return value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _any(value: Any) -> bool:
    return True


def _one_of(*options: str) -> Check:
    return lambda value: value in options


RESULT_FIELDS: dict[str, dict[str, tuple[Check, str]]] = {
    "project_trust": {
        "trusted": (_one_of("yes", "no", "undecided"), '"yes", "no" or "undecided"'),
        "remember": (_bool, "a bool"),
    },
    "resources_discover": {
        "skill_paths": (_opt_str_list, "a list of paths"),
        "prompt_paths": (_opt_str_list, "a list of paths"),
        "theme_paths": (_opt_str_list, "a list of paths"),
    },
    "session_before_switch": {"cancel": (_bool, "a bool")},
    "session_before_fork": {"cancel": (_bool, "a bool"), "skip_conversation_restore": (_bool, "a bool")},
    "session_before_compact": {"cancel": (_bool, "a bool"), "compaction": (_any, "")},
    "session_before_tree": {
        "cancel": (_bool, "a bool"),
        "summary": (_any, ""),
        "custom_instructions": (_opt_str, "a string"),
        "replace_instructions": (lambda v: v is None or isinstance(v, bool), "a bool"),
        "label": (_opt_str, "a string"),
    },
    "input": {
        "action": (_one_of("continue", "transform", "handled"), '"continue", "transform" or "handled"'),
        "text": (_opt_str, "a string"),
        "images": (_opt_list, "a list"),
    },
    "before_agent_start": {"message": (_any, ""), "system_prompt": (_opt_str, "a string")},
    "context": {"messages": (_opt_list, "a list")},
    "message_end": {"message": (_any, "")},
    "tool_call": {
        "block": (_bool, "a bool"),
        "reason": (_opt_str, "a string"),
        "terminate": (_bool, "a bool"),
    },
    "tool_result": {
        "content": (lambda v: isinstance(v, list), "a list"),
        "details": (_any, ""),
        "is_error": (_bool, "a bool"),
        "usage": (_any, ""),
    },
    "user_bash": {"operations": (_any, ""), "result": (_any, "")},
}


@dataclasses.dataclass
class Normalised:
    """A handler's return value as its known keys, with the unknown ones and any error."""

    values: dict[str, Any] | None
    unknown_keys: list[str] = dataclasses.field(default_factory=list)
    error: str | None = None


def _as_mapping(value: Any) -> Mapping[str, Any] | None:
    if isinstance(value, Mapping):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: getattr(value, f.name)
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not UNSET
        }
    return None


def normalise_result(event_type: str, value: Any) -> Normalised:
    """``None`` -> no opinion; otherwise the given keys, validated against the event's result shape."""
    if value is None:
        return Normalised(None)
    spec = RESULT_FIELDS.get(event_type)
    if spec is None:
        return Normalised(None)  # observational event: the return value is ignored
    mapping = _as_mapping(value)
    if mapping is None:
        return Normalised(None, error=f'Invalid result for "{event_type}": expected a dict or result object')
    values: dict[str, Any] = {}
    unknown: list[str] = []
    for key, item in mapping.items():
        rule = spec.get(key)
        if rule is None:
            unknown.append(str(key))
            continue
        check, expected = rule
        if not check(item):
            return Normalised(None, unknown, f'Invalid result for "{event_type}": {key} must be {expected}')
        values[key] = item
    return Normalised(values, unknown)
