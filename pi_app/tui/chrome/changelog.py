"""The changelog shipped with the package and what start-up shows of it (R-FOOT-07, R-CMD-09).

``CHANGELOG.md`` (``pi_app/data``) has one ``## <version>`` section per release, newest first.
At start-up a fresh session shows the sections newer than the ``lastChangelogVersion`` setting
("What's New"), or one line when ``collapseChangelog`` is on, and records the running version.
Decisions where the spec is silent (as pi): a first run with no recorded version shows nothing
and only records it; a resumed session shows nothing and records nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

_HEADING = re.compile(r"^##\s+\[?v?(\d+(?:\.\d+)*)\]?")


@dataclass(frozen=True)
class ChangelogEntry:
    version: str
    text: str
    """The section's Markdown, heading included."""


def changelog_text() -> str:
    try:
        return resources.files("pi_app").joinpath("data/CHANGELOG.md").read_text(encoding="utf-8")
    except OSError:
        return "No changelog available."


def parse_changelog(text: str) -> list[ChangelogEntry]:
    """The ``## <version>`` sections in file order; text before the first one is dropped."""
    entries: list[ChangelogEntry] = []
    version: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            if version is not None:
                entries.append(ChangelogEntry(version, "\n".join(lines).strip()))
            version, lines = match.group(1), [line]
        elif version is not None:
            lines.append(line)
    if version is not None:
        entries.append(ChangelogEntry(version, "\n".join(lines).strip()))
    return entries


def version_key(version: str) -> tuple[int, ...]:
    parts = []
    for part in version.lstrip("v").split("."):
        digits = re.match(r"\d+", part)
        parts.append(int(digits.group(0)) if digits else 0)
    return tuple(parts)


def entries_newer_than(entries: list[ChangelogEntry], version: str) -> list[ChangelogEntry]:
    seen = version_key(version)
    return [entry for entry in entries if version_key(entry.version) > seen]


@dataclass(frozen=True)
class StartupChangelog:
    markdown: str | None = None
    """The "What's New" panel (full form)."""
    notice: str | None = None
    """The one-line form (``collapseChangelog``)."""


def startup_changelog(
    last_seen: str | None, current: str, *, collapse: bool, text: str | None = None
) -> StartupChangelog:
    """What start-up shows for an update from ``last_seen`` to ``current`` (nothing on a first run)."""
    if not last_seen or version_key(last_seen) >= version_key(current):
        return StartupChangelog()
    if collapse:
        return StartupChangelog(notice=f"Updated to v{current}. Use /changelog to view full changelog.")
    newer = entries_newer_than(parse_changelog(changelog_text() if text is None else text), last_seen)
    if not newer:
        return StartupChangelog()
    return StartupChangelog(markdown="**What's New**\n\n" + "\n\n".join(entry.text for entry in newer))
