"""``--grant SCOPE[=DURATION]``: parsed strictly, and checked against the scopes the tools use.

A grant is a permission, so nothing about it is guessed: surrounding or inner
spaces (``" fs.write"``, a shell quoting slip) are refused rather than
stripped, and a scope must be ``*`` or dotted lower-case names. A well-formed
scope that no tool uses (``fs.wirte``) is most likely a typo that would leave
the agent without the permission meant for it: it is granted all the same (it
is harmless) and a warning names it beside the scopes the tools do use.

A scope whose every call is confirmed one at a time (an outward, R3, call such
as ``mail.send``, ``shell.exec.net`` or an MCP tool that does not say it only
reads, unless a policy naming it says otherwise) is refused up front: a lease
never allows such a call, so "granted" would be a promise the kernel does not
keep. The refusal says how such calls can be allowed: from a terminal, one
confirmation per call, or by a policy in settings.json.

Through a running kernel the checks read the tools from the kernel's raw
reply (``raw_tools``: four fields each), not through the codec: decoding it
imported ``kernel.api``'s types and the codec's table on the way to the first
model request, which made ``ask --grant`` the slow ask (issue 23). Measured
with a loopback fake provider at load 17 (medians of 7, 2026-12-03, ask start
→ first request): before, 631 ms without ``--grant`` and 749 ms with it;
after, 663 ms and 618 ms — the grant costs nothing measurable any more (the
absolute figures are the load's; ``benchmarks/start_bench.py`` prints them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Protocol

from ..core.errors import ConfigError
from ..core.risk import Risk
from ..leases.lease import EXPLICIT_SCOPES, SCOPE_RE, parse_duration, scope_covers

class Tool(Protocol):
    """What the checks read of a tool: ``kernel.api.ToolInfo``, or ``RawTool`` read from the kernel's reply."""

    @property
    def name(self) -> str: ...
    @property
    def scope(self) -> str: ...
    @property
    def risk(self) -> str: ...
    @property
    def always_confirm(self) -> bool: ...


@dataclass(frozen=True)
class RawTool:
    """The four fields the checks need, read from the kernel's raw ``tools`` reply (``ask`` through a running
    kernel: no codec, no ``kernel.api`` on the way to the first request — issue 23's ``--grant`` cost)."""

    name: str
    scope: str
    risk: str
    always_confirm: bool


def raw_tools(reply: Any) -> list[RawTool] | None:
    """The tools in a raw ``tools`` reply (a list of tagged objects), or None when it is not that shape."""
    if not isinstance(reply, list):
        return None
    tools = []
    for item in reply:
        if not isinstance(item, dict):
            return None
        name, scope, risk, always = (item.get("name"), item.get("scope"), item.get("risk", "R0"),
                                     item.get("always_confirm", False))
        if not (isinstance(name, str) and isinstance(scope, str) and isinstance(risk, str)
                and isinstance(always, bool)):
            return None
        tools.append(RawTool(name, scope, risk, always))
    return tools


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


def known_scopes(tools: Iterable[Tool]) -> tuple[str, ...]:
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


def confirmed_every_call(scope: str, tools: Iterable[Tool], policies: Mapping[str, str]) -> tuple[str, ...]:
    """The tools a grant of ``scope`` would be for when every one of them is confirmed on every call
    (so the grant would allow nothing); () when the grant allows some call, or names no tool's scope.

    A tool's scope is confirmed every call when its calls are outward (R3) and no policy naming the scope
    lifts that, or when a ``confirm`` policy covers it (``trust.policy.mode_for``); the explicit scopes
    (``shell.exec.net``) are those of outward calls of a tool whose plain calls are not.
    """
    from ..trust.policy import Mode, mode_for

    covered = [(name, known, risk, always) for name, known, risk, always in _scopes(tools)
               if scope_covers(scope, known)]
    if covered and all(mode_for(known, risk, policies, always) is Mode.CONFIRM for _, known, risk, always in covered):
        return tuple(sorted({name for name, _, _, _ in covered}))
    return ()


def _scopes(tools: Iterable[Tool]) -> list[tuple[str, str, Risk, bool]]:
    """(tool, scope, risk, always confirmed) for each tool's scope and each explicit scope below it."""
    out = []
    for tool in tools:
        out.append((tool.name, tool.scope, _risk(tool.risk), tool.always_confirm))
        out.extend((tool.name, e, Risk.OUTWARD, tool.always_confirm) for e in sorted(EXPLICIT_SCOPES)
                   if e.startswith(tool.scope + "."))
    return out


def _risk(text: str) -> Risk:
    try:
        return Risk(text)
    except ValueError:  # a class this client does not know: taken at its worst, as the kernel does
        return Risk.OUTWARD


def refuse_confirmed(grants: Iterable[tuple[str, float]], tools: Iterable[Tool],
                     policies: Mapping[str, str]) -> None:
    """ConfigError (exit 2) for the first grant that would allow nothing: its calls are confirmed one by one."""
    from ..trust.policy import Mode, configured

    tools = list(tools)
    for scope, _ in grants:
        names = confirmed_every_call(scope, tools, policies)
        if not names:
            continue
        policy = configured(scope, policies)
        them = "it" if len(names) == 1 else "them"
        always = {t.name for t in tools if t.always_confirm and t.name in names} == set(names)
        if always:
            why, allow = ("a person confirms each of these calls, whatever the leases and policies say",
                          "run 'agentdesk ask' from a terminal and confirm each one")
        else:
            why = (f"your policy for {policy[0]} is to confirm every call" if policy and policy[1] is Mode.CONFIRM
                   else "outward calls are confirmed every time")
            allow = (f"run 'agentdesk ask' from a terminal and confirm each one, or set a policy for {scope} in "
                     f'settings.json (e.g. "policies": {{"{scope}": "ask"}} to let a lease cover {them}, or "auto")')
        raise ConfigError(
            f"--grant {scope} would allow nothing: {', '.join(names)} {'is' if len(names) == 1 else 'are'} "
            f"confirmed on every call ({why}), so no lease covers {them}. To allow such calls, {allow}",
            "--grant", field="--grant", allowed=ALLOWED)
