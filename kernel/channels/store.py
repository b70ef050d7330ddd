"""channels.json: the configured channels (never their tokens, which live in the key store)."""

from __future__ import annotations

import builtins

import json
from pathlib import Path

from ..config.private import write_private
from .model import ChannelConfig, ChannelError

FILE = "channels.json"


class ChannelStore:
    """The home's channels; ``root`` None keeps them in memory (a kernel on an in-memory ledger)."""

    def __init__(self, root: Path | None) -> None:
        self._root = root
        self._memory: dict[str, ChannelConfig] = {}

    def list(self) -> builtins.list[ChannelConfig]:
        if self._root is None:
            return sorted(self._memory.values(), key=lambda c: c.name)
        path = self._root / FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise ChannelError(f"{path} cannot be read ({exc})") from None
        if not isinstance(data, list):
            raise ChannelError(f"{path} must hold a list of channels")
        return [ChannelConfig.from_json(d) for d in data if isinstance(d, dict)]

    def get(self, name: str) -> ChannelConfig:
        for c in self.list():
            if c.name == name:
                return c
        raise ChannelError(f"no channel named {name!r}")

    def put(self, config: ChannelConfig) -> None:
        config.check()
        self._save([c for c in self.list() if c.name != config.name] + [config])

    def remove(self, name: str) -> bool:
        before = self.list()
        after = [c for c in before if c.name != name]
        self._save(after)
        return len(after) != len(before)

    def _save(self, configs: builtins.list[ChannelConfig]) -> None:
        configs = sorted(configs, key=lambda c: c.name)
        if self._root is None:
            self._memory = {c.name: c for c in configs}
            return
        write_private(self._root / FILE, json.dumps([c.to_json() for c in configs], indent=2))
