"""Event serialisation shared by JSON mode and RPC (decisions D-4, D-12).

One compact line per event, written with the project's single line encoder. ``message_update``
keeps pi 0.73.1's full shape; unknown event types are never dropped.
"""

from __future__ import annotations

from typing import Any

from pi_app.ai.codec import encode_line
from pi_app.coding.session_events import session_event_to_dict


def event_line(event: Any) -> str:
    return encode_line(session_event_to_dict(event))
