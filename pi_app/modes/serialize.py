"""Event serialisation shared by JSON mode and RPC (decisions D-4, D-12; R-JSON-03).

``event_to_wire`` is the one place an ``AgentSessionEvent`` becomes its pi 0.73.1 JSON object:
``message_update`` keeps the full shape (``assistantMessageEvent`` with ``partial``, plus
``message``) and unknown event types pass through, never dropped. ``LineWriter`` then encodes it
with the project's single encoder.

pi writes the streaming message twice in every ``message_update`` (as ``partial`` and as
``message``), so a long reply's last updates are lines of twice its size. When both are the same
message, ``event_to_wire`` encodes it once and returns the line as ``JsonParts``: the bytes on the
wire are the same, the memory for one update drops from about four copies of the reply to one.
"""

from __future__ import annotations

from typing import Any

from pi_app.ai.codec import encode_json
from pi_app.coding.session_events import session_event_to_dict
from pi_app.modes.output import JsonParts

_UPDATE_KEYS = ["type", "assistantMessageEvent", "message"]


def event_to_wire(event: Any) -> dict[str, Any] | JsonParts:
    data = session_event_to_dict(event)
    if data.get("type") == "message_update":
        return _message_update_parts(data) or data
    return data


def _message_update_parts(data: dict[str, Any]) -> JsonParts | None:
    inner = data.get("assistantMessageEvent")
    if list(data) != _UPDATE_KEYS or not isinstance(inner, dict) or list(inner)[-1:] != ["partial"]:
        return None
    message = data["message"]
    if inner["partial"] != message:  # cheap: both dicts share the same text objects
        return None
    head = encode_json(
        {"type": data["type"], "assistantMessageEvent": {k: inner[k] for k in list(inner)[:-1]}}
    )
    encoded = encode_json(message)
    # ``head`` ends with the two closing braces; the message goes back in as the last key of both
    return JsonParts((head[:-2], ',"partial":', encoded, '},"message":', encoded, "}"))
