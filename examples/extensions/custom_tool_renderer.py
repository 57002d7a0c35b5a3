"""A custom tool with its own renderers: ``roll_dice``.

``render_call(args, theme)`` draws the call line and ``render_result(result, options, theme)`` the
result; both return Rich renderables. When a renderer returns None or raises, the TUI falls back to
the default rendering (spec 40 R-EXT-15), so a renderer can handle only the cases it cares about.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field
from rich.text import Text

from pi_app.ext import AgentToolResult, ExtensionAPI, TextContent, ToolDefinition, ToolParams


class DiceParams(ToolParams):
    count: int = Field(default=1, ge=1, le=20, description="How many dice")
    sides: int = Field(default=6, ge=2, le=1000, description="Sides per die")


FACES = {1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅"}


def render_call(args: dict[str, Any], theme: Any) -> Text:
    return Text.assemble(("roll ", "bold"), (f"{args.get('count', 1)}d{args.get('sides', 6)}", "cyan"))


def render_result(result: AgentToolResult, options: Any, theme: Any) -> Text | None:
    details = result.details or {}
    rolls = details.get("rolls")
    if not rolls:
        return None  # e.g. an error result: use the default rendering
    faces = " ".join(FACES.get(r, str(r)) if details.get("sides") == 6 else str(r) for r in rolls)
    line = Text.assemble((faces, "bold"), "  total ", (str(sum(rolls)), "green"))
    if getattr(options, "expanded", False):
        line.append(f"\n{len(rolls)} dice, {details.get('sides')} sides", style="dim")
    return line


def setup(pi: ExtensionAPI, rng: random.Random | None = None) -> None:
    generator = rng or random.Random()

    async def execute(tool_call_id, params, signal, on_update, ctx) -> AgentToolResult:
        count, sides = int(params.get("count", 1)), int(params.get("sides", 6))
        rolls = [generator.randint(1, sides) for _ in range(count)]
        text = f"Rolled {count}d{sides}: {', '.join(map(str, rolls))} (total {sum(rolls)})"
        return AgentToolResult([TextContent(text)], {"rolls": rolls, "sides": sides})

    pi.register_tool(
        ToolDefinition(
            name="roll_dice",
            label="Roll dice",
            description="Roll dice and report each die and the total.",
            parameters=DiceParams,
            execute=execute,
            prompt_snippet="Roll dice",
            render_call=render_call,
            render_result=render_result,
        )
    )
