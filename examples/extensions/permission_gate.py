"""Permission gate: ask before running dangerous bash commands (70 R-NOGO-04).

Recursive ``rm``, ``sudo`` and ``chmod``/``chown … 777`` need a "Yes" in a dialog. Without a UI
(print or JSON mode, or RPC without a UI client) such commands are blocked outright, so a headless
run never does something nobody approved.

    pi -e examples/extensions/permission_gate.py
"""

from __future__ import annotations

import re

from pi_app.ext import ExtensionAPI, ToolCallEvent, ToolCallResult, is_tool_call_event_type

DANGEROUS_PATTERNS = (
    re.compile(r"\brm\s+(?:-[a-zA-Z]*[rR][a-zA-Z]*\b|--recursive\b)"),
    re.compile(r"(?:^|[;&|\s])sudo\b"),
    re.compile(r"\b(?:chmod|chown)\b.*\b777\b"),
)

BLOCKED_BY_USER = "Blocked by user"
BLOCKED_NO_UI = "Dangerous command blocked (no UI for confirmation)"


def is_dangerous(command: str) -> bool:
    return any(pattern.search(command) for pattern in DANGEROUS_PATTERNS)


def setup(pi: ExtensionAPI) -> None:
    @pi.on("tool_call")
    async def gate(event: ToolCallEvent, ctx) -> ToolCallResult | None:
        if not is_tool_call_event_type("bash", event):
            return None
        command = str(event.input.get("command", ""))
        if not is_dangerous(command):
            return None
        if not ctx.has_ui:
            return ToolCallResult(block=True, reason=BLOCKED_NO_UI)
        choice = await ctx.ui.select(f"Dangerous command:\n\n  {command}\n\nAllow it?", ["Yes", "No"])
        if choice != "Yes":
            return ToolCallResult(block=True, reason=BLOCKED_BY_USER)
        return None
