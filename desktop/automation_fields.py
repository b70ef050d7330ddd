"""The automation form's timezone and expiry, without Qt: the zones offered, the local one, and wall-clock
expiry times read in the automation's own zone (an unknown zone is the kernel's sentence, never a crash)."""

from __future__ import annotations

import os
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from kernel.api import ScheduleRefused


@lru_cache(maxsize=1)
def zone_names() -> tuple[str, ...]:
    """Every IANA zone this computer knows, sorted (the picker's list)."""
    return tuple(sorted(z for z in available_timezones() if "/" in z or z == "UTC"))


def zone(name: str) -> ZoneInfo:
    """The zone named, or ScheduleRefused with the same sentence the kernel's schedule check gives."""
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleRefused(f"{name.strip()!r} is not a timezone this computer knows "
                              "(try Europe/Berlin or UTC).") from None


def local_zone(environ: dict[str, str] | None = None, localtime: Path = Path("/etc/localtime")) -> str:
    """This computer's zone as an IANA name ($TZ, else where /etc/localtime points), UTC when unknown."""
    env = os.environ if environ is None else environ
    candidates = [env.get("TZ", "").lstrip(":")]
    try:
        target = str(localtime.resolve())
        candidates.append(target.split("/zoneinfo/", 1)[1] if "/zoneinfo/" in target else "")
    except OSError:
        pass
    for name in candidates:
        if name and name in zone_names():
            return name
    return "UTC"


def expiry(year: int, month: int, day: int, hour: int, minute: int, tz: str) -> float:
    """A wall-clock time in the automation's zone as a timestamp (a time the spring change skips is read
    as the same wall time after it, as the zone database does)."""
    return datetime(year, month, day, hour, minute, tzinfo=zone(tz)).timestamp()


def expiry_words(ts: float, tz: str) -> str:
    return datetime.fromtimestamp(ts, zone(tz)).strftime("%a %d %b %Y %H:%M %Z")
