"""Which facade methods the service serves, and the check that a call's params fit them.

Derived from ``kernel.api.KernelFacade`` and its desks (``DESKS``: served as
``<desk>.<method>``), so a method added to the facade or a desk is served
with no code here: its signature says which params it takes and of what
type; the client's stubs are checked against the same table
(tests/kernel/test_facade_signatures.py). A method whose signature holds a
callable (``subscribe``) or that would end the kernel (``aclose``) is not
served; the service has its own words for those. Params are checked against
the annotations before the kernel sees them: a hostile client gets an error,
never a half-done call.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import inspect
import types
import typing
from dataclasses import dataclass
from typing import Any, Mapping

from ledger import USER

from .. import api

NOT_SERVED = frozenset({"subscribe", "aclose"})
# Who a client is in the ledger: whoever holds the socket is the user, so a ``by`` param (kill,
# automations.pause, …) that names an agent, an automation or the kernel would forge the record.
CLIENT_ACTOR = USER


class ParamsError(ValueError):
    """The params do not fit the method (names the param)."""


@dataclass(frozen=True)
class Method:
    name: str
    params: Mapping[str, Any]        # name → annotation
    required: frozenset[str]
    is_async: bool
    is_property: bool

    def bind(self, params: Any) -> dict[str, Any]:
        """Checked keyword arguments for the kernel's method (ParamsError when they do not fit)."""
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise ParamsError("params must be an object of named values")
        unknown = set(params) - set(self.params)
        if unknown:
            raise ParamsError(f"unknown param(s): {', '.join(sorted(map(str, unknown)))}")
        missing = self.required - set(params)
        if missing:
            raise ParamsError(f"missing param(s): {', '.join(sorted(missing))}")
        for key, value in params.items():
            if not conforms(value, self.params[key]):
                raise ParamsError(f"param {key!r} has the wrong type")
        if params.get("by", CLIENT_ACTOR) != CLIENT_ACTOR or any(
                isinstance(v, api.Denial) and v.by != CLIENT_ACTOR for v in params.values()):
            raise ParamsError(f"param 'by': a client acts as {CLIENT_ACTOR!r}, never as an agent, an automation "
                              "or the kernel")
        return dict(params)


# Properties that are desks of their own: their methods are served as ``<desk>.<method>``.
DESKS: Mapping[str, Any] = {"agents": api.AgentDesk, "leases": api.LeaseDesk, "ledger": api.LedgerDesk,
                            "extensions": api.ExtensionDesk, "outward": api.OutwardDesk,
                            "automations": api.AutomationDesk, "channels": api.ChannelDesk}


@functools.cache
def _api_names() -> dict[str, Any]:
    """Every name of ``kernel.api`` (it imports them on first use), to resolve annotations with: a module
    may import the types it names only for mypy (``if TYPE_CHECKING``)."""
    return {**vars(api), **{name: getattr(api, name) for name in api.__all__}}


def _methods() -> dict[str, Method]:
    out: dict[str, Method] = {}
    names = _api_names()
    for owner, prefix in ((api.KernelFacade, ""), *((proto, f"{desk}.") for desk, proto in DESKS.items())):
        for name, member in inspect.getmembers(owner):
            if name.startswith("_") or name in NOT_SERVED or (not prefix and name in DESKS):
                continue
            if isinstance(member, property):
                out[prefix + name] = Method(prefix + name, {}, frozenset(), False, True)
                continue
            if not callable(member):
                continue
            hints = typing.get_type_hints(member, names)
            sig = inspect.signature(member)
            params = {p: hints[p] for p in sig.parameters if p != "self"}
            if any(_holds_callable(h) for h in params.values()):
                continue
            required = frozenset(p.name for p in sig.parameters.values()
                                 if p.name != "self" and p.default is inspect.Parameter.empty)
            out[prefix + name] = Method(prefix + name, params, required, inspect.iscoroutinefunction(member), False)
    return out


def _holds_callable(hint: Any) -> bool:
    origin = typing.get_origin(hint)
    return origin is collections.abc.Callable or any(_holds_callable(a) for a in typing.get_args(hint))


def conforms(value: Any, hint: Any) -> bool:
    """``value`` is of the annotated type (the shapes the facade uses; anything else: no)."""
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, a) for a in typing.get_args(hint))
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin in (collections.abc.Sequence, list, tuple):
        args = typing.get_args(hint)
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            args = args[:1]
        return isinstance(value, (list, tuple)) and bool(args) and all(conforms(v, args[0]) for v in value)
    if origin in (collections.abc.Mapping, dict):
        key, val = typing.get_args(hint) or (str, Any)
        return isinstance(value, dict) and all(conforms(k, key) and conforms(v, val) for k, v in value.items())
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return isinstance(value, hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return isinstance(value, hint) and _fields_conform(value)
    return False


def _fields_conform(value: Any) -> bool:
    """Every field of a dataclass a client sent holds what its annotation says (recursively)."""
    cls = type(value)
    hints = typing.get_type_hints(cls, {**_api_names(), **vars(inspect.getmodule(cls))})
    return all(conforms(getattr(value, f.name), hints[f.name]) for f in dataclasses.fields(value) if f.init)


METHODS: Mapping[str, Method] = _methods()
