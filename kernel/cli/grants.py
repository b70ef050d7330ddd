"""``--grant SCOPE[=DURATION]``: parsed strictly, and checked against the scopes the tools use.

A grant is a permission, so nothing about it is guessed: surrounding or inner
spaces (``" fs.write"``, a shell quoting slip) are refused rather than
stripped, and a scope must be ``*`` or dotted lower-case names. A well-formed
scope that no tool uses (``fs.wirte``) is most likely a typo that would leave
the agent without the permission meant for it: it is granted all the same (it
is harmless) and a warning names it beside the scopes the tools do use.
"""

from __future__ import annotations

from typing import Iterable

from ..api import ToolInfo
from ..core.errors import ConfigError
from ..leases.lease import EXPLICIT_SCOPES, SCOPE_RE, parse_duration

ALLOWED = "a scope such as fs.write or fs.write=5m (durations 30s, 5m, 1h, 8h), without spaces"


def parse_grants(items: Iterable[str], default_s: float) -> list[tuple[str, float]]:
    """``(scope, seconds)`` per ``--grant``; ConfigError (field ``--grant``) for the first bad one."""
    grants = []
    for item in items:
        scope, sep, duration = item.partition("=")
        if any(c.isspace() or not c.isprintable() for c in item):
            raise _bad(item, "spaces are not allowed in it")
        if not (scope == "*" or SCOPE_RE.match(scope)):
            raise _bad(item, f"give {ALLOWED}")
        if sep and not duration:
            raise _bad(item, "give a duration after = (30s, 5m, 1h, 8h)")
        try:
            grants.append((scope, parse_duration(duration) if duration else default_s))
        except ValueError as exc:
            raise _bad(item, str(exc)) from None
    return grants


def _bad(item: str, why: str) -> ConfigError:
    return ConfigError(f"bad --grant {item!r}: {why}", "--grant", field="--grant", allowed=ALLOWED)


def known_scopes(tools: Iterable[ToolInfo]) -> tuple[str, ...]:
    """Every scope a tool asks for: each tool's scope, and the explicit scopes below one
    (``shell.exec.net`` under ``shell.exec``), sorted."""
    scopes = {d.scope for d in tools}
    scopes |= {s for s in EXPLICIT_SCOPES if any(s.startswith(k + ".") for k in scopes)}
    return tuple(sorted(scopes))


def unused_scopes(scopes: Iterable[str], known: Iterable[str]) -> list[str]:
    """The scopes that neither are nor contain a known scope (``*`` and ``fs`` contain some)."""
    known = tuple(known)
    return [s for s in scopes if s != "*" and not any(k == s or k.startswith(s + ".") for k in known)]


def unused_scope_warning(scope: str, known: Iterable[str]) -> str:
    return f"warning: no tool uses the scope {scope} (known scopes: {', '.join(known)}); granted anyway"
