"""Path resolution (spec 50 R-PATH-01..04, scenario 10)."""

from __future__ import annotations

import os
import unicodedata

from pi_app.coding.tools import create_read_tool, expand_path, resolve_read_path, resolve_to_cwd
from tests.tools.conftest import run_tool, text_of


def test_expand_path_rules(isolated_home):
    home = str(isolated_home)
    assert expand_path("@src/a.py") == "src/a.py"
    assert expand_path("~") == home
    assert expand_path("~/x/y") == os.path.join(home, "x/y")
    assert expand_path("~bob/x") == "~bob/x"  # [DEV] left literal
    assert expand_path("a\u00a0b\u202fc") == "a b c"
    assert expand_path("file:///tmp/a%20b.txt") == "/tmp/a b.txt"


def test_resolve_to_cwd_is_per_cwd_and_collapses_dots(tmp_path):
    assert resolve_to_cwd("a/../b.txt", "/proj") == "/proj/b.txt"
    assert resolve_to_cwd("/abs/./x", "/proj") == "/abs/x"
    assert resolve_to_cwd("../out.txt", "/proj/sub") == "/proj/out.txt"


async def test_read_macos_screenshot_name(cwd):
    name = "Screenshot 2024-01-01 at 10.00.00\u202fAM.png"
    with open(os.path.join(cwd, name), "w") as handle:
        handle.write("not really a png")
    result = await run_tool(create_read_tool(cwd), {"path": "Screenshot 2024-01-01 at 10.00.00 AM.png"})
    assert text_of(result) == "not really a png"


async def test_read_curly_apostrophe_and_nfd(cwd):
    curly = "Capture d\u2019écran.txt"
    with open(os.path.join(cwd, curly), "w") as handle:
        handle.write("curly")
    nfd = unicodedata.normalize("NFD", "café.txt")
    with open(os.path.join(cwd, nfd), "w") as handle:
        handle.write("decomposed")
    read = create_read_tool(cwd)
    assert text_of(await run_tool(read, {"path": "Capture d'écran.txt"})) == "curly"
    assert text_of(await run_tool(read, {"path": unicodedata.normalize("NFC", "café.txt")})) == "decomposed"


def test_resolve_read_path_falls_back_to_plain(cwd):
    assert resolve_read_path("missing'.txt", cwd) == os.path.join(cwd, "missing'.txt")
