"""Plan mode: the extension itself (see ``__init__.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pi_app.ext import (
    BeforeAgentStartResult,
    ExtensionAPI,
    TextContent,
    ToolCallResult,
)

from .commands import is_read_only_command

ENTRY_TYPE = "plan-mode"
WIDGET_KEY = "plan"
READ_ONLY_TOOLS = ("read", "grep", "find", "ls", "bash")
PLAN_INSTRUCTION = (
    "You are in PLAN MODE. Do not change any file. Investigate with read-only tools, then answer "
    "with a numbered list of concrete steps under a line that says 'Plan:'."
)
EXECUTE_INSTRUCTION = "Execute the plan step by step. After finishing step n, write [DONE:n] in your reply."
_PLAN_HEADING = re.compile(r"^\s*(?:#+\s*)?\**plan:?\**\s*:?\s*$", re.IGNORECASE)
_STEP = re.compile(r"^\s*(\d+)[.)]\s+(.+?)\s*$")
_DONE = re.compile(r"\[DONE:(\d+)\]")


@dataclass
class PlanState:
    enabled: bool = False
    executing: bool = False
    steps: list[str] = field(default_factory=list)
    done: set[int] = field(default_factory=set)
    saved_tools: list[str] | None = None

    def to_data(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "executing": self.executing,
            "steps": self.steps,
            "done": sorted(self.done),
            "savedTools": self.saved_tools,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> PlanState:
        return cls(
            bool(data.get("enabled")),
            bool(data.get("executing")),
            [str(s) for s in data.get("steps", [])],
            {int(n) for n in data.get("done", [])},
            data.get("savedTools"),
        )


def extract_plan(text: str) -> list[str]:
    """Numbered steps after a ``Plan:`` line (the first numbered block after the heading)."""
    steps: list[str] = []
    in_plan = False
    for line in text.splitlines():
        if _PLAN_HEADING.match(line):
            in_plan, steps = True, []
            continue
        if not in_plan:
            continue
        match = _STEP.match(line)
        if match:
            steps.append(match.group(2))
        elif steps and line.strip():
            break
    return steps


def message_text(message: Any) -> str:
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    return "\n".join(b.text for b in content or [] if isinstance(b, TextContent))


def progress_lines(state: PlanState) -> list[str]:
    lines = [f"Plan ({len(state.done)}/{len(state.steps)} done)"]
    lines += [
        f"  {'[x]' if i in state.done else '[ ]'} {i}. {step}" for i, step in enumerate(state.steps, start=1)
    ]
    return lines


def setup(pi: ExtensionAPI) -> None:
    state = PlanState()
    pi.register_flag("plan", type="boolean", default=False, description="Start in plan mode")

    def persist() -> None:
        pi.append_entry(ENTRY_TYPE, state.to_data())

    def show(ctx) -> None:
        if state.enabled:
            ctx.ui.set_status(WIDGET_KEY, "plan mode")
        else:
            ctx.ui.set_status(WIDGET_KEY, None)
        ctx.ui.set_widget(
            WIDGET_KEY, progress_lines(state) if state.steps and (state.executing or state.enabled) else None
        )

    def enter(ctx) -> None:
        state.enabled, state.executing = True, False
        state.saved_tools = pi.get_active_tools()
        available = {t.name for t in pi.get_all_tools()}
        pi.set_active_tools([t for t in READ_ONLY_TOOLS if t in available])
        persist()
        show(ctx)

    def leave(ctx, *, executing: bool = False) -> None:
        state.enabled, state.executing = False, executing
        if state.saved_tools is not None:
            pi.set_active_tools(state.saved_tools)
        state.saved_tools = None
        persist()
        show(ctx)

    async def toggle(args: str, ctx) -> None:
        if state.enabled:
            leave(ctx)
            ctx.ui.notify("Plan mode off: all tools are back", "info")
        else:
            enter(ctx)
            ctx.ui.notify("Plan mode on: read-only tools only", "info")

    def execute_plan(ctx) -> None:
        leave(ctx, executing=True)
        steps = "\n".join(f"{i}. {s}" for i, s in enumerate(state.steps, start=1))
        pi.send_user_message(f"Execute the plan:\n{steps}", deliver_as="followUp")

    async def execute_command(args: str, ctx) -> None:
        if not state.steps:
            ctx.ui.notify("No plan yet: ask for one in plan mode first", "warning")
            return
        execute_plan(ctx)

    pi.register_command("plan", handler=toggle, description="Toggle plan mode (read-only planning)")
    pi.register_command("plan-execute", handler=execute_command, description="Execute the current plan")
    pi.register_shortcut("ctrl+alt+p", handler=lambda ctx: toggle("", ctx), description="Toggle plan mode")

    @pi.on("session_start")
    def restore(event, ctx) -> None:
        for entry in reversed(ctx.session_manager.get_branch()):
            if (
                isinstance(entry, dict)
                and entry.get("type") == "custom"
                and entry.get("customType") == ENTRY_TYPE
            ):
                restored = PlanState.from_data(entry.get("data") or {})
                state.__dict__.update(restored.__dict__)
                break
        if event.reason == "startup" and pi.get_flag("plan") and not state.enabled:
            enter(ctx)
        elif state.enabled:
            available = {t.name for t in pi.get_all_tools()}
            pi.set_active_tools([t for t in READ_ONLY_TOOLS if t in available])
        show(ctx)

    @pi.on("tool_call")
    def gate(event, ctx) -> ToolCallResult | None:
        if not state.enabled:
            return None
        if event.tool_name not in READ_ONLY_TOOLS:
            return ToolCallResult(
                block=True, reason=f"Plan mode: {event.tool_name} is not allowed while planning"
            )
        if event.tool_name == "bash" and not is_read_only_command(str(event.input.get("command", ""))):
            return ToolCallResult(
                block=True,
                reason="Plan mode: only read-only commands are allowed while planning "
                f"(blocked: {event.input.get('command')})",
            )
        return None

    @pi.on("before_agent_start")
    def instruct(event, ctx) -> BeforeAgentStartResult | None:
        if state.enabled:
            return BeforeAgentStartResult(
                message={"custom_type": "plan-mode-context", "content": PLAN_INSTRUCTION, "display": False}
            )
        if state.executing:
            return BeforeAgentStartResult(
                message={"custom_type": "plan-mode-context", "content": EXECUTE_INSTRUCTION, "display": False}
            )
        return None

    @pi.on("turn_end")
    def track(event, ctx) -> None:
        text = message_text(event.message)
        if state.executing:
            newly = {int(n) for n in _DONE.findall(text)} - state.done
            if newly:
                state.done |= {n for n in newly if 1 <= n <= len(state.steps)}
                if len(state.done) == len(state.steps):
                    state.executing = False
                    ctx.ui.notify("Plan complete", "info")
                persist()
                show(ctx)
        elif state.enabled:
            steps = extract_plan(text)
            if steps:
                state.steps, state.done = steps, set()
                persist()
                show(ctx)

    @pi.on("agent_end")
    async def offer(event, ctx) -> None:
        if not state.enabled or not state.steps or not ctx.has_ui:
            return
        choice = await ctx.ui.select("Plan ready. What next?", ["Execute the plan", "Stay in plan mode"])
        if choice == "Execute the plan":
            execute_plan(ctx)
