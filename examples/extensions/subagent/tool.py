"""The ``subagent`` tool (see ``__init__.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from pi_app.ext import AgentToolResult, ExtensionAPI, TextContent, ToolDefinition, ToolParams

from .definitions import AgentDefinition, load_agents

MAX_PARALLEL_TASKS = 8
MAX_CONCURRENCY = 4


class Task(BaseModel):
    agent: str
    task: str


class SubagentParams(ToolParams):
    agent: str | None = Field(default=None, description="Agent name (single mode)")
    task: str | None = Field(default=None, description="Task for the agent (single mode)")
    tasks: list[Task] | None = Field(default=None, description="Parallel mode: independent tasks")
    chain: list[Task] | None = Field(
        default=None, description="Chain mode: tasks run in order; {previous} is the last output"
    )
    agent_scope: str | None = Field(default=None, description='"user" (default), "project" or "both"')


def child_command() -> list[str]:
    override = os.environ.get("PI_SUBAGENT_COMMAND")
    return shlex.split(override) if override else [sys.executable, "-m", "pi_app"]


def agent_dir() -> Path:
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(os.path.expanduser(env)) if env else Path.home() / ".pi" / "agent"


def _usage_of(message: dict[str, Any]) -> dict[str, int]:
    usage = message.get("usage") or {}
    return {k: int(usage.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite")}


def _text_of(message: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text")


async def run_child(
    definition: AgentDefinition, task: str, cwd: str, signal: Any, on_text: Any = None
) -> dict[str, Any]:
    argv = [*child_command(), "--mode", "json", "-p", "--no-session"]
    if definition.model:
        argv += ["--model", definition.model]
    if definition.tools:
        argv += ["--tools", definition.tools]
    if definition.system_prompt:
        argv += ["--append-system-prompt", definition.system_prompt]
    argv.append(task)
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    remove = signal.add_listener(lambda: _kill(process)) if signal is not None else None
    output, usage = "", {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    try:
        assert process.stdout is not None
        async for raw in process.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            message = event.get("message") if isinstance(event, dict) else None
            if (
                event.get("type") == "message_end"
                and isinstance(message, dict)
                and message.get("role") == "assistant"
            ):
                output = _text_of(message) or output
                usage = {k: usage[k] + v for k, v in _usage_of(message).items()}
                if on_text is not None:
                    on_text(output)
        stderr = (await process.stderr.read()).decode("utf-8", "replace") if process.stderr else ""
        code = await process.wait()
    finally:
        if remove is not None:
            remove()
        if process.returncode is None:
            _kill(process)
    if signal is not None and signal.aborted:
        raise RuntimeError(f"Sub-agent {definition.name} was aborted")
    if code != 0:
        detail = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit status {code}"
        raise RuntimeError(f"Sub-agent {definition.name} failed: {detail}")
    return {"agent": definition.name, "task": task, "output": output, "usage": usage}


def _kill(process: asyncio.subprocess.Process) -> None:
    import signal as signals

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signals.SIGKILL)


def setup(pi: ExtensionAPI) -> None:
    async def execute(tool_call_id, params, signal, on_update, ctx) -> AgentToolResult:
        scope = params.get("agent_scope") or "user"
        user_dir = agent_dir() / "agents" if scope in ("user", "both") else None
        project_dir = Path(ctx.cwd) / ".pi" / "agents" if scope in ("project", "both") else None
        agents = load_agents(user_dir, project_dir)
        if project_dir is not None and any(a.source == "project" for a in agents.values()) and ctx.has_ui:
            if not await ctx.ui.confirm(
                "Run project agents?", f"Agent definitions from {project_dir} will run."
            ):
                raise RuntimeError("Project agents were not confirmed")

        def pick(name: str) -> AgentDefinition:
            if name not in agents:
                known = ", ".join(sorted(agents)) or "none"
                raise ValueError(f'Unknown agent "{name}" (available: {known})')
            return agents[name]

        def progress(label: str):
            def report(text: str) -> None:
                if on_update is not None:
                    on_update(AgentToolResult([TextContent(f"{label}: {text[-400:]}")]))

            return report

        if params.get("tasks"):
            tasks = params["tasks"]
            if len(tasks) > MAX_PARALLEL_TASKS:
                raise ValueError(f"Too many parallel tasks ({len(tasks)}); the limit is {MAX_PARALLEL_TASKS}")
            gate = asyncio.Semaphore(MAX_CONCURRENCY)

            async def one(item: dict[str, Any]) -> dict[str, Any]:
                async with gate:
                    return await run_child(
                        pick(item["agent"]), item["task"], ctx.cwd, signal, progress(item["agent"])
                    )

            results = await asyncio.gather(*(one(t) for t in tasks))
            mode = "parallel"
        elif params.get("chain"):
            results, previous = [], ""
            for item in params["chain"]:
                task = item["task"].replace("{previous}", previous)
                result = await run_child(pick(item["agent"]), task, ctx.cwd, signal, progress(item["agent"]))
                results.append(result)
                previous = result["output"]
            mode = "chain"
        elif params.get("agent") and params.get("task"):
            results = [
                await run_child(
                    pick(params["agent"]), params["task"], ctx.cwd, signal, progress(params["agent"])
                )
            ]
            mode = "single"
        else:
            raise ValueError("Give agent+task, tasks (parallel) or chain")
        text = (
            "\n\n".join(f"## {r['agent']}\n{r['output']}" for r in results)
            if mode != "single"
            else results[0]["output"]
        )
        total = {
            k: sum(r["usage"][k] for r in results) for k in ("input", "output", "cacheRead", "cacheWrite")
        }
        return AgentToolResult([TextContent(text)], {"mode": mode, "results": results, "usage": total})

    pi.register_tool(
        ToolDefinition(
            name="subagent",
            label="Sub-agent",
            description=(
                "Delegate work to specialised sub-agents running as separate pi processes. "
                "Use agent+task for one task, tasks for independent parallel work (max 8), "
                "or chain for sequential steps where {previous} is replaced by the last output."
            ),
            parameters=SubagentParams,
            execute=execute,
            prompt_snippet="Delegate tasks to specialised sub-agents (separate pi processes)",
        )
    )
