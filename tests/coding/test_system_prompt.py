"""System prompt assembly and context-file discovery (spec 30 R-SP, R-CTX; scenarios 19–21)."""

from __future__ import annotations

from pathlib import Path

from pi_app.coding.resources.context_files import ContextFile, load_context_files, load_prompt_files
from pi_app.coding.system_prompt import BuildSystemPromptOptions, SkillRef, build_system_prompt

SNIPPETS = {
    "read": "Read file contents",
    "bash": "Run shell\n  commands",
    "edit": "Edit files",
    "write": "Write files",
}


def _opts(**kw) -> BuildSystemPromptOptions:
    return BuildSystemPromptOptions(cwd="/home/user/project", tool_snippets=SNIPPETS, **kw)


def test_context_files_global_first_then_root_to_cwd(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "AGENTS.md").write_text("global rules")
    r = tmp_path / "r"
    (r / "p" / "AGENTS.md").mkdir(parents=True)  # a directory named AGENTS.md is skipped
    (r / "AGENTS.md").write_text("repo rules")
    (r / "p" / "CLAUDE.md").write_text("project rules")
    files = load_context_files(r / "p", agent)
    assert [Path(f.path) for f in files] == [agent / "AGENTS.md", r / "AGENTS.md", r / "p" / "CLAUDE.md"]
    prompt = build_system_prompt(_opts(context_files=files))
    blocks = prompt.count("<project_instructions ")
    assert blocks == 3
    assert prompt.index("global rules") < prompt.index("repo rules") < prompt.index("project rules")
    assert (
        f'<project_instructions path="{r / "p" / "CLAUDE.md"}">\nproject rules\n</project_instructions>'
        in prompt
    )


def test_agents_override_replaces_only_its_own_directory(tmp_path: Path) -> None:
    # pi 1.6.0 (docs/configuration.md): AGENTS.override.md wins over AGENTS.md/CLAUDE.md of the
    # same directory and suppresses nothing elsewhere
    agent, r = tmp_path / "agent", tmp_path / "repo"
    agent.mkdir()
    (agent / "AGENTS.md").write_text("global rules")
    (agent / "AGENTS.override.md").write_text("global override")
    (r / "p").mkdir(parents=True)
    (r / "AGENTS.md").write_text("repo rules")
    (r / "p" / "CLAUDE.md").write_text("project rules")
    (r / "p" / "AGENTS.override.md").write_text("project override")
    files = load_context_files(r / "p", agent)
    assert [Path(f.path) for f in files] == [
        agent / "AGENTS.override.md",
        r / "AGENTS.md",
        r / "p" / "AGENTS.override.md",
    ]
    assert [f.content for f in files] == ["global override", "repo rules", "project override"]


def test_system_md_replaces_the_default_body_but_keeps_the_tail(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    (cwd / ".pi").mkdir(parents=True)
    (cwd / ".pi" / "SYSTEM.md").write_text("You review code.")
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "APPEND_SYSTEM.md").write_text("Appended.")
    system_md, append_md = load_prompt_files(cwd, tmp_path / "agent")
    assert load_prompt_files(cwd, tmp_path / "agent", project_trusted=False)[0] is None
    skills = [
        SkillRef("lint", "Run <linters> & fix", "/s/lint/SKILL.md"),
        SkillRef("hidden", "x", "/h", True),
    ]
    prompt = build_system_prompt(
        _opts(
            custom_prompt=system_md,
            append_system_prompt=append_md,
            context_files=[ContextFile("/r/AGENTS.md", "rules")],
            skills=skills,
        )
    )
    assert prompt.startswith("You review code.\n\nAppended.")
    assert "Available tools:" not in prompt and "Guidelines:" not in prompt
    assert (
        "<name>lint</name>" in prompt and "Run &lt;linters&gt; &amp; fix" in prompt and "hidden" not in prompt
    )
    assert prompt.index("</project_context>") < prompt.index("<available_skills>")
    assert prompt.endswith("\nCurrent working directory: /home/user/project")
    assert "date" not in prompt.lower()


def test_prompt_is_deterministic_and_guidelines_follow_tools() -> None:
    a = build_system_prompt(_opts(selected_tools=["bash"]))
    assert a == build_system_prompt(_opts(selected_tools=["bash"]))
    assert "- bash: Run shell commands" in a and "- read:" not in a
    assert "Use bash for file operations" in a
    b = build_system_prompt(_opts(selected_tools=["bash", "grep"]))
    assert "Use bash for file operations" not in b
    assert "grep" not in b.split("Guidelines:")[1].split("\n\n")[0]  # no grep-preference bullet


def test_default_prompt_structure_matches_pi() -> None:
    prompt = build_system_prompt(
        _opts(
            tool_guidelines={
                "read": ["Use read instead of cat", ""],
                "edit": ["Use read instead of cat", "Exact match"],
            },
            prompt_guidelines=["From an extension"],
            skills=[SkillRef("s", "d", "/s")],
        )
    )
    sections = ["Available tools:\n- read: Read file contents\n- bash:", "Guidelines:\n", "README.md"]
    positions = [prompt.index(s) for s in sections]
    assert positions == sorted(positions)
    guidelines = prompt.split("Guidelines:\n")[1].split("\n\n")[0].splitlines()
    assert guidelines[:4] == [
        "- Use bash for file operations such as ls, rg and find",
        "- Use read instead of cat",
        "- Exact match",
        "- From an extension",
    ]
    assert "<available_skills>" in prompt  # read is active
    no_read = build_system_prompt(_opts(selected_tools=["bash"], skills=[SkillRef("s", "d", "/s")]))
    assert "<available_skills>" not in no_read


def test_windows_cwd_uses_forward_slashes_and_empty_cwd_is_rejected() -> None:
    assert build_system_prompt(BuildSystemPromptOptions(cwd="C:\\src\\x")).endswith("C:/src/x")
    try:
        build_system_prompt(BuildSystemPromptOptions(cwd=""))
    except ValueError:
        pass
    else:
        raise AssertionError("expected ValueError")


def test_structure_matches_pi_reference_fixture() -> None:
    fixture = (
        Path(__file__).parent.parent / "fixtures" / "pi-reference" / "system-prompt-0.73.1.txt"
    ).read_text()
    ours = build_system_prompt(_opts())
    for marker in (
        "Available tools:\n- read:",
        "\n\nGuidelines:\n- ",
        "\nCurrent working directory: /home/user/project",
    ):
        assert marker in fixture and marker in ours
