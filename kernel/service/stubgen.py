"""Writes ``kernel/service/stubs.py``: the client's plain stubs, one per served method, from the method table.

The facade is declared once (``kernel.api``: ``KernelFacade`` and its desks);
the server serves what ``methods.METHODS`` derives from it, and the client's
stubs are generated from the same declarations, with their exact signatures
and return types, so the three cannot drift. Only the stubs that cache or
convert are written by hand (``HAND``, in kernel/service/client.py).
``tests/kernel/test_facade_signatures.py`` fails when stubs.py is not what
this writes; run ``python -m kernel.service.stubgen`` after changing the
facade.
"""

from __future__ import annotations

import dataclasses
import json
import inspect
import re
from pathlib import Path
from typing import Any

from .. import api
from .methods import DESKS, METHODS

TARGET = Path(__file__).with_name("stubs.py")
# Written by hand in client.py: kept locally (the clock, the cached settings and spend), or not a call.
HAND = frozenset({"now", "settings", "update_settings", "subscribe", "aclose", "agents.spend_today"})
TYPING = ("Callable", "Sequence")


def render() -> str:
    names: set[str] = set()
    defaults: set[str] = set()
    blocks = [_desk_class(desk, proto, names, defaults) for desk, proto in DESKS.items()]
    blocks.append(_root_class(names, defaults))
    api_names = sorted(n for n in names if n not in TYPING and n not in defaults)
    typing_names = sorted({"TYPE_CHECKING", "Protocol", "cast", *(n for n in names if n in TYPING)}, key=str.lower)
    head = [
        '"""The client\'s plain stubs: one per method the kernel service serves (generated: do not edit).',
        "",
        "Written by ``python -m kernel.service.stubgen`` from ``kernel.api`` (the facade and its desks) and",
        "``kernel.service.methods``; what caches or converts is written by hand in ``client.py``.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import builtins",
        f"from typing import {', '.join(typing_names)}",
        "",
    ]
    if defaults:
        head += [f"from ..api import {', '.join(sorted(defaults))}", ""]
    head += ["if TYPE_CHECKING:"]
    head += _wrapped_import("    from ..api import ", api_names)
    head += [
        "",
        "",
        "class Link(Protocol):",
        '    """How a stub reaches the kernel: a blocking call, or one awaited on the events connection."""',
        "",
        "    def call(self, method: str, params: dict[str, object]) -> object: ...",
        "    async def acall(self, method: str, params: dict[str, object]) -> object: ...",
        "",
    ]
    return "\n".join(head) + "\n" + "\n".join(blocks)


def _wrapped_import(prefix: str, names: list[str]) -> list[str]:
    lines, line = [], prefix + "("
    for name in names:
        piece = f"{name}, "
        if len(line) + len(piece) > 110:
            lines.append(line.rstrip())
            line = "        "
        line += piece
    lines.append(line.rstrip().rstrip(",") + ")")
    return lines


def _desk_class(desk: str, proto: Any, names: set[str], defaults: set[str]) -> str:
    out = ["", f"class Remote{proto.__name__}:",
           f'    """``kernel.api.{proto.__name__}`` over the socket: each method is ``{desk}.<method>``."""', "",
           "    def __init__(self, link: Link) -> None:", "        self._link = link", ""]
    for name, member in _members(proto):
        full = f"{desk}.{name}"
        if full in HAND or full not in METHODS:
            continue
        out += _stub(full, name, member, names, defaults)
    return "\n".join(out)


def _root_class(names: set[str], defaults: set[str]) -> str:
    out = ["", "class RemoteFacadeStubs:",
           '    """The facade\'s own methods and its desks over the socket (``RemoteKernel`` adds the rest)."""', "",
           "    _link: Link", ""]
    for desk, proto in DESKS.items():
        out += ["    @property", f"    def {desk}(self) -> Remote{proto.__name__}:",
                f"        return Remote{proto.__name__}(self._link)", ""]
    for name, member in _members(api.KernelFacade):
        if name in HAND or name in DESKS or name not in METHODS:
            continue
        out += _stub(name, name, member, names, defaults)
    return "\n".join(out)


def _members(proto: Any) -> list[tuple[str, Any]]:
    """Public members in the order the Protocol declares them."""
    return [(n, m) for n, m in vars(proto).items() if not n.startswith("_") and (callable(m) or isinstance(m, property))]


def _stub(full: str, name: str, member: Any, names: set[str], defaults: set[str]) -> list[str]:
    sig = inspect.signature(member)
    params = [p for p in sig.parameters.values() if p.name != "self"]
    text, star = ["self"], False
    for p in params:
        if p.kind is p.KEYWORD_ONLY and not star:
            text.append("*")
            star = True
        piece = f"{p.name}: {p.annotation}"
        names.update(_identifiers(str(p.annotation)))
        if p.default is not p.empty:
            piece += f" = {_default(p.default, defaults)}"
        text.append(piece)
    returns = str(sig.return_annotation)
    names.update(_identifiers(returns))
    is_async = inspect.iscoroutinefunction(member)
    args = "{" + ", ".join(f'"{p.name}": {p.name}' for p in params) + "}"
    head = f"    {'async ' if is_async else ''}def {name}({', '.join(text)}) -> {returns}:"
    lines = _wrap_def(head)
    call = f'{"await self._link.acall" if is_async else "self._link.call"}("{full}", {args})'
    line = (f"        {call}" if returns == "None" else f"        return {call}" if returns == "object"
            else f'        return cast("{returns}", {call})')
    if len(line) > 120:  # the params on a line of their own
        line = line.replace(f'"{full}", {args}', f'"{full}",\n            {args}', 1)
    lines.append(line)
    return lines + [""]


def _wrap_def(head: str) -> list[str]:
    if len(head) <= 120:
        return [head]
    cut = head.rfind(", ", 0, 118)
    indent = " " * (head.index("(") + 1)
    return [head[:cut + 1], indent + head[cut + 2:]]


def _identifiers(annotation: str) -> set[str]:
    found = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", annotation)) - {"None", "builtins", "list", "dict", "tuple",
                                                                     "str", "int", "float", "bool", "object"}
    missing = {n for n in found if n not in TYPING and not hasattr(api, n)}
    assert not missing, f"not in kernel.api: {missing}"
    return found


def _default(value: Any, defaults: set[str]) -> str:
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and value == type(value)():
        defaults.add(type(value).__name__)
        return f"{type(value).__name__}()"
    assert isinstance(value, (str, int, float, bool, type(None))), value
    return json.dumps(value) if isinstance(value, str) else repr(value)


def main() -> None:
    TARGET.write_text(render())
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
