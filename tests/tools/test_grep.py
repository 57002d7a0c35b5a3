"""The grep tool with both back ends (spec 50 §3.10, scenarios 27-28, 31)."""

from __future__ import annotations

import os

import pytest

from pi_app.coding.tools import create_grep_tool
from tests.tools.conftest import aborted_signal, git_init, make_tree, run_tool, text_of


async def grep(cwd: str, **params):
    return await run_tool(create_grep_tool(cwd), params)


async def test_single_file_match(cwd, backend):
    make_tree(cwd, {"example.txt": "first line\nmatch line\nlast line"})
    result = await grep(cwd, pattern="match", path="example.txt")
    assert text_of(result) == "example.txt:2: match line"
    assert result.details is None


async def test_context_and_limit(cwd, backend):
    make_tree(cwd, {"context.txt": "before\nmatch one\nafter\nmiddle\nmatch two\nafter two"})
    result = await grep(cwd, pattern="match", path="context.txt", limit=1, context=1)
    text = text_of(result)
    assert text == (
        "context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\n\n"
        "[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )
    assert result.details == {"matchLimitReached": 1}


async def test_long_lines_cut(cwd, backend):
    make_tree(cwd, {"min.js": "x" * 1000 + "needle" + "y" * 1000})
    result = await grep(cwd, pattern="needle")
    text = text_of(result)
    first = text.split("\n")[0]
    assert first == "min.js:1: " + ("x" * 1000)[: 500 - len("min.js:1: ")] + "... [truncated]"
    assert text.endswith("[Some lines truncated to 500 chars. Use read tool to see full lines]")
    assert result.details == {"linesTruncated": True}


async def test_ignore_rules_and_dash_pattern(cwd, backend, repo_kind):
    if repo_kind == "git":
        git_init(cwd)
    make_tree(cwd, {".gitignore": "ignored.txt\n", "ignored.txt": "hello -v\n", "kept.txt": "hello -v\n"})
    make_tree(cwd, {".git/config.txt": "hello -v\n"})
    result = await grep(cwd, pattern="hello")
    assert text_of(result) == "kept.txt:1: hello -v"
    dash = await grep(cwd, pattern="-v")
    assert text_of(dash) == "kept.txt:1: hello -v"


async def test_paths_sorted_and_relative(cwd, backend):
    files = {f"d{i % 3}/f{i}.txt": "hit\n" for i in range(12)}
    files["b.txt"] = "hit\n"
    files[".hidden/h.txt"] = "hit\n"
    make_tree(cwd, files)
    lines = text_of(await grep(cwd, pattern="hit")).split("\n")
    names = [line.split(":")[0] for line in lines]
    assert names[0] == ".hidden/h.txt" and "b.txt" in names
    assert names == sorted(names, key=lambda p: p.split("/"))
    sub = await grep(cwd, pattern="hit", path="d1")
    assert text_of(sub).split("\n")[0] == "f1.txt:1: hit"


async def test_options(cwd, backend):
    make_tree(cwd, {"a.py": "Foo.bar()\nfoo(x)\n", "b.ts": "foo\n", "src/c.ts": "foo\n"})
    assert (
        text_of(await grep(cwd, pattern="foo", ignoreCase=True, glob="*.py"))
        == "a.py:1: Foo.bar()\na.py:2: foo(x)"
    )
    assert text_of(await grep(cwd, pattern="Foo.bar()", literal=True)) == "a.py:1: Foo.bar()"
    assert text_of(await grep(cwd, pattern="foo", glob="src/*.ts")) == "src/c.ts:1: foo"
    assert text_of(await grep(cwd, pattern="foo", glob="!*.py")) == "b.ts:1: foo\nsrc/c.ts:1: foo"
    assert text_of(await grep(cwd, pattern="nothing-here")) == "No matches found"


async def test_invalid_regex(cwd, backend):
    make_tree(cwd, {"a.txt": "x\n"})
    with pytest.raises(Exception, match="^regex parse error"):
        await grep(cwd, pattern="(unclosed")


async def test_missing_path(cwd, backend):
    with pytest.raises(Exception, match=f"^Path not found: {os.path.join(cwd, 'nope')}$"):
        await grep(cwd, pattern="x", path="nope")


async def test_explicit_ignored_file_is_searched(cwd, backend):
    make_tree(cwd, {".gitignore": "secret.txt\n", "secret.txt": "token\n"})
    assert text_of(await grep(cwd, pattern="token", path="secret.txt")) == "secret.txt:1: token"


async def test_context_with_crlf(cwd, backend):
    make_tree(cwd, {"w.txt": "a\r\nneedle\r\nc\r\n"})
    result = await grep(cwd, pattern="needle", context=1)
    assert text_of(result) == "w.txt-1- a\nw.txt:2: needle\nw.txt-3- c"


async def test_byte_limit(cwd, backend):
    make_tree(cwd, {"big.txt": "\n".join(f"match {i} " + "z" * 400 for i in range(300))})
    result = await grep(cwd, pattern="match", limit=1000)
    text = text_of(result)
    assert text.endswith("[50.0KB limit reached]")
    assert result.details["truncation"]["truncatedBy"] == "bytes"


async def test_aborted(cwd, backend):
    make_tree(cwd, {"a.txt": "x\n"})
    with pytest.raises(Exception, match="^Operation aborted$"):
        await run_tool(create_grep_tool(cwd), {"pattern": "x"}, signal=aborted_signal())


async def test_native_backend_required_but_missing(cwd, monkeypatch):
    import pi_app.coding.tools.search_backend as backend_module

    monkeypatch.setenv("PI_SEARCH_BACKEND", "native")
    monkeypatch.setattr(backend_module, "find_rg", lambda: None)
    with pytest.raises(Exception, match="^ripgrep \\(rg\\) is not available$"):
        await grep(cwd, pattern="x")
