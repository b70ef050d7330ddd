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
import math
import operator
from typing import Any, Sequence

GENESIS = bytes(32)

# Every stored column except the hash, in the order the INSERT binds them.
CHAIN_COLUMNS = ("seq", "ts", "actor", "kind", "version", "tool", "scope", "path", "cause", "lease",
                 "before", "after", "reverts", "body")
_INTEGER = frozenset({"seq", "version", "cause", "lease", "reverts"})
_AFFINITY = tuple(int if name in _INTEGER else float if name == "ts" else str for name in CHAIN_COLUMNS)
# ('"name":', position) in name order: what json.dumps(sort_keys=True) would write, built by hand
# because JSONEncoder.encode sets up a new C encoder per call (20 µs of an append's ~60).
_SORTED = [(json.dumps(name) + ":", i) for name, i in sorted((n, i) for i, n in enumerate(CHAIN_COLUMNS))]
_string = json.encoder.encode_basestring_ascii
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode


def stored_values(values: Sequence[Any]) -> tuple[Any, ...]:
    """``values`` (in CHAIN_COLUMNS order) as SQLite will hand them back; TypeError for a value a
    column cannot hold faithfully (it would be stored as something else than what was hashed)."""
    if len(values) != len(CHAIN_COLUMNS):
        raise ValueError(f"an entry has {len(CHAIN_COLUMNS)} columns, not {len(values)}")
    out = list(values)
    for i, value in enumerate(out):
        kind = type(value)
        if value is None or kind is _AFFINITY[i]:
            continue  # the usual case: already what the column holds
        if _AFFINITY[i] is int:
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            out[i] = int(operator.index(value))
        elif _AFFINITY[i] is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            out[i] = float(value)
        else:
            raise TypeError(f"ledger column {CHAIN_COLUMNS[i]} holds {_AFFINITY[i].__name__}, "
                            f"not {kind.__name__}")
    return tuple(out)


def canonical(values: Sequence[Any]) -> bytes:
    """The canonical bytes of one entry: a JSON object of its columns, keys sorted, no spaces, ASCII."""
    parts = []
    for prefix, i in _SORTED:
        value = values[i]
        kind = type(value)
        if kind is str:
            parts.append(prefix + _string(value))
        elif value is None:
            parts.append(prefix + "null")
        elif kind is int:
            parts.append(prefix + int.__repr__(value))
        elif kind is float and math.isfinite(value):
            parts.append(prefix + float.__repr__(value))
        else:  # what json would write, or its refusal (bytes, NaN: TypeError, ValueError)
            parts.append(prefix + _encode(value))
    return ("{" + ",".join(parts) + "}").encode("ascii")


def link(prev: bytes, values: Sequence[Any]) -> bytes:
    """The hash of an entry whose predecessor's hash is ``prev``."""
    return hashlib.sha256(prev + canonical(values)).digest()
