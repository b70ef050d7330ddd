"""What a hook is, as Settings hold it, and the strict check of what settings.json says.

A hook is a program the user configured (``command``: the program and its
arguments, never run through a shell) that runs ``before`` or ``after`` the
calls whose scope its ``scope`` covers, for at most ``timeout_s`` seconds.
Kept apart from the runner so reading Settings never imports subprocess code.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

from ..leases.lease import SCOPE_PATTERN

WHEN = ("before", "after")
TIMEOUT_MAX_S = 600.0
DEFAULT_TIMEOUT_S = 10.0
MAX_HOOKS = 32
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")
SCOPE = re.compile(rf"^(\*|{SCOPE_PATTERN})$")


@dataclass(frozen=True)
class Hook:
    name: str
    when: str                      # before · after
    command: tuple[str, ...]       # argv; the program is an absolute path or starts with ~
    scope: str = "*"               # the calls it runs for (a lease-style scope: fs covers fs.write)
    timeout_s: float = DEFAULT_TIMEOUT_S

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "when": self.when, "command": list(self.command), "scope": self.scope,
                "timeout_s": self.timeout_s}


HOOK_ALLOWED = ("a list of hooks, each an object with name (letters, digits, spaces, . _ -), when (before or "
                "after), command (a list of strings, the first an absolute path or starting with ~), and "
                f"optionally scope (like fs.write, or *) and timeout_s (seconds between 0.1 and {TIMEOUT_MAX_S:g})")


def hook_problem(value: Any) -> str | None:
    """Why ``value`` is not one hook as settings.json holds it, or None."""
    if not isinstance(value, dict):
        return "a hook is not an object"
    unknown = set(value) - {"name", "when", "command", "scope", "timeout_s"}
    if unknown:
        return f"a hook has an unknown field {sorted(unknown)[0]!r}"
    name = value.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        return "a hook's name is missing or not a short name"
    if value.get("when") not in WHEN:
        return f"hook {name!r}: when must be before or after"
    command = value.get("command")
    if (not isinstance(command, list) or not command or len(command) > 64
            or not all(isinstance(a, str) and 0 < len(a) <= 4096 and "\x00" not in a for a in command)):
        return f"hook {name!r}: command must be a list of 1 to 64 non-empty strings"
    if not command[0].startswith(("/", "~")):
        return f"hook {name!r}: the program must be an absolute path or start with ~"
    scope = value.get("scope", "*")
    if not isinstance(scope, str) or not SCOPE.match(scope):
        return f"hook {name!r}: scope must be a dotted scope like fs.write, or *"
    timeout = value.get("timeout_s", DEFAULT_TIMEOUT_S)
    if (not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not math.isfinite(timeout)
            or not 0.1 <= timeout <= TIMEOUT_MAX_S):
        return f"hook {name!r}: timeout_s must be a number of seconds between 0.1 and {TIMEOUT_MAX_S:g}"
    return None


def hooks_ok(value: Any) -> bool:
    if not isinstance(value, list) or len(value) > MAX_HOOKS:
        return False
    if any(hook_problem(v) is not None for v in value):
        return False
    names = [v["name"] for v in value]
    return len(names) == len(set(names))


def to_hooks(value: list[Mapping[str, Any]]) -> tuple[Hook, ...]:
    return tuple(Hook(v["name"], v["when"], tuple(v["command"]), v.get("scope", "*"),
                      float(v.get("timeout_s", DEFAULT_TIMEOUT_S))) for v in value)


def policies_ok(value: Any, modes: tuple[str, ...]) -> bool:
    return (isinstance(value, dict) and len(value) <= 256
            and all(isinstance(k, str) and SCOPE.match(k) and v in modes for k, v in value.items()))
