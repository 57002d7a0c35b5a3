"""Skills: discovery, validation, expansion (spec 40 R-SKL, scenarios 10, 11, 14)."""

from __future__ import annotations

from pathlib import Path

from pi_app.coding.resources.diagnostics import PathMetadata
from pi_app.coding.resources.frontmatter import FrontmatterError, parse_frontmatter
from pi_app.coding.resources.skills import (
    discover_skill_files,
    expand_skill_command,
    load_skills_from_path,
    parse_skill_block,
)


def skill(
    path: Path, name: str | None = None, description: str | None = "Does things", body: str = "Body"
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = []
    if name is not None:
        meta.append(f"name: {name}")
    if description is not None:
        meta.append(f"description: {description}")
    path.write_text("---\n" + "\n".join(meta) + "\n---\n" + body + "\n")
    return path


def test_frontmatter_rules() -> None:
    doc = parse_frontmatter(
        "---\r\nname: x\r\ndescription: >\r\n  folded\r\n  text\r\n---\r\n\r\nBody here\r\n"
    )
    assert doc.frontmatter == {"name": "x", "description": "folded text\n"}
    assert doc.body == "Body here"
    assert parse_frontmatter("no frontmatter\n").body == "no frontmatter"
    unclosed = parse_frontmatter("---\nname: x\nno end")
    assert unclosed.frontmatter == {} and unclosed.body.startswith("---")
    assert parse_frontmatter("---\n- a list\n---\nb").frontmatter == {}
    try:
        parse_frontmatter("---\nname: [unclosed\n---\nbody")
    except FrontmatterError as exc:
        assert str(exc)
    else:
        raise AssertionError("YAML error not raised")


def test_discovery_rules(tmp_path: Path) -> None:
    """Scenario 10: quick-tips, code-review and perf; not checklist, not nested."""
    root = tmp_path / "skills"
    skill(root / "quick-tips.md", description="Tips")
    skill(root / "code-review" / "SKILL.md", description="Review code")
    (root / "code-review" / "checklist.md").write_text("---\ndescription: not a skill\n---\n")
    skill(root / "code-review" / "nested" / "SKILL.md", description="Nested")
    skill(root / "advanced" / "perf" / "SKILL.md", description="Perf")
    skill(root / ".hidden" / "SKILL.md", description="Hidden")
    skill(root / "node_modules" / "x" / "SKILL.md", description="Dep")
    skill(root / "ignored" / "SKILL.md", description="Ignored")
    (root / ".gitignore").write_text("ignored/\n")
    skills, diagnostics = load_skills_from_path(root, PathMetadata())
    assert sorted(s.name for s in skills) == ["code-review", "perf", "quick-tips"]
    assert diagnostics == []
    review = next(s for s in skills if s.name == "code-review")
    assert review.base_dir == str(root / "code-review")
    assert review.file_path == str(root / "code-review" / "SKILL.md")


def test_root_with_skill_md_is_one_skill(tmp_path: Path) -> None:
    skill(tmp_path / "one" / "SKILL.md", description="Whole root")
    skill(tmp_path / "one" / "sub" / "SKILL.md", description="Inner")
    assert discover_skill_files(tmp_path / "one") == [tmp_path / "one" / "SKILL.md"]


def test_validation(tmp_path: Path) -> None:
    """Scenario 11."""
    skill(tmp_path / "a" / "SKILL.md", name="Bad--Name", description="ok")
    skill(tmp_path / "b" / "SKILL.md", name="b", description=None)
    skill(tmp_path / "c" / "SKILL.md", name="-c-" + "x" * 70, description="x" * 1100)
    skills, diagnostics = load_skills_from_path(tmp_path, PathMetadata())
    names = {s.name for s in skills}
    assert "Bad--Name" in names and "b" not in names
    by_path: dict[str, list[str]] = {}
    for d in diagnostics:
        by_path.setdefault(Path(d.path or "").parent.name, []).append(d.message)
    assert by_path["a"] == [
        "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
        "name must not contain consecutive hyphens",
    ]
    assert by_path["b"] == ["description is required"]
    assert "name exceeds 64 characters (73)" in by_path["c"]
    assert "name must not start or end with a hyphen" in by_path["c"]
    assert any(m.startswith("description exceeds 1024 characters") for m in by_path["c"])
    assert all(d.type == "warning" for d in diagnostics)


def test_yaml_error_is_a_warning_and_skips(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "SKILL.md").write_text("---\ndescription: [oops\n---\nbody")
    skill(tmp_path / "y" / "SKILL.md", description="fine")
    skills, diagnostics = load_skills_from_path(tmp_path, PathMetadata())
    assert [s.name for s in skills] == ["y"]
    assert len(diagnostics) == 1 and diagnostics[0].path == str(tmp_path / "x" / "SKILL.md")


def test_explicit_paths(tmp_path: Path) -> None:
    _, diagnostics = load_skills_from_path(tmp_path / "missing", PathMetadata(), explicit=True)
    assert [(d.type, d.message) for d in diagnostics] == [("error", "Skill path does not exist")]
    (tmp_path / "notes.txt").write_text("x")
    _, diagnostics = load_skills_from_path(tmp_path / "notes.txt", PathMetadata(), explicit=True)
    assert [d.message for d in diagnostics] == ["skill path is not a markdown file"]


def test_skill_command_expansion_and_parse(tmp_path: Path) -> None:
    """Scenario 14."""
    path = skill(tmp_path / "tdd" / "SKILL.md", name="tdd", description="TDD", body="Write the test first.")
    skills, _ = load_skills_from_path(tmp_path, PathMetadata())
    text = expand_skill_command("/skill:tdd fix the parser", skills)
    assert text.startswith(f'<skill name="tdd" location="{path}">\n')
    assert "Write the test first." in text and "description: TDD" not in text
    assert text.endswith("</skill>\n\nfix the parser")
    block = parse_skill_block(text)
    assert block is not None
    assert (block.name, block.location, block.content, block.user_message) == (
        "tdd",
        str(path),
        "Write the test first.",
        "fix the parser",
    )
    assert expand_skill_command("/skill:unknown x", skills) == "/skill:unknown x"
    assert expand_skill_command("/skill:tdd", skills).endswith("</skill>")
    assert expand_skill_command("/skill:tdd x", skills, enabled=False) == "/skill:tdd x"
    assert parse_skill_block("hello") is None
    # the body is read at use time: an edit needs no reload
    path.write_text("---\ndescription: TDD\n---\nRed, green, refactor.\n")
    assert "Red, green, refactor." in expand_skill_command("/skill:tdd", skills)


def test_expansion_read_failure_reports_and_keeps_text(tmp_path: Path) -> None:
    path = skill(tmp_path / "gone" / "SKILL.md", description="x")
    skills, _ = load_skills_from_path(tmp_path, PathMetadata())
    path.unlink()
    errors: list[str] = []
    assert (
        expand_skill_command("/skill:gone a", skills, on_error=lambda s, e: errors.append(s.name))
        == "/skill:gone a"
    )
    assert errors == ["gone"]
