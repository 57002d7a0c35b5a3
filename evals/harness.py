"""The evals harness: run a task in a temporary copy of its repository through a real agent session.

A ``Task`` is a small repository (files written into a fresh temporary folder, optionally built
further by ``setup``), a prompt, and a ``check`` that looks at the folder and at what the agent
did afterwards. ``drive`` replaces the single prompt for tasks that need more than one (a long
task that compacts, a branch made with the tree). ``run_task`` builds the session with
``create_agent_session`` (the public SDK: the real tools, the real session manager, compaction
and tree navigation), runs it, and records pass/fail, turns, tool calls, tokens, cost and time.

The model is either the scripted provider (``Variant.scripted``: each task's ``script`` answers
every request from the context it is sent, so the tool calls it makes are executed for real and
the check passes only because of them) or any configured model (``Variant.for_model``).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pi_app.ai.types import Context, Model

Files = Mapping[str, str]
Responder = Callable[["ScriptContext"], Sequence[Any]]
Driver = Callable[["TaskRun"], Awaitable[None]]
Checker = Callable[["TaskRun"], "CheckResult"]


@dataclass
class CheckResult:
    passed: bool
    reasons: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, *checks: tuple[bool, str]) -> CheckResult:
        """Pass when every ``(ok, what)`` holds; the failed ``what``s are the reasons."""
        failed = [what for ok, what in checks if not ok]
        return cls(not failed, failed)


@dataclass
class ToolCallRecord:
    name: str
    arguments: dict[str, Any]
    is_error: bool = False


@dataclass
class Task:
    """A repository, a prompt and a check (plus, for the scripted provider, a script)."""

    name: str
    description: str
    files: Files
    prompt: str
    check: Checker
    script: Responder
    setup: Callable[[Path], None] | None = None
    drive: Driver | None = None
    tools: Sequence[str] | None = None  # active tools (None: pi's default four)
    settings: Mapping[str, Any] | Callable[[Model], Mapping[str, Any]] = field(default_factory=dict)
    skills: Sequence[str] = ()  # skill folders inside the repository, loaded as with --skill
    context_window: int = 200_000  # of the scripted model
    timeout_s: float = 600.0
    max_turns: int = 60  # a model going round in circles is stopped here (the task fails)


@dataclass
class ScriptContext:
    """What the scripted model sees for one request, with helpers to read it."""

    context: Context
    workdir: Path
    request: int  # 0-based count of the requests of this task

    @property
    def system_prompt(self) -> str:
        return self.context.system_prompt or ""

    @property
    def messages(self) -> list[Any]:
        return list(self.context.messages)

    def last_user_text(self) -> str:
        for message in reversed(self.context.messages):
            if getattr(message, "role", None) == "user":
                return _text(message)
        return ""

    def results_since_user(self) -> list[Any]:
        """The tool results after the last user message (what this turn has learnt so far)."""
        out: list[Any] = []
        for message in reversed(self.context.messages):
            role = getattr(message, "role", None)
            if role == "user":
                break
            if role == "toolResult":
                out.append(message)
        return list(reversed(out))

    def result_texts(self, tool: str | None = None) -> list[str]:
        return [_text(m) for m in self.results_since_user() if tool is None or m.tool_name == tool]

    def calls_since_user(self) -> list[str]:
        """Names of the tools called since the last user message."""
        names: list[str] = []
        for message in reversed(self.context.messages):
            role = getattr(message, "role", None)
            if role == "user":
                break
            if role == "assistant":
                names[:0] = [b.name for b in message.content if getattr(b, "type", None) == "toolCall"]
        return names

    def all_text(self) -> str:
        """Every text the model was sent, system prompt included (summaries too)."""
        parts = [self.system_prompt]
        for message in self.context.messages:
            parts.append(_text(message))
            summary = getattr(message, "summary", None)
            if isinstance(summary, str):
                parts.append(summary)
        return "\n".join(parts)


def _text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") or "" for part in content)


@dataclass
class Variant:
    """One column of a comparison: a model (or the scripted provider) and settings."""

    label: str
    model: Model | None = None
    registry: Any = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    thinking_level: str = "off"

    @property
    def scripted(self) -> bool:
        return self.model is None

    @classmethod
    def scripted_provider(cls, settings: Mapping[str, Any] | None = None, label: str = "scripted") -> Variant:
        return cls(label, settings=dict(settings or {}))

    @classmethod
    def for_model(
        cls,
        spec: str | None,
        provider: str | None = None,
        settings: Mapping[str, Any] | None = None,
        thinking_level: str | None = None,
        agent_dir: Path | None = None,
        label: str | None = None,
    ) -> Variant:
        """A configured model, resolved as ``pi --provider/--model`` resolves it (credentials from
        the agent dir's ``auth.json`` / environment, custom models from ``models.json``)."""
        from pi_app.coding import paths
        from pi_app.coding.auth_storage import AuthStorage
        from pi_app.coding.models.registry import ModelRegistry
        from pi_app.coding.models.resolver import resolve_cli_model

        base = agent_dir or paths.agent_dir()
        registry = ModelRegistry(AuthStorage(base / "auth.json"), base / "models.json")
        resolved = resolve_cli_model(registry, provider, spec)
        model = resolved.model
        level = thinking_level or resolved.thinking_level or "off"
        name = label or f"{model.provider}/{model.id}" + (f":{level}" if level != "off" else "")
        return cls(name, model=model, registry=registry, settings=dict(settings or {}), thinking_level=level)


@dataclass
class TaskResult:
    task: str
    variant: str
    passed: bool
    reasons: list[str]
    turns: int
    tool_calls: list[ToolCallRecord]
    tokens: int
    cost: float
    seconds: float
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["tool_call_count"] = len(self.tool_calls)
        return out


@dataclass
class TaskRun:
    """A task being run: the session, its folder, and what happened so far."""

    task: Task
    workdir: Path
    session: Any
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    turns: int = 0
    tokens: int = 0
    cost: float = 0.0
    errors: list[str] = field(default_factory=list)
    model: Model | None = None

    # -- helpers for checks --------------------------------------------------------------------

    def file(self, rel: str) -> str | None:
        path = self.workdir / rel
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None

    def called(self, tool: str) -> bool:
        return any(c.name == tool for c in self.tool_calls)

    def tests_pass(self, *args: str) -> tuple[bool, str]:
        """Run the repository's tests (pytest) in the task folder."""
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
            cwd=self.workdir,
            capture_output=True,
            text=True,
            timeout=300,
        )
        tail = (done.stdout.strip().splitlines() or [""])[-1]
        return done.returncode == 0, f"tests pass (pytest: {tail})"

    def entries(self) -> list[Any]:
        return list(self.session.session_manager.get_entries())

    async def prompt(self, text: str) -> None:
        await self.session.prompt(text)
        await self.session.wait_for_idle()


