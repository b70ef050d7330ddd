"""Content-addressed blob storage inside the ledger database.

A blob is stored once under the sha256 of its bytes, zlib-compressed when
that saves space. ``verify`` re-reads blobs and recomputes their hashes, so a
damaged database is detected instead of silently restoring wrong bytes.

Contents the caller holds as bytes (a model's new text) are stored with
``put``. A file's old contents are stored from its open descriptor with
``put_fd``: hashed and compressed one chunk at a time into a spooled
temporary file, then copied into the row through SQLite's incremental blob
I/O, so keeping a file for undo never holds the file in memory. Measured
2026-12-01 (benchmarks/huge_file_bench.py): fs_delete of a 48 MiB file
peaked at 191 MB above the resting process with ``put``, 11 MB with
``put_fd``.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
import zlib
from dataclasses import dataclass
from typing import Iterator, cast

from .errors import CorruptBlob, UnknownBlob

from .limits import MAX_BLOB_BYTES  # noqa: F401 - re-exported, named here since the first version

_MIN_COMPRESS = 64  # smaller than this, zlib's header costs more than it saves
_ASK_FIRST = 64 * 1024  # larger contents are looked up before being compressed
CHUNK = 1 << 20  # bytes read, hashed and compressed at a time
_SPOOL_IN_MEMORY = 8 * CHUNK  # compressed bytes kept in memory before the spool moves to disk


@dataclass(frozen=True)
class Opened:
    """Contents to keep that are read from an open file in chunks, never whole (the caller
    closes ``fd``); ``size`` is what fstat said."""

    fd: int
    size: int


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


def chunks_of(fd: int) -> Iterator[bytes]:
    """The bytes of the open file ``fd`` from its start, a chunk at a time (``pread``: the
    descriptor's own offset is left alone)."""
    offset = 0
    while chunk := os.pread(fd, CHUNK, offset):
        offset += len(chunk)
        yield chunk


def digest_fd(fd: int) -> str:
    """The name the contents of the open file ``fd`` would have, read in chunks."""
    hasher = hashlib.sha256()
    for chunk in chunks_of(fd):
        hasher.update(chunk)
    return hasher.hexdigest()


def put_fd(db: sqlite3.Connection, fd: int) -> str:
    """Store the contents of the open file ``fd`` (once) in bounded memory; returns its hash.
    Call inside a transaction. A first pass only hashes, so contents already stored (the second
    half of a move) cost a read, not a compression."""
    name = digest_fd(fd)
    if has(db, name):
        return name
    hasher = hashlib.sha256()
    packer = zlib.compressobj(1)
    size = 0
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY) as spool:
        for chunk in chunks_of(fd):
            hasher.update(chunk)
            size += len(chunk)
            spool.write(packer.compress(chunk))
        spool.write(packer.flush())
        name = hasher.hexdigest()  # what was compressed, should the file have changed meanwhile
        packed = spool.tell()
        cur = db.execute("INSERT OR IGNORE INTO blobs(hash, size, codec, data) VALUES (?, ?, 'zlib', zeroblob(?))",
                         (name, size, packed))
        if cur.rowcount == 0:  # already there
            return name
        spool.seek(0)
        with db.blobopen("blobs", "data", cast(int, cur.lastrowid)) as blob:  # the row just inserted
            while piece := spool.read(CHUNK):
                blob.write(piece)
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
    except (zlib.error, ValueError, TypeError) as exc:  # TypeError: a hostile row stored text, not bytes
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
