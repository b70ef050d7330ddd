"""kernel.api is the public vocabulary: plain frozen data, and a Protocol the Kernel satisfies.

The next step serves the facade over a socket, so everything it takes or
returns must be data a codec can carry: frozen dataclasses of strings,
numbers, tuples, mappings, literals and other such dataclasses.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import sys
import types
import typing

import kernel
import kernel.api as api
from kernel.facade import Kernel

PLAIN = (str, int, float, bool, type(None))
CONTAINERS = {tuple, list, dict, collections.abc.Mapping, collections.abc.Sequence}


def _problems(tp: object, seen: set[type], where: str) -> list[str]:
    """Why ``tp`` is not plain data (empty when it is)."""
    if tp is typing.Any:  # JSON-like values (a tool call's input)
        return []
    if isinstance(tp, type) and issubclass(tp, PLAIN):  # str and int enums too
        return []
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return []
    if origin in (typing.Union, types.UnionType):
        return [p for arg in typing.get_args(tp) for p in _problems(arg, seen, where)]
    if origin in CONTAINERS:
        return [p for arg in typing.get_args(tp) if arg is not Ellipsis for p in _problems(arg, seen, where)]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if tp in seen:
            return []
        seen.add(tp)
        if not tp.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            return [f"{where}: {tp.__name__} is not frozen"]
        # the module's names, and the public ones it may import for mypy only (``if TYPE_CHECKING``)
        names = {**{n: getattr(api, n) for n in api.__all__}, **vars(sys.modules[tp.__module__])}
        hints = typing.get_type_hints(tp, names)
        return [p for f in dataclasses.fields(tp) for p in _problems(hints[f.name], seen, f"{tp.__name__}.{f.name}")]
    return [f"{where}: {tp!r} is not plain data"]


def test_every_value_in_the_public_module_is_plain_frozen_data() -> None:
    values = [getattr(api, name) for name in api.__all__]
    data = [v for v in values if (isinstance(v, type) and dataclasses.is_dataclass(v))
            or typing.get_origin(v) is typing.Union]
    assert {api.AgentInfo, api.LeaseRequest, api.Lease, api.LedgerFilter, api.Event, api.Entry} <= set(data)
    seen: set[type] = set()
    assert [p for v in data for p in _problems(v, seen, getattr(v, "__name__", repr(v)))] == []


def test_the_kernel_package_re_exports_the_public_module() -> None:
    assert set(api.__all__) <= set(kernel.__all__)
    assert all(getattr(kernel, name) is getattr(api, name) for name in api.__all__)


def test_the_facade_keeps_its_internals_private() -> None:
    """Its methods are in desks (tests/kernel/test_facade_signatures.py checks each against kernel.api): the
    facade itself keeps few public members, and none of its parts."""
    public = {n for n in dir(Kernel) if not n.startswith("_")}
    assert not public & {"services", "bus", "snapshots", "process", "clock", "automation_gate"}
    assert {"agents", "leases", "ledger", "extensions", "outward", "automations", "channels"} <= public
    assert len(public) <= 30, sorted(public)
