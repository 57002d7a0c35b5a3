"""File checkpoints that follow the session tree: a scripted session changes five files with the
real tools (three edits, one write, one ``rm`` through bash); moving back in the tree restores
them byte for byte, moving forward brings the later state back, and a file changed by hand in
between is a conflict that is left alone unless the user says otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.coding.checkpoints import CHECKPOINT_TYPE, collect_garbage, store_root
from pi_app.coding.checkpoints.watch import ProjectWatcher
from pi_app.coding.models.registry import ModelRegistry
from pi_app.coding.sdk import create_agent_session
from pi_app.coding.session.manager import SessionManager
from pi_app.coding.settings import SettingsManager
from tests.tui.fakes import InMemoryCredentialStore

ORIGINAL = {
    "a.txt": b"alpha one\n",
    "b.txt": b"bravo one\r\nsecond line\r\n",  # CRLF kept byte for byte
    "src/c.py": b"print('charlie')\n",
    "e.txt": b"echo: deleted by bash\n",
}


def _edit(path: str, old: str, new: str, call_id: str):
    return tool_call("edit", {"path": path, "edits": [{"oldText": old, "newText": new}]}, id=call_id)


SCRIPT = [
    [text("Hello.")],
    [
        _edit("a.txt", "one", "two", "c1"),
        _edit("b.txt", "one", "two", "c2"),
        _edit("src/c.py", "charlie", "CHARLIE", "c3"),
        tool_call("write", {"path": "d/new.txt", "content": "delta\n"}, id="c4"),
        tool_call("bash", {"command": "rm e.txt"}, id="c5"),
    ],
    [text("Changed five files.")],
]


def _snapshot(root: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


async def _session(project: Path, sessions: Path, script, settings=None):
    provider = fake_provider(script=script)
    registry = ModelRegistry(InMemoryCredentialStore(), None)
    registry.models.set_provider(provider)
    created = await create_agent_session(
        str(project),
        session_manager=SessionManager.create(str(project), str(sessions)),
        settings_manager=SettingsManager.in_memory(settings or {}),
        model_registry=registry,
        model=provider.get_models()[0],
        no_context_files=True,
    )
    return created.session


def _write_project(root: Path) -> None:
    for name, data in ORIGINAL.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


@pytest.mark.parametrize("notifications", [True, False], ids=["file-notifications", "tree-scan"])
async def test_tree_back_restores_five_files_and_forward_brings_the_changes_back(
    tmp_path: Path, notifications: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not notifications:  # where the OS cannot watch the project, bash changes are found by scanning
        monkeypatch.setattr(ProjectWatcher, "start", classmethod(lambda cls, root: None))
    project, sessions = tmp_path / "project", tmp_path / "sessions"
    project.mkdir()
    _write_project(project)
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    session = await _session(project, sessions, SCRIPT)
    await session.prompt("one")
    await session.prompt("change the files")
    changed = _snapshot(project)
    assert (
        changed["a.txt"] == b"alpha two\n" and "e.txt" not in changed and changed["d/new.txt"] == b"delta\n"
    )
    leaf = session.session_manager.get_leaf_id()
    checkpoints = [
        e for e in session.session_manager.get_entries() if e.raw.get("customType") == CHECKPOINT_TYPE
    ]
    assert (session.checkpoints._watcher is not None) == notifications
    assert [e.raw["data"]["tool"] for e in checkpoints] == ["edit", "edit", "edit", "write", "bash"]
    assert checkpoints[-1].raw["data"]["files"][0]["path"] == "e.txt"

    # /tree to the first prompt: pi goes to the point before it; the files are as they were then
    first_prompt = session.session_manager.get_branch()[0]
    user_entries = [
        e for e in session.session_manager.get_branch() if e.raw.get("message", {}).get("role") == "user"
    ]
    result = await session.navigate_tree(user_entries[0].id)
    plan = session.plan_file_restore(result.old_leaf_id, result.new_leaf_id)
    assert plan is not None and sorted(c.path for c in plan.changes) == [
        "a.txt",
        "b.txt",
        "d/new.txt",
        "e.txt",
        "src/c.py",
    ]
    assert not plan.conflicts
    assert "-alpha two" in session.file_restore_diff(plan) and "+alpha one" in session.file_restore_diff(plan)
    restored = session.restore_files(plan)
    assert sorted(restored.restored) == ["a.txt", "b.txt", "d/new.txt", "e.txt", "src/c.py"]
    now = _snapshot(project)
    assert {k: v for k, v in now.items() if not k.startswith(".git")} == ORIGINAL
    assert now[".git/HEAD"] == b"ref: refs/heads/main\n"  # never touched
    assert first_prompt is not None

    # a hand edit, then forward again to the end of the changes: the hand-edited file is a conflict
    (project / "a.txt").write_bytes(b"edited by hand\n")
    back_leaf = session.session_manager.get_leaf_id()
    result = await session.navigate_tree(leaf)
    plan = session.plan_file_restore(back_leaf, result.new_leaf_id)
    assert [c.path for c in plan.conflicts] == ["a.txt"]
    restored = session.restore_files(plan)
    assert restored.skipped == ["a.txt"]
    after = _snapshot(project)
    assert after["a.txt"] == b"edited by hand\n"  # not overwritten without asking
    assert after["b.txt"] == changed["b.txt"] and after["d/new.txt"] == b"delta\n" and "e.txt" not in after
    # the user says yes to the conflict: now it is the later state too
    plan = session.plan_file_restore(
        session.session_manager.get_leaf_id(), session.session_manager.get_leaf_id()
    )
    session.restore_files(session.plan_file_restore(back_leaf, leaf), overwrite_conflicts=True)
    assert _snapshot(project)["a.txt"] == b"alpha two\n"

    # the session file stays a pi session: checkpoints are custom entries with JSON data
    lines = [json.loads(line) for line in Path(session.session_file).read_text().splitlines()]
    assert all(line["type"] != "checkpoint" for line in lines)
    assert {line.get("customType") for line in lines if line["type"] == "custom"} == {CHECKPOINT_TYPE}


async def test_a_headless_run_reads_the_bash_baseline_at_its_first_bash_call(tmp_path: Path) -> None:
    """``pi -p`` / JSON mode (``baseline_at_start`` False): a prompt without a command never reads
    the project; the first bash call reads it first, so what the command changed is still recorded."""
    project, sessions = tmp_path / "project", tmp_path / "sessions"
    project.mkdir()
    _write_project(project)
    session = await _session(project, sessions, SCRIPT)
    assert session.checkpoints is not None
    session.checkpoints.baseline_at_start = False
    await session.prompt("one")
    assert session.checkpoints._indexed is None  # a prompt without bash: the project was not read
    await session.prompt("change the files")
    checkpoints = [
        e for e in session.session_manager.get_entries() if e.raw.get("customType") == CHECKPOINT_TYPE
    ]
    assert [e.raw["data"]["tool"] for e in checkpoints] == ["edit", "edit", "edit", "write", "bash"]
    removed = checkpoints[-1].raw["data"]["files"]
    assert [f["path"] for f in removed] == ["e.txt"] and removed[0]["before"] and removed[0]["after"] is None
    store = session.checkpoints.store
    assert store.get(removed[0]["before"]) == ORIGINAL["e.txt"]


async def test_checkpoints_off_records_nothing_and_gc_keeps_what_sessions_use(tmp_path: Path) -> None:
    project, sessions = tmp_path / "project", tmp_path / "sessions"
    project.mkdir()
    _write_project(project)
    off = await _session(project, sessions / "off", SCRIPT, settings={"checkpoints": {"enabled": False}})
    await off.prompt("one")
    await off.prompt("change")
    assert off.checkpoints is None
    assert not any(e.raw.get("customType") == CHECKPOINT_TYPE for e in off.session_manager.get_entries())

    project2 = tmp_path / "project2"
    project2.mkdir()
    _write_project(project2)
    on = await _session(project2, sessions / "on", SCRIPT)
    await on.prompt("one")
    await on.prompt("change")
    agent_dir = Path(on.checkpoints.store.root).parent
    objects = lambda: sorted(p.name for p in (store_root(agent_dir) / "objects").rglob("*") if p.is_file())  # noqa: E731
    kept = objects()
    orphan = on.checkpoints.store.put(b"nobody refers to this")
    removed, freed = collect_garbage(agent_dir, sessions)
    assert removed == 1 and freed > 0 and orphan not in objects()
    assert objects() == kept
