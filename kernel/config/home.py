"""Where a home's ledger and settings live, and where its kernel listens, on their own: ``agentdesk ask``
finds the home's kernel without importing the settings (``kernel.config.settings`` re-exports ``home``),
and the sandbox hides the kernel's socket folder without importing the service (``kernel.service``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping


def home(env: Mapping[str, str] | None = None) -> Path:
    """Where the ledger and settings live: $AGENTDESK_HOME, else the platform's user data folder."""
    env = os.environ if env is None else env
    if env.get("AGENTDESK_HOME"):
        return Path(env["AGENTDESK_HOME"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("agentdesk", appauthor=False))


SUN_PATH_MAX = 107  # bytes, without the terminating NUL (Linux)


def socket_path(home: Path, env: Mapping[str, str] | None = None) -> Path:
    """The socket of ``home``'s kernel (its folder is made owner-only when it is a runtime folder)."""
    env = os.environ if env is None else env
    near = home / "kernel.sock"
    if len(os.fsencode(str(near))) <= SUN_PATH_MAX:
        return near
    base = Path(env["XDG_RUNTIME_DIR"]) if env.get("XDG_RUNTIME_DIR") else Path(f"/tmp/agentdesk-{os.getuid()}")
    folder = base / "agentdesk" if env.get("XDG_RUNTIME_DIR") else base
    import hashlib  # only for a deep home (~4 ms to import: not on ask's way to the kernel otherwise)

    digest = hashlib.sha256(os.fsencode(str(home.resolve()))).hexdigest()[:16]
    return folder / f"{digest}.sock"
