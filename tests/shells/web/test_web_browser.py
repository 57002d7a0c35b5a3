"""``pi web`` in a real headless Chromium (issue 24, acceptance 3).

The installed ``pi web --port 0`` serves the app from a throwaway HOME whose model is the loopback
fake LLM server. Debian's ``chromium``, driven by Playwright (``executable_path``, no browser
download, closed-network flags, a fresh profile), opens the printed address: the token moves into
a cookie, the app paints, a prompt typed into the page (CJK and accented letters) reaches the model
and its answer is saved in the session the app writes. Screenshots of the first screen and of the
answered prompt are saved in ``test-output/`` (``PI_TEST_OUTPUT`` overrides it). Without the
token, from a foreign Host or from another origin, the server refuses.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from pi_app.ai.testing import text
from tests.e2e.helpers import PI
from tests.fakes.llm_server import FakeLLMServer
from tests.reliability.helpers import PiHome

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
REPO = Path(__file__).resolve().parents[3]
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PROMPT = "hello from the browser 你好，世界。 ünïcödé “quoted” 🙂"
ANSWER = "Hello from the fake model"

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


def _output_dir() -> Path:
    out = Path(os.environ.get("PI_TEST_OUTPUT") or REPO / "test-output")
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[str, PiHome, FakeLLMServer]]:
    home = PiHome.make(tmp_path)
    with FakeLLMServer() as llm:
        home.point_at(llm.base_url)
        process = subprocess.Popen(
            [PI, "web", "--port", "0"],
            cwd=home.project,
            env=home.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            match = re.search(r"open (http://\S+)", line)
            assert match, line + (process.stderr.read() if process.stderr else "")
            yield match.group(1), home, llm
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                assert process.wait(20) == 0
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(5)


def _wait(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def _distinct_colours(png: bytes) -> int:
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return len(image.getcolors(maxcolors=1 << 20) or [])


def _saved_answer(home: PiHome) -> bool:
    for path in home.sessions():
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            message = entry.get("message") or {}
            if message.get("role") == "assistant" and ANSWER in json.dumps(message):
                return True
    return False


def test_the_app_paints_in_chromium_and_answers_a_typed_prompt(
    web: tuple[str, PiHome, FakeLLMServer],
) -> None:
    from playwright.sync_api import sync_playwright

    url, home, llm = web
    llm.enqueue(text(ANSWER))
    out = _output_dir()
    profile = home.home / "chromium-profile"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1100, "height": 700},
        )
        try:
            page = browser.new_page()
            page.goto(url)
            assert page.url.rstrip("/") == url.split("/?")[0]  # the token left the address bar
            page.wait_for_selector("body.-first-byte", timeout=60_000)  # the app's first bytes arrived
            time.sleep(2)  # let the first frame settle
            first = page.screenshot(path=str(out / "pi-web-first-screen.png"))
            assert _distinct_colours(first) > 20  # text drawn, not an empty page

            page.mouse.click(550, 350)
            page.keyboard.type(PROMPT)
            page.keyboard.press("Enter")
            _wait(lambda: len(llm.requests) >= 1, 60, "the model request")
            said = llm.requests[0].body["messages"][-1]
            assert said["role"] == "user" and PROMPT in json.dumps(said, ensure_ascii=False), said
            _wait(lambda: _saved_answer(home), 60, "the answer in the session file")
            time.sleep(1)
            answered = page.screenshot(path=str(out / "pi-web-answered.png"))
            assert answered != first
        finally:
            browser.close()


def test_the_web_app_refuses_requests_without_the_token(web: tuple[str, PiHome, FakeLLMServer]) -> None:
    url, _, _ = web
    base, token = url.split("/?token=")
    with httpx.Client(base_url=base, follow_redirects=False) as client:
        missing = client.get("/")
        assert missing.status_code == 401 and "carries the token" in missing.text
        assert client.get("/?token=wrong").status_code == 401
        assert client.get("/ws").status_code == 401
        port = base.rsplit(":", 1)[1]
        assert (
            client.get(
                "/", headers={"host": f"evil.example:{port}", "authorization": f"Bearer {token}"}
            ).status_code
            == 403
        )
        cross = client.get("/", headers={"origin": "https://evil.example"})
        assert cross.status_code == 403
        entry = client.get(f"/?token={token}")
        assert entry.status_code == 303 and entry.headers["location"] == "/"
        cookie = entry.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        page = client.get("/")  # the cookie is kept by the client
        assert page.status_code == 200 and "fonts.googleapis.com" not in page.text
