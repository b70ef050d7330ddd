"""``agentdesk mcp add|list|rm``: the MCP servers of this home, in mcp.json; their secrets where keys live.

``add NAME --command 'COMMAND ARGS...'`` adds a stdio server, ``add NAME --url URL`` a streamable-HTTP one.
Secret values (``--secret-env``, ``--secret-header``) go where provider keys are kept (the system keyring,
or the owner-only keys.json); given as a bare NAME, the value is taken from this shell's environment
variable of that name, so it never appears in the command line or the shell history. ``list`` never
prints a secret, only its name. When this home's kernel is running, ``add`` and ``rm`` ask it to read
mcp.json again, so the change takes effect at once (``mcp_reload``).

``--command`` is one quoted argument, so ``~`` and ``$VARS`` in it are expanded here as a shell would
(``extensions.mcp_command``), and the words stored are printed. ``add`` then waits for the server (in
the running kernel, else started once here: ``extensions.mcp_probe``) and prints its tools with their
scopes, or why it could not start, exiting 1. ``list`` shows each server's state and tools: the running
kernel's when there is one, else each enabled server started once to ask.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ..core.errors import ConfigError
from ..config.settings import home
from ..extensions.mcp_config import DEFAULT_TIMEOUT_S, McpSecrets, McpServerConfig, McpStore
from ..extensions.mcp_status import McpServerStatus

if TYPE_CHECKING:
    from ..service.channel import SyncChannel
from . import EXIT_USAGE

EXIT_FAILED = 1  # the entry is saved, but the server did not start (or list its tools)


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("mcp", help="add, list or remove MCP servers",
                              description="MCP servers whose tools agents may use, each under its own lease "
                                          "scope mcp.<server>.<tool>.")
    sub = p.add_subparsers(dest="mcp_action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="add (or replace) a server: NAME --command 'COMMAND ARGS...', or NAME --url URL")
    add.add_argument("name", help="a short name: lower-case letters, digits, - or _")
    add.add_argument("--url", help="a streamable-HTTP endpoint instead of a command")
    add.add_argument("--env", action="append", default=[], metavar="K=V", help="environment for the command")
    add.add_argument("--secret-env", action="append", default=[], metavar="K[=V]",
                     help="secret environment value (bare K: taken from your environment)")
    add.add_argument("--header", action="append", default=[], metavar="K=V", help="HTTP header")
    add.add_argument("--secret-header", action="append", default=[], metavar="K[=V]",
                     help="secret HTTP header (bare K: taken from the environment variable K)")
    add.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                     help=f"how long one call may take (default {DEFAULT_TIMEOUT_S:g})")
    add.add_argument("--disabled", action="store_true", help="add it switched off")
    add.add_argument("--command", dest="server_command", metavar="'COMMAND ARGS...'",
                     help="the command that starts a stdio server, quoted as one argument (shell-style words)")
    ls = sub.add_parser("list", help="list the servers (secrets by name only)")
    ls.add_argument("--json", action="store_true", help="one JSON object per line")
    rm = sub.add_parser("rm", help="remove a server and its secrets")
    rm.add_argument("name")
    from .mcp_login import add_arguments

    add_arguments(sub)


def _pairs(items: list[str], what: str, secret: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            if not secret:
                raise ConfigError(f"{what} {item!r}: write it as NAME=VALUE", what)
            if key not in os.environ:
                raise ConfigError(f"{what} {key}: no value given and no environment variable {key} is set", what)
            value = os.environ[key]
        out[key.strip()] = value
    return out


def run(args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    store = McpStore(home())
    if args.mcp_action == "list":
        return _list(store, args.json, stdout, stderr)
    if args.mcp_action in ("login", "logout"):
        from . import mcp_login

        return mcp_login.run(args, store, stdout, stderr, _reload_running_kernel)
    if args.mcp_action == "rm":
        if not store.remove(args.name):
            print(f"agentdesk mcp rm: there is no server called {args.name!r}", file=stderr)
            return EXIT_USAGE
        print(f"removed {args.name}", file=stderr)
        _reload_running_kernel(stderr)
        return 0
    from ..extensions.mcp_command import split_command

    command = split_command(args.server_command) if args.server_command else []  # ConfigError: exit 2
    if bool(command) == bool(args.url):
        print("agentdesk mcp add: give either --command 'COMMAND ARGS...' or --url URL", file=stderr)
        return EXIT_USAGE
    data: dict[str, Any] = {"timeout_s": args.timeout, "enabled": not args.disabled}
    if command:
        data.update(command=command[0], args=command[1:], env=_pairs(args.env, "--env", False))
    else:
        data.update(url=args.url, headers=_pairs(args.header, "--header", False))
    from ..extensions.mcp_config import parse_server

    config: McpServerConfig = parse_server(args.name, data)
    secrets = McpSecrets(_pairs(args.secret_env, "--secret-env", True), _pairs(args.secret_header, "--secret-header", True))
    store.add(config, secrets)
    target = shlex.join([config.command, *config.args]) if config.command is not None else config.target()
    print(f"added {config.name} ({config.transport}: {target}); its tools are mcp__{config.name}__*, "
          f"scope mcp.{config.name}", file=stderr)
    if not config.enabled:
        print(f"{config.name} is switched off: it starts once it is switched on", file=stderr)
        _reload_running_kernel(stderr)
        return 0
    if _reload_running_kernel(stderr):
        status = (_kernel_statuses() or {}).get(config.name, McpServerStatus(config.name, "stopped"))
    else:
        status = _probe_all([(config, secrets)], store)[0]
    _print_status(status, stdout)
    if status.state != "connected":
        why = status.error or f"is {status.state}"
        why = why if why.startswith("the MCP server") else f"the MCP server {config.name} {why}"
        print(f"agentdesk mcp add: {why}; it is saved "
              f"in mcp.json: change it with agentdesk mcp add {config.name} ..., or agentdesk mcp rm {config.name}",
              file=stderr)
        return EXIT_FAILED
    return 0


RELOAD_TIMEOUT_S = 180.0  # starting a server may take its whole start timeout (kernel/extensions/mcp_client)


def _kernel_channel() -> SyncChannel | None:
    """A blocking channel to this home's running kernel (the caller closes it), or None when none runs."""
    from ..service.client import SyncChannel, kernel_running
    from ..config.home import socket_path

    root = home()
    if not kernel_running(root):
        return None
    return SyncChannel(socket_path(root), "agentdesk mcp", timeout=RELOAD_TIMEOUT_S)


