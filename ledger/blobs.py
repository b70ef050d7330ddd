"""Content-addressed blob storage inside the ledger database.

A blob is stored once under the sha256 of its bytes, zlib-compressed when
that saves space. ``verify`` re-reads blobs and recomputes their hashes, so a
damaged database is detected instead of silently restoring wrong bytes.
"""

from __future__ import annotations

import hashlib
import sqlite3
import zlib

from .errors import CorruptBlob, UnknownBlob

_MIN_COMPRESS = 64  # smaller than this, zlib's header costs more than it saves
_ASK_FIRST = 64 * 1024  # larger contents are looked up before being compressed


def digest(data: bytes) -> str:
    """The name of a blob: sha256 hex of its bytes."""
    return hashlib.sha256(data).hexdigest()


def encode(data: bytes) -> tuple[str, bytes]:
    """The codec and stored bytes for ``data``."""
    if len(data) >= _MIN_COMPRESS:
        packed = zlib.compress(data, 1)  # level 1: a third of the time of 6, nearly the same size on text
        if len(packed) < len(data):
            return "zlib", packed
    return "raw", data


def decode(codec: str, stored: bytes) -> bytes:
    if codec == "zlib":
        return zlib.decompress(stored)
    if codec == "raw":
        return bytes(stored)
    raise ValueError(f"unknown blob codec {codec!r}")


def put(db: sqlite3.Connection, data: bytes, name: str | None = None) -> str:
    """Store ``data`` (once) and return its hash (``name``, when the caller computed it). Call inside a
    transaction. Small contents take one statement (encoding a blob that is already there costs
    less than a second round trip); large ones are looked for first, to spare compressing them."""
    name = digest(data) if name is None else name
    if len(data) > _ASK_FIRST and has(db, name):
        return name
    codec, stored = encode(data)
    db.execute("INSERT OR IGNORE INTO blobs(hash, size, codec, data) VALUES (?, ?, ?, ?)",
               (name, len(data), codec, stored))
    return name


def has(db: sqlite3.Connection, name: str) -> bool:
    return db.execute("SELECT 1 FROM blobs WHERE hash = ?", (name,)).fetchone() is not None


def get(db: sqlite3.Connection, name: str, check: bool = True) -> bytes:
    """The bytes of a blob; raises UnknownBlob, or CorruptBlob when ``check`` finds damage."""
    row = db.execute("SELECT codec, data FROM blobs WHERE hash = ?", (name,)).fetchone()
    if row is None:
        raise UnknownBlob(name)
    try:
        data = decode(row[0], row[1])
    except (zlib.error, ValueError) as exc:
        raise CorruptBlob(name) from exc
    if check and digest(data) != name:
        raise CorruptBlob(name)
    return data


def verify(db: sqlite3.Connection, names: list[str] | None = None) -> list[str]:
    """Hashes of the blobs (all, or ``names``) whose stored bytes no longer match."""
    if names is None:
        rows = db.execute("SELECT hash FROM blobs ORDER BY hash").fetchall()
        names = [r[0] for r in rows]
    bad = []
    for name in names:
        try:
            get(db, name, check=True)
        except CorruptBlob:
            bad.append(name)
        except UnknownBlob:
            continue
    return bad
