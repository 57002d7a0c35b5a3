"""Diagnostics and path metadata shared by every resource kind (spec 40 §2.12.2).

Nothing in discovery raises to its caller: each problem becomes a ``ResourceDiagnostic`` attached to
the resource kind, and loading continues.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

DiagnosticType = Literal["warning", "error", "collision"]
ResourceKind = Literal["extension", "skill", "prompt", "theme"]
Scope = Literal["user", "project", "temporary"]
Origin = Literal["package", "top-level"]

T = TypeVar("T")


@dataclass(frozen=True)
class PathMetadata:
    """Where a resource came from: its source, scope and origin."""

    source: str = "local"  # "local", "cli", "auto", a package id, "extension:<stem>"
    scope: Scope = "user"
    origin: Origin = "top-level"
    base_dir: str | None = None


@dataclass(frozen=True)
class ResourceCollision:
    """Two resources of a kind with the same name; the winner and the loser."""

    resource_type: ResourceKind
    name: str
    winner_path: str
    loser_path: str
    winner_source: str | None = None
    loser_source: str | None = None


@dataclass(frozen=True)
class ResourceDiagnostic:
    """One problem found while loading resources."""

    type: DiagnosticType
    message: str
    path: str | None = None
    collision: ResourceCollision | None = None

    def one_line(self) -> str:
        return f"{self.message} ({self.path})" if self.path else self.message


@dataclass
class ResourceSet(Generic[T]):
    """Loaded items of one kind plus everything that went wrong while loading them."""

    items: list[T] = field(default_factory=list)
    diagnostics: list[ResourceDiagnostic] = field(default_factory=list)


def warning(message: str, path: str | None = None) -> ResourceDiagnostic:
    return ResourceDiagnostic("warning", message, path)


def error(message: str, path: str | None = None) -> ResourceDiagnostic:
    return ResourceDiagnostic("error", message, path)


def collision(
    kind: ResourceKind,
    name: str,
    message: str,
    winner: str,
    loser: str,
    winner_source: str | None = None,
    loser_source: str | None = None,
) -> ResourceDiagnostic:
    return ResourceDiagnostic(
        "collision",
        message,
        loser,
        ResourceCollision(kind, name, winner, loser, winner_source, loser_source),
    )
