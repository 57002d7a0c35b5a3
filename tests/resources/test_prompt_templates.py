"""Prompt templates: discovery, descriptions, arguments (spec 40 R-PRM, scenarios 15 and 16)."""

from __future__ import annotations

from pathlib import Path

from pi_app.coding.resources.diagnostics import PathMetadata
from pi_app.coding.resources.prompt_templates import (
    expand_prompt_template,
    load_prompt_templates_from_path,
    parse_command_args,
    substitute_args,
)


def test_arguments_and_substitution(tmp_path: Path) -> None:
    (tmp_path / "component.md").write_text("Create $1 with $@ and ${@:2}")
    templates, _ = load_prompt_templates_from_path(tmp_path, PathMetadata(), recursive=False)
    expand = lambda text: expand_prompt_template(text, templates)  # noqa: E731
    assert expand("/component Button \"on click\" 'disabled'") == (
        "Create Button with Button on click disabled and on click disabled"
    )
    assert expand("/component") == "Create  with  and "
    assert expand("/component $1 x") == "Create $1 with $1 x and x"
    assert expand("/other a") == "/other a"
    assert expand("component a") == "component a"


def test_argument_splitting() -> None:
    assert parse_command_args("a  b\tc") == ["a", "b", "c"]
    assert parse_command_args("\"x y\" 'z'") == ["x y", "z"]
    # pi 1.6.0's quoting (observed with 1.6.0 itself): empty quotes are an empty argument, a quote
    # opens quoting only at the start of an argument, an unclosed quote is text, \" keeps a quote
    assert parse_command_args('a "" b') == ["a", "", "b"]
    assert parse_command_args('pre"mid dle"post') == ['pre"mid', 'dle"post']
    assert parse_command_args("'it\\'s") == ["'it\\'s"]
    assert parse_command_args("it's x") == ["it's", "x"]
    assert parse_command_args('"never closed') == ['"never', "closed"]
    assert parse_command_args('"the \\"fast\\" path" x') == ['the "fast" path', "x"]


def test_defaults_as_pi_1_6() -> None:
    template = "[1=${1:-D1}][2=$2][@=${@:-DALL}]"
    assert substitute_args(template, []) == "[1=D1][2=][@=DALL]"
    assert substitute_args(template, ["a"]) == "[1=a][2=][@=a]"
    assert substitute_args(template, ["", "b"]) == "[1=D1][2=b][@= b]"
    assert substitute_args("Focus on ${1:-correctness, security}.", []) == "Focus on correctness, security."


def test_placeholders() -> None:
    args = ["a", "b", "c", "d"]
    assert substitute_args("$1-$4-$9", args) == "a-d-"
    assert substitute_args("${@:2:2}|${@:0}|${@:5}", args) == "b c|a b c d|"
    assert substitute_args("$ARGUMENTS / $@", args) == "a b c d / a b c d"
    assert substitute_args("$10", [str(i) for i in range(1, 11)]) == "10"


def test_descriptions_and_discovery(tmp_path: Path) -> None:
    """Scenario 16, frontmatter descriptions, non-recursive auto dirs, YAML errors."""
    line = "x" * 80
    (tmp_path / "long.md").write_text(f"\n\n{line}\nmore\n")
    (tmp_path / "fm.md").write_text("---\ndescription: From frontmatter\n---\nBody\n")
    (tmp_path / "bad.md").write_text("---\ndescription: [oops\n---\nBody\n")
    (tmp_path / "notes.txt").write_text("ignored")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deep.md").write_text("Deep")
    templates, diagnostics = load_prompt_templates_from_path(tmp_path, PathMetadata(), recursive=False)
    by_name = {t.name: t for t in templates}
    assert sorted(by_name) == ["fm", "long"]
    assert by_name["long"].description == "x" * 60 + "..."
    assert by_name["fm"].description == "From frontmatter"
    assert by_name["fm"].content == "Body"
    assert [d.path for d in diagnostics] == [str(tmp_path / "bad.md")]
    recursive, _ = load_prompt_templates_from_path(tmp_path, PathMetadata(), recursive=True)
    assert "deep" in {t.name for t in recursive}
    _, missing = load_prompt_templates_from_path(
        tmp_path / "nope", PathMetadata(), recursive=True, explicit=True
    )
    assert [d.message for d in missing] == ["Prompt template path does not exist"]
