"""Plain data across the socket: kernel.api's frozen dataclasses and enums as tagged JSON.

One generic codec instead of one per method: every dataclass and enum that
``kernel.api`` (and the ledger types it names) exports is known by its class
name, so new values added there (a field on ``AgentInfo``, a new event) travel
without code here. A dataclass becomes ``{"$t": Name, field: value, ...}``, an
enum ``{"$t": Name, "$v": word}``, a tuple ``{"$tuple": [...]}``; a mapping
is a plain object, or ``{"$map": [[key, value], ...]}`` when a key is a number or
starts with ``$`` (tool input is hostile). Decoding is strict: an unknown tag, an
unknown or missing field, a stray ``$`` key is a ``CodecError``, never a guess.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
from typing import Any, Iterator, Mapping

MAX_DEPTH = 200  # deeper than any value the kernel makes; hostile nesting stops here


class CodecError(ValueError):
    """A value that is not plain kernel data (names what was wrong)."""


class _KnownTypes(Mapping[str, type]):
    """Every dataclass and enum ``kernel.api`` exports (and the ledger's ``Head``, ``Step``), by class name.

    Looked up one name at a time, so a client imports only the modules of the values it meets
    (``kernel.api`` imports on first use: issue 11's start-up goal for ``agentdesk ask``), and ``kernel.api``
    itself with the first typed value: plain requests (ask's spawn and send) go out without it."""

    def __init__(self) -> None:
        self._known: frozenset[str] | None = None
        self._found: dict[str, type | None] = {}

    @property
    def _names(self) -> frozenset[str]:
        if self._known is None:
            self._known = frozenset(_api().__all__) | {"Head", "Step"}
        return self._known

    def get(self, name: str, default: Any = None) -> type | Any:  # one lookup, cached
        if name not in self._found:
            self._found[name] = self._resolve(name) if name in self._names else None
        found = self._found[name]
        return default if found is None else found

    def _resolve(self, name: str) -> type | None:
        if name in ("Head", "Step"):
            import ledger

            value = getattr(ledger, name)
        else:
            value = getattr(_api(), name, None)
        if isinstance(value, type) and value.__name__ == name and (
                dataclasses.is_dataclass(value) or issubclass(value, enum.Enum)):
            return value
        return None

    def __getitem__(self, name: str) -> type:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(name for name in self._names if self.get(name) is not None))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _api() -> Any:
    return importlib.import_module("kernel.api")


TYPES: Mapping[str, type] = _KnownTypes()


def encode(value: Any) -> Any:
    """``value`` as JSON-ready data (CodecError for anything that is not kernel data)."""
    return _enc(value, 0)


def _enc(value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise CodecError("value nested too deep")
    if isinstance(value, enum.Enum):  # before str: the kernel's enums are StrEnums
        if TYPES.get(type(value).__name__) is not type(value):
            raise CodecError(f"not a kernel type: {type(value).__name__}")
        return {"$t": type(value).__name__, "$v": value.value}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        if TYPES.get(cls.__name__) is not cls:
            raise CodecError(f"not a kernel type: {cls.__name__}")
        out: dict[str, Any] = {"$t": cls.__name__}
        for f in dataclasses.fields(value):
            if f.init:
                out[f.name] = _enc(getattr(value, f.name), depth + 1)
        return out
    if isinstance(value, tuple):
        return {"$tuple": [_enc(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [_enc(v, depth + 1) for v in value]
    if isinstance(value, Mapping):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: _enc(v, depth + 1) for k, v in value.items()}
        pairs = []
        for k, v in value.items():
            if k is None or not isinstance(k, (str, int, float)):
                raise CodecError("a mapping key that is not a string or a number")
            pairs.append([k, _enc(v, depth + 1)])
        return {"$map": pairs}
    raise CodecError(f"not kernel data: {type(value).__name__}")


def decode(data: Any) -> Any:
    """The kernel value ``data`` encodes (CodecError when it is not exactly that)."""
    return _dec(data, 0)


def _dec(data: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise CodecError("value nested too deep")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [_dec(v, depth + 1) for v in data]
    if not isinstance(data, dict):
        raise CodecError(f"not JSON data: {type(data).__name__}")
    if "$t" in data:
        return _dec_typed(data, depth)
    if "$tuple" in data:
        if len(data) != 1 or not isinstance(data["$tuple"], list):
            raise CodecError("a malformed tuple")
        return tuple(_dec(v, depth + 1) for v in data["$tuple"])
    if "$map" in data:
        pairs = data["$map"]
        if len(data) != 1 or not isinstance(pairs, list):
            raise CodecError("a malformed mapping")
        out = {}
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], (str, int, float))
                    and not isinstance(pair[0], bool)):
                raise CodecError("a malformed mapping entry")
            out[pair[0]] = _dec(pair[1], depth + 1)
        return out
    if any(k.startswith("$") for k in data):
        raise CodecError("an unknown $ key")
    return {k: _dec(v, depth + 1) for k, v in data.items()}


def _dec_typed(data: dict[str, Any], depth: int) -> Any:
    name = data["$t"]
    cls = TYPES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise CodecError(f"unknown type {name!r}")
    if issubclass(cls, enum.Enum):
        if set(data) != {"$t", "$v"}:
            raise CodecError(f"a malformed {name}")
        try:
            return cls(data["$v"])
        except ValueError:
            raise CodecError(f"not a {name}: {data['$v']!r}") from None
    fields = {f.name for f in dataclasses.fields(cls) if f.init}  # type: ignore[arg-type]  # a dataclass: TYPES holds only those and enums
    given = set(data) - {"$t"}
    if given - fields:
        raise CodecError(f"unknown field(s) of {name}: {', '.join(sorted(given - fields))}")
    values = {k: _dec(data[k], depth + 1) for k in given}
    try:
        return cls(**values)
    except TypeError as exc:  # a required field missing
        raise CodecError(f"a malformed {name}: {exc}") from None


def dumps(message: Mapping[str, Any]) -> bytes:
    """One NDJSON line."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=True).encode() + b"\n"
