"""The memory-lean text helpers behind the read tool's bounds (benchmarks/bounds_read.py) agree
with the plain versions they replace, on any text and across the chunk boundary."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_app.coding.tools import truncate
from pi_app.coding.tools.truncate import iter_lines, truncate_head, utf8_len

texts = st.text(
    st.characters(codec="utf-8") | st.sampled_from(["\n", "é", "✓", "🙂", "\ud800"]), max_size=300
)


@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_iter_lines_and_utf8_len_match_split_and_encode(text: str) -> None:
    assert list(iter_lines(text)) == text.split("\n")
    assert utf8_len(text) == len(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=100, deadline=None)
@given(text=texts, max_lines=st.integers(1, 20), max_bytes=st.integers(1, 200))
def test_truncate_head_keeps_whole_lines_within_both_limits(
    text: str, max_lines: int, max_bytes: int
) -> None:
    result = truncate_head(text, max_lines, max_bytes)
    assert result.total_lines == len(text.split("\n"))
    assert result.total_bytes == utf8_len(text)
    if result.first_line_exceeds_limit:
        assert utf8_len(text.split("\n")[0]) > max_bytes and result.content == ""
    else:
        kept = result.content.split("\n") if result.output_lines else []
        assert kept == text.split("\n")[: len(kept)]
        assert len(kept) <= max_lines and utf8_len(result.content) <= max_bytes


def test_utf8_len_counts_across_chunks(monkeypatch) -> None:
    monkeypatch.setattr(truncate, "_UTF8_CHUNK", 7)
    text = "aé✓🙂\ud800" * 11
    assert utf8_len(text) == len(text.encode("utf-8", "surrogatepass"))
