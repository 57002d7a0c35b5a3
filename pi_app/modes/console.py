"""The terminal side of start-up for the headless shells (print, JSON, RPC): stderr and stdin.

``pi_app.coding.launch`` never touches the terminal (spec 70 §1.3); it reports through a
``LaunchHost``. ``terminal_host()`` is the host the ``pi`` command gives it: every report is one
line on stderr, and the fork question is asked on stderr and answered on stdin (``y``/``yes``).

``report_unexpected_error`` is the last resort of the headless modes: a bug that escapes them is one
line ``Error: <message>`` on stderr (the traceback follows only with ``--verbose``), never a bare
Python traceback.
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


def describe_exception(exc: BaseException) -> str:
    """One line for an exception: its message; the class name too when the message alone would not
    say what went wrong (a ``KeyError`` prints only the key)."""
    message = " ".join(str(exc).split())
    if not message:
        return type(exc).__name__
    if isinstance(exc, LookupError):
        return f"{type(exc).__name__}: {message}"
    return message


def report_unexpected_error(exc: BaseException, *, verbose: bool = False) -> int:
    """``Error: <message>`` on stderr (plus the traceback with ``--verbose``); the exit status 1."""
    if verbose:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    sys.stderr.write(f"Error: {describe_exception(exc)}\n")
    sys.stderr.flush()
    return 1
