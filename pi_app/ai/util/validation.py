"""Tool schemas and argument validation (R-AI-96, R-AI-97, 00-index.md decision D-15).

A tool's ``parameters`` is one of three things:

- a ``StructParams`` subclass (the built-in tools' form since issue 20): a ``msgspec.Struct`` whose
  ``wire_schema`` class variable is the JSON Schema sent to the model, recorded by the class, and
  whose fields are filled by ``pi_app.ai.util.structs`` with pydantic's lax coercion and error texts;
- a pydantic model class (what extensions declare, ``ToolParams``): its schema is generated;
- a raw JSON-Schema dict, validated by the small AJV-style validator at the end of this module.

``tool_parameters_schema`` gives the wire schema (always a dict); ``validate_tool_arguments``
returns a coerced copy of the arguments as a plain dict, or raises ``ToolValidationError`` whose
text is shown verbatim to the model::

    Validation failed for tool "<name>":
      - <path>: <message>

    Received arguments:
    { ... }

pydantic is never imported here: a run whose tools are all built-in and whose answers are plain
text must not pay for it (issue 20). ``is_pydantic_model`` looks in ``sys.modules`` (a class can
only be a pydantic model once ``pydantic.main`` is loaded), and the pydantic branch imports what it
needs when it meets a model.
"""

from __future__ import annotations

import copy
import json
import sys
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, TypeGuard

import msgspec

from pi_app.ai.util.structs import ConversionError, convert, dump

if TYPE_CHECKING:
    from pydantic import BaseModel


class ToolValidationError(ValueError):
    """Arguments did not match the tool's schema; the message is meant for the model."""


class StructParams(msgspec.Struct, dict=True):
    """Tool parameters as a ``msgspec.Struct`` (see the module docstring). A subclass records its
    ``wire_schema``, which must describe its fields; unknown keys are ignored (pydantic's default)."""

    wire_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}


def is_struct_params(parameters: object) -> TypeGuard[type[StructParams]]:
    return isinstance(parameters, type) and issubclass(parameters, StructParams)


def is_pydantic_model(parameters: object) -> TypeGuard[type[BaseModel]]:
    """Without ``pydantic.main`` loaded nothing can be a pydantic model, and nothing is imported."""
    pydantic_main = sys.modules.get("pydantic.main")
    return (
        pydantic_main is not None
        and isinstance(parameters, type)
        and issubclass(parameters, pydantic_main.BaseModel)
    )


