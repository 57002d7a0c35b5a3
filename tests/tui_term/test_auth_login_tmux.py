"""``pi auth login`` on a real terminal (tmux) with the device-code sign-ins (issue 23, acceptance 3):
xAI and OpenAI Codex (``--no-browser``) print the verification URL and code, poll a loopback
authorization server, and save the credential 0600 in auth.json; ``pi auth check`` then reports it.

The flows' endpoints are pointed at the fake server by a two-line wrapper that replaces the
providers' OAuth factories before ``pi_app.cli.main`` runs; everything else is the real command.
"""

from __future__ import annotations

import json
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.oauth_server import CODEX_USER_CODE, XAI_USER_CODE, FakeOAuthServer
from tests.reliability.helpers import PiHome
from tests.tui_term.tmux_session import TmuxSession, tmux_available

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32" or not tmux_available(), reason="needs tmux"),
    pytest.mark.timeout(120),
]

WRAPPER = """
import sys
import pi_app.ai.auth.oauth.xai as x
import pi_app.ai.auth.oauth.openai_codex as c
base = sys.argv.pop(1)
x.xai_oauth = lambda: x.XaiOAuth(device_code_url=base + "/oauth2/device/code", token_url=base + "/oauth2/token")
c.openai_codex_oauth = lambda: c.OpenAICodexOAuth(auth_base_url=base, token_url=base + "/oauth/token")
from pi_app.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    ("provider", "flags", "code", "url"),
    [
        ("xai", [], XAI_USER_CODE, f"https://accounts.x.ai/device?user_code={XAI_USER_CODE}"),
        ("openai-codex", ["--no-browser"], CODEX_USER_CODE, "/codex/device"),
    ],
)
def test_device_code_login_in_a_terminal(
    tmp_path: Path, provider: str, flags: list[str], code: str, url: str
) -> None:
    server = FakeOAuthServer(pending_polls=1)
    home = PiHome.make(tmp_path)
    wrapper = tmp_path / "pi_wrapper.py"
    wrapper.write_text(WRAPPER)
    env = home.env()
    tmux = TmuxSession(home.project, env)
    try:
        command = [sys.executable, str(wrapper), server.base_url, "auth", "login", provider, *flags]
        tmux.type(" ".join(shlex.quote(part) for part in command))
        tmux.send_keys("Enter")
        screen = tmux.wait_for(lambda s: "Credentials saved to" in s or "Error" in s, timeout=60)
        assert code in screen and url in screen.replace("\n", ""), screen
        assert "Logged in to" in screen, screen
        auth = home.agent_dir / "auth.json"
        stored = json.loads(auth.read_text())[provider]
        assert stored["type"] == "oauth" and stored["refresh"] == "refresh-1"
        assert stat.S_IMODE(auth.stat().st_mode) == 0o600
        check = subprocess.run(
            [str(Path(sys.executable).with_name("pi")), "auth", "check", "--provider", provider, "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert json.loads(check.stdout) == {"status": "ready", "provider": provider, "authType": "oauth"}
    finally:
        tmux.close()
        server.close()
