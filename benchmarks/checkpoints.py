"""What file checkpoints cost: a 20 MB ``edit`` and a ``bash`` command in a 50,000-file project,
each with checkpoints on and off, interleaved in one run (issue 27; target: under 10 % overhead).

Usage: ``python benchmarks/checkpoints.py [files]``

Each measurement is one prompt through a real ``AgentSession`` (scripted provider, real tools): the
model calls the tool once, then answers. Printed: the median wall time of each case with and without
checkpoints, and their ratio. For bash, the first command in a session also builds the baseline
(every project file kept once, in a thread); it is printed on its own line, and the steady-state
figure is over the commands after it. The bash command takes about 0.2 s, as a small real command
(a test run, a build step) does.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pi_app.ai.auth import InMemoryCredentialStore
from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.coding.models.registry import ModelRegistry
from pi_app.coding.sdk import create_agent_session
from pi_app.coding.session.manager import SessionManager
from pi_app.coding.settings import SettingsManager

BASH = "sleep 0.2 && echo run >> build.log"
ROUNDS = 5


async def _session(project: Path, sessions: Path, script: list, enabled: bool):
    provider = fake_provider(script=script)
    registry = ModelRegistry(InMemoryCredentialStore(), None)
    registry.models.set_provider(provider)
    created = await create_agent_session(
        str(project),
        session_manager=SessionManager.create(str(project), str(sessions)),
        settings_manager=SettingsManager.in_memory({"checkpoints": {"enabled": enabled}}),
        model_registry=registry,
        model=provider.get_models()[0],
        no_context_files=True,
    )
    return created.session


def _tree(root: Path, files: int) -> None:
    for i in range(files):
        folder = root / f"pkg{i // 5000}" / f"mod{i // 100}"
        if i % 100 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i % 100}.py").write_text(f"value = {i}\n")


async def _timed(session, prompt: str) -> float:
    start = time.perf_counter()
    await session.prompt(prompt)
    return time.perf_counter() - start


async def bash_case(root: Path, files: int) -> None:
    project = root / "tree"
    _tree(project, files)
    times: dict[bool, list[float]] = {True: [], False: []}
    first: dict[bool, float] = {}
    script = [
        [tool_call("bash", {"command": BASH}, id=f"b{i}")] if i % 2 == 0 else [text("ok")] for i in range(40)
    ]
    sessions = {on: await _session(project, root / f"s-bash-{on}", list(script), on) for on in (True, False)}
    for on in (True, False):
        first[on] = await _timed(sessions[on], "run it")
    for _ in range(ROUNDS):
        for on in (True, False):
            times[on].append(await _timed(sessions[on], "run it"))
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(
        f"bash in a {files:,}-file project, first command: on {first[True]:.3f} s, off {first[False]:.3f} s"
    )
    print(
        f"bash in a {files:,}-file project, later commands: on {on:.3f} s, off {off:.3f} s, ratio {on / off:.3f}"
    )


async def edit_case(root: Path) -> None:
    times: dict[bool, list[float]] = {True: [], False: []}
    line = "the quick brown fox jumps over the lazy dog " * 2 + "\n"
    body = line * (20 * 1024 * 1024 // len(line))
    for round_ in range(ROUNDS):
        for on in (True, False):
            project = root / f"edit-{on}-{round_}"
            project.mkdir()
            (project / "big.txt").write_text(body + "MARKER\n")
            edit = tool_call(
                "edit", {"path": "big.txt", "edits": [{"oldText": "MARKER", "newText": "DONE"}]}, id="e"
            )
            session = await _session(project, root / f"s-edit-{on}-{round_}", [[edit], [text("ok")]], on)
            times[on].append(await _timed(session, "edit it"))
            assert (project / "big.txt").read_text().endswith("DONE\n")
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"20 MB edit: on {on:.3f} s, off {off:.3f} s, ratio {on / off:.3f}")


async def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PI_CODING_AGENT_DIR"] = str(Path(tmp) / "agent")
        await edit_case(Path(tmp))
        await bash_case(Path(tmp), files)


if __name__ == "__main__":
    asyncio.run(main())
