"""Event serialisation shared by JSON mode and RPC (decisions D-4, D-12; R-JSON-03; issue 18).

``event_to_wire`` is the one place an ``AgentSessionEvent`` becomes its pi 1.6.0 JSON object, and
unknown event types pass through, never dropped. ``message_update`` is delta-only on the wire, as
1.6.0 writes it: ``{"type", "usage", "assistantMessageEvent"}`` with the nested event's cumulative
``partial`` left out (``toolcall_start`` carries ``id`` and ``toolName`` instead), so each line
costs O(delta) to build and the stream of one answer grows linearly with its length (0.73.1 wrote
the whole message twice per delta). ``LineWriter`` then encodes it with the project's single encoder.
"""

from __future__ import annotations

from typing import Any

from pi_app.coding.session_events import session_event_to_dict


def event_to_wire(event: Any) -> dict[str, Any]:
    return session_event_to_dict(event)
