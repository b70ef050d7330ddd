"""One declaration per kernel method: ``kernel.api`` declares the facade and its desks; ``Kernel`` (in process)
and ``RemoteKernel`` (over the socket, what the shipped desktop uses) must match it member for member.

Every public member of ``KernelFacade`` and of each desk it serves (``kernel.service.methods.DESKS``) is
compared against both: its name, each parameter's name, kind, default and annotation, the return type, and
whether it is async. Annotations are compared resolved (``list[X]`` and ``builtins.list[X]`` are the same
type), so only a real difference fails, and the failure names every drift at once. The client's plain stubs
are generated from the same declarations (``python -m kernel.service.stubgen``); a stubs.py that is not what
the generator writes now fails here too.
"""

from __future__ import annotations

import builtins
import inspect
import typing
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest

import kernel.api as api
from kernel.compose import build_kernel
from kernel.service import stubgen
from kernel.service.client import RemoteKernel
from kernel.service.methods import DESKS
from ledger import Ledger
from kernel.providers.scripted import ScriptedProvider

NAMES: dict[str, Any] = {**{n: getattr(api, n) for n in api.__all__}, **vars(api), "builtins": builtins,
                         "Callable": Callable, "Sequence": Sequence, "Any": Any}


def _hints(member: Any) -> dict[str, Any]:
    fn = member.fget if isinstance(member, property) else member
    return typing.get_type_hints(fn, localns=NAMES)


def _drift(where: str, wanted: Any, got: Any) -> list[str]:
    """How ``got`` (a member of an implementation) differs from ``wanted`` (the Protocol's), in words."""
    if got is None:
        return [f"{where}: missing"]
    if isinstance(wanted, property):
        if not isinstance(got, property):
            return [f"{where}: a property in the Protocol, not here"]
        w, g = _hints(wanted).get("return"), _hints(got).get("return")
        return [] if w == g else [f"{where}: returns {g!r}, the Protocol says {w!r}"]
    if isinstance(got, property) or not callable(got):
        return [f"{where}: a method in the Protocol, not here"]
    out = []
    if inspect.iscoroutinefunction(wanted) != inspect.iscoroutinefunction(got):
        out.append(f"{where}: {'async' if inspect.iscoroutinefunction(wanted) else 'not async'} in the Protocol")
    wanted_sig, got_sig = inspect.signature(wanted), inspect.signature(got)
    wanted_hints, got_hints = _hints(wanted), _hints(got)
    w_params, g_params = list(wanted_sig.parameters.values()), list(got_sig.parameters.values())
    if [p.name for p in w_params] != [p.name for p in g_params]:
        out.append(f"{where}: params {[p.name for p in g_params]}, the Protocol says {[p.name for p in w_params]}")
    for w, g in zip(w_params, g_params):
        if w.name != g.name or w.name == "self":
            continue
        if w.kind != g.kind:
            out.append(f"{where}: param {w.name!r} is {g.kind.description}, the Protocol says {w.kind.description}")
        if w.default != g.default:
            out.append(f"{where}: param {w.name!r} defaults to {g.default!r}, the Protocol says {w.default!r}")
        if wanted_hints.get(w.name) != got_hints.get(w.name):
            out.append(f"{where}: param {w.name!r} is {got_hints.get(w.name)!r}, "
                       f"the Protocol says {wanted_hints.get(w.name)!r}")
    if wanted_hints.get("return") != got_hints.get("return"):
        out.append(f"{where}: returns {got_hints.get('return')!r}, the Protocol says {wanted_hints.get('return')!r}")
    return out


def _members(proto: type) -> list[str]:
    return [n for n, m in vars(proto).items() if not n.startswith("_") and (callable(m) or isinstance(m, property))]


def _compare(label: str, impl: Any) -> list[str]:
    """Every drift of ``impl`` (an instance: its desks are looked up on it) from ``KernelFacade``."""
    cls = type(impl)
    out = []
    for name in _members(api.KernelFacade):
        got = inspect.getattr_static(cls, name, None)
        if name in DESKS:
            if not isinstance(got, property):
                out.append(f"{label}.{name}: the {name} desk is not a property")
                continue
            desk = type(getattr(impl, name))
            for member in _members(DESKS[name]):
                out += _drift(f"{label}.{name}.{member}", getattr(DESKS[name], member),
                              inspect.getattr_static(desk, member, None))
            continue
        out += _drift(f"{label}.{name}", getattr(api.KernelFacade, name), got)
    return out


@pytest.fixture
def in_process(tmp_path: Path) -> Any:
    with Ledger(tmp_path / "ledger.db") as ledger:
        yield build_kernel(ledger=ledger, settings=api.Settings(workspace=str(tmp_path)),
                           providers=lambda _n: ScriptedProvider())


def test_kernel_and_remote_kernel_match_the_facade_protocol_member_for_member(in_process: Any,
                                                                             tmp_path: Path) -> None:
    assert set(DESKS) == {"agents", "leases", "ledger", "extensions", "outward", "automations", "channels"}
    remote = RemoteKernel(tmp_path / "no.sock")  # not started: only its members are looked at
    assert _compare("Kernel", in_process) + _compare("RemoteKernel", remote) == []


def test_the_comparison_names_a_drift() -> None:
    """The check is not vacuous: a desk with a wrong default, type, kind or async-ness is named."""
    class Drifted:
        def kill(self, agent_id: str, by: str = "kernel", reason: str = "killed by the user") -> api.AgentInfo:
            raise NotImplementedError

        def send(self, agent_id: str, *, text: str, images: tuple[api.ImagePart, ...] | None = None) -> None: ...
        def history(self, query: int = 0) -> list[api.HistoryItem]:
            return []

        async def get(self, agent_id: str) -> api.AgentInfo:
            raise NotImplementedError

    problems = [p for name in ("kill", "send", "history", "get", "revive")
                for p in _drift(f"X.agents.{name}", getattr(api.AgentDesk, name), getattr(Drifted, name, None))]
    assert problems == [
        "X.agents.kill: param 'by' defaults to 'kernel', the Protocol says 'user'",
        "X.agents.send: param 'text' is keyword-only, the Protocol says positional or keyword",
        "X.agents.send: param 'images' is keyword-only, the Protocol says positional or keyword",
        "X.agents.history: param 'query' defaults to 0, the Protocol says ''",
        "X.agents.history: param 'query' is <class 'int'>, the Protocol says <class 'str'>",
        "X.agents.get: not async in the Protocol",
        "X.agents.revive: missing",
    ]


def test_the_client_stubs_are_what_the_generator_writes_from_the_method_table() -> None:
    assert stubgen.TARGET.read_text() == stubgen.render(), "run: python -m kernel.service.stubgen"
