"""The hash chain that makes the ledger tamper-evident.

Triggers stop mistakes, not someone holding the file: ``DROP TRIGGER`` and
then ``UPDATE`` rewrites history. So, as in transparency logs and QLDB
journals, every entry also stores ``hash = sha256(prev_hash || canonical)``,
where ``prev_hash`` is the previous entry's hash (``GENESIS``, 32 zero bytes,
for the first) and ``canonical`` is a deterministic serialisation of every
stored column of the entry except the hash: JSON with sorted keys, no
whitespace, ASCII only. Blobs enter by their sha256 (the ``before``/``after``
columns), so a blob's bytes are covered once the blob store is checked
against those names. Changing, inserting or deleting any entry then changes
every later hash; only the newest hash (the head) has to be trusted.

The chain covers exactly ``CHAIN_COLUMNS``: a column added by a later
migration needs a new chain version rather than silently changing what old
hashes meant. Values are hashed as SQLite stores them (``stored_values``
coerces them the way the column types would), so a hash computed at append
time equals the one recomputed from the row read back.
"""

from __future__ import annotations

import hashlib
import json
import operator
from typing import Any, Sequence

GENESIS = bytes(32)

# Every stored column except the hash, in the order the INSERT binds them.
CHAIN_COLUMNS = ("seq", "ts", "actor", "kind", "version", "tool", "scope", "path", "cause", "lease",
                 "before", "after", "reverts", "body")
_INTEGER = frozenset({"seq", "version", "cause", "lease", "reverts"})
_REAL = frozenset({"ts"})
_ORDER = sorted(range(len(CHAIN_COLUMNS)), key=lambda i: CHAIN_COLUMNS[i])
_KEYS = [json.dumps(CHAIN_COLUMNS[i]) for i in _ORDER]
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode


def stored_values(values: Sequence[Any]) -> tuple[Any, ...]:
    """``values`` (in CHAIN_COLUMNS order) as SQLite will hand them back; TypeError for a value a
    column cannot hold faithfully (it would be stored as something else than what was hashed)."""
    out = []
    for name, value in zip(CHAIN_COLUMNS, values, strict=True):
        if value is None:
            out.append(None)
        elif name in _INTEGER:
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            out.append(int(operator.index(value)))
        elif name in _REAL:
            out.append(float(value))
        elif isinstance(value, str):
            out.append(value)
        else:
            raise TypeError(f"ledger column {name} holds text, not {type(value).__name__}")
    return tuple(out)


def canonical(values: Sequence[Any]) -> bytes:
    """The canonical bytes of one entry: a JSON object of its columns, keys sorted, no spaces, ASCII."""
    parts = [f"{key}:{_encode(values[i])}" for key, i in zip(_KEYS, _ORDER)]
    return ("{" + ",".join(parts) + "}").encode("ascii")


def link(prev: bytes, values: Sequence[Any]) -> bytes:
    """The hash of an entry whose predecessor's hash is ``prev``."""
    return hashlib.sha256(prev + canonical(values)).digest()