def summarize_for_script(ctx: ScriptContext) -> list[Any] | None:
    """The scripted model's answer to a compaction or branch-summary request (None: not one).

    It keeps what a careful summariser keeps: every file the conversation wrote or edited, so a
    task can check that work done before a compaction is still known after it."""
    from pi_app.ai.testing import text
    from pi_app.coding.compaction.summarize import SUMMARIZATION_SYSTEM_PROMPT

    if ctx.system_prompt != SUMMARIZATION_SYSTEM_PROMPT:
        return None
    import re

    conversation = ctx.all_text()
    files = sorted(
        set(re.findall(r'"path"\s*:\s*"([^"]+)"', conversation))
        | set(re.findall(r"path=([\w./-]+)", conversation))
    )
    return [
        text(
            "## Goal\nFollow the user's steps.\n\n## Progress\n### Done\n"
            + "".join(f"- [x] wrote {f}\n" for f in files)
            + "\n## Files\n"
            + "".join(f"- {f}\n" for f in files)
        )
    ]


def _scripted_registry(task: Task) -> tuple[Any, Model, Any]:
    from pi_app.ai.auth import InMemoryCredentialStore
    from pi_app.ai.testing import fake_model, fake_provider
    from pi_app.ai.types import ModelCost
    from pi_app.coding.models.registry import ModelRegistry

    model = fake_model(
        "scripted",
        "scripted",
        context_window=task.context_window,
        max_tokens=8192,
        name="Scripted",
        cost=ModelCost(input=1.0, output=2.0),  # nominal prices, so the cost column is exercised too
    )
    provider = fake_provider("scripted", models=[model])
    registry = ModelRegistry(InMemoryCredentialStore(), None, builtin_providers=list)
    registry.models.set_provider(provider)
    return registry, provider.get_models()[0], provider


