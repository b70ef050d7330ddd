"""No import cycle inside the kernel, imports inside functions counted (``if TYPE_CHECKING:`` ones not).

import-linter's ``acyclic_siblings`` contract (pyproject.toml) says the same of packages; this test
looks module by module and, when there is a cycle, prints it import by import (file and line), so a
lazy import cannot smuggle one back in unseen. Two throwaway packages show the finder is not blind:
a cycle closed by an import inside a function is found, one closed only under TYPE_CHECKING is not.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import grimp
import pytest


def import_graph(package: str) -> grimp.ImportGraph:
    """The package's imports, those inside functions included, TYPE_CHECKING ones left out (no cache)."""
    return grimp.build_graph(package, exclude_type_checking_imports=True, cache_dir=None)


def cycles(graph: grimp.ImportGraph, package: str) -> list[list[str]]:
    """Every set of the package's modules that import each other round (Tarjan's strongly connected
    components, iteratively), each as one cycle through its members: ``[a, b, ..., a]``."""
    modules = sorted(m for m in graph.modules if m == package or m.startswith(package + "."))
    inside = set(modules)
    edges = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i in inside) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    found.append(_one_cycle(graph, sorted(component)))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def _one_cycle(graph: grimp.ImportGraph, component: list[str]) -> list[str]:
    """A cycle through the component's first module: it, the way to a module importing it, and back."""
    first = component[0]
    members = set(component)
    for importer in sorted(graph.find_modules_that_directly_import(first)):
        if importer in members:
            chain = graph.find_shortest_chain(importer=first, imported=importer)
            if chain:
                return [*chain, first]
    return [first, first]  # a module importing itself


def described(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    """The cycle, one import a line, with the line numbers of each."""
    lines = []
    for importer, imported in zip(cycle, cycle[1:]):
        details = graph.get_import_details(importer=importer, imported=imported)
        where = ", ".join(f"l.{d['line_number']}: {d['line_contents']}" for d in details) or "?"
        lines.append(f"  {importer} -> {imported}  ({where})")
    return "\n".join(lines)


def test_the_kernel_has_no_import_cycle() -> None:
    graph = import_graph("kernel")
    kernel = Path(__file__).resolve().parents[2] / "kernel"
    files = {".".join(f.relative_to(kernel.parent).with_suffix("").parts).removesuffix(".__init__")
             for f in kernel.rglob("*.py")}
    assert files <= graph.modules  # every module of the kernel was read
    found = cycles(graph, "kernel")
    report = "\n\n".join(described(graph, cycle) for cycle in found)
    assert not found, f"{len(found)} import cycle(s) inside the kernel:\n{report}"


def _package(root: Path, name: str, files: dict[str, str]) -> None:
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for module, text in files.items():
        (folder / f"{module}.py").write_text(textwrap.dedent(text))


def test_a_cycle_closed_by_an_import_inside_a_function_is_found(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, "lazy_cycle_pkg", {
        "a": "from . import b\n",
        "b": """
            def later():
                from . import c  # lazy: still an arrow
                return c
            """,
        "c": "from . import a\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = import_graph("lazy_cycle_pkg")
    found = cycles(graph, "lazy_cycle_pkg")
    assert len(found) == 1
    cycle = found[0]
    assert cycle[0] == cycle[-1] and set(cycle) == {"lazy_cycle_pkg.a", "lazy_cycle_pkg.b", "lazy_cycle_pkg.c"}
    assert "l.3: from . import c" in described(graph, cycle)


def test_a_cycle_closed_only_for_the_type_checker_is_not_counted(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, "typing_cycle_pkg", {
        "a": "from . import b\n",
        "b": """
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from .a import b as _b
            """,
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = import_graph("typing_cycle_pkg")
    assert graph.direct_import_exists(importer="typing_cycle_pkg.a", imported="typing_cycle_pkg.b")
    assert cycles(graph, "typing_cycle_pkg") == []
