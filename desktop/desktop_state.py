"""The desktop's own state between runs: which Ask windows were open, in ``desktop.json``.

The file lives in ``$AGENTDESK_HOME`` beside the settings and is hostile
input like them: anything but ``{"open_windows": [agent ids]}`` with ids of
the kernel's shape (``a`` and digits) is ignored, never a crash, and at most
``MAX_WINDOWS`` ids are read. It is written atomically (temporary file and
rename), so a desktop killed mid-write leaves the old state or the new one.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

FILE = "desktop.json"
MAX_WINDOWS = 64
MAX_BYTES = 64 * 1024
_AGENT_ID = re.compile(r"a[0-9]{1,18}")


class DesktopState:
    def __init__(self, root: Path) -> None:
        self.path = Path(root) / FILE

    def open_windows(self) -> list[str]:
        """The agent ids whose windows were open, in the order they were opened ([] when unreadable)."""
        try:
            if self.path.stat().st_size > MAX_BYTES:
                return []
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        ids = data.get("open_windows") if isinstance(data, dict) else None
        if not isinstance(ids, list):
            return []
        out: list[str] = []
        for item in ids[:MAX_WINDOWS]:
            if isinstance(item, str) and _AGENT_ID.fullmatch(item) and item not in out:
                out.append(item)
        return out

    def save_open_windows(self, ids: list[str]) -> None:
        """Remember these windows as open (a home that cannot be written just forgets)."""
        text = json.dumps({"open_windows": list(ids)[:MAX_WINDOWS]})
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".desktop-", suffix=".json", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            pass
