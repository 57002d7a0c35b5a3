"""``/login`` with an API key in the installed ``pi`` under tmux, from a clean environment (issue 23,
acceptance 3): the key typed into the app lands in ``auth.json`` (0600), the next prompt is sent with
it, ``pi auth check`` reports it, and ``/logout`` removes it.

The provider is the built-in ``groq`` (no ``GROQ_API_KEY`` anywhere) with its base URL pointed at
the loopback fake server by ``models.json``, so the request is real HTTP with Groq's wire format.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome
from tests.tui_term.tmux_session import TmuxSession, tmux_available

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32" or not tmux_available(), reason="needs tmux"),
    pytest.mark.timeout(180),
]

PI = str(Path(sys.executable).with_name("pi"))


def test_login_api_key_route_end_to_end(tmp_path: Path) -> None:
    server = FakeLLMServer().start()
    home = PiHome.make(tmp_path)
    (home.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"groq": {"baseUrl": server.base_url + "/v1"}}}), encoding="utf-8"
    )
    env = {
        "HOME": str(home.home),
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "TERM": "tmux-256color",
        "LANG": "C.UTF-8",
        "PI_CODING_AGENT_DIR": str(home.agent_dir),
        "PI_OFFLINE": "1",
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    tmux = TmuxSession(home.project, home.env())
    auth = home.agent_dir / "auth.json"
    try:
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        tmux.type(f"env -i {assignments} pi")
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s: "/login" in s or "No models" in s)
        tmux.type("/login")
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s: "Sign in with an API key" in s)
        tmux.send_keys("Down", "Enter")
        tmux.wait_for(lambda s: "Select provider to configure:" in s)
        tmux.type("groq")
        tmux.wait_for(lambda s: "→ Groq" in s)
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s: "Enter Groq API key" in s)
        tmux.type("gsk-typed-key")
        screen = tmux.settle()
        assert "gsk-typed-key" not in screen  # masked
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s: "Saved API key for Groq." in s)
        assert json.loads(auth.read_text())["groq"] == {"type": "api_key", "key": "gsk-typed-key"}
        assert stat.S_IMODE(auth.stat().st_mode) == 0o600

        server.enqueue(text("Hello from Groq."))
        tmux.type("hi")
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s: "Hello from Groq." in s)
        request = server.requests[-1]
        assert request.path == "/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer gsk-typed-key"

        check = subprocess.run(
            [PI, "auth", "check", "--provider", "groq", "--json"],
            env={**env, "PATH": os.environ["PATH"]},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert check.returncode == 0, check.stderr
        assert json.loads(check.stdout) == {"status": "ready", "provider": "groq", "authType": "api_key"}

        tmux.type("/logout")
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s: "Select provider to logout:" in s)
        tmux.send_keys("Enter")
        tmux.wait_for(lambda s: "Removed stored API key for Groq." in s)
        assert "groq" not in json.loads(auth.read_text())
    finally:
        tmux.close()
        server.stop()
