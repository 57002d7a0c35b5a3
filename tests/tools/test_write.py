"""The write tool (spec 50 §3.6, scenario 11, atomic replace)."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from pi_app.coding.tools import create_write_tool
from tests.tools.conftest import aborted_signal, run_tool, text_of


async def test_write_creates_directories(cwd):
    result = await run_tool(create_write_tool(cwd), {"path": "nested/dir/t.txt", "content": "Nested"})
    assert text_of(result) == "Successfully wrote 6 bytes to nested/dir/t.txt"
    assert result.details is None
    with open(os.path.join(cwd, "nested/dir/t.txt")) as handle:
        assert handle.read() == "Nested"


async def test_write_counts_utf8_bytes_and_keeps_text_verbatim(cwd):
    result = await run_tool(create_write_tool(cwd), {"path": "u.txt", "content": "héllo\r\n"})
    assert text_of(result) == "Successfully wrote 8 bytes to u.txt"
    with open(os.path.join(cwd, "u.txt"), "rb") as handle:
        assert handle.read() == "héllo\r\n".encode()


async def test_write_keeps_mode_and_follows_symlink(cwd):
    target = os.path.join(cwd, "real.sh")
    with open(target, "w") as handle:
        handle.write("old")
    os.chmod(target, 0o751)
    os.symlink("real.sh", os.path.join(cwd, "link.sh"))
    await run_tool(create_write_tool(cwd), {"path": "link.sh", "content": "new"})
    assert os.path.islink(os.path.join(cwd, "link.sh"))
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o751
    with open(target) as handle:
        assert handle.read() == "new"


async def test_write_errors_name_errno(cwd):
    with open(os.path.join(cwd, "file"), "w") as handle:
        handle.write("x")
    with pytest.raises(
        Exception, match=r"^Could not write file: file/sub.txt\. Error code: (ENOTDIR|EEXIST)\.$"
    ):
        await run_tool(create_write_tool(cwd), {"path": "file/sub.txt", "content": "x"})
    os.mkdir(os.path.join(cwd, "adir"))
    with pytest.raises(Exception, match=r"Error code: EISDIR\.$"):
        await run_tool(create_write_tool(cwd), {"path": "adir", "content": "x"})


async def test_failed_write_leaves_old_content(cwd, monkeypatch):
    path = os.path.join(cwd, "keep.txt")
    with open(path, "w") as handle:
        handle.write("precious")

    def disk_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(Exception, match="ENOSPC"):
        await run_tool(create_write_tool(cwd), {"path": "keep.txt", "content": "replacement"})
    with open(path) as handle:
        assert handle.read() == "precious"
    assert os.listdir(cwd) == ["keep.txt"]  # no temp file left behind


async def test_write_aborted_changes_nothing(cwd):
    with pytest.raises(Exception, match="^Operation aborted$"):
        await run_tool(create_write_tool(cwd), {"path": "a/b.txt", "content": "x"}, signal=aborted_signal())
    assert os.listdir(cwd) == []