def _install_script(provider: Any, task: Task, workdir: Path) -> None:
    """Answer every request of the scripted provider with the task's script."""
    counter = {"n": 0}

    def turn(model: Model, context: Context, options: Any) -> Sequence[Any]:
        ctx = ScriptContext(context, workdir, counter["n"])
        counter["n"] += 1
        summary = summarize_for_script(ctx)
        return summary if summary is not None else task.script(ctx)

    provider.fake.script = _Forever(turn)


class _Forever(list):  # type: ignore[type-arg]
    """A script list that never runs out: ``pop(0)`` always gives the same responder."""

    def __init__(self, turn: Callable[..., Sequence[Any]]) -> None:
        super().__init__([turn])
        self.turn = turn

    def pop(self, index: int = -1) -> Callable[..., Sequence[Any]]:  # type: ignore[override]
        return self.turn


def _settings_for(task: Task, variant: Variant, model: Model) -> dict[str, Any]:
    task_settings = task.settings(model) if callable(task.settings) else task.settings
    merged: dict[str, Any] = {}
    for layer in (task_settings, variant.settings):
        for key, value in layer.items():
            if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
    return merged


async def _build_session(task: Task, variant: Variant, workdir: Path, agent_dir: Path) -> Any:
    from pi_app.coding.sdk import create_agent_session
    from pi_app.coding.session.manager import SessionManager
    from pi_app.coding.session.storage import JsonlSessionStorage
    from pi_app.coding.settings import SettingsManager

    if variant.scripted:
        registry, model, provider = _scripted_registry(task)
        _install_script(provider, task, workdir)
    else:
        registry, model = variant.registry, variant.model
        assert model is not None
    settings = SettingsManager.in_memory(_settings_for(task, variant, model))
    # a throwaway JSONL session beside the copy, whatever store the user's settings choose
    session_manager = SessionManager.create(
        str(workdir), str(agent_dir / "sessions"), storage=JsonlSessionStorage()
    )
    resource_loader = None
    if task.skills:
        from pi_app.coding.resources.loader import ResourceLoader

        resource_loader = ResourceLoader(
            str(workdir),
            agent_dir=agent_dir,
            settings=settings,
            model_registry=registry,
            additional_skill_paths=[str(workdir / s) for s in task.skills],
            no_extensions=True,
            no_context_files=True,
            offline=True,
            install_missing_packages=False,
        )
        await resource_loader.reload()
    created = await create_agent_session(
        str(workdir),
        agent_dir=agent_dir,
        session_manager=session_manager,
        settings_manager=settings,
        model_registry=registry,
        model=model,
        thinking_level=variant.thinking_level,
        tools=list(task.tools) if task.tools is not None else None,
        no_context_files=True,
        resource_loader=resource_loader,
    )
    return created.session


