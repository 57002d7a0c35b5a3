"""Black-box: what the full-screen app leaves unloaded until its first frame is out (issue 9, acceptance 4).

Speed itself is measured in ``benchmarks/tui_vs_log.py``; this pins what plain ``pi`` on a terminal
must not import before the first frame shows the header: the session layer (settings, models,
agent, extensions), pydantic and httpx, the message types, the markdown renderer and pygments,
the editor's grapheme splitter (``regex``), the slash commands and the dialog widgets, watchfiles
and the argument parser. They load on the agent thread or on first use, after the first frame.

The real ``pi`` entry point runs on a pseudo-terminal; a small wrapper notes ``sys.modules`` the
moment Textual hands the terminal a frame that shows pi's version (on the UI thread, before the
agent thread exists) and ends the process.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pi_app import __version__
from tests.e2e.helpers import PI, write_models_json
from tests.tui_term.pty_terminal import PtyTerminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")

NOT_BEFORE_THE_FIRST_FRAME = (
    "pi_app.ai",
    "pi_app.agent",
    "pi_app.coding.agent_session",
    "pi_app.coding.sdk",
    "pi_app.coding.settings",
    "pi_app.coding.models",
    "pi_app.coding.extensions.loader",
    "pi_app.coding.resources.context_files",
    "pi_app.tui.transcript.blocks.assistant",
    "pi_app.tui.transcript.blocks.markdown",
    "pi_app.tui.commands",
    "pi_app.tui.extensions.dialogs",
    "pi_app.tui.selectors",
    "pydantic",
    "pydantic_core",
    "httpx",
    "pygments",
    "markdown_it",
    "regex",
    "watchfiles",
    "tiktoken",
    "yaml",
    "PIL",
    "argparse",
    "importlib.resources",
)

WRAPPER = """
import json, os, sys
from textual.drivers import linux_driver

out, marker = sys.argv[1], sys.argv[2]
write = linux_driver.LinuxDriver.write

def first_frame(self, data):
    write(self, data)
    if marker in data:
        with open(out + ".part", "w") as f:  # whole, then renamed: the test polls for the file
            json.dump(sorted(sys.modules), f)
        os.replace(out + ".part", out)
        os._exit(0)

linux_driver.LinuxDriver.write = first_frame
sys.argv = ["pi"]
from pi_app.cli import main
sys.exit(main())
"""


def test_the_first_frame_is_painted_before_the_session_layer_is_imported(
    llm_server, project: Path, agent_dir: Path, tmp_path: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    wrapper = tmp_path / "first_frame.py"
    wrapper.write_text(WRAPPER, encoding="utf-8")
    out = tmp_path / "modules.json"
    python = str(Path(PI).with_name("python"))
    term = PtyTerminal([python, str(wrapper), str(out), f"v{__version__}"], size=(120, 40), cwd=str(project))
    try:
        term.wait_for(lambda: out.exists() and out.stat().st_size > 0, timeout=60)
    finally:
        term.close()
    imported = set(json.loads(out.read_text(encoding="utf-8")))
    imported.discard(
        "pydantic.plugin._loader"
    )  # pi_app.cli's stand-in, put in place without importing pydantic
    assert {"textual.app", "pi_app.tui.app", "pi_app.tui.transcript.view"} <= imported  # the listing is real
    loaded = sorted(
        m for m in imported if any(m == n or m.startswith(n + ".") for n in NOT_BEFORE_THE_FIRST_FRAME)
    )
    assert loaded == []
