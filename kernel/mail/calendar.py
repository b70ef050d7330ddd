"""Calendars over CalDAV with the ``caldav`` library (sync client, in a worker thread).

caldav is imported lazily: 144-170 ms to import (2026-12-01). Creating an
event is exactly once by construction: its UID comes from the call's
idempotency key and the PUT carries ``If-None-Match: *`` (``no_overwrite``),
so a replay is refused by the server (412, caldav's ConsistencyError) and
``event_by_uid`` tells whether the create happened. Server replies are
hostile: any library or HTTP error becomes one MailError line.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .compose import attendee_addresses
from .accounts import Credentials
from .errors import MailError

MAX_EVENTS = 200


@dataclass(frozen=True)
class Event:
    uid: str
    title: str
    start: str
    end: str
    location: str
    description: str
    calendar: str


def uid_for(key: str, salt: str) -> str:
    """The UID of the event whose idempotency key is ``key``, under the home's ``salt`` (``effect_ids``)."""
    return f"{hmac.new(salt.encode(), key.encode(), hashlib.sha256).hexdigest()[:32]}@agentdesk.invalid"


def parse_time(value: str, what: str, tz: str | None = None) -> datetime:
    """An ISO 8601 time; a naive one is read in ``tz`` (default UTC)."""
    try:
        when = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise MailError("config", f"{what}: {str(value)[:40]!r} is not an ISO 8601 time like 2026-12-01T15:00") from None
    if when.tzinfo is None:
        try:
            when = when.replace(tzinfo=ZoneInfo(tz) if tz else timezone.utc)
        except (ZoneInfoNotFoundError, ValueError):
            raise MailError("config", f"timezone: {str(tz)[:40]!r} is not a time zone like Europe/Paris") from None
    return when


def _client(creds: Credentials) -> Any:
    from caldav.davclient import DAVClient  # lazy

    a = creds.account
    if not a.caldav_url:
        raise MailError("config", f"account {a.name} has no CalDAV URL (Settings → Accounts)")
    return DAVClient(url=a.caldav_url, username=a.user, password=creds.password, timeout=30)


def _calendars(creds: Credentials, name: str | None) -> list[Any]:
    client = _client(creds)
    try:
        calendars: list[Any] = client.principal().calendars()
    except Exception as exc:  # noqa: BLE001 - caldav raises many types, all mean the same to the user
        raise _mapped(exc, creds) from None
    if name:
        calendars = [c for c in calendars if _name(c) == name]
        if not calendars:
            raise MailError("not_found", f"no calendar named {name!r}")
    if not calendars:
        raise MailError("not_found", "the account has no calendar")
    return calendars


def _name(cal: Any) -> str:
    try:
        return str(cal.get_display_name() or cal.url)
    except Exception:  # noqa: BLE001 - a server without names: use the URL
        return str(cal.url)


def _mapped(exc: Exception, creds: Credentials) -> MailError:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:200]
    if "Authorization" in type(exc).__name__ or "401" in text or "Unauthorized" in text:
        return MailError("auth", f"the CalDAV server refused the user name or password for {creds.account.user} "
                                 "(Google Calendar and Fastmail need an app password)")
    if isinstance(exc, OSError) or "Connection" in text:
        return MailError("connect", f"could not reach the CalDAV server: {text}")
    return MailError("protocol", f"the CalDAV server gave an unusable answer: {text}")


def list_events(creds: Credentials, start: datetime, end: datetime, calendar: str | None) -> list[Event]:
    out: list[Event] = []
    for cal in _calendars(creds, calendar):
        try:
            found = cal.search(start=start, end=end, event=True, expand=False)
        except Exception as exc:  # noqa: BLE001
            raise _mapped(exc, creds) from None
        for item in found[:MAX_EVENTS]:
            out.append(_event(item, _name(cal)))
    return sorted(out, key=lambda e: e.start)[:MAX_EVENTS]


def _event(item: Any, calendar: str) -> Event:
    try:
        comp = item.icalendar_component
        def get(name: str) -> str:
            value = comp.get(name)
            if value is None:
                return ""
            dt = getattr(value, "dt", None)
            return (dt.isoformat() if dt is not None and hasattr(dt, "isoformat") else str(value))[:2000]
        return Event(get("uid"), get("summary"), get("dtstart"), get("dtend"), get("location"),
                     get("description"), calendar)
    except Exception:  # noqa: BLE001 - one unreadable event does not hide the others
        return Event("", "(an event the server sent could not be read)", "", "", "", "", calendar)


def create(creds: Credentials, uid: str, args: Mapping[str, Any]) -> dict[str, str]:
    """Create the event with ``uid`` unless it exists (If-None-Match: *)."""
    from caldav.lib.error import ConsistencyError, DAVError, PutError  # lazy

    tz = args.get("timezone")
    start = parse_time(args["start"], "start", tz)
    end = parse_time(args["end"], "end", tz)
    if end <= start:
        raise MailError("config", "end must be after start")
    cal = _calendars(creds, args.get("calendar"))[0]
    fields: dict[str, Any] = {"dtstart": start, "dtend": end, "summary": str(args["title"]), "uid": uid}
    if args.get("location"):
        fields["location"] = str(args["location"])
    if args.get("description"):
        fields["description"] = str(args["description"])
    try:
        if args.get("attendees"):
            event = cal.save_event(no_overwrite=True, **fields)
            for who in attendee_addresses(args["attendees"]):
                event.add_attendee(f"mailto:{who}")
            event.save()
        else:
            cal.save_event(no_overwrite=True, **fields)
    except (ConsistencyError, PutError) as exc:
        if exists(creds, uid, args.get("calendar")):
            return {"uid": uid, "calendar": _name(cal), "already": "yes"}
        raise _mapped(exc, creds) from None
    except DAVError as exc:
        raise _mapped(exc, creds) from None
    return {"uid": uid, "calendar": _name(cal)}


def exists(creds: Credentials, uid: str, calendar: str | None = None) -> bool:
    from caldav.lib.error import NotFoundError

    for cal in _calendars(creds, calendar):
        try:
            cal.event_by_uid(uid)
            return True
        except NotFoundError:
            continue
        except Exception as exc:  # noqa: BLE001
            raise _mapped(exc, creds) from None
    return False


def check(creds: Credentials) -> None:
    """Log in: find the user's principal (an account may have no calendar yet)."""
    try:
        _client(creds).principal()
    except MailError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise _mapped(exc, creds) from None
