"""Proxies (issue 23): ``HTTP_PROXY`` and the agent-directory ``httpProxy`` setting route every
request through the proxy, ``NO_PROXY`` keeps a host direct, the environment wins over the setting.

The proxy is a small forwarding HTTP proxy on loopback that records the request lines it sees
(absolute URLs, as a client talking to a proxy sends them) and relays them to the fake LLM server.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pi_app.ai.testing import text
from tests.e2e.helpers import run_pi, write_models_json

PROXY_VARS = {name: "" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")}
PROXY_VARS.update({name.lower(): "" for name in list(PROXY_VARS)})


def proxied(url: str, **extra: str) -> dict[str, str]:
    """Both spellings: an empty lower-case variable would cancel the upper-case one (urllib's rule)."""
    env = {**PROXY_VARS, "HTTP_PROXY": url, "http_proxy": url}
    for name, value in extra.items():
        env[name] = env[name.lower()] = value
    return env


class ForwardingProxy:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(65536)
                if not chunk:
                    return
                head += chunk
            line, _, rest = head.partition(b"\r\n")
            method, target, version = line.decode().split(" ")
            self.lines.append(f"{method} {target}")
            parts = urlsplit(target)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            upstream = socket.create_connection((parts.hostname, parts.port or 80))
            with upstream:
                upstream.sendall(f"{method} {path} {version}\r\n".encode() + rest)
                pump = threading.Thread(target=self._pump, args=(client, upstream), daemon=True)
                pump.start()
                self._pump(upstream, client)

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def proxy() -> Iterator[ForwardingProxy]:
    server = ForwardingProxy()
    yield server
    server.close()


def test_http_proxy_variable_and_no_proxy(llm_server, project, agent_dir, proxy) -> None:  # type: ignore[no-untyped-def]
    write_models_json(agent_dir, llm_server.base_url)
    llm_server.enqueue(text("via proxy"))
    result = run_pi("--no-session", "-p", "hi", cwd=project, env=proxied(proxy.url))
    assert (result.returncode, result.stdout) == (0, "via proxy\n"), result.stderr
    assert proxy.lines == [f"POST {llm_server.base_url}/v1/chat/completions"]
    llm_server.enqueue(text("direct"))
    env = proxied(proxy.url, NO_PROXY="127.0.0.1")
    result = run_pi("--no-session", "-p", "hi", cwd=project, env=env)
    assert (result.returncode, result.stdout) == (0, "direct\n"), result.stderr
    assert len(proxy.lines) == 1


def test_http_proxy_setting(llm_server, project, agent_dir, proxy) -> None:  # type: ignore[no-untyped-def]
    write_models_json(agent_dir, llm_server.base_url)
    (agent_dir / "settings.json").write_text(json.dumps({"httpProxy": proxy.url}), encoding="utf-8")
    llm_server.enqueue(text("via setting"))
    result = run_pi("--no-session", "-p", "hi", cwd=project, env=PROXY_VARS)
    assert (result.returncode, result.stdout) == (0, "via setting\n"), result.stderr
    assert proxy.lines == [f"POST {llm_server.base_url}/v1/chat/completions"]
    # a project's settings cannot set it
    (agent_dir / "settings.json").write_text("{}", encoding="utf-8")
    (Path(project) / ".pi").mkdir(exist_ok=True)
    (Path(project) / ".pi" / "settings.json").write_text(
        json.dumps({"httpProxy": proxy.url}), encoding="utf-8"
    )
    llm_server.enqueue(text("direct"))
    result = run_pi("--no-session", "-p", "hi", cwd=project, env=PROXY_VARS)
    assert (result.returncode, result.stdout) == (0, "direct\n"), result.stderr
    assert len(proxy.lines) == 1
