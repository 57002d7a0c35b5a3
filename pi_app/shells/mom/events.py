"""Scheduled events: JSON files in ``<workspace>/events/`` that wake the agent.

- ``{"type": "immediate", "channelId", "text"}``: runs as soon as it is seen, then the file is deleted;
- ``{"type": "one-shot", "channelId", "text", "at": "<ISO 8601 with offset>"}``: runs once when due,
  then the file is deleted;
- ``{"type": "periodic", "channelId", "text", "schedule": "<5-field cron>", "timezone": "<IANA>"}``:
  runs at every matching minute until the file is deleted.

A trigger reaches the channel as the text ``[EVENT:<file>:<type>:<when>] <text>``. The folder is
scanned once a second (files written by the agent's bash tool, an editor or a script all show up
the same way). Decisions (spec 70 §5.2): a file that is not a valid event is moved to
``events/invalid/`` with a ``.error`` note instead of deleted; an immediate file older than mom's
start and a one-shot that fell due while mom was down still run once, marked ``(late)``.
The cron matcher supports ``*``, numbers, ranges ``a-b``, lists ``a,b`` and steps ``*/n``/``a-b/n``;
day-of-month and day-of-week combine as in cron (either matches when both are restricted).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

log = logging.getLogger("pi.mom")

FIELD_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))


class EventError(ValueError):
    pass


@dataclass(frozen=True)
class Trigger:
    file: str
    channel: str
    text: str

    @property
    def message(self) -> str:
        return self.text


def _parse_field(text: str, low: int, high: int) -> set[int]:
    values: set[int] = set()
    for part in text.split(","):
        body, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if body == "*":
            start, end = low, high
        elif "-" in body:
            a, b = body.split("-", 1)
            start, end = int(a), int(b)
        else:
            start = end = int(body)
            if step_text:
                end = high
        if start < low or end > high or start > end or step < 1:
            raise EventError(f"cron field {text!r} is out of range {low}-{high}")
        values.update(range(start, end + 1, step))
    return values


class Cron:
    def __init__(self, expression: str) -> None:
        fields = expression.split()
        if len(fields) != 5:
            raise EventError(f"cron {expression!r} needs 5 fields (minute hour day month weekday)")
        try:
            parsed = [_parse_field(f, lo, hi) for f, (lo, hi) in zip(fields, FIELD_RANGES, strict=True)]
        except ValueError as exc:
            raise EventError(f"cron {expression!r}: {exc}") from None
        self.minutes, self.hours, self.days, self.months, weekdays = parsed
        self.weekdays = {d % 7 for d in weekdays}
        self.day_any, self.weekday_any = fields[2] == "*", fields[4] == "*"

    def matches(self, moment: datetime) -> bool:
        if (
            moment.minute not in self.minutes
            or moment.hour not in self.hours
            or moment.month not in self.months
        ):
            return False
        day_ok = moment.day in self.days
        weekday_ok = (moment.isoweekday() % 7) in self.weekdays
        if self.day_any or self.weekday_any:
            return day_ok and weekday_ok
        return day_ok or weekday_ok


@dataclass
class _Scheduled:
    mtime: float
    kind: str
    channel: str
    text: str
    at: datetime | None = None
    cron: Cron | None = None
    zone: ZoneInfo | None = None
    last_minute: str | None = None


def parse_event(raw: object) -> _Scheduled:
    if not isinstance(raw, dict):
        raise EventError("an event is a JSON object")
    kind, channel, text = raw.get("type"), raw.get("channelId"), raw.get("text")
    if not isinstance(channel, str) or not channel or not isinstance(text, str) or not text:
        raise EventError('an event needs "channelId" and "text"')
    if kind == "immediate":
        return _Scheduled(0, kind, channel, text)
    if kind == "one-shot":
        try:
            at = datetime.fromisoformat(str(raw.get("at")))
        except ValueError:
            raise EventError('a one-shot event needs "at" as ISO 8601 with an offset') from None
        if at.tzinfo is None:
            raise EventError('"at" needs a UTC offset, e.g. 2025-01-31T09:00:00+01:00')
        return _Scheduled(0, kind, channel, text, at=at)
    if kind == "periodic":
        schedule, zone_name = raw.get("schedule"), raw.get("timezone")
        if not isinstance(schedule, str) or not isinstance(zone_name, str):
            raise EventError('a periodic event needs "schedule" (cron) and "timezone"')
        try:
            zone = ZoneInfo(zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            raise EventError(f"unknown timezone {zone_name!r}") from None
        return _Scheduled(0, kind, channel, text, cron=Cron(schedule), zone=zone)
    raise EventError(f"unknown event type {kind!r} (immediate, one-shot, periodic)")


class EventsWatcher:
    """Polls the events folder and calls ``fire(channel, text)`` for every due event."""

    def __init__(self, folder: Path, fire: Callable[[str, str], None], interval_s: float = 1.0) -> None:
        self.folder = folder
        self.fire = fire
        self.interval_s = interval_s
        self.started = datetime.now(UTC)
        self._known: dict[str, _Scheduled] = {}

    async def run(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        while True:
            try:
                self.tick(datetime.now(UTC))
            except Exception:  # a bad tick must not end the scheduler
                log.exception("events: tick failed")
            await asyncio.sleep(self.interval_s)

    def _quarantine(self, path: Path, problem: str) -> None:
        invalid = self.folder / "invalid"
        invalid.mkdir(exist_ok=True)
        os.replace(path, invalid / path.name)
        (invalid / (path.name + ".error")).write_text(problem + "\n")
        log.warning("events: %s moved to invalid/: %s", path.name, problem)

    def tick(self, now: datetime) -> None:
        present = {p.name: p for p in self.folder.glob("*.json") if p.is_file()}
        for name in list(self._known):
            if name not in present:
                del self._known[name]  # deleted: cancelled
        for name, path in sorted(present.items()):
            mtime = path.stat().st_mtime
            event = self._known.get(name)
            if event is None or event.mtime != mtime:
                try:
                    event = parse_event(json.loads(path.read_text(encoding="utf-8")))
                except (ValueError, OSError) as exc:
                    if time_since(mtime) < 2:  # maybe still being written: look again next tick
                        continue
                    self._quarantine(path, str(exc))
                    continue
                event.mtime = mtime
                self._known[name] = event
            self._maybe_fire(name, path, event, now)

    def _maybe_fire(self, name: str, path: Path, event: _Scheduled, now: datetime) -> None:
        if event.kind == "immediate":
            late = " (late)" if event.mtime < self.started.timestamp() else ""
            self._fire(name, event, f"immediate{late}")
            path.unlink(missing_ok=True)
        elif event.kind == "one-shot" and event.at is not None and now >= event.at:
            late = " (late)" if event.at < self.started else ""
            self._fire(name, event, f"{event.at.isoformat()}{late}")
            path.unlink(missing_ok=True)
        elif event.kind == "periodic" and event.cron is not None:
            local = now.astimezone(event.zone)
            minute = local.strftime("%Y-%m-%dT%H:%M")
            if event.last_minute != minute and event.cron.matches(local):
                event.last_minute = minute
                self._fire(name, event, minute)

    def _fire(self, name: str, event: _Scheduled, when: str) -> None:
        self._known.pop(name, None) if event.kind != "periodic" else None
        self.fire(event.channel, f"[EVENT:{name}:{event.kind}:{when}] {event.text}")


def time_since(mtime: float) -> float:
    return datetime.now(UTC).timestamp() - mtime
