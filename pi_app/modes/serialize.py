"""Event serialisation shared by JSON mode and RPC (decisions D-4, D-12; R-JSON-03).

``event_to_wire`` is the one place an ``AgentSessionEvent`` becomes its pi 0.73.1 JSON object:
``message_update`` keeps the full shape (``assistantMessageEvent`` with ``partial``, plus
``message``) and unknown event types pass through, never dropped. ``LineWriter`` then encodes it
with the project's single line encoder.
"""

from __future__ import annotations

from typing import Any

from pi_app.coding.session_events import session_event_to_dict


def event_to_wire(event: Any) -> dict[str, Any]:
    return session_event_to_dict(event)
