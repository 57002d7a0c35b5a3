"""Project trust: may project-local resources under ``<cwd>/.pi/`` be loaded? (spec 30 R-TRUST, D-22)

Gated: ``.pi/settings.json``, ``.pi/SYSTEM.md``, ``.pi/APPEND_SYSTEM.md``, ``.pi/extensions|skills|
prompts|themes``, project packages, and ``.agents/skills`` in cwd and its ancestors. Not gated:
AGENTS.md / CLAUDE.md.

Decisions live in ``<agentDir>/trust.json``: ``{"/abs/dir": true|false, ...}``; the nearest
ancestor-or-self entry decides. Order: ``--approve`` (this run only) > saved decision > extension
``project_trust`` handlers (resolved by the caller) > ``defaultProjectTrust`` from the global
settings (``always`` / ``never`` / ``ask``: prompt in the TUI, untrusted elsewhere).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi_app.coding import paths
from pi_app.coding.filelock import atomic_write, file_lock

DefaultTrust = Literal["ask", "always", "never"]
GATED_NAMES = (
    "settings.json",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "mcp.json",
)


class TrustStore:
    """``trust.json``: unknown keys are preserved; a file that fails to parse is never overwritten."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else paths.trust_path()
        self.error: str | None = None

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            self.error = f"Could not read {self.path}: {exc}"
            raise
        except RecursionError as exc:  # absurdly deep nesting: report it like any other bad JSON
            self.error = f"Could not read {self.path}: {exc}"
            raise ValueError(self.error) from exc
        if not isinstance(data, dict):
            self.error = f"Could not read {self.path}: not a JSON object"
            raise ValueError(self.error)
        return data

    def decision_for(self, cwd: str | Path) -> bool | None:
        """The saved decision of the nearest ancestor-or-self directory, or None."""
        try:
            data = self._read()
        except (OSError, ValueError):
            return None
        here = Path(os.path.abspath(cwd))
        for directory in (here, *here.parents):
            value = data.get(str(directory))
            if isinstance(value, bool):
                return value
        return None

    def save(self, cwd: str | Path, trusted: bool) -> bool:
        """Record a decision for exactly ``cwd``. False when the file is unreadable (left untouched)."""
        with file_lock(self.path):
            try:
                data = self._read()
            except (OSError, ValueError):
                return False
            data[str(Path(os.path.abspath(cwd)))] = trusted
            atomic_write(self.path, json.dumps(data, indent=2, ensure_ascii=False))
        return True


def has_trust_requiring_resources(cwd: str | Path) -> bool:
    """Does the project carry anything the trust gate controls?"""
    config = paths.project_config_dir(cwd)
    if any((config / name).exists() for name in GATED_NAMES):
        return True
    here = Path(os.path.abspath(cwd))
    home = Path.home()
    for directory in (here, *here.parents):
        if directory == home:
            break  # ~/.agents/skills is a global location
        if (directory / ".agents" / "skills").is_dir():
            return True
    return False


@dataclass(frozen=True)
class TrustAnswer:
    """The user's answer to "trust this project?": ``save_for`` is the folder whose decision goes
    into ``trust.json`` (the project or its parent), None for this run only."""

    trusted: bool
    save_for: Path | None


NOT_TRUSTED_THIS_RUN = TrustAnswer(False, None)
"""What closing the question without an answer means: nothing loads, nothing is saved."""


def trust_choices(cwd: str | Path) -> list[tuple[str, TrustAnswer]]:
    """The answers the app offers, in order (the parent is offered only when there is one)."""
    here = Path(os.path.abspath(cwd))
    choices = [("Trust this folder", TrustAnswer(True, here))]
    if here.parent != here:
        choices.append((f"Trust its parent folder ({here.parent})", TrustAnswer(True, here.parent)))
    choices += [
        ("Trust for this session only", TrustAnswer(True, None)),
        ("Don't trust this folder", TrustAnswer(False, here)),
        ("Don't trust, this session only", TrustAnswer(False, None)),
    ]
    return choices


def untrusted_notice(cwd: str | Path) -> str:
    """The line the app shows when the project's resources stay unloaded."""
    return (
        f"Project resources in {paths.project_config_dir(cwd)} were not loaded: the project is not "
        "trusted (/trust decides again)."
    )


@dataclass
class TrustDecision:
    """Whether the project's own resources load, and what to tell or ask the user."""

    trusted: bool
    needs_prompt: bool = False  # TUI: ask the user (and save the answer)
    notice: str | None = None  # non-interactive: one line to show


def decide_project_trust(
    cwd: str | Path,
    store: TrustStore,
    default_trust: DefaultTrust = "ask",
    approve: bool = False,
    interactive: bool = False,
    extension_decision: bool | None = None,
) -> TrustDecision:
    if not has_trust_requiring_resources(cwd):
        return TrustDecision(True)
    if approve:
        return TrustDecision(True)
    saved = store.decision_for(cwd)
    if saved is not None:
        return TrustDecision(saved)
    if extension_decision is not None:
        return TrustDecision(extension_decision)
    if default_trust == "always":
        return TrustDecision(True)
    if default_trust == "never":
        return TrustDecision(False)
    if interactive:
        return TrustDecision(False, needs_prompt=True)
    return TrustDecision(
        False,
        notice=f"Project resources in {paths.project_config_dir(cwd)} were not loaded: "
        "the project is not trusted (run with --approve to trust it for this run).",
    )
