"""Where a home's ledger and settings live, on its own: ``agentdesk ask`` finds the home's kernel
without importing the settings (``kernel.config.settings`` re-exports ``home``)."""

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
