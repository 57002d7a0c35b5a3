"""JSON mode: ``pi --mode json "prompt"`` (spec 60 §3.15).

stdout carries only JSON lines: first the session header (exactly the session file's header),
then every session event in emission order, written through the guarded ``LineWriter`` so nothing
else can reach it. Diagnostics go to stderr. Exit 0 once the last prompt has settled (errors are
visible as events); 1 only for start-up failures.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pi_app.coding.agent_session import NoModelError
from pi_app.modes.output import LineWriter
from pi_app.modes.print_mode import run_prompts
from pi_app.modes.serialize import event_to_wire

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession


async def run_json_mode(
    session: AgentSession, out: LineWriter, first_text: str | None, images: Sequence[Any], more: Sequence[str]
) -> int:
    out.write(session.session_manager.get_header().raw)
    unsubscribe = session.subscribe(lambda event: out.write(event_to_wire(event)))
    try:
        await run_prompts(session, first_text, images, more)
    except NoModelError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    finally:
        unsubscribe()
        out.close()
    return 0
