"""Re-export-only package ``__init__`` files of a provider SDK, run name by name instead of all at once (issue 28).

``import anthropic`` (2.16) took 2.5-3.8 s of CPU on this 2-core machine, and a first ``ask`` after a cold
kernel start waits for it (kernel/providers/preimport.py starts it at once; it is the floor). Much of that
time is not the Messages API the adapter calls: importing one error type from ``anthropic.types.shared``
runs ``anthropic/types/beta/__init__.py``, which imports every one of its ~2,000 modules (pydantic models),
and the same goes for the organization types, every resource, and the vendored aiohttp transport (aiohttp).

Those ``__init__`` files only re-export (generated ``from .module import Name as Name`` lines). For the
packages under ``PACKAGES`` this module's finder gives the package a stand-in ``__init__``: the package is a
plain module with its ``__path__`` (its submodules import as before), whose module ``__getattr__`` (PEP 562)
imports the one submodule a name comes from the first time that name is asked for — the same object the
original would have had. Nothing of the SDK's files is changed or copied. An ``__init__`` with any other
statement (a later SDK version that computes something there) runs as written: the stand-in is used only
where it is known to mean the same thing. ``from package import *`` gets every name, as before.

Measured (``benchmarks/start_bench.py --only sdk``, CPU, median of 5, 2026-12-03, load ~2.4): ``import
anthropic`` + a client's ``messages`` 2.49 s → 1.77 s (3,296 → 2,388 modules); the rest of the beta types
are imported by name by the SDK's own modules (its tracing, the Vertex, Bedrock and Foundry clients, the tool
runner), which no stand-in can defer. The first ``ask`` started at a fresh kernel's readiness line, the two
alternating (6 each, load ~2): 3.91 s → 3.18 s — still over 1 s: the import shares the GIL with the kernel's
build. ``import openai`` + both APIs' resources: 1.99 s → 1.74 s (``openai.types``; its resources'
``__init__`` files compute, so they run as written). google-genai's types are one 24,000-line module:
nothing of this kind to defer there.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Sequence

# The packages (these and every package below them) whose __init__ files only re-export, and whose every
# name the adapters' requests do not need.
PACKAGES = ("anthropic.types", "anthropic.resources", "anthropic._vendor.httpx_aiohttp", "openai.types")

_installed = threading.Lock()


def re_exports(source: str) -> tuple[dict[str, str], list[str] | None] | None:
    """(name → ``submodule:name`` or ``submodule``, the literal ``__all__`` if any), for an ``__init__`` that does
    nothing but re-export from its own submodules (a docstring, ``from __future__`` and a literal ``__all__``
    allowed); None for any other."""
    names: dict[str, str] = {}
    exported: list[str] | None = None
    for node in ast.parse(source).body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            try:
                exported = list(ast.literal_eval(node.value))
            except ValueError:
                return None
            if not all(isinstance(n, str) for n in exported):
                return None
            continue
        if not (isinstance(node, ast.ImportFrom) and node.level == 1):
            return None
        if node.module is None:  # from . import sub, other
            for alias in node.names:
                if alias.name == "*":
                    return None
                names[alias.asname or alias.name] = alias.name
            continue
        first = node.module.split(".")[0]
        names.setdefault(first, first)  # the submodule itself becomes an attribute of its package on import
        for alias in node.names:
            if alias.name == "*":
                return None
            names[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return names, exported


class _StandIn(importlib.abc.Loader):
    """Makes the package a module whose names are imported when first asked for (``re_exports``)."""

    def __init__(self, names: dict[str, str], exported: list[str] | None) -> None:
        self.names, self.exported = names, exported

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # the default module, with __path__, __spec__, __file__ set from the spec

    def exec_module(self, module: ModuleType) -> None:
        names, exported, package = self.names, self.exported, module.__name__
        if exported is not None:
            module.__dict__["__all__"] = exported

        def __getattr__(name: str) -> object:  # noqa: N807 - PEP 562
            if name == "__all__":  # ``from package import *`` (no literal __all__): every public name, as before
                return [n for n in names if not n.startswith("_")]
            where = names.get(name)
            if where is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            sub, _, attr = where.partition(":")
            # no lock of ours around the import: the import system's own per-module locks make it safe from any
            # thread (a lock here could deadlock against them), and every thread finds the same object
            value: object = importlib.import_module(f"{package}.{sub}")
            if attr:
                value = getattr(value, attr)
            module.__dict__[name] = value
            return value

        def __dir__() -> list[str]:  # noqa: N807 - PEP 562
            return sorted({*module.__dict__, *names})

        module.__dict__["__getattr__"] = __getattr__
        module.__dict__["__dir__"] = __dir__


class StandInFinder(importlib.abc.MetaPathFinder):
    """Finds the packages in ``PACKAGES`` as the path finder does, and gives them a stand-in ``__init__``
    when theirs only re-exports."""

    def __init__(self, packages: Sequence[str] = PACKAGES) -> None:
        self.packages = tuple(packages)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not any(fullname == p or fullname.startswith(p + ".") for p in self.packages):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or spec.loader is None or not spec.submodule_search_locations:
            return spec
        try:
            with open(spec.origin, encoding="utf-8") as f:
                found = re_exports(f.read())
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
            found = None
        if found is None:
            return spec  # run as written
        spec.loader = _StandIn(*found)
        return spec


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once; it changes nothing for a package already imported)."""
    with _installed:
        if not any(isinstance(f, StandInFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, StandInFinder())