def _inline_refs(schema: Any, defs: dict[str, Any]) -> Any:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = defs.get(ref.split("/")[-1], {})
            merged = {k: v for k, v in schema.items() if k != "$ref"}
            return _inline_refs({**target, **merged}, defs)
        return {k: _inline_refs(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [_inline_refs(v, defs) for v in schema]
    return schema


def _strip_titles(schema: Any, in_properties: bool = False) -> Any:
    if isinstance(schema, dict):
        out = {}
        for k, v in schema.items():
            if k == "title" and not in_properties and isinstance(v, str):
                continue
            out[k] = _strip_titles(v, in_properties=(k == "properties"))
        return out
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


# a model's wire schema, built once per class and core schema (every request and the session's
# first system message send the tools' schemas; pydantic builds a model's JSON schema anew on each
# call); a model rebuilt since (``model_rebuild``) has a new core schema, so its schema is built again
_WIRE_SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], tuple[object, dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)


def tool_parameters_schema(parameters: Any) -> dict[str, Any]:
    """The JSON Schema sent on the wire: a Struct's recorded schema; a pydantic model's with
    ``$defs`` inlined and titles dropped. Either is a fresh copy on each call (a caller may change it)."""
    if is_struct_params(parameters):
        return copy.deepcopy(parameters.wire_schema)
    if is_pydantic_model(parameters):
        cached = _WIRE_SCHEMAS.get(parameters)
        if cached is not None and cached[0] is parameters.__dict__.get("__pydantic_core_schema__"):
            return copy.deepcopy(cached[1])
        raw = parameters.model_json_schema(by_alias=True)
        schema = _strip_titles(_inline_refs(raw, raw.get("$defs", {})))
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        _WIRE_SCHEMAS[parameters] = (parameters.__dict__.get("__pydantic_core_schema__"), schema)
        return copy.deepcopy(schema)
    if isinstance(parameters, dict):
        return parameters
    return {"type": "object", "properties": {}}


def string_enum(
    values: list[str], description: str | None = None, default: str | None = None
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "enum": list(values)}
    if description is not None:
        schema["description"] = description
    if default is not None:
        schema["default"] = default
    return schema


def _format_failure(name: str, problems: list[str], arguments: Any) -> str:
    lines = [f'Validation failed for tool "{name}":']
    lines.extend(f"  - {p}" for p in problems)
    lines.append("")
    lines.append("Received arguments:")
    lines.append(json.dumps(arguments, indent=2, ensure_ascii=False, default=str))
    return "\n".join(lines)


def _problems(errors: Iterable[tuple[tuple[Any, ...], str, str]]) -> list[str]:
    """One line per error (``loc``, ``type``, ``msg``), pydantic's or ``structs``'s alike."""
    problems = []
    for loc, kind, msg in errors:
        parts = [str(p) for p in loc]
        if kind == "missing" and parts:
            problems.append(f"{'/'.join(parts)}: must have required property '{parts[-1]}'")
        else:
            problems.append(f"{'/'.join(parts) or 'root'}: {msg}")
    return problems


def validate_tool_arguments(tool: Any, arguments: Any) -> dict[str, Any]:
    """Validate ``arguments`` (a dict or a ToolCall) against ``tool.parameters``; return the coerced copy."""
    args = getattr(arguments, "arguments", arguments)
    name = getattr(tool, "name", "?")
    parameters = getattr(tool, "parameters", None)
    if is_struct_params(parameters):
        try:
            struct = convert(args if args is not None else {}, parameters)
        except ConversionError as exc:
            problems = _problems((e.loc, e.type, e.msg) for e in exc.errors)
            raise ToolValidationError(_format_failure(name, problems, args)) from None
        return dump(struct, by_alias=True, exclude_unset=True)
    if is_pydantic_model(parameters):
        from pydantic import ValidationError

        try:
            instance = parameters.model_validate(args if args is not None else {})
        except ValidationError as exc:
            problems = _problems(
                (e.get("loc", ()), e.get("type", ""), e.get("msg", "invalid")) for e in exc.errors()
            )
            raise ToolValidationError(_format_failure(name, problems, args)) from None
        return instance.model_dump(by_alias=True, exclude_unset=True)
    if isinstance(parameters, dict):
        coerced = copy.deepcopy(args) if args is not None else {}
        problems = []
        value = _validate(coerced, parameters, "", problems)
        if problems:
            raise ToolValidationError(_format_failure(name, problems, args))
        return value if isinstance(value, dict) else {}
    return copy.deepcopy(args) if isinstance(args, dict) else {}


def validate_tool_call(tools: list[Any], tool_call: Any) -> dict[str, Any]:
    for tool in tools:
        if getattr(tool, "name", None) == tool_call.name:
            return validate_tool_arguments(tool, tool_call)
    raise ValueError(f'Tool "{tool_call.name}" not found')


# ---------------------------------------------------------------------------------------------
# A small JSON-Schema subset validator with AJV-style type coercion (raw-dict schemas only)
# ---------------------------------------------------------------------------------------------


def _type_ok(value: Any, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if expected == "null":
        return value is None
    return True


def _coerce(value: Any, expected: str) -> tuple[bool, Any]:
    try:
        if expected == "integer" and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return True, int(value)
        if expected == "number" and isinstance(value, str):
            return True, float(value) if any(c in value for c in ".eE") else int(value)
        if expected == "boolean" and isinstance(value, str) and value in ("true", "false"):
            return True, value == "true"
        if expected == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            return True, str(value)
        if expected == "integer" and isinstance(value, float) and value.is_integer():
            return True, int(value)
    except ValueError:
        pass
    return False, value


def _validate(value: Any, schema: dict[str, Any], path: str, problems: list[str]) -> Any:
    where = path or "root"
    if not isinstance(schema, dict):
        return value
    for key in ("anyOf", "oneOf"):
        if key in schema:
            for option in schema[key]:
                trial: list[str] = []
                result = _validate(copy.deepcopy(value), option, path, trial)
                if not trial:
                    return result
            problems.append(f"{where}: must match a schema in {key}")
            return value
    expected = schema.get("type")
    if isinstance(expected, list):
        if not any(_type_ok(value, t) for t in expected):
            for t in expected:
                ok, coerced = _coerce(value, t)
                if ok:
                    value = coerced
                    break
            else:
                problems.append(f"{where}: must be {','.join(expected)}")
                return value
    elif isinstance(expected, str) and not _type_ok(value, expected):
        ok, coerced = _coerce(value, expected)
        if not ok:
            problems.append(f"{where}: must be {expected}")
            return value
        value = coerced
    if "const" in schema and value != schema["const"]:
        problems.append(f"{where}: must be equal to constant")
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: must be equal to one of the allowed values")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{where}: must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{where}: must be <= {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            problems.append(f"{where}: must NOT have fewer than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{where}: must NOT have more than {schema['maxLength']} characters")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{where}: must NOT have fewer than {schema['minItems']} items")
        items = schema.get("items")
        if isinstance(items, dict):
            value = [
                _validate(v, items, f"{path}/{i}" if path else str(i), problems) for i, v in enumerate(value)
            ]
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for req in schema.get("required") or []:
            if req not in value:
                problems.append(f"{path + '/' if path else ''}{req}: must have required property '{req}'")
        for key, sub in props.items():
            if key in value:
                value[key] = _validate(value[key], sub, f"{path}/{key}" if path else key, problems)
        if schema.get("additionalProperties") is False:
            for key in value:
                if key not in props:
                    problems.append(f"{where}: must NOT have additional property '{key}'")
    return value
