"""The built-in tools' parameters against the pydantic models they replaced (issue 20).

Since issue 20 the built-ins declare ``BuiltinParams`` Structs with a recorded wire schema, so that
start-up imports no pydantic. The pydantic models below are the ones they replaced, as they were;
each built-in must send the same schema, byte for byte, and accept, coerce and refuse arguments
exactly as its model did, with the same text for the model when it refuses.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

import msgspec
import pytest
from pydantic import ConfigDict, Field

from pi_app.ai.util.validation import ToolValidationError, tool_parameters_schema, validate_tool_arguments
from pi_app.coding.tools import BUILTIN_TOOL_NAMES, create_all_tools
from pi_app.coding.tools.definition import BuiltinParams
from pi_app.coding.tools.tool_params import ToolParams


def _strict_items(schema: dict[str, Any]) -> None:
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema["additionalProperties"] = False


class ReadParams(ToolParams):
    path: str = Field(description="Path to the file to read (relative or absolute)")
    offset: float | None = Field(default=None, description="Line number to start reading from (1-indexed)")
    limit: float | None = Field(default=None, description="Maximum number of lines to read")


class BashParams(ToolParams):
    command: str = Field(description="Bash command to execute")
    timeout: float | None = Field(
        default=None, description="Timeout in seconds (optional, no default timeout)"
    )


class EditEntry(ToolParams):
    model_config = ConfigDict(json_schema_extra=lambda schema, _cls: _strict_items(schema))

    old_text: str = Field(
        alias="oldText",
        description=(
            "Exact text to replace. It must occur exactly once in the original file and must not "
            "overlap the oldText of another edit in this call."
        ),
    )
    new_text: str = Field(alias="newText", description="Text that replaces oldText.")


class EditParams(ToolParams):
    model_config = ConfigDict(json_schema_extra=lambda schema, _cls: _strict_items(schema))

    path: str = Field(description="Path to the file to edit (relative or absolute)")
    edits: list[EditEntry] = Field(
        description=(
            "One or more targeted replacements, each matched against the original file (not against "
            "the result of earlier edits). Overlapping or nested edits are rejected: when two changes "
            "touch the same block or neighbouring lines, combine them into one edit."
        )
    )


class WriteParams(ToolParams):
    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="Content to write to the file")


class GrepParams(ToolParams):
    pattern: str = Field(description="Search pattern (regex or literal string)")
    path: str | None = Field(
        default=None, description="Directory or file to search (default: current directory)"
    )
    glob: str | None = Field(
        default=None, description="Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"
    )
    ignore_case: bool | None = Field(
        default=None, alias="ignoreCase", description="Case-insensitive search (default: false)"
    )
    literal: bool | None = Field(
        default=None, description="Treat pattern as literal string instead of regex (default: false)"
    )
    context: float | None = Field(
        default=None, description="Number of lines to show before and after each match (default: 0)"
    )
    limit: float | None = Field(
        default=None, description="Maximum number of matches to return (default: 100)"
    )


class FindParams(ToolParams):
    pattern: str = Field(
        description="Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"
    )
    path: str | None = Field(default=None, description="Directory to search in (default: current directory)")
    limit: float | None = Field(default=None, description="Maximum number of results (default: 1000)")


class LsParams(ToolParams):
    path: str | None = Field(default=None, description="Directory to list (default: current directory)")
    limit: float | None = Field(
        default=None, description="Maximum number of entries to return (default: 500)"
    )


PYDANTIC_MODELS: dict[str, type[ToolParams]] = {
    "read": ReadParams,
    "bash": BashParams,
    "edit": EditParams,
    "write": WriteParams,
    "grep": GrepParams,
    "find": FindParams,
    "ls": LsParams,
}
JSON_TYPES = {str: "string", float: "number", bool: "boolean"}

# values each field is tried with, on top of a valid call
VALUES: list[object] = [
    None, "", "a.txt", "5", " 7 ", "1e3", "abc", "true", "yes", "0", 5, 5.5, -1, 0, 1, True, False,
    float("inf"), [], ["x"], {}, {"a": 1}, 10**400,
]  # fmt: skip
VALID: dict[str, dict[str, Any]] = {
    "read": {"path": "a.txt"},
    "bash": {"command": "ls"},
    "edit": {"path": "a.txt", "edits": [{"oldText": "o", "newText": "n"}]},
    "write": {"path": "a.txt", "content": "x"},
    "grep": {"pattern": "p"},
    "find": {"pattern": "*.py"},
    "ls": {},
}
EDIT_CALLS: list[object] = [
    {"path": "a", "edits": [{"oldText": "o", "newText": "n", "why": "x"}], "extra": 1},
    {"path": "a", "edits": [{"old_text": "o", "new_text": "n"}]},
    {"path": "a", "edits": [{"oldText": "o"}, "x", {"newText": 1, "oldText": None}]},
    {"path": "a", "edits": {"oldText": "o", "newText": "n"}},
    {"path": "a", "edits": []},
    {"edits": None},
    [],
    "text",
    None,
]


class _Tool:
    def __init__(self, name: str, parameters: object) -> None:
        self.name, self.parameters = name, parameters


def _outcome(name: str, parameters: object, arguments: object) -> tuple[str, object]:
    try:
        return "ok", validate_tool_arguments(_Tool(name, parameters), arguments)
    except ToolValidationError as exc:
        return "refused", str(exc)


def _calls(name: str) -> list[object]:
    valid = VALID[name]
    fields = list(PYDANTIC_MODELS[name].model_json_schema(by_alias=True)["properties"])
    calls: list[object] = [valid, {**valid, "unknown": 1}]
    calls += [{**valid, field: value} for field in fields for value in VALUES]
    calls += [{k: v for k, v in valid.items() if k != field} for field in valid]
    return calls + (EDIT_CALLS if name == "edit" else [])


@pytest.mark.parametrize("name", BUILTIN_TOOL_NAMES)
def test_the_wire_schema_is_byte_for_byte_what_pydantic_generated(name: str) -> None:
    ours = tool_parameters_schema(create_all_tools("/x")[name].parameters)
    theirs = tool_parameters_schema(PYDANTIC_MODELS[name])
    assert json.dumps(ours) == json.dumps(theirs)


@pytest.mark.parametrize("name", BUILTIN_TOOL_NAMES)
def test_arguments_are_accepted_and_refused_as_the_pydantic_model_did(name: str) -> None:
    parameters = create_all_tools("/x")[name].parameters
    for arguments in _calls(name):
        assert _outcome(name, parameters, arguments) == _outcome(name, PYDANTIC_MODELS[name], arguments), (
            arguments
        )


def _check_fields(struct: type[BuiltinParams], schema: dict[str, Any]) -> None:
    """The Struct's fields are the schema's properties: names, required ones, JSON types."""
    fields = msgspec.structs.fields(struct)
    assert [f.encode_name for f in fields] == list(schema["properties"])
    assert [f.encode_name for f in fields if f.required] == schema.get("required", [])
    for f in fields:
        prop = schema["properties"][f.encode_name]
        union = typing.get_origin(f.type) in (typing.Union, types.UnionType)
        (base,) = [t for t in (typing.get_args(f.type) if union else (f.type,)) if t is not type(None)]
        if typing.get_origin(base) is list:
            (item,) = typing.get_args(base)
            assert prop["type"] == "array"
            _check_fields(item, prop["items"])
        else:
            assert prop["type"] == JSON_TYPES[base], f.name


@pytest.mark.parametrize("name", BUILTIN_TOOL_NAMES)
def test_the_fields_are_what_the_recorded_schema_says(name: str) -> None:
    parameters = create_all_tools("/x")[name].parameters
    assert issubclass(parameters, BuiltinParams)
    _check_fields(parameters, parameters.wire_schema)
