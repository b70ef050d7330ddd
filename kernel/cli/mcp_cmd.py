"""``agentdesk mcp add|list|rm``: the MCP servers of this home, in mcp.json; their secrets where keys live.

``add NAME --command 'COMMAND ARGS...'`` adds a stdio server, ``add NAME --url URL`` a streamable-HTTP one.
Secret values (``--secret-env``, ``--secret-header``) go where provider keys are kept (the system keyring,
or the owner-only keys.json); given as a bare NAME, the value is taken from this shell's environment
variable of that name, so it never appears in the command line or the shell history. ``list`` never
prints a secret, only its name. When this home's kernel is running, ``add`` and ``rm`` ask it to read
mcp.json again, so the change takes effect at once (``mcp_reload``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from typing import Any, TextIO

from ..core.errors import ConfigError
from ..config.settings import home
from ..extensions.mcp_config import DEFAULT_TIMEOUT_S, McpSecrets, McpServerConfig, McpStore
from . import EXIT_USAGE


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
    if args.mcp_action == "rm":
        if not store.remove(args.name):
            print(f"agentdesk mcp rm: there is no server called {args.name!r}", file=stderr)
            return EXIT_USAGE
        print(f"removed {args.name}", file=stderr)
        _reload_running_kernel(stderr)
        return 0
    try:
        command = shlex.split(args.server_command) if args.server_command else []
    except ValueError as exc:
        print(f"agentdesk mcp add: --command cannot be split into words ({exc})", file=stderr)
        return EXIT_USAGE
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
    print(f"added {config.name} ({config.transport}: {config.target()}); its tools are mcp__{config.name}__*, "
          f"scope mcp.{config.name}", file=stderr)
    _reload_running_kernel(stderr)
    return 0


RELOAD_TIMEOUT_S = 180.0  # starting a server may take its whole start timeout (kernel/extensions/mcp_client)


def _reload_running_kernel(stderr: TextIO) -> None:
    """Tell this home's running kernel (if any) to read mcp.json again, and say what changed."""
    from ..service.client import SyncChannel, kernel_running
    from ..config.home import socket_path

    root = home()
    if not kernel_running(root):
        return
    channel = SyncChannel(socket_path(root), "agentdesk mcp", timeout=RELOAD_TIMEOUT_S)
    try:
        done = channel.call("extensions.mcp_reload")
    except Exception as exc:  # noqa: BLE001 - the file is saved either way: the kernel reads it when it next starts
        print(f"the running kernel did not take the change ({exc}); it applies when the kernel next starts",
              file=stderr)
        return
    finally:
        channel.close()
    print(f"the running kernel: {done.in_words()}", file=stderr)
    for problem in done.problems:
        print(f"agentdesk mcp: {problem}", file=stderr)


def _list(store: McpStore, as_json: bool, stdout: TextIO, stderr: TextIO) -> int:
    loaded = store.load()
    for problem in loaded.problems:
        print(f"agentdesk mcp list: {problem.message}", file=stderr)
    for server in loaded.servers:
        secret_names = store.secrets(server.name).names()
        if as_json:
            print(json.dumps({"name": server.name, "transport": server.transport, "target": server.target(),
                              "enabled": server.enabled, "timeout_s": server.timeout_s,
                              "secrets": list(secret_names)}), file=stdout)
            continue
        state = "" if server.enabled else "  (disabled)"
        secrets = f"  secrets: {', '.join(secret_names)}" if secret_names else ""
        print(f"{server.name}  {server.transport}  {server.target()}{secrets}{state}", file=stdout)
    if loaded.problems:  # what is wrong was said above; never "no servers yet" for a file that cannot be read
        return EXIT_USAGE
    if not loaded.servers and not as_json:
        print("no MCP servers yet: agentdesk mcp add NAME --command 'COMMAND ARGS...'", file=stderr)
    return 0
