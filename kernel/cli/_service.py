"""The running kernel of this home, for the commands that only talk to it (ps, kill, status)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..config.settings import home

if TYPE_CHECKING:
    from ..service.client import SyncChannel


def channel(command: str) -> "SyncChannel | None":
    """A connected channel to the home's kernel, or None when none runs."""
    from ..service.client import SyncChannel
    from ..config.home import socket_path
    from ..service.protocol import NotRunning

    ch = SyncChannel(socket_path(home()), f"agentdesk {command}", timeout=10.0)
    try:
        ch.connect()
    except NotRunning:
        return None
    return ch


NO_KERNEL = "no kernel is running for this home (start one with 'agentdesk kernel', or open the desktop)"
