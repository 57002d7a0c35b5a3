"""The README's RPC client example runs as written against the loopback fake server."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

from pi_app.ai.testing import text
from tests.e2e.helpers import write_models_json

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_rpc_client_example(llm_server, project, agent_dir, monkeypatch) -> None:
    section = README.read_text().split("## Scripts and other programs")[1].split("\n## ")[0]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    write_models_json(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("Just a.txt and b.txt."))
    monkeypatch.chdir(project)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("events; Just a.txt and b.txt.") and int(lines[0].split()[0]) > 5
    assert lines[1] == "fake-model"
    assert os.getcwd() == str(project)
