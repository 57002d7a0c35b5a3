"""File modes and hard links (issue 19 item 4).

The ``write`` tool used to replace a read-only (0444) file through a temp file and a rename (which
needs only the folder's permission), a 0444 session file was replaced by a new one after the first
failed append, and ``edit`` broke hard links (the other name kept the old content). Now a file pi
may not write gets EACCES (to the model, or one line to the user) and stays as it was, and a
hard-linked file is rewritten in place.

The tests run as root here, which may write anything; the ``unprivileged`` prefix drops the
capabilities that let root ignore file modes (``setpriv``), so the kernel checks them as it would
for any user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi_app.ai.testing import text, tool_call
from pi_app.coding.tools import create_edit_tool, create_write_tool
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome, assert_no_traceback
from tests.tools.conftest import run_tool


def unprivileged(*command: str) -> list[str]:
    if os.geteuid() != 0:
        return list(command)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file modes cannot be checked")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search,-fowner", *command]


@pytest.fixture
def pi_home(tmp_path: Path) -> PiHome:
    return PiHome.make(tmp_path)


def _run_unprivileged(home: PiHome, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        unprivileged(PI, *args), cwd=home.project, env=home.env(), capture_output=True, text=True, timeout=60
    )


def test_write_to_a_read_only_file_is_eacces_and_the_file_stays(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    target = pi_home.project / "ro.txt"
    target.write_text("old\n")
    target.chmod(0o444)
    inode = target.stat().st_ino
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(tool_call("write", {"path": "ro.txt", "content": "new\n"}, id="call_1"))
    llm_server.enqueue(text("done"))

    result = _run_unprivileged(pi_home, "-p", "overwrite it")

    assert result.returncode == 0, result.stderr
    tool_message = llm_server.requests[1].body["messages"][-1]
    assert tool_message["content"] == "Could not write file: ro.txt. Error code: EACCES."
    assert target.read_text() == "old\n" and target.stat().st_ino == inode
    assert oct(target.stat().st_mode & 0o777) == "0o444"


def test_a_read_only_session_file_is_reported_in_one_line_and_never_replaced(
    pi_home: PiHome, llm_server: FakeLLMServer
) -> None:
    session = pi_home.project / "s.jsonl"
    header = {"type": "session", "version": 3, "id": "0199aaaa-0000-7000-8000-000000000001",
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(pi_home.project)}  # fmt: skip
    session.write_text(json.dumps(header) + "\n")
    session.chmod(0o444)
    before = session.read_bytes(), session.stat().st_ino
    pi_home.point_at(llm_server.base_url)
    llm_server.enqueue(text("hello"))

    result = _run_unprivileged(pi_home, "--session", "s.jsonl", "-p", "hi")

    assert_no_traceback(result.stderr)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Permission denied" in result.stderr and str(session) in result.stderr
    assert (session.read_bytes(), session.stat().st_ino) == before
    assert sorted(p.name for p in pi_home.project.iterdir()) == ["s.jsonl"]


async def test_edit_keeps_hard_links_pointing_at_the_new_content(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello world\n")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")

    await run_tool(
        create_edit_tool(str(tmp_path)), {"path": "a.txt", "edits": [{"oldText": "hello", "newText": "bye"}]}
    )

    assert (tmp_path / "b.txt").read_text() == "bye world\n"
    assert (tmp_path / "a.txt").stat().st_ino == (tmp_path / "b.txt").stat().st_ino


async def test_write_keeps_hard_links_and_shrinks_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a long first version\n")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")

    await run_tool(create_write_tool(str(tmp_path)), {"path": "b.txt", "content": "short\n"})

    assert (tmp_path / "a.txt").read_text() == "short\n"


async def test_a_file_with_one_name_is_still_replaced_atomically_with_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "x.sh"
    target.write_text("echo 1\n")
    target.chmod(0o751)
    inode = target.stat().st_ino

    await run_tool(create_write_tool(str(tmp_path)), {"path": "x.sh", "content": "echo 2\n"})

    assert target.read_text() == "echo 2\n"
    assert target.stat().st_ino != inode  # a temp file renamed over it: never truncated in place
    assert target.stat().st_mode & 0o777 == 0o751


SECOND_APPEND = """
import sys
from pi_app.coding.session.manager import SessionManager
from pi_app.coding.session.storage import SessionWriteError
manager = SessionManager.open(sys.argv[1])
for text in ("first", "second", "third"):
    try:
        manager.append_message({"role": "user", "content": text, "timestamp": 1})
    except SessionWriteError as exc:
        print(exc)
"""


def test_appends_after_a_failed_one_never_replace_a_read_only_session(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    header = {"type": "session", "version": 3, "id": "0199aaaa-0000-7000-8000-000000000002",
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(tmp_path)}  # fmt: skip
    session.write_text(json.dumps(header) + "\n")
    session.chmod(0o444)
    before = session.read_bytes(), session.stat().st_ino

    result = subprocess.run(
        unprivileged(sys.executable, "-c", SECOND_APPEND, str(session)),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Permission denied") == 3, result.stdout
    assert (session.read_bytes(), session.stat().st_ino) == before
