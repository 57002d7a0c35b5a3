"""pi in Python: a terminal coding agent.

The package is four layers with inward-only dependencies (see README.md):
``ai`` (L1) <- ``agent`` (L2) <- ``coding`` (L3) <- ``tui`` / ``modes`` (L4), with ``cli`` on top.

This module holds the one version number of the whole distribution and, so that ``pi --version``
stays cheap, nothing else but one import-time guard:

``httpx/__init__`` imports httpx's own command-line client (click, rich, pygments) whenever those
happen to be installed, as they are next to Textual: about a third of ``pi -p``'s imports, for a
command pi never runs (issue 20). A finder at the front of ``sys.meta_path`` answers only the
name ``httpx._main``, with a stand-in whose ``main`` loads the real module on first call; until
httpx itself is imported, nothing of it is in ``sys.modules``.
"""

import sys
from typing import Any

__version__ = "0.1.0"


class _HttpxCliStandIn:
    """A meta path finder and loader for ``httpx._main`` only."""

    real = False  # set while the real module is being imported

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "httpx._main" or cls.real:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, cls)  # type: ignore[arg-type]  # the class is its own loader

    @staticmethod
    def create_module(spec: Any) -> None:
        return None

    @staticmethod
    def exec_module(module: Any) -> None:
        module.main = _httpx_cli


def _httpx_cli(*args: Any, **kwargs: Any) -> Any:
    import importlib

    sys.modules.pop("httpx._main", None)
    _HttpxCliStandIn.real = True
    return importlib.import_module("httpx._main").main(*args, **kwargs)


if "httpx" not in sys.modules and _HttpxCliStandIn not in sys.meta_path:
    sys.meta_path.insert(0, _HttpxCliStandIn)
