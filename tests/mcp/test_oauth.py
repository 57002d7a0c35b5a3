"""Sign-in to an HTTP MCP server that demands OAuth (issue 22 acceptance 2): discovery, dynamic
client registration, authorization code with PKCE, the browser step answered by the test
(``$BROWSER`` is a script that follows the authorization URL), tokens stored 0600 beside
``auth.json``, refreshed after they expire, signed out."""

from __future__ import annotations

import json
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_app.ai.testing import text, tool_call
from tests.e2e.helpers import run_pi, write_models_json
from tests.fakes.llm_server import FakeLLMServer
from tests.mcp.oauth_server import OAuthMcpServer
from tests.mcp.servers import write_mcp_json

# The "browser": fetches the authorization page and follows its redirect to pi's callback.
BROWSER = """#!{python}
import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=10).read()
open({marker!r}, "a").write("opened\\n")
"""


@pytest.fixture
def oauth_server() -> Iterator[OAuthMcpServer]:
    server = OAuthMcpServer(token_lifetime=3).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def browser(tmp_path: Path) -> dict[str, str]:
    marker = tmp_path / "browser.log"
    script = tmp_path / "browser"
    script.write_text(BROWSER.format(python=sys.executable, marker=str(marker)))
    script.chmod(0o755)
    return {"BROWSER": str(script), "PI_TEST_BROWSER_LOG": str(marker)}


def test_login_stores_tokens_0600_and_a_session_uses_and_refreshes_them(
    oauth_server: OAuthMcpServer,
    browser: dict[str, str],
    llm_server: FakeLLMServer,
    agent_dir: Path,
    project: Path,
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(agent_dir, {"guarded": {"url": oauth_server.url, "exposure": "direct"}})
    before = run_pi("mcp", "list", cwd=project, timeout=60)
    assert (
        before.returncode == 1
        and "guarded: needs-auth" in before.stdout
        and "pi mcp login guarded" in before.stdout
    )

    login = run_pi("mcp", "login", "guarded", "--timeout", "30", cwd=project, env=browser, timeout=60)
    assert login.returncode == 0, login.stderr
    assert login.stdout.strip() == 'Signed in to MCP server "guarded".'
    assert Path(browser["PI_TEST_BROWSER_LOG"]).read_text() == "opened\n"
    assert oauth_server.events.count("register pi") == 1 and "token authorization_code" in oauth_server.events
    store = agent_dir / "mcp-auth.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600 and store.parent == (agent_dir / "auth.json").parent
    record = json.loads(store.read_text())[f"guarded {oauth_server.url}"]
    first_token = record["tokens"]["access_token"]
    assert record["tokens"]["refresh_token"] and record["client"]["client_id"].startswith("client-")

    time.sleep(3.5)  # the access token expires; the next session refreshes it without a browser
    llm_server.enqueue(tool_call("mcp__guarded__whoami", {}, id="c1"))
    llm_server.enqueue(text("done"))
    result = run_pi(
        "--provider", "fake", "--model", "fake-model", "--no-session", "-p", "who?", cwd=project, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "signed in as test-user" in json.dumps(llm_server.requests[1].body)
    assert "token refresh_token" in oauth_server.events
    assert oauth_server.events.count("authorize") == 1  # no second sign-in
    refreshed = json.loads(store.read_text())[f"guarded {oauth_server.url}"]["tokens"]["access_token"]
    assert refreshed != first_token and stat.S_IMODE(store.stat().st_mode) == 0o600

    logout = run_pi("mcp", "logout", "guarded", cwd=project)
    assert logout.stdout.strip() == 'Signed out of MCP server "guarded".'
    assert f"guarded {oauth_server.url}" not in json.loads(store.read_text())


def test_a_session_without_sign_in_says_so_in_one_line_and_goes_on(
    oauth_server: OAuthMcpServer, llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    write_mcp_json(agent_dir, {"guarded": {"url": oauth_server.url, "exposure": "direct"}})
    llm_server.enqueue(text("fine"))
    result = run_pi(
        "--provider", "fake", "--model", "fake-model", "--no-session", "-p", "hi", cwd=project, timeout=60
    )
    assert result.returncode == 0 and result.stdout.strip() == "fine"
    lines = [line for line in result.stderr.splitlines() if "guarded" in line]
    assert len(lines) == 1 and "sign-in" in lines[0] and "pi mcp login guarded" in lines[0]
    assert "authorize" not in oauth_server.events  # nobody opened a browser


async def test_a_pasted_redirect_address_completes_the_callback() -> None:
    from pi_app.coding.mcp.oauth import CallbackServer

    callback = CallbackServer()
    await callback.start()
    try:
        assert not callback.deliver_url("http://127.0.0.1:1/callback?nothing=here")
        assert callback.deliver_url("http://127.0.0.1:1/callback?code=abc&state=xyz&iss=http%3A%2F%2Fas")
        result = await callback.wait()
        assert (result.code, result.state, result.iss) == ("abc", "xyz", "http://as")
    finally:
        callback.close()


def test_a_rejected_access_token_is_refreshed_before_asking_for_a_sign_in(
    browser: dict[str, str], llm_server: FakeLLMServer, agent_dir: Path, project: Path
) -> None:
    server = OAuthMcpServer(token_lifetime=3600).start()
    try:
        write_models_json(agent_dir, llm_server.base_url)
        write_mcp_json(agent_dir, {"guarded": {"url": server.url, "exposure": "direct"}})
        assert (
            run_pi(
                "mcp", "login", "guarded", "--timeout", "30", cwd=project, env=browser, timeout=60
            ).returncode
            == 0
        )
        server.revoke_access_tokens()  # the stored token still looks valid for an hour
        llm_server.enqueue(tool_call("mcp__guarded__whoami", {}, id="c1"))
        llm_server.enqueue(text("done"))
        result = run_pi(
            "--provider",
            "fake",
            "--model",
            "fake-model",
            "--no-session",
            "-p",
            "who?",
            cwd=project,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert "signed in as test-user" in json.dumps(llm_server.requests[1].body)
        assert "token refresh_token" in server.events and server.events.count("authorize") == 1
        assert "sign-in" not in result.stderr, result.stderr
    finally:
        server.stop()
