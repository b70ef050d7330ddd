"""A package's re-exported names, each imported the first time it is asked for (PEP 562).

A client of a kernel in another process (``agentdesk ask`` attached, the
codec) should pay only for the modules of the values it meets, not for the
SQLite store, undo, automations or mail behind a package's public names
(issue 11: start to the first provider request through a kernel <= 150 ms).
``ledger`` and ``kernel.api`` both build their module ``__getattr__`` here.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping


def lazy_names(namespace: dict[str, Any], table: Mapping[str, tuple[str, ...]]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the module whose globals are ``namespace``; ``table`` maps a
    module's full name to the names it provides. A name, once imported, becomes an ordinary global."""
    where = {name: module for module, names in table.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__
