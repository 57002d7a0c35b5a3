"""Display diff, unified patch and fuzzy normalisation (spec 50 R-EDIT-08, R-EDIT-17, R-EDIT-18)."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_app.coding.tools import (
    apply_edits_to_normalized_content,
    generate_diff_string,
    generate_unified_patch,
    normalize_for_fuzzy_match,
)
from pi_app.coding.tools.edit_diff import Edit


def test_diff_string_example_from_spec():
    old = "l1\nl2\nold\nl4\nl5"
    new = "l1\nl2\nnew\nl4\nl5"
    diff, first = generate_diff_string(old, new)
    assert diff.split("\n") == [" 1 l1", " 2 l2", "-3 old", "+3 new", " 4 l4", " 5 l5"]
    assert first == 3


def test_diff_string_elides_long_context():
    old = "\n".join(f"line{i}" for i in range(1, 31))
    new = old.replace("line15", "LINE15")
    diff, first = generate_diff_string(old, new)
    lines = diff.split("\n")
    assert lines[0] == "    ..."
    assert lines[1:5] == [f" {i} line{i}" for i in range(11, 15)]
    assert lines[5:7] == ["-15 line15", "+15 LINE15"]
    assert lines[7:11] == [f" {i} line{i}" for i in range(16, 20)]
    assert lines[11] == "    ..."
    assert first == 15


def test_diff_between_changes_keeps_short_gap_whole():
    old = "\n".join(f"x{i}" for i in range(1, 12))
    new = old.replace("x2", "X2").replace("x9", "X9")
    lines = generate_diff_string(old, new)[0].split("\n")
    assert lines == [
        "  1 x1",
        "- 2 x2",
        "+ 2 X2",
        *[f"  {i} x{i}" for i in range(3, 9)],  # a 6-line gap between changes is shown whole
        "- 9 x9",
        "+ 9 X9",
        " 10 x10",
        " 11 x11",
    ]


def _apply_with_patch(tmp_path, name: str, old: str, patch_text: str) -> str:
    (tmp_path / name).write_text(old)
    subprocess.run(["patch", "-p0", "--quiet"], input=patch_text.encode(), cwd=tmp_path, check=True)
    return (tmp_path / name).read_text()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("a\nb\nc", "a\nb\nc\nd"),  # no newline at end, before and after
        ("a\nb\nc\n", "a\nb\nc"),
        ("", "new file\n"),
        (
            "\n".join(str(i) for i in range(50)) + "\n",
            "\n".join(str(i) for i in range(50) if i not in (3, 40)) + "\n",
        ),
    ],
)
def test_unified_patch_applies(tmp_path, old, new):
    patch_text = generate_unified_patch("f.txt", old, new)
    assert patch_text.startswith("--- f.txt\n+++ f.txt\n@@ -")
    assert _apply_with_patch(tmp_path, "f.txt", old, patch_text) == new


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "", "d e"]), max_size=12),
    st.lists(st.sampled_from(["a", "b", "x", "", "d e"]), max_size=12),
    st.booleans(),
)
def test_unified_patch_roundtrip_property(tmp_path_factory, old_lines, new_lines, trailing):
    old = "\n".join(old_lines) + ("\n" if trailing and old_lines else "")
    new = "\n".join(new_lines)
    if old == new:
        return
    tmp = tmp_path_factory.mktemp("p")
    assert _apply_with_patch(tmp, "g.txt", old, generate_unified_patch("g.txt", old, new)) == new


def test_normalisation_order_and_line_count():
    text = "\u201cquoted\u201d \u2014 \u2018x\u2019\u00a0 \nＡ\u3000B   \ncafe\u0301"
    normalized = normalize_for_fuzzy_match(text)
    assert normalized == "\"quoted\" - 'x'\nA B\ncafé"
    assert normalized.count("\n") == text.count("\n")


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from("ab \t\n\u0301\u00a0\u2019\u201c\uff21\u3000\ufeff\u2014e\u2028"),
        max_size=40,
    )
)
def test_normalisation_is_linewise_and_keeps_newlines(text):
    whole = normalize_for_fuzzy_match(text)
    assert whole == "\n".join(normalize_for_fuzzy_match(line) for line in text.split("\n"))
    assert whole.count("\n") == text.count("\n")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=30),
    st.lists(st.sampled_from(["a", "b", "x"]), max_size=30),
)
def test_display_diff_reconstructs_both_sides(old_lines, new_lines):
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    diff, first = generate_diff_string(old, new, context_lines=10**6)  # no elision
    rows = diff.split("\n") if diff else []
    if old != new:  # the display diff shows lines, so a final newline is not visible
        assert first is not None
        assert "\n".join(_body(r) for r in rows if r[:1] in " -") == old.removesuffix("\n")
        assert "\n".join(_body(r) for r in rows if r[:1] in " +") == new.removesuffix("\n")


def _body(row: str) -> str:
    """The text of a display-diff row: after the sign, the right-aligned number and one space."""
    rest = row[1:].lstrip(" ")
    return rest.split(" ", 1)[1] if " " in rest else ""


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a = \u2018x\u2019  ", "b\t", "c", "", "d \u2014 e ", "f\u00a0"]),
        min_size=1,
        max_size=12,
    ),
    st.data(),
)
def test_fuzzy_edit_touches_only_its_lines(lines, data):
    content = "\n".join(f"<{i}>{line}" for i, line in enumerate(lines))
    target = data.draw(st.integers(0, len(lines) - 1))
    old = normalize_for_fuzzy_match(f"<{target}>{lines[target]}")  # exact when nothing to normalise
    _, new = apply_edits_to_normalized_content(content, [Edit(old, "REPLACED")], "f")
    new_lines, old_lines = new.split("\n"), content.split("\n")
    assert new_lines[target].rstrip() == "REPLACED"  # an exact prefix match keeps trailing blanks
    assert [x for i, x in enumerate(new_lines) if i != target] == [
        x for i, x in enumerate(old_lines) if i != target
    ]
