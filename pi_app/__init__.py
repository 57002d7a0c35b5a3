"""pi in Python: a terminal coding agent.

The package is four layers with inward-only dependencies (see README.md):
``ai`` (L1) <- ``agent`` (L2) <- ``coding`` (L3) <- ``tui`` / ``modes`` (L4), with ``cli`` on top.

This module holds the one version number of the whole distribution and nothing else, so that
``pi --version`` stays cheap.
"""

__version__ = "0.1.0"
