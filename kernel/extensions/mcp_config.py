"""Which MCP servers the user added: ``mcp.json`` for the plain settings; secrets stored like provider keys.

A server is a stdio command (with arguments and environment) or a streamable-HTTP URL (with
headers). Values the user marks secret (an API token in the environment, an ``Authorization``
header) are kept apart where provider keys are: the system keyring when one is usable, else the
owner-only ``keys.json`` (``mcp_secrets``), so they are never in ``mcp.json``, the ledger or a
log; a sentence about one names it, never its value. Both files are hostile input, read with the settings reader (size-capped, no
FIFOs): a bad server entry is skipped with its reason, the others still load.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

from ..core.errors import ConfigError
from ..config.private import make_home, write_private
from ..config.settings import _read_json
from .mcp_names import server_problem
from .mcp_secrets import ENV_NAME, HEADER_NAME, LEGACY_FILE, McpSecretBook, McpSecrets, string_map

if TYPE_CHECKING:
    from ..config.secrets import SecretStore

__all__ = ["McpSecrets", "McpServerConfig", "McpServers", "McpStore", "parse_server", "parse_servers"]

MCP_FILE = "mcp.json"
MCP_KEYS_FILE = LEGACY_FILE  # where older versions kept the secrets (moved on first use)
DEFAULT_TIMEOUT_S = 60.0
MAX_SERVERS = 64
_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class McpServerConfig:
    """One server: ``command`` (stdio) or ``url`` (streamable HTTP), never both."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    timeout_s: float = DEFAULT_TIMEOUT_S
    enabled: bool = True

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"

    def target(self) -> str:
        """What the server is, in words (no secrets: those are not in this object)."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return self.url or ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"timeout_s": self.timeout_s, "enabled": self.enabled}
        if self.command is not None:
            out.update(command=self.command, args=list(self.args), env=dict(self.env))
        else:
            out.update(url=self.url, headers=dict(self.headers))
        return out


@dataclass(frozen=True)
class McpServers:
    """What ``mcp.json`` holds that can be used, and why anything else was skipped. ``broken`` names the
    entries that were skipped and ``unreadable`` says the file as a whole could not be used: a running
    kernel keeps those servers as they were rather than stopping them over a bad edit."""

    servers: tuple[McpServerConfig, ...] = ()
    problems: tuple[ConfigError, ...] = ()
    broken: tuple[str, ...] = ()
    unreadable: bool = False


def _text(value: Any, max_len: int = 4096) -> bool:
    return isinstance(value, str) and 0 < len(value) <= max_len and "\x00" not in value


def _problem(name: str, what: str) -> ConfigError:
    return ConfigError(f"{MCP_FILE}: server {name!r}: {what}", name, file=MCP_FILE, field=name, allowed=what)


def parse_server(name: str, data: Any) -> McpServerConfig:
    """One server entry from mcp.json (ConfigError naming what is wrong)."""
    if (why := server_problem(name)) is not None:
        raise _problem(str(name)[:40], why)
    if not isinstance(data, dict):
        raise _problem(name, "must be an object with a command or a url")
    command, url = data.get("command"), data.get("url")
    if (command is None) == (url is None):
        raise _problem(name, "needs exactly one of command (stdio) or url (streamable HTTP)")
    timeout = data.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
            or not 1 <= timeout <= 3600:
        raise _problem(name, "timeout_s must be a number of seconds between 1 and 3600")
    enabled = data.get("enabled", True)
    if not isinstance(enabled, bool):
        raise _problem(name, "enabled must be true or false")
    if command is not None:
        args = data.get("args", [])
        if not _text(command) or not isinstance(args, list) or len(args) > 256 or \
                not all(isinstance(a, str) and len(a) <= 4096 and "\x00" not in a for a in args):
            raise _problem(name, "command must be text and args a list of at most 256 texts")
        env = string_map(data.get("env"), ENV_NAME, "env", header=False)
        if isinstance(env, str):
            raise _problem(name, env)
        return McpServerConfig(name, command=command, args=tuple(args), env=MappingProxyType(env),
                               timeout_s=float(timeout), enabled=enabled)
    if not isinstance(url, str) or not _text(url, 2048) or not url.startswith(("http://", "https://")) \
            or any(c.isspace() for c in url):
        raise _problem(name, "url must be an http:// or https:// URL")
    headers = string_map(data.get("headers"), HEADER_NAME, "headers", header=True)
    if isinstance(headers, str):
        raise _problem(name, headers)
    return McpServerConfig(name, url=url, headers=MappingProxyType(headers), timeout_s=float(timeout), enabled=enabled)


def parse_servers(data: Any) -> McpServers:
    """Every usable server in a parsed mcp.json, and a problem for each one that is not."""
    if data is None:
        return McpServers()
    servers = data.get("servers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return McpServers((), (ConfigError(f"{MCP_FILE} must be an object with \"servers\": {{name: server}}",
                                           MCP_FILE, file=MCP_FILE, field=None, allowed="an object"),),
                          unreadable=True)
    good: list[McpServerConfig] = []
    problems: list[ConfigError] = []
    broken: list[str] = []
    if len(servers) > MAX_SERVERS:  # said, never dropped in silence
        left = list(servers)[MAX_SERVERS:]
        problems.append(ConfigError(
            f"{MCP_FILE} lists {len(servers):,} servers; only the first {MAX_SERVERS} are used "
            f"({len(left):,} left out, from {left[0]!r})", MCP_FILE, file=MCP_FILE, field="servers",
            allowed=f"at most {MAX_SERVERS} servers"))
    for name, item in list(servers.items())[:MAX_SERVERS]:
        try:
            good.append(parse_server(name, item))
        except ConfigError as exc:
            problems.append(exc)
            broken.append(str(name))
    return McpServers(tuple(good), tuple(problems), tuple(broken))


class McpStore:
    """Reads and writes mcp.json under one home folder, and the servers' secrets in the secret store."""

    def __init__(self, root: Path, secrets: "SecretStore | None" = None) -> None:
        self.root = root
        self.book = McpSecretBook(root, secrets)

    @property
    def path(self) -> Path:
        return self.root / MCP_FILE

    @property
    def keys_path(self) -> Path:
        """The older versions' secrets file (gone once its secrets were moved)."""
        return self.book.legacy_path

    def load(self) -> McpServers:
        try:
            loaded = parse_servers(_read_json(self.path, MCP_FILE))
        except ConfigError as exc:
            loaded = McpServers((), (exc,), unreadable=True)
        if self.keys_path.exists():  # an older home: its secrets move to the secret store now
            self.book.migrate()
            if self.book.problem is not None:
                loaded = replace(loaded, problems=(*loaded.problems, self.book.problem))
        return loaded

    def secrets(self, name: str) -> McpSecrets:
        """The secrets saved for server ``name`` (empty when none, or when they cannot be read)."""
        return self.book.get(name)

    def add(self, config: McpServerConfig, secrets: McpSecrets = McpSecrets()) -> None:
        """Add or replace a server (ConfigError when it does not pass the same check as loading)."""
        parse_server(config.name, config.to_json())
        data = self._raw()
        self.book.set(config.name, secrets)  # secrets first: a server is never saved without the ones it needs
        data["servers"][config.name] = config.to_json()
        self._write(data)

    def remove(self, name: str) -> bool:
        """Forget a server and its secrets; False when there was none by that name."""
        data = self._raw()
        found = data["servers"].pop(name, None) is not None
        if found:
            self._write(data)
        self.book.forget(name)
        return found

    def _raw(self) -> dict[str, Any]:
        data = _read_json(self.path, MCP_FILE)  # ConfigError: not rewritten over a file we cannot read
        if data is None:
            return {"servers": {}}
        if not isinstance(data, dict) or not isinstance(data.get("servers"), dict):
            raise ConfigError(f"{MCP_FILE} is not an object with \"servers\"; fix or remove it first", MCP_FILE,
                              file=MCP_FILE)
        return data

    def _write(self, data: dict[str, Any]) -> None:
        make_home(self.root)
        write_private(self.path, json.dumps(data, indent=2))