def _reload_running_kernel(stderr: TextIO) -> bool:
    """Tell this home's running kernel (if any) to read mcp.json again, and say what changed; False when
    no kernel took the change."""
    channel = _kernel_channel()
    if channel is None:
        return False
    try:
        done = channel.call("extensions.mcp_reload")
    except Exception as exc:  # noqa: BLE001 - the file is saved either way: the kernel reads it when it next starts
        print(f"the running kernel did not take the change ({exc}); it applies when the kernel next starts",
              file=stderr)
        return False
    finally:
        channel.close()
    print(f"the running kernel: {done.in_words()}", file=stderr)
    for problem in done.problems:
        print(f"agentdesk mcp: {problem}", file=stderr)
    return True


def _kernel_statuses() -> dict[str, McpServerStatus] | None:
    """Each server as this home's running kernel has it, or None when no kernel is running."""
    channel = _kernel_channel()
    if channel is None:
        return None
    try:
        statuses = channel.call("extensions.mcp_status")
    except Exception:  # noqa: BLE001 - it went away: ask the servers themselves
        return None
    finally:
        channel.close()
    return {s.name: s for s in statuses if isinstance(s, McpServerStatus)}


def _probe_all(servers: list[tuple[McpServerConfig, McpSecrets]], store: McpStore) -> list[McpServerStatus]:
    """Each server started once, listed and stopped, all at the same time (no kernel is running); a remote one
    signs in with what the key store holds for it (``agentdesk mcp login``), or says it needs that."""
    import asyncio

    from ..extensions.mcp_hooks import McpHooks
    from ..extensions.mcp_oauth import LazyVault
    from ..extensions.mcp_probe import probe

    hooks = McpHooks(vault=LazyVault(lambda: store.book.store))  # the keyring is found only for a remote server

    async def all_of() -> list[McpServerStatus]:
        return list(await asyncio.gather(*(probe(c, s, hooks=hooks) for c, s in servers)))

    return asyncio.run(all_of())


def _print_status(status: McpServerStatus, stdout: TextIO) -> None:
    """A server's state, then one line per tool (wire name, scope) and per tool left out (with why)."""
    state = status.state + (f", protocol {status.protocol}" if status.protocol else "")
    count = f", {len(status.tools)} tool{'s' if len(status.tools) != 1 else ''}" if status.state == "connected" else ""
    print(f"  {state}{count}" + (f": {status.error}" if status.error else ""), file=stdout)
    if status.config_problem:
        print(f"  its entry in mcp.json is not used: {status.config_problem}", file=stdout)
    width = max((len(t) for t in status.tools), default=0)
    for tool in status.tools:
        print(f"    {tool.ljust(width)}  {status.scope_of(tool)}", file=stdout)
    for tool, why in status.disabled:
        print(f"    left out: {tool!r}: {why}", file=stdout)


def _list(store: McpStore, as_json: bool, stdout: TextIO, stderr: TextIO) -> int:
    loaded = store.load()
    for problem in loaded.problems:
        print(f"agentdesk mcp list: {problem.message}", file=stderr)
    running = _kernel_statuses()
    if running is None:
        probed = _probe_all([(c, store.secrets(c.name)) for c in loaded.servers], store)
        statuses = {s.name: s for s in probed}
    else:
        statuses = running
    for server in loaded.servers:
        secret_names = store.secrets(server.name).names()
        status = statuses.get(server.name) or McpServerStatus(server.name, "disabled" if not server.enabled
                                                              else "stopped")
        if as_json:
            print(json.dumps({"name": server.name, "transport": server.transport, "target": server.target(),
                              "enabled": server.enabled, "timeout_s": server.timeout_s,
                              "secrets": list(secret_names), "state": status.state, "error": status.error,
                              "protocol": status.protocol,
                              "source": "kernel" if running is not None else "started to list",
                              "tools": [{"name": t, "scope": status.scope_of(t)} for t in status.tools],
                              "left_out": [{"name": t, "why": why} for t, why in status.disabled]}), file=stdout)
            continue
        state = "" if server.enabled else "  (disabled)"
        secrets = f"  secrets: {', '.join(secret_names)}" if secret_names else ""
        print(f"{server.name}  {server.transport}  {server.target()}{secrets}{state}", file=stdout)
        if server.enabled:
            _print_status(status, stdout)
    if loaded.servers and not as_json:
        print("(as the running kernel has them)" if running is not None else
              "(no kernel is running: each server was started once to list its tools)", file=stderr)
    if loaded.problems:  # what is wrong was said above; never "no servers yet" for a file that cannot be read
        return EXIT_USAGE
    if not loaded.servers and not as_json:
        print("no MCP servers yet: agentdesk mcp add NAME --command 'COMMAND ARGS...'", file=stderr)
    return 0
