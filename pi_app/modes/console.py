"""The terminal side of start-up for the headless shells (print, JSON, RPC): stderr and stdin.

``pi_app.coding.launch`` never touches the terminal (spec 70 §1.3); it reports through a
``LaunchHost``. ``terminal_host()`` is the host the ``pi`` command gives it: every report is one
line on stderr, and the fork question is asked on stderr and answered on stdin (``y``/``yes``).
"""

from __future__ import annotations

import sys

from pi_app.coding.launch import LaunchHost


def write_stderr_line(line: str) -> None:
    sys.stderr.write(f"{line}\n")


def ask_on_terminal(question: str) -> bool:
    sys.stderr.write(question + " ")
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def terminal_host() -> LaunchHost:
    return LaunchHost(report=write_stderr_line, ask=ask_on_terminal)
