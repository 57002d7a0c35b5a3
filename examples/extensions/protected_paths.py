"""Protected paths: ``write`` and ``edit`` may not touch secrets or generated directories.

Blocks ``.env`` files, anything under ``.git/`` or ``node_modules/``, plus the comma-separated
globs given with ``--protected`` (e.g. ``--protected "secrets/*,*.pem"``). Bash is not inspected:
pair this with ``permission_gate.py`` for shell commands.

    pi -e examples/extensions/protected_paths.py --protected "config/prod.yaml"
"""

from __future__ import annotations

import fnmatch
import os

from pi_app.ext import ExtensionAPI, ToolCallEvent, ToolCallResult

DEFAULT_PATTERNS = (
    ".env",
    ".env.*",
    "*/.env",
    "*/.env.*",
    ".git/*",
    "*/.git/*",
    "node_modules/*",
    "*/node_modules/*",
)
GUARDED_TOOLS = ("write", "edit")


def is_protected(path: str, cwd: str, extra: list[str]) -> bool:
    raw = path[1:] if path.startswith("@") else path
    absolute = raw if os.path.isabs(raw) else os.path.join(cwd, raw)
    rel = os.path.relpath(os.path.normpath(absolute), cwd).replace(os.sep, "/")
    candidates = {rel, os.path.basename(rel)}
    return any(fnmatch.fnmatchcase(c, p) for p in (*DEFAULT_PATTERNS, *extra) for c in candidates)


def setup(pi: ExtensionAPI) -> None:
    pi.register_flag("protected", type="string", description="Extra protected path globs, comma-separated")

    @pi.on("tool_call")
    def guard(event: ToolCallEvent, ctx) -> ToolCallResult | None:
        if event.tool_name not in GUARDED_TOOLS:
            return None
        path = str(event.input.get("path", ""))
        extra = [p.strip() for p in str(pi.get_flag("protected") or "").split(",") if p.strip()]
        if path and is_protected(path, ctx.cwd, extra):
            if ctx.has_ui:
                ctx.ui.notify(f"Blocked {event.tool_name} to protected path {path}", "warning")
            return ToolCallResult(block=True, reason=f'Path "{path}" is protected')
        return None
