"""The evals under pytest: every task passes with its script, and fails without the work being done
(so no check is satisfied by the repository alone); the harness's records, table, JSON report,
comparison columns, turn limit, and the real-model path (a configured provider on the loopback
fake server, selected by PI_PROVIDER / PI_MODEL).

Run with ``.venv/bin/python -m pytest evals`` (not part of the project's test paths);
``python -m evals --provider scripted`` runs the same tasks and prints the table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.__main__ import main
from evals.harness import CheckResult, ScriptContext, Task, Variant, format_table, json_report, run_task
from evals.tasks import ALL_TASKS, select
from evals.tasks._script import call, say
from pi_app.ai.testing import text, tool_call
from tests.e2e.helpers import write_models_json
from tests.fakes.llm_server import FakeLLMServer


def test_there_are_at_least_ten_tasks_covering_the_products_features() -> None:
    names = {t.name for t in ALL_TASKS}
    assert len(names) == len(ALL_TASKS) >= 10
    for wanted in (
        "fuzzy_edit",
        "grep_large_tree",
        "fix_failing_test",
        "compaction_long_task",
        "tree_branch",
    ):
        assert wanted in names
    assert any(t.skills for t in ALL_TASKS)


@pytest.mark.parametrize("task", ALL_TASKS, ids=lambda t: t.name)
async def test_every_task_passes_with_its_script_through_real_tools(task: Task) -> None:
    result = await run_task(task, Variant.scripted_provider())
    assert result.passed, result.reasons
    assert result.tool_calls and not any(c.is_error for c in result.tool_calls if c.name != "bash")
    assert result.turns >= 2 and result.tokens > 0 and result.cost > 0 and result.seconds > 0


@pytest.mark.parametrize("task", ALL_TASKS, ids=lambda t: t.name)
async def test_every_task_fails_when_the_model_does_nothing(task: Task) -> None:
    idle = Task(**{**task.__dict__, "script": lambda ctx: say("I will not do that.")})
    result = await run_task(idle, Variant.scripted_provider())
    assert not result.passed and result.reasons
    assert result.tool_calls == []


async def test_a_tool_that_fails_is_recorded_and_the_check_names_what_is_missing() -> None:
    def wrong(ctx: ScriptContext) -> list:
        if not ctx.calls_since_user():
            return call("edit", path="shop.py", edits=[{"oldText": "no such text", "newText": "x"}])
        return say("done")

    task = Task(**{**select(["fuzzy_edit"])[0].__dict__, "script": wrong})
    result = await run_task(task, Variant.scripted_provider())
    assert not result.passed
    assert [c.name for c in result.tool_calls] == ["edit"] and result.tool_calls[0].is_error
    assert "edit was called and succeeded" in result.reasons


async def test_a_model_going_round_in_circles_is_stopped() -> None:
    task = Task(
        name="loop",
        description="never stops calling tools",
        files={"a.txt": "a\n"},
        prompt="loop",
        check=lambda run: CheckResult.of((False, "never done")),
        script=lambda ctx: call("read", path="a.txt"),
        max_turns=5,
    )
    result = await run_task(task, Variant.scripted_provider())
    assert not result.passed and result.turns <= 6
    assert any("stopped after 5 turns" in r for r in result.reasons)


async def test_table_and_json_report_compare_two_settings_side_by_side() -> None:
    task = select(["compaction_long_task"])[0]
    on = await run_task(task, Variant.scripted_provider(label="compaction on"))
    off = await run_task(
        task, Variant.scripted_provider({"compaction": {"enabled": False}}, label="compaction off")
    )
    assert on.passed and not off.passed  # without compaction there is no compaction entry
    table = format_table([on, off])
    header = table.splitlines()[0]
    assert "compaction on" in header and "compaction off" in header
    row = next(line for line in table.splitlines() if line.startswith("compaction_long_task"))
    assert "PASS" in row and "FAIL" in row
    report = json_report([on, off])
    assert [v["label"] for v in report["variants"]] == ["compaction on", "compaction off"]
    assert [v["passed"] for v in report["variants"]] == [1, 0]
    first = report["results"][0]
    assert {
        "task",
        "variant",
        "passed",
        "turns",
        "tool_calls",
        "tool_call_count",
        "tokens",
        "cost",
        "seconds",
    } <= set(first)
    json.dumps(report)


def test_cli_runs_tasks_prints_the_table_and_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    code = main(
        ["--provider", "scripted", "--task", "multi_edit", "--task", "read_offset", "--json", str(report)]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "multi_edit" in out and "read_offset" in out and "2/2" in out
    data = json.loads(report.read_text())
    assert [r["task"] for r in data["results"]] == ["multi_edit", "read_offset"]
    assert main(["--task", "nope"]) == 2


def test_cli_runs_a_configured_model_from_pi_provider_and_pi_model(
    llm_server: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """The real-model path end to end: models.json names a provider (here the loopback server
    speaking the OpenAI wire format); PI_PROVIDER / PI_MODEL choose it; the model's tool calls run."""
    import os

    write_models_json(Path(os.environ["PI_CODING_AGENT_DIR"]), llm_server.base_url, contextWindow=100_000)
    monkeypatch.setenv("PI_PROVIDER", "fake")
    monkeypatch.setenv("PI_MODEL", "fake-model")
    llm_server.enqueue(tool_call("bash", {"command": "python tools/gen_report.py"}))
    llm_server.enqueue(tool_call("write", {"path": "result.txt", "content": "76127\n"}))
    llm_server.enqueue(text("Saved."))
    code = main(["--task", "bash_pipeline", "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "fake/fake-model" in out and "PASS" in out
    bodies = [r.body for r in llm_server.requests]
    assert len(bodies) == 3 and any("76127" in json.dumps(b) for b in bodies[1:])  # the real output went back
