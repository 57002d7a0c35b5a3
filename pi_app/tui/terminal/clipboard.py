"""Copying text to the system clipboard for ``/copy`` (R-CMD-06).

The text always goes out as OSC 52 through Textual (works over ssh); this module adds the platform
tool when there is one (``pbcopy``, ``clip``, ``wl-copy``, ``xclip``). Failures are silent.
Reading a clipboard image for Ctrl+V lives in ``images.save_clipboard_image``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

TIMEOUT_S = 3


def copy_text_with_tool(text: str) -> bool:
    """Also copy through the platform tool when there is one (OSC 52 is sent separately)."""
    candidates: list[list[str]] = []
    if sys.platform == "darwin":
        candidates.append(["pbcopy"])
    elif sys.platform == "win32":
        candidates.append(["clip"])
    else:
        if os.environ.get("WAYLAND_DISPLAY"):
            candidates.append(["wl-copy"])
        if os.environ.get("DISPLAY"):
            candidates.append(["xclip", "-selection", "clipboard"])
    for args in candidates:
        if shutil.which(args[0]) is None:
            continue
        try:
            subprocess.run(args, input=text.encode(), timeout=TIMEOUT_S, check=True, capture_output=True)
            return True
        except (OSError, subprocess.SubprocessError):
            continue
    return False