def _record(run: TaskRun) -> Callable[[Any], None]:
    def listener(event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind == "message_end":
            message = event.message
            if getattr(message, "role", None) != "assistant":
                return
            run.turns += 1
            if run.turns == run.task.max_turns:
                run.errors.append(f"stopped after {run.turns} turns")
                run.session.abort()
            usage = message.usage
            run.tokens += usage.total_tokens or (
                usage.input + usage.output + usage.cache_read + usage.cache_write
            )
            cost = usage.cost.total
            if not cost and run.model is not None:  # a provider that reports no cost: price it
                from pi_app.ai.util.cost import calculate_cost

                cost = calculate_cost(run.model, usage).total
            run.cost += cost
            if message.stop_reason == "error" and message.error_message:
                run.errors.append(message.error_message)
            for block in message.content:
                if getattr(block, "type", None) == "toolCall":
                    run.tool_calls.append(ToolCallRecord(block.name, dict(block.arguments)))
        elif kind == "tool_execution_end" and event.is_error:
            for record in reversed(run.tool_calls):
                if record.name == event.tool_name and not record.is_error:
                    record.is_error = True
                    break

    return listener


async def run_task(task: Task, variant: Variant, keep: bool = False) -> TaskResult:
    """Run ``task`` once in a fresh temporary copy; never raises for a task's failure."""
    root = Path(tempfile.mkdtemp(prefix=f"pi-eval-{task.name}-"))
    workdir = root / "repo"
    agent_dir = root / "agent"
    workdir.mkdir()
    agent_dir.mkdir()
    for rel, content in task.files.items():
        path = workdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    if task.setup is not None:
        task.setup(workdir)
    start = time.perf_counter()
    run: TaskRun | None = None
    error: str | None = None
    try:
        session = await _build_session(task, variant, workdir, agent_dir)
        run = TaskRun(task, workdir, session, model=session.model)
        unsubscribe = session.subscribe(_record(run))
        try:
            driver = task.drive or (lambda r: r.prompt(task.prompt))
            await asyncio.wait_for(driver(run), task.timeout_s)
        finally:
            unsubscribe()
        seconds = time.perf_counter() - start
        check = task.check(run)
    except Exception as exc:  # a crash is a failed task with its reason, not a failed harness
        seconds = time.perf_counter() - start
        error = f"{type(exc).__name__}: {exc}"
        check = CheckResult(False, [error])
    finally:
        if run is not None:
            run.session.dispose()
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    if run is not None and run.errors and not check.passed:
        check.reasons.extend(f"model error: {e}" for e in run.errors[:3])
    return TaskResult(
        task=task.name,
        variant=variant.label,
        passed=check.passed,
        reasons=check.reasons,
        turns=run.turns if run else 0,
        tool_calls=run.tool_calls if run else [],
        tokens=run.tokens if run else 0,
        cost=run.cost if run else 0.0,
        seconds=seconds,
        error=error,
    )


async def run_suite(
    tasks: Sequence[Task], variants: Sequence[Variant], on_result: Callable[[TaskResult], None] | None = None
) -> list[TaskResult]:
    results: list[TaskResult] = []
    for task in tasks:
        for variant in variants:
            result = await run_task(task, variant)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


# -- reporting -------------------------------------------------------------------------------------


def format_table(results: Sequence[TaskResult]) -> str:
    """One row per task; per variant: pass, turns, tool calls, tokens, cost, seconds."""
    variants = list(dict.fromkeys(r.variant for r in results))
    tasks = list(dict.fromkeys(r.task for r in results))
    by_key = {(r.task, r.variant): r for r in results}
    name_width = max([len("task"), *(len(t) for t in tasks)])
    cell = "{:<4} {:>5} {:>5} {:>8} {:>8} {:>7}"
    header_cells = [cell.format("ok", "turns", "tools", "tokens", "cost", "secs") for _ in variants]
    width = len(header_cells[0])
    lines = [
        " " * name_width + " | " + " | ".join(f"{v[:width]:<{width}}" for v in variants),
        f"{'task':<{name_width}} | " + " | ".join(header_cells),
        "-" * (name_width + 1) + "+" + "+".join("-" * (width + 2) for _ in variants),
    ]
    for task in tasks:
        cells = []
        for variant in variants:
            r = by_key.get((task, variant))
            if r is None:
                cells.append(" " * width)
                continue
            cells.append(
                cell.format(
                    "PASS" if r.passed else "FAIL",
                    r.turns,
                    len(r.tool_calls),
                    r.tokens,
                    f"{r.cost:.4f}",
                    f"{r.seconds:.1f}",
                )
            )
        lines.append(f"{task:<{name_width}} | " + " | ".join(cells))
    totals = []
    for variant in variants:
        rs = [r for r in results if r.variant == variant]
        totals.append(
            cell.format(
                f"{sum(r.passed for r in rs)}/{len(rs)}",
                sum(r.turns for r in rs),
                sum(len(r.tool_calls) for r in rs),
                sum(r.tokens for r in rs),
                f"{sum(r.cost for r in rs):.4f}",
                f"{sum(r.seconds for r in rs):.1f}",
            )
        )
    lines.append("-" * (name_width + 1) + "+" + "+".join("-" * (width + 2) for _ in variants))
    lines.append(f"{'total':<{name_width}} | " + " | ".join(totals))
    failures = [r for r in results if not r.passed]
    for r in failures:
        lines.append(f"FAIL {r.task} [{r.variant}]: " + "; ".join(r.reasons or ["(no reason)"]))
    return "\n".join(lines)


def json_report(results: Sequence[TaskResult]) -> dict[str, Any]:
    variants = list(dict.fromkeys(r.variant for r in results))
    return {
        "variants": [
            {
                "label": v,
                "passed": sum(r.passed for r in results if r.variant == v),
                "tasks": sum(1 for r in results if r.variant == v),
                "tokens": sum(r.tokens for r in results if r.variant == v),
                "cost": sum(r.cost for r in results if r.variant == v),
            }
            for v in variants
        ],
        "results": [r.to_dict() for r in results],
    }


def write_json_report(results: Sequence[TaskResult], path: str | os.PathLike[str]) -> None:
    Path(path).write_text(json.dumps(json_report(results), indent=2) + "\n", encoding="utf-8")
