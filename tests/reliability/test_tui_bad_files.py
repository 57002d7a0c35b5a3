"""The full-screen app starts on broken user files and leaves them alone (issue 12 item 3;
60 R-THEME-02/03 and decision D-40, R-KEY file handling, 70 R-PHIL-11).

A real ``pi`` on a pseudo-terminal, with a garbage ``keybindings.json``, a theme file that is not
JSON selected in ``settings.json``, and a ``models.json`` provider: the app must come up (the footer
names the model), keep running, and never rewrite any of those files.
"""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import PI
from tests.reliability.helpers import PiHome, read_until

DEEP = "[" * 50_000 + "]" * 50_000  # Python's json raises RecursionError on this
HUGE_NUMBER = '{"app.interrupt": ' + "9" * 5000 + "}"  # ...and a plain ValueError on this
BROKEN_FILES = {
    "truncated": {
        "keybindings.json": '{"app.interrupt": [1, 2',
        "themes/broken.json": '{"name": "broken", "colors": {"accent": "#zz',
        "settings.json": json.dumps({"theme": "broken"}),
    },
    "pathological": {
        "keybindings.json": HUGE_NUMBER,
        "themes/broken.json": DEEP,
        "settings.json": DEEP,
    },
}


@pytest.mark.parametrize("kind", sorted(BROKEN_FILES))
def test_app_starts_with_broken_keybindings_and_theme_files(kind: str, tmp_path: Path) -> None:
    pi_home = PiHome.make(tmp_path)
    pi_home.point_at("http://127.0.0.1:9")
    files = {pi_home.agent_dir / name: content for name, content in BROKEN_FILES[kind].items()}
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    before = {path: path.read_bytes() for path in files}

    env = pi_home.env(TERM="xterm-256color", COLUMNS="100", LINES="30")
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [PI], cwd=pi_home.project, env=env, stdin=child, stdout=child, stderr=child, start_new_session=True
    )
    os.close(child)
    try:
        screen = read_until(main, b"fake-model", timeout=60)
        assert b"fake-model" in screen, screen[-2000:]
        time.sleep(0.5)
        assert proc.poll() is None, "the app exited on a broken file"
        assert b"Traceback" not in screen
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(main)
    settings_path = pi_home.agent_dir / "settings.json"
    settings_readable = kind == "truncated"  # the pathological settings.json is not usable JSON
    for path, data in before.items():
        if path == settings_path and settings_readable:
            continue  # start-up may record lastChangelogVersion in a readable file, as pi does
        assert path.read_bytes() == data, f"{path} was rewritten"
    if settings_readable:
        assert json.loads(settings_path.read_text(encoding="utf-8"))["theme"] == "broken"  # choice kept
