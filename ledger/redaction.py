"""Secrets out of the record: every entry's text passes one redactor on its way into the store.

The ledger is append-only and hash-chained, so a key that reaches it stays
there for good; the only safe place to remove it is before the row is
written. ``Ledger._insert`` (the one path every append takes) hands each
entry to ``redacted``, which runs the redactor over every string in the
entry's JSON body (tool input and output, messages, request records, error
text, reasons — whatever fields a kind has, so new kinds are covered without
being listed) and records how many values it replaced in the entry's
``redacted`` field. The indexed columns (tool, scope, path, blob hashes,
seqs) are left alone: they are names, not content, and undo needs the exact
path, so an entry whose path holds a secret is refused instead
(``SecretInName``): a file change is recorded before it lands, so such a file
is never written. A tool or scope name holding one is redacted like text. File contents are blobs, never entry text, and are never redacted:
undo must restore the exact bytes.

The redactor itself (known secrets, token patterns) is the kernel's; the
ledger only knows this protocol, so it stays free of the kernel.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol

from .entries import COLUMN_FIELDS, Entry, body_fields
from .errors import SecretInName

MIN_TEXT = 8  # no secret the patterns or the registry know is shorter; skip short strings unexamined


class Redactor(Protocol):
    def redact(self, text: str) -> tuple[str, int]:
        """``text`` with every secret replaced by ``[REDACTED:<rule>]``, and how many were replaced."""
        ...


def redacted(entry: Entry, redactor: Redactor) -> Entry:
    """``entry`` with the strings of its body redacted and ``redacted`` set; the same object if nothing matched."""
    changes: dict[str, Any] = {}
    total = 0
    for name in COLUMN_FIELDS:
        value = getattr(entry, name, None)
        if isinstance(value, str) and len(value) >= MIN_TEXT:
            new_name, count = redactor.redact(value)
            if count and name == "path":
                raise SecretInName(entry.KIND, name)
            if count:  # a tool or scope name (a model can call a tool by any name): redacted like text
                changes[name] = new_name
                total += count
    for name in body_fields(type(entry)):
        if name in COLUMN_FIELDS or name == "redacted":
            continue
        value = getattr(entry, name)
        new, count = _walk(value, redactor)
        if count:
            changes[name] = new
            total += count
    if not total:
        return entry
    out = object.__new__(type(entry))
    out.__dict__.update(entry.__dict__)
    out.__dict__.update(changes)
    out.__dict__["redacted"] = entry.redacted + total
    return out


def _walk(value: Any, redactor: Redactor) -> tuple[Any, int]:
    """``value`` (any JSON-like structure) with its strings redacted, keys included, and the count."""
    if isinstance(value, str):
        return redactor.redact(value) if len(value) >= MIN_TEXT else (value, 0)
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        total = 0
        for key, item in value.items():
            new_key, n_key = _walk(key, redactor) if isinstance(key, str) else (key, 0)
            new_item, n_item = _walk(item, redactor)
            out[new_key] = new_item
            total += n_key + n_item
        return (out, total) if total else (value, 0)
    if isinstance(value, (list, tuple)):
        items = [_walk(item, redactor) for item in value]
        total = sum(n for _, n in items)
        if not total:
            return value, 0
        return (tuple if isinstance(value, tuple) else list)(v for v, _ in items), total
    return value, 0
