"""Secrets stay secret; exported pages run no script (issue 12 item 4).

- API keys (``models.json`` literal, ``--api-key``, ``auth.json`` api_key, an OAuth access token)
  never appear in session files, JSON/RPC output, stderr, exports or any other file pi writes,
  in a normal run and in failing ones. ``auth.json`` is 0600 in a 0700 folder.
- ``--export`` escapes everything: a session full of script payloads in messages, tool calls and
  tool output yields a page with no script element, no event handler and no ``javascript:`` URL,
  and headless Chromium loading it runs nothing (the payloads would mark the DOM if they ran).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi_app.ai.testing import http_error, text, tool_call
from pi_app.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_app.coding.auth_storage import AuthStorage
from pi_app.coding.messages import BashExecutionMessage
from pi_app.coding.session.manager import SessionManager
from pi_app.modes.rpc_client import RpcClient
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

MODELS_KEY = "sk-models-json-SECRET-1111"
CLI_KEY = "sk-cli-flag-SECRET-2222"
AUTH_KEY = "sk-auth-json-SECRET-3333"
OAUTH_TOKEN = "oauth-access-SECRET-4444"
REFRESH_TOKEN = "oauth-refresh-SECRET-5555"
SECRETS = (MODELS_KEY, CLI_KEY, AUTH_KEY, OAUTH_TOKEN, REFRESH_TOKEN)
STORES = ("models.json", "auth.json")  # where the user put them on purpose


def _configure(pi_home: PiHome, base_url: str) -> None:
    config = {
        "providers": {
            "fake": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": MODELS_KEY,
                "models": [{"id": "fake-model"}],
            },
            "stored": {
                "baseUrl": base_url,
                "api": "anthropic-messages",
                "apiKey": "placeholder-auth-json-wins",
                "models": [{"id": "stored-model"}],
            },
        }
    }
    (pi_home.agent_dir / "models.json").write_text(json.dumps(config))
    store = AuthStorage(pi_home.agent_dir / "auth.json")

    async def save() -> None:
        async def api_key(_old):
            return {"type": "api_key", "key": AUTH_KEY}

        async def oauth(_old):
            return {
                "type": "oauth",
                "access": OAUTH_TOKEN,
                "refresh": REFRESH_TOKEN,
                "expires": 4102444800000,
            }

        await store.modify("stored", api_key)
        await store.modify("other", oauth)

    asyncio.run(save())


def _written_files(pi_home: PiHome) -> list[Path]:
    roots = (pi_home.home, pi_home.project)
    return [p for root in roots for p in root.rglob("*") if p.is_file() and p.name not in STORES]


def assert_no_secret(where: str, content: str | bytes) -> None:
    data = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    for secret in SECRETS:
        assert secret not in data, f"{secret} leaked into {where}"


def _scan(pi_home: PiHome, *outputs: str) -> int:
    for index, output in enumerate(outputs):
        assert_no_secret(f"output {index}", output)
    files = _written_files(pi_home)
    for path in files:
        assert_no_secret(str(path), path.read_bytes())
    return len(files)


def test_keys_never_reach_sessions_outputs_exports_or_other_files(tmp_path: Path) -> None:
    pi_home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        _configure(pi_home, server.base_url)
        server.enqueue(text("listing"), tool_call("bash", {"command": "ls -la"}, id="c1"))
        server.enqueue(text("done"))
        ok = pi_home.run("--mode", "json", "--model", "fake/fake-model", "hello")
        server.enqueue(text("cli key answer"))
        cli = pi_home.run("-c", "-p", "--model", "fake/fake-model", "--api-key", CLI_KEY, "again")
        server.enqueue(text("stored key answer"))
        stored = pi_home.run("-c", "-p", "--model", "stored/stored-model", "third")
        server.enqueue(http_error(401, {"error": {"type": "authentication_error", "message": "bad key"}}))
        failed = pi_home.run("-c", "-p", "--model", "stored/stored-model", "fourth")

        # The keys did travel to the server (so the scan below is meaningful)...
        sent = [json.dumps(r.headers) for r in server.requests]
    assert MODELS_KEY in sent[0] and CLI_KEY in sent[2] and AUTH_KEY in sent[3]
    assert ok.returncode == 0 and cli.returncode == 0 and stored.returncode == 0, (ok.stderr, cli.stderr)
    assert failed.returncode == 1 and "bad key" in failed.stderr

    (session,) = pi_home.sessions()
    export = pi_home.run("--export", str(session), str(pi_home.project / "out.html"))
    assert export.returncode == 0, export.stderr
    outputs = [r.stdout + r.stderr for r in (ok, cli, stored, failed, export)]
    # ...and nowhere else: session, export, stdout/stderr, debug log, any other file.
    assert _scan(pi_home, *outputs) >= 2


def test_connection_failures_do_not_echo_keys(tmp_path: Path) -> None:
    pi_home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        base_url = server.base_url
    _configure(pi_home, base_url)  # the server is gone: every request fails to connect
    pi_home.write_settings({"retry": {"enabled": False, "provider": {"maxRetries": 0}}})
    results = [
        pi_home.run("-p", "--model", "fake/fake-model", "--api-key", CLI_KEY, "hello"),
        pi_home.run("--mode", "json", "--model", "stored/stored-model", "hello"),
    ]
    for result in results:
        assert result.returncode in (0, 1)
        assert "Connection error" in result.stdout + result.stderr
    _scan(pi_home, *(r.stdout + r.stderr for r in results))


def test_a_server_echoing_the_key_in_its_error_gets_it_redacted(tmp_path: Path) -> None:
    """Proxies and some servers quote the key they rejected; the error text is stored and shown."""
    pi_home = PiHome.make(tmp_path)
    pi_home.write_settings({"retry": {"enabled": False, "provider": {"maxRetries": 1}}})
    results = []
    with FakeLLMServer() as server:
        _configure(pi_home, server.base_url)
        for model, key in (("fake/fake-model", MODELS_KEY), ("stored/stored-model", AUTH_KEY)):
            echo = {"error": {"type": "server_error", "message": f"upstream rejected {key}"}}
            server.enqueue(http_error(500, echo))  # retried by L1: lands in the message diagnostics
            server.enqueue(http_error(401, {"error": {"type": "auth_error", "message": f"bad key {key}"}}))
            results.append(pi_home.run("-p", "--model", model, "hello"))
        sent = [json.dumps(r.headers) for r in server.requests]
    assert MODELS_KEY in sent[0] and AUTH_KEY in sent[2]  # the echoed values are the real keys
    for result in results:
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == ["401 auth_error: bad key [redacted]"]
    (session, *_rest) = pi_home.sessions()
    assert "upstream rejected [redacted]" in session.read_text()  # the retry diagnostic, redacted
    _scan(pi_home, *(r.stdout + r.stderr for r in results))


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")
def test_the_app_its_screen_and_its_debug_log_carry_no_key(tmp_path: Path) -> None:
    from tests.e2e.helpers import PI
    from tests.tui_term.pty_terminal import PtyTerminal

    pi_home = PiHome.make(tmp_path)
    pi_home.write_settings({"retry": {"enabled": False}})
    with FakeLLMServer() as server:
        _configure(pi_home, server.base_url)
        server.enqueue(text("first tui answer"))
        server.enqueue(http_error(401, {"error": {"type": "auth_error", "message": f"bad key {AUTH_KEY}"}}))
        term = PtyTerminal(
            [PI, "--model", "stored/stored-model"],
            size=(100, 30),
            env=pi_home.env(),
            cwd=str(pi_home.project),
        )
        try:
            term.wait_for(lambda: "stored-model" in term.text(), timeout=60)
            term.type("hello\r")
            term.wait_for(lambda: "first tui answer" in term.text(), timeout=30)
            term.type("again\r")
            term.wait_for(lambda: "bad key [redacted]" in term.text(), timeout=30)
            term.type("/debug\r")
            debug_log = pi_home.agent_dir / "pi-debug.log"
            term.wait_for(debug_log.exists, timeout=30)
        finally:
            term.close()
        assert AUTH_KEY in json.dumps(server.requests[0].headers)
    assert "first tui answer" in debug_log.read_text()  # the log holds the conversation, not the key
    assert _scan(pi_home, term.raw) >= 2  # session file and debug log at least


def test_rpc_state_and_messages_carry_no_key(tmp_path: Path) -> None:
    pi_home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        _configure(pi_home, server.base_url)
        server.enqueue(text("hi"))
        client, lines, replies = asyncio.run(_rpc_session(pi_home))
    assert_no_secret("rpc", json.dumps(replies) + json.dumps(lines) + client.stderr_tail())
    assert replies[0]["model"]["id"] == "stored-model"
    _scan(pi_home)


async def _rpc_session(pi_home: PiHome) -> tuple[RpcClient, list[dict], list]:
    client = RpcClient(
        ["--model", "stored/stored-model", "--api-key", CLI_KEY],
        cwd=str(pi_home.project),
        env=pi_home.env(),
        command=[sys.executable, "-m", "pi_app"],
    )
    lines: list[dict] = []
    await client.start()
    try:
        client.on_event(lines.append)
        await client.prompt("hello")
        for _ in range(1500):  # events arrive on the client's reader task
            if any(e.get("type") == "agent_end" for e in lines):
                break
            await asyncio.sleep(0.02)
        replies = [
            await client.get_state(),
            await client.get_messages(),
            await client.get_available_models(),
            await client.get_session_stats(),
        ]
    finally:
        await client.stop()
    return client, lines, replies


def test_auth_json_is_private(tmp_path: Path) -> None:
    pi_home = PiHome.make(tmp_path)
    pi_home.agent_dir.rmdir()
    store = AuthStorage(pi_home.agent_dir / "auth.json")

    async def put(_old):
        return {"type": "api_key", "key": AUTH_KEY}

    asyncio.run(store.modify("p", put))
    path = pi_home.agent_dir / "auth.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert pi_home.agent_dir.stat().st_mode & 0o777 == 0o700


# ---------------------------------------------------------------------------------------------
# --export escaping
# ---------------------------------------------------------------------------------------------

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _payloads(tag: str) -> str:
    mark = f"document.documentElement.setAttribute('data-pwned-{tag}','1')"
    return (
        f'<script>{mark}</script> <img src=x onerror="{mark}"> <svg onload="{mark}"></svg> '
        f'<iframe src="javascript:{mark}"></iframe> [click](javascript:{mark}) '
        f"<a href='javascript:{mark}'>a</a> </pre></code><script>{mark}</script> "
        f'"><script>{mark}</script> <style>body{{display:none}}</style>'
    )


def _hostile_session(directory: Path, cwd: Path) -> Path:
    manager = SessionManager.create(str(cwd), str(directory))
    manager.append_message(UserMessage(content=[TextContent(text=_payloads("user"))], timestamp=1))
    manager.append_message(
        AssistantMessage(
            content=[
                ThinkingContent(thinking=_payloads("thinking")),
                TextContent(text=_payloads("text") + "\n\n```html\n" + _payloads("fence") + "\n```"),
                ToolCall(id="t1", name="bash<script>x</script>", arguments={"command": _payloads("args")}),
            ],
            model=_payloads("model"),
            provider="fake",
            stop_reason="toolUse",
            timestamp=2,
        )
    )
    manager.append_message(
        ToolResultMessage(
            tool_call_id="t1",
            tool_name="bash",
            content=[
                TextContent(text=_payloads("result")),
                ImageContent(data='x"><script>alert(1)</script>', mime_type='image/png"><script>x</script>'),
            ],
            details={"diff": "+" + _payloads("diff")},
            is_error=True,
            timestamp=3,
        )
    )
    manager.append_message(
        BashExecutionMessage(command=_payloads("cmd"), output=_payloads("out"), exit_code=1, timestamp=4)
    )
    manager.append_message(
        AssistantMessage(
            content=[TextContent(text="bye")],
            model="m",
            stop_reason="error",
            error_message=_payloads("error"),
            timestamp=5,
        )
    )
    manager.append_session_info(_payloads("name"))
    path = manager.get_session_file()
    assert path is not None
    return Path(path)


def _export(tmp_path: Path) -> Path:
    session = _hostile_session(tmp_path / "sessions", tmp_path)
    out = tmp_path / "hostile.html"
    from tests.e2e.helpers import run_pi

    result = run_pi("--export", str(session), str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return out


def test_export_escapes_every_field(tmp_path: Path) -> None:
    page = _export(tmp_path).read_text(encoding="utf-8")
    lowered = page.lower()
    assert "<script" not in lowered
    assert "<iframe" not in lowered and "<svg" not in lowered
    assert not re.search(r"<[a-z][^>]*\son[a-z]+\s*=", lowered), "an event-handler attribute survived"
    assert not re.search(r"""<[a-z][^>]*(href|src)\s*=\s*["']?\s*javascript:""", lowered)
    # Every field is shown as text (escaped), not dropped — the assistant's error message and the
    # session name (page title and heading) included.
    for field in ("user", "thinking", "text", "fence", "args", "result", "diff", "cmd", "out", "error"):
        assert f"data-pwned-{field}" in page, field
    title = re.search(r"<title>(.*?)</title>", page, re.S)
    heading = re.search(r"<h1>(.*?)</h1>", page, re.S)
    assert title and "data-pwned-name" in title.group(1)
    assert heading and "data-pwned-name" in heading.group(1)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_exported_hostile_session_runs_no_script_in_chromium(tmp_path: Path) -> None:
    page = _export(tmp_path)
    proc = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=2000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    for field in ("user", "error", "name"):  # the page loaded and shows the payloads as text
        assert f"data-pwned-{field}" in dom, field
    ran = re.findall(r"""data-pwned-[a-z]+=["']1["']""", dom)
    assert ran == [], f"script ran in the exported page: {ran}"
