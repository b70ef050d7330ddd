"""The Policies and hooks page's rules, without Qt: rows in, every problem out, or new Settings.

Rows are checked by the same rules settings.json is (``kernel``'s settings
check), so the page cannot save what the kernel would refuse to read: a
scope must be dotted words (``fs.write``) or ``*``, a mode one of ask,
confirm, auto, deny; a hook needs a name, before or after, a program given
by an absolute path (or ~), and a timeout. A command is split like a shell
would split it, but is never run through one.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace
from typing import Any, Sequence

from kernel.api import Settings, check_settings, hook_problem

MODES = ("ask", "confirm", "auto", "deny")
_PLAIN = re.compile(r"[\w@%+=:,./~-]+")
MODE_WORDS = {
    "ask": "ask: the lease dialog (the default)",
    "confirm": "confirm: ask on every call, no lease covers it",
    "auto": "auto: granted for the default duration, by policy",
    "deny": "deny: refused without asking",
}


@dataclass(frozen=True)
class PolicyRow:
    scope: str
    mode: str


@dataclass(frozen=True)
class HookRow:
    name: str
    when: str
    command: str      # as typed: the program and its arguments
    scope: str = "*"
    timeout_s: float = 10.0


def rows_from(settings: Settings) -> tuple[list[PolicyRow], list[HookRow]]:
    policies = [PolicyRow(scope, mode) for scope, mode in settings.policies.items()]
    hooks = [HookRow(h.name, h.when, command_text(h.command), h.scope, h.timeout_s) for h in settings.hooks]
    return policies, hooks


def command_text(argv: Sequence[str]) -> str:
    """A command as a person would type it: quoted only where a shell would need it (``~/bin/x`` as is)."""
    return " ".join(a if _PLAIN.fullmatch(a) else shlex.quote(a) for a in argv)


def check_rows(policies: Sequence[PolicyRow], hooks: Sequence[HookRow]) -> tuple[list[str], dict | None]:
    """Every problem in words, and the settings.json values when there is none."""
    problems: list[str] = []
    mapping: dict[str, str] = {}
    for row in policies:
        scope = row.scope.strip()
        if not scope:
            continue
        if scope in mapping:
            problems.append(f"The scope {scope} has two policies; keep one.")
        elif check_settings({"policies": {scope: row.mode}}).errors:
            problems.append(f"{scope!r} is not a scope: use dotted lower-case words like fs.write, or *.")
        mapping[scope] = row.mode
    hook_values: list[dict[str, Any]] = []
    for hook in hooks:
        try:
            command = shlex.split(hook.command)
        except ValueError as exc:
            problems.append(f"Hook {hook.name or '(no name)'}: the command cannot be read ({exc}).")
            continue
        value = {"name": hook.name.strip(), "when": hook.when, "command": command,
                 "scope": hook.scope.strip() or "*", "timeout_s": hook.timeout_s}
        problem = hook_problem(value)
        if problem is not None:
            problems.append(problem[0].upper() + problem[1:] + ".")
        elif any(v["name"] == value["name"] for v in hook_values):
            problems.append(f"Two hooks are named {value['name']!r}; names must differ.")
        hook_values.append(value)
    data = {"policies": mapping, "hooks": hook_values}
    if problems:
        return problems, None
    checked = check_settings(data)
    problems.extend(_words(e.field, str(e)) for e in checked.errors)
    if problems:
        return problems, None
    return [], dict(checked.values)


def apply_rows(settings: Settings, policies: Sequence[PolicyRow], hooks: Sequence[HookRow]) -> Settings:
    """New Settings with these policies and hooks (``check_rows`` must have found nothing)."""
    problems, values = check_rows(policies, hooks)
    if values is None:
        raise ValueError("; ".join(problems))
    return replace(settings, policies=values["policies"], hooks=values["hooks"])


def _words(field: str | None, message: str) -> str:
    return message.replace("settings.json: ", "")
