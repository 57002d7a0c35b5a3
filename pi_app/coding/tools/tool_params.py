"""``ToolParams``: the pydantic base of the tool parameter models extensions declare (spec 50 §2.1).

camelCase aliases where a model sets them, snake_case attributes, extras ignored, and a JSON Schema
without pydantic's ``null`` branches and titles, so the wire schema has the shape pi sends
(``{"type": "number"}`` for an optional number).

This module is the only one of the tools that imports pydantic, and nothing on the start path
imports it: the built-in tools declare ``BuiltinParams`` Structs (``definition``), and
``ToolParams`` is loaded when an extension (``pi_app.ext``) or ``definition.ToolParams`` asks for it
(issue 20).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


def _collapse_optional(schema: dict[str, Any]) -> None:
    """``anyOf: [X, {type: null}]`` with ``default: null`` → ``X`` (pi never sends null branches)."""
    for prop in (schema.get("properties") or {}).values():
        prop.pop("title", None)
        variants = prop.get("anyOf")
        if isinstance(variants, list):
            non_null = [v for v in variants if v != {"type": "null"}]
            if len(non_null) == 1 and len(non_null) < len(variants):
                del prop["anyOf"]
                if prop.get("default", ...) is None:
                    del prop["default"]
                prop.update(non_null[0])
    schema.pop("title", None)


class ToolParams(BaseModel):
    """Base of tool parameter models: camelCase on the wire, snake_case in Python, extras ignored."""

    model_config = ConfigDict(
        populate_by_name=True,
        extra="ignore",
        json_schema_extra=lambda schema, _cls: _collapse_optional(schema),
    )
