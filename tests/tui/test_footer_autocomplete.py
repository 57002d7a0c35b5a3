"""Footer formatting (R-FOOT-01…05) and the autocomplete provider (R-AC-01…07), without an app."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.style import Style

from pi_app.tui.chrome.footer import FooterState, Usage, footer_lines, format_tokens, git_branch
from pi_app.tui.editor.autocomplete import (
    AutocompleteItem,
    CommandInfo,
    PiAutocomplete,
    preselect,
    score_path,
)
from pi_app.tui.selectors.scoped_models import ScopeModel
from pi_app.tui.selectors.select_list import SelectItem, SelectListModel


def test_token_formatting() -> None:
    assert [format_tokens(n) for n in (999, 1234, 12_345, 999_999, 1_234_567, 12_345_678)] == [
        "999",
        "1.2k",
        "12k",
        "1000k",
        "1.2M",
        "12M",
    ]


def test_footer_line_two_matches_the_spec_example() -> None:
    warning = Style(color="yellow")
    state = FooterState(
        cwd="/work/project",
        usage=Usage(input=12_345, output=999, cost=0.1234),
        context_tokens=150_000,
        context_window=200_000,
        model_id="claude-x",
    )
    first, second = footer_lines(state, 80, {"warning": warning})
    assert first.plain == "/work/project"
    assert second.plain.startswith("↑12k ↓999 $0.123 75.0%/200k (auto)")
    assert second.plain.endswith("claude-x")
    figure = second.plain.index("75.0%")
    assert any(span.style == warning and span.start <= figure < span.end for span in second.spans)


def test_footer_shows_unknown_context_after_compaction_and_the_thinking_level() -> None:
    state = FooterState(
        cwd="/p",
        context_tokens=None,
        context_window=128_000,
        model_id="m",
        reasoning=True,
        thinking_level="off",
    )
    line = footer_lines(state, 60)[1].plain
    assert line.startswith("?/128k (auto)") and line.endswith("m • thinking off")


def test_footer_truncates_and_drops_the_model_when_there_is_no_room() -> None:
    state = FooterState(cwd="/a/very/long/path/that/does/not/fit", session_name="named", model_id="model-id")
    first, second = footer_lines(state, 20)
    assert first.plain.endswith("...") and len(first.plain) == 20
    assert len(second.plain) <= 20


def test_footer_names_no_model_while_the_session_is_starting() -> None:
    starting = FooterState(cwd="/p", starting=True)
    assert "no-model" not in footer_lines(starting, 80)[1].plain
    assert footer_lines(FooterState(cwd="/p"), 80)[1].plain.endswith("no-model")  # ready, none set


def test_footer_statuses_line_is_sorted_and_sanitised() -> None:
    state = FooterState(cwd="/p", statuses={"b": "two\tlines\nhere", "a": "  first  "})
    assert footer_lines(state, 80)[2].plain == "first two lines here"


def test_git_branch_reads_head_and_worktree_files(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    assert git_branch(str(tmp_path)) == "feature/x"
    (tmp_path / ".git" / "HEAD").write_text("0123456789abcdef\n")
    assert git_branch(str(tmp_path)) == "detached"
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (tmp_path / "gitdir").mkdir()
    (tmp_path / "gitdir" / "HEAD").write_text("ref: refs/heads/wt-branch\n")
    (worktree / ".git").write_text(f"gitdir: {tmp_path / 'gitdir'}\n")
    assert git_branch(str(worktree)) == "wt-branch"


def test_file_scores_follow_the_spec() -> None:
    assert score_path("src/app.py", False, "app.py") == 100
    assert score_path("src/app.py", False, "app") == 80
    assert score_path("src/myapp.py", False, "app") == 50
    assert score_path("app/main.py", False, "app/m") == 30
    assert score_path("src/app", True, "app") == 110
    assert score_path("src/x.py", False, "zzz") == 0


def test_preselection_prefers_exact_then_prefix() -> None:
    items = [AutocompleteItem("model", "model"), AutocompleteItem("mode", "mode")]
    assert preselect(items, "mode") == 1
    assert preselect(items, "mod") == 0
    assert preselect(items, "x") == 0


def test_slash_names_then_argument_completions(tmp_path: Path) -> None:
    def complete(argument: str) -> list[AutocompleteItem]:
        return [AutocompleteItem("fake/beta", "beta", "fake")] if "b" in argument else []

    provider = PiAutocomplete(
        str(tmp_path),
        lambda: [CommandInfo("model", "Select model", "[search]", complete), CommandInfo("quit")],
    )
    names = asyncio.run(provider.get_suggestions(["/mo"], 0, 3))
    assert names is not None and [i.value for i in names.items] == ["model"]
    assert names.items[0].label == "model [search]"
    lines, line, col = provider.apply_completion(["/mo"], 0, 3, names.items[0], names.prefix, names.kind)
    assert lines == ["/model "] and col == 7
    arguments = asyncio.run(provider.get_suggestions(["/model b"], 0, 8))
    assert arguments is not None and arguments.kind == "argument"
    lines, _, col = provider.apply_completion(
        ["/model b"], 0, 8, arguments.items[0], arguments.prefix, "argument"
    )
    assert lines == ["/model fake/beta"]


def test_quoted_at_paths_for_names_with_spaces(tmp_path: Path) -> None:
    (tmp_path / "my notes.md").write_text("x")
    provider = PiAutocomplete(str(tmp_path))
    found = asyncio.run(provider.get_suggestions(["see @my"], 0, 7))
    assert found is not None
    lines, _, _ = provider.apply_completion(["see @my"], 0, 7, found.items[0], found.prefix, found.kind)
    assert lines == ['see @"my notes.md" ']


def test_select_list_model_filters_to_the_best_match() -> None:
    """Typing selects the best match, as pi 1.6.0's lists do (``/settings`` then ``hide`` is on
    Hide thinking even if HTTP idle timeout matched the ``h`` first); clearing keeps the item."""
    model = SelectListModel([SelectItem(i, f"item {i}") for i in range(30)], max_visible=5)
    model.move(-1)
    assert model.selected == 29 and model.top == 25
    model.set_query("item 2")
    assert model.current() is not None and model.current().value == 2 and model.selected == 0
    model.move(3)
    kept = model.current()
    model.set_query("")
    assert model.current() == kept
    model.set_query("item 2")
    for _ in range(len(model.filtered)):
        model.page(-1)
    assert model.selected == 0 and model.top == 0


def test_scope_model_toggles_providers_and_reorders() -> None:
    class M:
        def __init__(self, provider: str, id: str) -> None:
            self.provider, self.id = provider, id

    models = [M("a", "1"), M("a", "2"), M("b", "3")]
    scope = ScopeModel(models)
    scope.toggle_provider("a")
    assert scope.enabled == ["a/1", "a/2"] and scope.dirty
    scope.toggle("b/3")
    scope.move("b/3", -2)
    assert scope.enabled == ["b/3", "a/1", "a/2"]
    assert [m.id for m in scope.order()] == ["3", "1", "2"]
    scope.toggle_provider("a")
    assert scope.enabled == ["b/3"]
