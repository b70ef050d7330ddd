"""A link planted in the workspace that points outside it (a cloned repository can hold one) must
not lead the capture of a command's changes outside: the command replaces the link by a folder of
the same name, and nothing of what the link pointed at is read into the record, or touched."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest

from ledger import FileChange

from .conftest import Env

MARKER = b"-----BEGIN OPENSSH PRIVATE KEY----- planted-marker\n"


@pytest.mark.parametrize("capture", ["overlay", "snapshots"])
def test_a_link_replaced_by_a_folder_does_not_read_what_it_pointed_at(env: Env, tmp_path: Path) -> None:
    outside = tmp_path / "home-of-user"
    (outside / ".ssh").mkdir(parents=True)
    (outside / ".ssh" / "id_ed25519").write_bytes(MARKER)
    (outside / ".ssh" / "known").write_bytes(MARKER)
    os.symlink(outside, env.root / "x")
    out, ctx = asyncio.run(env.run({"command": "rm x && mkdir -p x/.ssh && echo hi > x/.ssh/known"}))
    assert (env.root / "x" / ".ssh" / "known").read_bytes() == b"hi\n", out.content
    assert sorted(os.listdir(outside / ".ssh")) == ["id_ed25519", "known"]
    assert (outside / ".ssh" / "known").read_bytes() == MARKER
    assert not env.ledger.has_blob(hashlib.sha256(MARKER).hexdigest())  # nothing of it in the record
    changes = {os.path.relpath(e.path, env.root): e for e in env.ledger.caused_by(ctx.cause)
               if isinstance(e, FileChange)}
    assert "x/.ssh/id_ed25519" not in changes
    if "x/.ssh/known" in changes:
        assert changes["x/.ssh/known"].before is None  # created: nothing was there inside the workspace
