"""``/debug`` and Shift+Ctrl+D: write ``<agentDir>/pi-debug.log`` (R-TUI-13).

The log holds the terminal size, every rendered transcript line with its cell width, and every
agent message as one JSON line, so a rendering bug can be reported without a screenshot.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len

from pi_app.ai.codec import encode_line
from pi_app.coding.messages import message_to_dict

if TYPE_CHECKING:
    from pi_app.agent.types import AgentMessage
    from pi_app.tui.host import CommandHost


async def write_debug_log(app: CommandHost) -> Path:
    """The log as of now: the screen here, the messages asked of the session on its loop."""
    messages: list[AgentMessage] = []
    if app.session is not None:
        messages = await app.bridge.request(lambda s: list(s.messages))
    path = Path(app.agent_dir) / "pi-debug.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"terminal: {app.size.width}x{app.size.height}", "", "transcript:"]
    for line in app.transcript.plain_lines():
        lines.append(f"[{cell_len(line):4}] {line}")
    lines += ["", "messages:"]
    for message in messages:
        try:
            lines.append(encode_line(message_to_dict(message)))
        except Exception:
            lines.append(repr(message))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
