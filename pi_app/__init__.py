"""pi in Python: a terminal coding agent.

The package is four layers with inward-only dependencies (see README.md):
``ai`` (L1) <- ``agent`` (L2) <- ``coding`` (L3) <- ``tui`` / ``modes`` (L4), with ``cli`` on top.

This module holds the one version number of the whole distribution and, so that ``pi --version``
stays cheap, nothing else but one import-time guard:

``httpx/__init__`` imports httpx's own command-line client (click, rich, pygments) whenever those
happen to be installed, as they are next to Textual: about a third of ``pi -p``'s imports, for a
command pi never runs (issue 20). A stand-in ``httpx._main`` whose ``main`` loads the real one
on first call keeps that import from happening.
"""

import sys
import types

__version__ = "0.1.0"


def _httpx_cli(*args: object, **kwargs: object) -> object:
    sys.modules.pop("httpx._main", None)
    import importlib

    return importlib.import_module("httpx._main").main(*args, **kwargs)


if "httpx._main" not in sys.modules:
    _stub = types.ModuleType("httpx._main", "Stand-in for httpx's command-line client (see pi_app).")
    _stub.main = _httpx_cli  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = _stub
    del _stub
