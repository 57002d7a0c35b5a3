"""Package re-exports that import their module on first use (PEP 562), to keep start-up light.

A package lists ``name -> submodule`` and sets ``__getattr__ = lazy_exports(__name__, table,
globals())``; ``from package import name`` then imports only that submodule, once, and caches the
value in the package namespace. Type checkers see the real names through ``if TYPE_CHECKING``
imports in the package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, table: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The module ``__getattr__`` for ``package`` whose ``table`` maps a name to its submodule."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
