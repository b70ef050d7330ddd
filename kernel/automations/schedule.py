"""When an automation runs: a 5-field cron expression in a timezone, or a fixed interval.

Fire times come from cronsim (Debian cron semantics, DST-correct: on the
autumn fall-back day a daily 02:30 job fires once, where croniter and
APScheduler fired it twice; measured 2026-12, shared/LIBRARIES.md §2). The
one-hour rule is checked over the real fire times of the next 400 days in the
automation's own timezone, so both DST transitions and month ends are in the
window, not over the expression's syntax alone: ``0,30 9 * * *`` is refused
because 09:00 and 09:30 are 30 minutes apart, whatever the fields look like.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterator
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

MIN_GAP_S = 3600.0
CHECK_DAYS = 400
CHECK_FIRES = 12_000
MAX_INTERVAL_S = 3660 * 86400.0  # ten years: a longer interval's first run is past what the clock can name
_INTERVAL = re.compile(r"^every\s+(\d{1,12})\s*(m|min|minutes?|h|hours?|d|days?)$", re.IGNORECASE)
_UNIT_S = {"m": 60, "h": 3600, "d": 86400}
_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


class ScheduleRefused(ValueError):
    """A schedule the kernel will not run; ``reason`` is the sentence the desktop and the CLI show."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Schedule:
    """``text`` is what the user wrote: ``every 2h`` or a cron expression; ``tz`` an IANA zone name."""

    text: str
    tz: str

    @property
    def interval_s(self) -> float | None:
        m = _INTERVAL.match(self.text.strip())
        return None if m is None else float(int(m.group(1)) * _UNIT_S[m.group(2)[0].lower()])

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    def fires(self, after: float, anchor: float) -> Iterator[float]:
        """Fire times (unix seconds) strictly after ``after``; intervals count from ``anchor``."""
        step = self.interval_s
        if step is not None:
            k = max(0, int((after - anchor) // step) + 1)
            while True:
                t = anchor + k * step
                if t > after:
                    yield t
                k += 1
            return
        from cronsim import CronSim  # imported when a schedule is used (4 ms)

        start = datetime.fromtimestamp(after, self.zone)
        for dt in CronSim(self.text.strip(), start):
            t = dt.timestamp()
            if t > after:
                yield t

    def next_fire(self, after: float, anchor: float) -> float:
        return next(self.fires(after, anchor))

    def latest_fires(self, since: float, now: float, anchor: float, limit: int = 1000) -> list[float]:
        """The fire times in (since, now], oldest first; at most the newest ``limit``."""
        out: list[float] = []
        for t in self.fires(since, anchor):
            if t > now:
                break
            out.append(t)
            if len(out) > limit:
                out.pop(0)
        return out

    def check(self, now: float) -> None:
        """Refuse (``ScheduleRefused``) a schedule that is malformed or whose runs can come less than an hour apart."""
        try:
            zone = self.zone
        except (ZoneInfoNotFoundError, ValueError):
            raise ScheduleRefused(f"{self.tz!r} is not a timezone this computer knows (try Europe/Berlin or UTC).") from None
        step = self.interval_s
        if step is not None:
            if step < MIN_GAP_S:
                raise ScheduleRefused(
                    f"Runs every {_span(step)} would come less than one hour apart; automations run at most once an hour.")
            if step > MAX_INTERVAL_S:
                raise ScheduleRefused(f"{_clipped(self.text)!r} is longer than Agentdesk schedules: an interval is at most 3660 days "
                                      "(ten years).")
            return
        if self.text.strip().lower().startswith("every"):
            raise ScheduleRefused(f"{_clipped(self.text)!r} is not an interval Agentdesk reads: write 'every 2h', "
                                  "'every 90m' or 'every 1d' (at most 3660 days).")
        if len(self.text.split()) != 5:
            raise ScheduleRefused(f"{self.text!r} is not a 5-field cron expression (minute hour day month weekday).")
        from cronsim import CronSim, CronSimError

        try:
            CronSim(self.text.strip(), datetime.fromtimestamp(now, zone))
        except CronSimError as exc:
            raise ScheduleRefused(f"{self.text!r} is not a cron expression Agentdesk reads: {exc}.") from None
        end = now + CHECK_DAYS * 86400
        if next(self.fires(now, now)) > end:
            raise ScheduleRefused(f"{self.text!r} never fires in the next {CHECK_DAYS} days.")
        if self.text.split()[0].isdigit():
            # One minute per hour: wall-clock gaps are whole hours, so only a DST change can shorten
            # one; walk the next week and the days around each change (measured: 1.3 s for 400 days of
            # an hourly job under load, against a few ms for these windows).
            windows = [(now, now + 8 * 86400)] + [(t - 2 * 86400, t + 2 * 86400) for t in _offset_changes(zone, now, end)]
        else:
            windows = [(now, end)]  # several minutes an hour: the first day it fires shows the gap
        for start, stop in windows:
            self._check_window(zone, start, stop)

    def _check_window(self, zone: ZoneInfo, start: float, stop: float) -> None:
        prev: float | None = None
        for count, t in enumerate(self.fires(start, start)):
            if t > stop or count > CHECK_FIRES:
                return
            if prev is not None and t - prev < MIN_GAP_S:
                a, b = (datetime.fromtimestamp(x, zone) for x in (prev, t))
                raise ScheduleRefused(
                    f"Runs would come less than one hour apart (at {a:%H:%M} and {b:%H:%M} on {b:%d %B %Y}, "
                    f"{_span(t - prev)} apart); automations run at most once an hour.")
            prev = t

    def words(self) -> str:
        """The schedule in words: ``every weekday at 07:00 (Europe/Berlin)``."""
        step = self.interval_s
        if step is not None:
            return f"every {_span(step)}"
        return f"{describe_cron(self.text)} ({self.tz})"


def _clipped(text: str) -> str:
    """What the user wrote, short enough for a sentence."""
    text = text.strip()
    return text if len(text) <= 40 else text[:39] + "…"


def _offset_changes(zone: ZoneInfo, start: float, end: float) -> list[float]:
    """Days (unix seconds) on which the zone's UTC offset changes between ``start`` and ``end``."""
    out = []
    t = start
    offset = datetime.fromtimestamp(t, zone).utcoffset()
    while t < end:
        t += 86400
        now_offset = datetime.fromtimestamp(t, zone).utcoffset()
        if now_offset != offset:
            out.append(t)
            offset = now_offset
    return out


def describe_cron(expr: str) -> str:
    """Common cron shapes in words; anything else as ``cron '…'``."""
    fields = expr.split()
    if len(fields) != 5:
        return f"cron {expr!r}"
    minute, hour, dom, month, dow = fields
    if not minute.isdigit():
        return f"cron {expr!r}"
    hours = _numbers(hour, 0, 23)
    if hour == "*":
        when = f"every hour at minute {int(minute):02d}"
    elif hour.startswith("*/") and hour[2:].isdigit():
        when = f"every {int(hour[2:])} hours at minute {int(minute):02d}"
    elif hours:
        when = "at " + _join([f"{h:02d}:{int(minute):02d}" for h in hours])
    else:
        return f"cron {expr!r}"
    days = _days(dom, dow)
    if days is None:
        return f"cron {expr!r}"
    months = _numbers(month, 1, 12)
    suffix = "" if month == "*" else (" in " + _join([_MONTHS[m - 1] for m in months]) if months else None)
    if suffix is None:
        return f"cron {expr!r}"
    if hour == "*" or hour.startswith("*/"):
        return f"{when}{'' if days == 'every day' else ', ' + days}{suffix}"
    return f"{days} {when}{suffix}"


def _days(dom: str, dow: str) -> str | None:
    if dom == "*" and dow == "*":
        return "every day"
    if dom == "*":
        nums = sorted({d % 7 for d in _numbers(dow, 0, 7)})
        if nums == [1, 2, 3, 4, 5]:
            return "every weekday"
        if nums == [0, 6]:
            return "every weekend day"
        if nums:
            return "every " + _join([_DAYS[d] for d in nums])
        return None
    if dow == "*":
        nums = _numbers(dom, 1, 31)
        if nums:
            return "on day " + _join([str(d) for d in nums]) + " of the month"
    return None


def _numbers(field: str, lo: int, hi: int) -> list[int]:
    """A field of plain numbers and ranges as its sorted values; [] for anything else."""
    out: set[int] = set()
    for part in field.split(","):
        a, _, b = part.partition("-")
        if not a.isdigit() or (b and not b.isdigit()):
            return []
        first, last = int(a), int(b or a)
        if not (lo <= first <= last <= hi):
            return []
        out.update(range(first, last + 1))
    return sorted(out)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _span(seconds: float) -> str:
    s = int(seconds)
    if s % 86400 == 0:
        return "day" if s == 86400 else f"{s // 86400} days"
    if s % 3600 == 0:
        return "hour" if s == 3600 else f"{s // 3600} hours"
    if s % 60 == 0:
        return f"{s // 60} minutes"
    return f"{s} seconds"


def local_time(t: float, tz: str) -> str:
    """A time as the automation's timezone shows it (``Mon 07 Dec 2026 07:00 CET``)."""
    return datetime.fromtimestamp(t, ZoneInfo(tz)).strftime("%a %d %b %Y %H:%M %Z")


def utc_iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds")





def in_words(seconds: float) -> str:
    """How far off a time is, as people say it: "in 3 h", "in 12 min", "in 2 days", "now"."""
    s = int(seconds)
    if s <= 0:
        return "now"
    if s >= 2 * 86400:
        return f"in {s // 86400} days"
    if s >= 3600:
        return f"in {round(s / 3600)} h"
    return f"in {max(1, (s + 59) // 60)} min"
