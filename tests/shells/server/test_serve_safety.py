"""``pi serve`` is safe by default (issue 24): loopback, a 0600 token printed once, no cross-origin
request without the token, no other Host than this machine, ``--host`` elsewhere only when asked
for, and one line naming the install command when the ``serve`` extra is missing."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import httpx

from pi_app.shells.server.security import load_or_create_token
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

from .helpers import ServeProcess, make_server


async def test_token_is_generated_once_kept_0600_and_printed_only_then(tmp_path: Path) -> None:
    with FakeLLMServer() as llm:
        first = make_server(tmp_path, llm)
        try:
            assert first.url.startswith("http://127.0.0.1:")  # loopback by default
            token_file = first.home.agent_dir / "serve-token"
            assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
            assert first.token in first.first_lines[1] and str(token_file) in first.first_lines[1]
        finally:
            assert first.stop() == 0
        second = ServeProcess(first.home, llm).start()
        try:
            assert second.first_lines[1] == f"Token: in {token_file}"  # not printed again
            assert second.token == first.token
            async with second.client() as client:
                assert (await client.get("/api/sessions")).status_code == 200
        finally:
            assert second.stop() == 0


def test_a_token_file_left_empty_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "serve-token").write_text("")
    token = load_or_create_token(tmp_path)
    assert token.created and len(token.value) >= 40
    assert load_or_create_token(tmp_path).value == token.value


async def test_cross_origin_and_foreign_host_requests_are_refused(tmp_path: Path) -> None:
    with FakeLLMServer() as llm:
        server = make_server(tmp_path, llm)
        try:
            port = server.url.rsplit(":", 1)[1]
            async with httpx.AsyncClient(base_url=server.url) as anonymous:
                page_elsewhere = {"origin": "https://evil.example"}
                refused = await anonymous.get("/api/health", headers=page_elsewhere)
                assert refused.status_code == 403 and "Cross-origin" in refused.json()["error"]
                same = await anonymous.get("/api/health", headers={"origin": f"http://127.0.0.1:{port}"})
                assert same.status_code == 200
                rebound = await anonymous.get("/api/health", headers={"host": f"evil.example:{port}"})
                assert rebound.status_code == 403
                assert (
                    await anonymous.get("/api/health", headers={"host": f"localhost:{port}"})
                ).status_code == 200
                preflight = await anonymous.options(
                    "/api/sessions", headers={**page_elsewhere, "access-control-request-method": "GET"}
                )
                assert preflight.status_code == 204
            async with server.client() as client:  # with the token a page elsewhere may call the API
                allowed = await client.get("/api/sessions", headers=page_elsewhere)
                assert allowed.status_code == 200
                assert allowed.headers["access-control-allow-origin"] == "https://evil.example"
        finally:
            assert server.stop() == 0


def test_a_host_other_than_loopback_needs_allow_remote_and_warns(tmp_path: Path) -> None:
    home = PiHome.make(tmp_path)
    refused = subprocess.run(
        [PI, "serve", "--host", "0.0.0.0", "--port", "0"],
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "pi serve: --host 0.0.0.0 is reachable from other machines; add --allow-remote if that is what you want"
    ]
    assert not (home.agent_dir / "serve-token").exists()  # refused before anything was made
    with FakeLLMServer() as llm:
        server = ServeProcess(home, llm, ("--host", "0.0.0.0", "--allow-remote")).start()
        try:
            assert server.process is not None and server.process.stderr is not None
            warning = server.process.stderr.readline()
            assert warning.startswith("Warning: pi serve listens on 0.0.0.0")
        finally:
            assert server.stop() == 0


def test_without_the_serve_extra_one_line_says_how_to_install_it(tmp_path: Path) -> None:
    hide = "import sys; sys.modules['starlette'] = None; from pi_app.cli import main; sys.exit(main(sys.argv[1:]))"
    for command in ("serve", "web"):
        hidden = "textual_serve" if command == "web" else "starlette"
        result = subprocess.run(
            [sys.executable, "-c", hide.replace("starlette", hidden), command],
            env=PiHome.make(tmp_path / command).env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 1
        assert result.stderr.splitlines() == [
            f"pi {command} needs the 'serve' extra ({hidden} is not installed): pip install 'pi-app[serve]'"
        ]
