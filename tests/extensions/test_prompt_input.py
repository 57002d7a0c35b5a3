"""The input pipeline: command -> input event -> skill -> template (spec 40 R-PRM-08, R-EXT-48,
scenarios 7, 14, 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_app.coding.extensions.prompt_input import CommandNotQueueableError, prepare_user_input
from pi_app.coding.resources.diagnostics import PathMetadata
from pi_app.coding.resources.prompt_templates import load_prompt_templates_from_path
from pi_app.coding.resources.skills import load_skills_from_path

from .helpers import FakeHost, load


@pytest.fixture
def resources(tmp_path: Path):
    (tmp_path / "skills" / "tdd").mkdir(parents=True)
    (tmp_path / "skills" / "tdd" / "SKILL.md").write_text("---\ndescription: TDD\n---\nRed green refactor\n")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "component.md").write_text("Create $1 with $@ and ${@:2}")
    skills, _ = load_skills_from_path(tmp_path / "skills", PathMetadata())
    templates, _ = load_prompt_templates_from_path(tmp_path / "prompts", PathMetadata(), recursive=False)
    return skills, templates


async def test_order_and_expansions(tmp_path: Path, resources) -> None:
    skills, templates = resources
    ran: list[str] = []

    def ext(pi):
        pi.register_command("component", handler=lambda args, ctx: ran.append(args))

        @pi.on("input")
        def route(event, ctx):
            if event.text.startswith("?q "):
                return {"action": "transform", "text": "Respond briefly: " + event.text[3:]}
            if event.text == "ping":
                return {"action": "handled"}
            if event.text == "/tmpl":
                return {"action": "transform", "text": "/component A b"}

    runner, _ = await load([], tmp_path, factories=[ext])
    runner.bind_core(FakeHost())
    go = lambda text, **kw: prepare_user_input(text, runner=runner, skills=skills, templates=templates, **kw)  # noqa: E731

    # the extension command shadows the template of the same name and is not sent
    result = await go("/component Button")
    assert result.handled and ran == ["Button"]
    assert (await go("?q hi")).text == "Respond briefly: hi"
    assert (await go("ping")).handled
    skill = await go("/skill:tdd fix the parser")
    assert skill.text.startswith('<skill name="tdd"') and skill.text.endswith("\n\nfix the parser")
    # an input transform can produce a template invocation, which is then expanded
    no_command_runner, _ = await load(
        [],
        tmp_path,
        factories=[lambda pi: pi.on("input", lambda e, c: {"action": "transform", "text": "/component A b"})],
    )
    expanded = await prepare_user_input("x", runner=no_command_runner, templates=templates)
    assert expanded.text == "Create A with A b and b"
    assert (await go("/skill:tdd x", enable_skill_commands=False)).text == "/skill:tdd x"


async def test_queued_command_is_rejected_and_extension_text_is_not_expanded(
    tmp_path: Path, resources
) -> None:
    skills, templates = resources
    runner, _ = await load([], tmp_path, factories=[lambda pi: pi.register_command("deploy", handler=print)])
    runner.bind_core(FakeHost())
    with pytest.raises(CommandNotQueueableError, match="/deploy is an extension command"):
        await prepare_user_input("/deploy now", runner=runner, streaming_behavior="steer")
    raw = await prepare_user_input(
        "/component X",
        runner=runner,
        templates=templates,
        dispatch_commands=False,
        expand=False,
        source="extension",
    )
    assert (raw.handled, raw.text) == (False, "/component X")


async def test_unreadable_skill_reports_and_keeps_text(tmp_path: Path, resources) -> None:
    skills, _ = resources
    runner, errors = await load([], tmp_path)
    Path(skills[0].file_path).unlink()
    result = await prepare_user_input("/skill:tdd go", runner=runner, skills=skills)
    assert result.text == "/skill:tdd go"
    assert [(e.extension_path, e.event) for e in errors] == [(skills[0].file_path, "skill_expansion")]
