"""The edit tool (spec 50 §3.7, scenarios 12-21, 31 and the bad-input acceptance of issue 5)."""

from __future__ import annotations

import asyncio
import errno
import os
import stat

import pytest

from pi_app.coding.tools import compute_edits_diff, create_edit_tool
from pi_app.coding.tools.mutation_queue import pending_mutation_keys
from tests.tools.conftest import aborted_signal, run_tool, text_of


def put(cwd: str, name: str, data: str | bytes) -> str:
    path = os.path.join(cwd, name)
    with open(path, "wb") as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def content(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8")


def raw(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


async def edit(cwd: str, path: str, *edits: tuple[str, str], signal=None):
    params = {"path": path, "edits": [{"oldText": o, "newText": n} for o, n in edits]}
    return await run_tool(create_edit_tool(cwd), params, signal=signal)


async def test_simple_edit(cwd):
    path = put(cwd, "a.txt", "Hello, world!")
    result = await edit(cwd, "a.txt", ("world", "testing"))
    assert text_of(result) == "Successfully replaced 1 block(s) in a.txt."
    assert "testing" in result.details["diff"]
    assert result.details["patch"].startswith("--- a.txt")
    assert result.details["firstChangedLine"] == 1
    assert content(path) == "Hello, testing!"


async def test_legacy_and_string_arguments(cwd):
    path = put(cwd, "a.txt", "Hello, world!")
    tool = create_edit_tool(cwd)
    await run_tool(tool, {"path": "a.txt", "oldText": "world", "newText": "x"})
    assert content(path) == "Hello, x!"
    await run_tool(tool, {"path": "a.txt", "edits": '[{"oldText":"x","newText":"y"}]'})
    assert content(path) == "Hello, y!"


async def test_empty_edits_rejected(cwd):
    put(cwd, "a.txt", "abc")
    with pytest.raises(
        Exception, match="^Edit tool input is invalid. edits must contain at least one replacement.$"
    ):
        await run_tool(create_edit_tool(cwd), {"path": "a.txt", "edits": []})


async def test_not_found_and_duplicates(cwd):
    path = put(cwd, "f.txt", "foo foo foo")
    with pytest.raises(Exception, match=r"^Found 3 occurrences of the text in f\.txt\."):
        await edit(cwd, "f.txt", ("foo", "bar"))
    with pytest.raises(Exception, match=r"^Could not find the exact text in f\.txt\."):
        await edit(cwd, "f.txt", ("nonexistent", "bar"))
    with pytest.raises(Exception, match=r"^Could not find edits\[1\] in f\.txt\."):
        await edit(cwd, "f.txt", ("foo foo foo", "x"), ("zzz", "y"))
    assert content(path) == "foo foo foo"


async def test_fuzzy_trailing_whitespace(cwd):
    path = put(cwd, "t.txt", "line one   \nline two  \nline three\n")
    await edit(cwd, "t.txt", ("line one\nline two\n", "replaced\n"))
    assert content(path) == "replaced\nline three\n"


async def test_fuzzy_preserves_untouched_lines(cwd):
    path = put(cwd, "q.py", "a = \u2018x\u2019  \nb = \u2018y\u2019  \n")
    await edit(cwd, "q.py", ("a = 'x'", "a = 'z'"))
    assert content(path) == "a = 'z'\nb = \u2018y\u2019  \n"


async def test_fuzzy_nfkc(cwd):
    path = put(cwd, "cn.txt", "你好，世界\n你好（世界）\n")
    await edit(cwd, "cn.txt", ("你好,世界\n你好(世界)\n", "你好，pi\n你好(pi)\n"))
    assert content(path) == "你好，pi\n你好(pi)\n"
    path = put(cwd, "w.txt", "ＡＢＣ１２３\ncafe\u0301\n")
    await edit(cwd, "w.txt", ("ABC123\ncafé\n", "done\n"))
    assert content(path) == "done\n"


async def test_duplicate_after_normalisation(cwd):
    put(cwd, "d.txt", "hello world   \nhello world\n")
    with pytest.raises(Exception, match="^Found 2 occurrences"):
        await edit(cwd, "d.txt", ("hello world", "x"))


async def test_crlf_and_bom_preserved(cwd):
    path = put(cwd, "c.txt", "\ufefffirst\r\nsecond\r\nthird\r\n")
    await edit(cwd, "c.txt", ("second\n", "REPLACED\n"))
    assert raw(path) == "\ufefffirst\r\nREPLACED\r\nthird\r\n".encode()
    put(cwd, "m.txt", "hello\r\nworld\r\n---\r\nhello\nworld\n")
    with pytest.raises(Exception, match="^Found 2 occurrences"):
        await edit(cwd, "m.txt", ("hello\nworld\n", "x"))


async def test_multi_edit_overlap_and_no_change(cwd):
    path = put(cwd, "m.txt", "a\nb\nc\n")
    result = await edit(cwd, "m.txt", ("b", "B"), ("a", "A"))
    assert content(path) == "A\nB\nc\n"
    assert "2 block(s)" in text_of(result)
    put(cwd, "m.txt", "a\nb\nc\n")
    with pytest.raises(Exception) as info:
        await edit(cwd, "m.txt", ("a\nb", "X"), ("b\nc", "Y"))
    assert str(info.value) == (
        "edits[0] and edits[1] overlap in m.txt. Merge them into one edit or target disjoint regions."
    )
    assert content(path) == "a\nb\nc\n"
    with pytest.raises(Exception, match="^No changes made to m.txt"):
        await edit(cwd, "m.txt", ("a", "a"))
    with pytest.raises(Exception, match=r"^oldText must not be empty in m\.txt\.$"):
        await edit(cwd, "m.txt", ("", "x"))
    with pytest.raises(Exception, match=r"^edits\[1\]\.oldText must not be empty in m\.txt\.$"):
        await edit(cwd, "m.txt", ("a", "x"), ("", "y"))


async def test_touching_edits_are_allowed(cwd):
    path = put(cwd, "t.txt", "abcdef")
    await edit(cwd, "t.txt", ("abc", "1"), ("def", "2"))
    assert content(path) == "12"


async def test_whitespace_only_old_text_matched_exactly(cwd):
    path = put(cwd, "w.txt", "a\n\n\nb\n")
    await edit(cwd, "w.txt", ("\n\n\n", "\n"))
    assert content(path) == "a\nb\n"


async def test_parallel_edits_same_file_both_land(cwd):
    path = put(cwd, "p.txt", "one\ntwo\nthree\n")
    os.symlink("p.txt", os.path.join(cwd, "link.txt"))
    tool = create_edit_tool(cwd)
    await asyncio.gather(
        run_tool(tool, {"path": "p.txt", "edits": [{"oldText": "one", "newText": "ONE"}]}),
        run_tool(tool, {"path": "link.txt", "edits": [{"oldText": "three", "newText": "THREE"}]}),
        run_tool(tool, {"path": "./p.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}),
    )
    assert content(path) == "ONE\nTWO\nTHREE\n"
    assert os.path.islink(os.path.join(cwd, "link.txt"))
    assert pending_mutation_keys() == []


async def test_mode_is_kept(cwd):
    path = put(cwd, "run.sh", "echo hi\n")
    os.chmod(path, 0o755)
    await edit(cwd, "run.sh", ("hi", "ho"))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o755


# --- bad input never corrupts a file ---------------------------------------------------------------


async def test_invalid_utf8_is_refused_untouched(cwd):
    data = b"caf\xe9 latin-1 text\n"
    path = put(cwd, "l1.txt", data)
    with pytest.raises(Exception, match=r"^Could not edit file: l1\.txt\. File is not valid UTF-8\.$"):
        await edit(cwd, "l1.txt", ("latin", "x"))
    assert raw(path) == data


async def test_missing_file_and_directory(cwd):
    with pytest.raises(Exception, match=r"^Could not edit file: nope\.txt\. Error code: ENOENT\.$"):
        await edit(cwd, "nope.txt", ("a", "b"))
    assert not os.path.exists(os.path.join(cwd, "nope.txt"))
    os.mkdir(os.path.join(cwd, "dir"))
    with pytest.raises(Exception, match=r"^Could not edit file: dir\. Error code: EISDIR\.$"):
        await edit(cwd, "dir", ("a", "b"))


async def test_file_changed_between_read_and_write(cwd, monkeypatch):
    import pi_app.coding.tools.edit_diff as edit_engine

    path = put(cwd, "race.txt", "alpha beta\n")
    real_apply = edit_engine.apply_edits_to_normalized_content

    def apply_and_race(*args, **kwargs):
        out = real_apply(*args, **kwargs)
        with open(path, "ab") as handle:  # another program appends while we compute
            handle.write(b"gamma\n")
        return out

    monkeypatch.setattr(edit_engine, "apply_edits_to_normalized_content", apply_and_race)
    with pytest.raises(Exception, match=r"^Could not edit file: race\.txt\. File changed while editing"):
        await edit(cwd, "race.txt", ("alpha", "ALPHA"))
    assert raw(path) == b"alpha beta\ngamma\n"


async def test_disk_full_leaves_file_identical(cwd, monkeypatch):
    path = put(cwd, "full.txt", "keep me\n")
    real_open = os.fdopen

    class FullDisk:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[:3])
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, mode: FullDisk(real_open(fd, mode)))
    with pytest.raises(Exception, match=r"^Could not edit file: full\.txt\. Error code: ENOSPC\.$"):
        await edit(cwd, "full.txt", ("keep", "lose"))
    monkeypatch.undo()
    assert raw(path) == b"keep me\n"
    assert sorted(os.listdir(cwd)) == ["full.txt"]


async def test_aborted_edit_changes_nothing(cwd):
    path = put(cwd, "a.txt", "abc")
    with pytest.raises(Exception, match="^Operation aborted$"):
        await edit(cwd, "a.txt", ("abc", "x"), signal=aborted_signal())
    assert content(path) == "abc"


async def test_failure_does_not_poison_queue(cwd):
    path = put(cwd, "a.txt", "abc")
    tool = create_edit_tool(cwd)
    results = await asyncio.gather(
        run_tool(tool, {"path": "a.txt", "edits": [{"oldText": "zzz", "newText": "y"}]}),
        run_tool(tool, {"path": "a.txt", "edits": [{"oldText": "abc", "newText": "ok"}]}),
        return_exceptions=True,
    )
    assert isinstance(results[0], Exception) and not isinstance(results[1], Exception)
    assert content(path) == "ok"


async def test_compute_edits_diff_preview(cwd):
    path = put(cwd, "p.txt", "one\ntwo\n")
    preview = await compute_edits_diff("p.txt", [{"oldText": "two", "newText": "2"}], cwd)
    assert preview["firstChangedLine"] == 2 and "+2 2" in preview["diff"]
    assert content(path) == "one\ntwo\n"
    failed = await compute_edits_diff("p.txt", [{"oldText": "nine", "newText": "9"}], cwd)
    assert failed["error"].startswith("Could not find the exact text in p.txt.")
    missing = await compute_edits_diff("gone.txt", [{"oldText": "a", "newText": "b"}], cwd)
    assert missing == {"error": "Could not edit file: gone.txt. Error code: ENOENT."}


async def test_not_found_names_the_closest_region(cwd):
    put(cwd, "f.py", "import os\n\ndef foo(a, b):\n    return a + b\n")
    with pytest.raises(Exception) as info:
        await edit(cwd, "f.py", ("def foo(a,b):\n    return a+b", "x"))
    first, *hint = str(info.value).split("\n")
    assert first == (
        "Could not find the exact text in f.py. The old text must match exactly including all whitespace and newlines."
    )
    assert hint == ["Closest match is around line 3:", "3: def foo(a, b):", "4:     return a + b"]
    with pytest.raises(Exception) as info:
        await edit(cwd, "f.py", ("zzzzqqqq", "x"))
    assert "\n" not in str(info.value)  # nothing similar: no hint
