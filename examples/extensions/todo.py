"""A to-do list tool whose state lives in session entries (70 R-NOGO-07).

The model calls ``todo`` with ``action`` = ``list`` / ``add`` / ``toggle`` / ``clear``. After every
change the whole list is appended as a ``todo`` custom entry (never sent to the model), so the
list follows the session branch: resuming, forking or ``/tree`` navigation restore the list of that
point. ``/todos`` shows it. Nothing in pi's core knows about to-dos.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pi_app.ext import ExtensionAPI, ToolDefinition, ToolParams, text_result

ENTRY_TYPE = "todo"


class TodoParams(ToolParams):
    action: Literal["list", "add", "toggle", "clear"] = Field(description="What to do")
    text: str | None = Field(default=None, description="The item text (add)")
    id: int | None = Field(default=None, description="The item number (toggle)")


def format_todos(todos: list[dict[str, Any]]) -> str:
    if not todos:
        return "No to-dos."
    return "\n".join(f"{t['id']}. [{'x' if t['done'] else ' '}] {t['text']}" for t in todos)


def restore(entries: list[Any]) -> list[dict[str, Any]]:
    """The list stored by the last ``todo`` entry on the current branch."""
    for entry in reversed(entries):
        if (
            isinstance(entry, dict)
            and entry.get("type") == "custom"
            and entry.get("customType") == ENTRY_TYPE
        ):
            data = entry.get("data") or {}
            return [dict(t) for t in data.get("todos", [])]
    return []


def setup(pi: ExtensionAPI) -> None:
    todos: list[dict[str, Any]] = []

    @pi.on("session_start")
    def load(event, ctx) -> None:
        todos[:] = restore(ctx.session_manager.get_branch())

    @pi.on("session_tree")
    def follow_branch(event, ctx) -> None:
        todos[:] = restore(ctx.session_manager.get_branch())

    def save() -> None:
        pi.append_entry(ENTRY_TYPE, {"todos": todos})

    async def execute(tool_call_id, params, signal, on_update, ctx):
        action = params["action"]
        if action == "add":
            text = (params.get("text") or "").strip()
            if not text:
                raise ValueError("add needs a non-empty text")
            todos.append({"id": max((t["id"] for t in todos), default=0) + 1, "text": text, "done": False})
            save()
        elif action == "toggle":
            item = next((t for t in todos if t["id"] == params.get("id")), None)
            if item is None:
                raise ValueError(f"No to-do with id {params.get('id')}")
            item["done"] = not item["done"]
            save()
        elif action == "clear":
            todos.clear()
            save()
        return text_result(format_todos(todos), details={"todos": [dict(t) for t in todos]})

    pi.register_tool(
        ToolDefinition(
            name="todo",
            label="To-do",
            description="Manage a to-do list for this session: list, add, toggle (by id) or clear items.",
            parameters=TodoParams,
            execute=execute,
            prompt_snippet="Keep a to-do list for multi-step work",
            prompt_guidelines=[
                "Use the todo tool to track multi-step tasks and tick items off as you finish them"
            ],
        )
    )

    async def show(args: str, ctx) -> None:
        ctx.ui.notify(format_todos(todos), "info")

    pi.register_command("todos", handler=show, description="Show the to-do list")
