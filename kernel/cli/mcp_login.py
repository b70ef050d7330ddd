"""``agentdesk mcp login NAME``: sign in to a remote MCP server from a terminal.

The sign-in runs here, where a person is: the kernel's own connection (``McpConnection``) with a
browser that prints the authorization URL (and offers it to the system browser) and a loopback
redirect on 127.0.0.1 that takes the code back. The tokens land in the key store (``mcp:oauth:NAME``),
where the running kernel's connection finds them; it is then told to read mcp.json again, which
starts the server that was waiting for a sign-in. ``--client-id`` (with ``--client-secret-env VAR``)
uses a client the authorization server's owner registered instead of registering one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import webbrowser
from typing import TYPE_CHECKING, Callable, TextIO

if TYPE_CHECKING:
    from ..extensions.mcp_config import McpStore

EXIT_USAGE, EXIT_FAILED = 2, 4


def add_arguments(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    login = sub.add_parser("login", help="sign in to a remote server (OAuth): prints the URL to open")
    login.add_argument("name")
    login.add_argument("--client-id", help="a client registered for Agentdesk with the authorization server")
    login.add_argument("--client-secret-env", metavar="VAR", help="the environment variable holding its secret")
    login.add_argument("--no-browser", action="store_true", help="only print the URL")
    logout = sub.add_parser("logout", help="forget a remote server's sign-in (its tokens and registration)")
    logout.add_argument("name")


def run(args: argparse.Namespace, store: "McpStore", stdout: TextIO, stderr: TextIO,
        reload: Callable[[TextIO], bool]) -> int:
    from ..extensions.mcp_oauth import KeyStoreTokens

    config = next((s for s in store.load().servers if s.name == args.name), None)
    if config is None or config.url is None:
        print(f"agentdesk mcp {args.mcp_action}: there is no remote (--url) server called {args.name!r}", file=stderr)
        return EXIT_USAGE
    tokens = KeyStoreTokens(store.book.store, config.name)
    if args.mcp_action == "logout":
        tokens.forget()
        print(f"signed out of {config.name}", file=stderr)
        reload(stderr)
        return 0
    secret = None
    if args.client_secret_env:
        secret = os.environ.get(args.client_secret_env)
        if not secret:
            print(f"agentdesk mcp login: the environment variable {args.client_secret_env} is not set", file=stderr)
            return EXIT_USAGE
    return asyncio.run(_login(args, store, config, tokens, secret, stdout, stderr, reload))


async def _login(args: argparse.Namespace, store: "McpStore", config: object, tokens: object, secret: str | None,
                 stdout: TextIO, stderr: TextIO, reload: Callable[[TextIO], bool]) -> int:
    from ..extensions.mcp_client import McpError
    from ..extensions.mcp_config import McpServerConfig
    from ..extensions.mcp_oauth import KeyStoreTokens
    from ..extensions.mcp_sign_in import mcp_sign_in

    assert isinstance(config, McpServerConfig) and isinstance(tokens, KeyStoreTokens)
    if args.client_id:
        await tokens.pre_register(args.client_id, secret)

    async def browser(url: str) -> None:
        print(f"Open this address to sign in to {config.name}:\n{url}", file=stdout, flush=True)
        if not args.no_browser:
            webbrowser.open(url)
        print("waiting for the browser to come back ...", file=stderr, flush=True)

    try:
        tools = await mcp_sign_in(store, config.name, browser)  # the same flow as Settings → MCP servers → Sign in
    except McpError as exc:
        print(f"agentdesk mcp login: {exc.message}", file=stderr)
        return EXIT_FAILED
    print(f"signed in to {config.name}: {tools} tools", file=stderr)
    reload(stderr)
    return 0
