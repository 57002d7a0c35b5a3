"""The ls tool (spec 50 §3.12, scenario 30)."""

from __future__ import annotations

import os

import pytest

from pi_app.coding.tools import create_ls_tool
from tests.tools.conftest import aborted_signal, run_tool, text_of


async def ls(cwd: str, **params):
    return await run_tool(create_ls_tool(cwd), params)


async def test_listing_order_and_suffixes(cwd):
    os.mkdir(os.path.join(cwd, ".hidden-dir"))
    for name in (".hidden-file", "B.txt", "a.txt"):
        open(os.path.join(cwd, name), "w").close()
    os.symlink(".hidden-dir", os.path.join(cwd, "dirlink"))
    os.symlink("missing", os.path.join(cwd, "dangling"))
    result = await ls(cwd)
    assert text_of(result) == ".hidden-dir/\n.hidden-file\na.txt\nB.txt\ndirlink/"
    assert result.details is None


async def test_empty_and_errors(cwd):
    os.mkdir(os.path.join(cwd, "empty"))
    assert text_of(await ls(cwd, path="empty")) == "(empty directory)"
    open(os.path.join(cwd, "f.txt"), "w").close()
    with pytest.raises(Exception, match=f"^Not a directory: {os.path.join(cwd, 'f.txt')}$"):
        await ls(cwd, path="f.txt")
    with pytest.raises(Exception, match=f"^Path not found: {os.path.join(cwd, 'nope')}$"):
        await ls(cwd, path="nope")


async def test_limit(cwd):
    for name in ("x", "y", "z"):
        open(os.path.join(cwd, name), "w").close()
    result = await ls(cwd, limit=2)
    assert text_of(result) == "x\ny\n\n[2 entries limit reached. Use limit=4 for more]"
    assert result.details == {"entryLimitReached": 2}
    assert text_of(await ls(cwd, limit=0)).startswith("x\n\n[1 entries limit reached")


async def test_aborted(cwd):
    with pytest.raises(Exception, match="^Operation aborted$"):
        await run_tool(create_ls_tool(cwd), {}, signal=aborted_signal())
