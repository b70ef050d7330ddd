"""``agentdesk mcp login NAME``: sign in to a remote MCP server from a terminal.

The sign-in runs here, where a person is: the kernel's own connection (``McpConnection``) with a
browser that prints the authorization URL (and offers it to the system browser) and a loopback
redirect on 127.0.0.1 that takes the code back. The tokens land in the key store (``mcp:oauth:NAME``),
where the running kernel's connection finds them; it is then told to read mcp.json again, which
starts the server that was waiting for a sign-in. ``--client-id`` (with ``--client-secret-env VAR``)
uses a client the authorization server's owner registered instead of registering one.
``--client-credentials`` signs in as a client for programs (the OAuth client-credentials grant,
``extensions/mcp_machine``): its ID with a secret from the environment or a private key file, kept in
the key store; nobody is sent to a browser, then or later (the running kernel asks for new tokens itself).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import webbrowser
from typing import TYPE_CHECKING, Callable, TextIO

if TYPE_CHECKING:
    from ..extensions.mcp_config import McpStore
    from ..extensions.mcp_machine import ClientCredentials

EXIT_USAGE, EXIT_FAILED = 2, 4
MAX_KEY_BYTES = 16_384


def add_arguments(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    login = sub.add_parser("login", help="sign in to a remote server (OAuth): prints the URL to open")
    login.add_argument("name")
    login.add_argument("--client-id", help="a client registered for Agentdesk with the authorization server")
    login.add_argument("--client-secret-env", metavar="VAR", help="the environment variable holding its secret")
    login.add_argument("--no-browser", action="store_true", help="only print the URL")
    machine = login.add_argument_group("a client for programs (OAuth client credentials: no browser, no person)")
    machine.add_argument("--client-credentials", action="store_true",
                         help="sign in as the client --client-id, with its secret or private key")
    machine.add_argument("--auth-method", choices=("basic", "post"), default="basic",
                         help="how the secret is sent to the token endpoint (default: basic)")
    machine.add_argument("--private-key-file", metavar="PEM", help="sign in with this private key (private_key_jwt)")
    machine.add_argument("--signing-algorithm", default="RS256", help="the key's JWT algorithm (default: RS256)")
    machine.add_argument("--issuer", metavar="URL",
                         help="the authorization server the client belongs to (else: the first one used, pinned)")
    machine.add_argument("--scope", help="the scopes to ask for, space-separated")
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
    if args.client_credentials:
        machine = _machine_client(args, stderr)
        if machine is None:
            return EXIT_USAGE
        tokens.set_credentials(machine)
    else:
        tokens.drop_credentials()
    if args.client_secret_env and not args.client_credentials:
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
    if args.client_id and not args.client_credentials:
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


def _machine_client(args: argparse.Namespace, stderr: TextIO) -> "ClientCredentials | None":
    """The client-credentials client the arguments describe (None, with the reason printed, when they do not)."""
    from ..extensions.mcp_machine import AuthMethod, ClientCredentials, CredentialsError

    def fail(why: str) -> "ClientCredentials | None":
        print(f"agentdesk mcp login: {why}", file=stderr)
        return None

    if not args.client_id:
        return fail("--client-credentials needs --client-id")
    if bool(args.private_key_file) == bool(args.client_secret_env):
        return fail("--client-credentials needs one of --client-secret-env VAR or --private-key-file PEM")
    try:
        if args.private_key_file:
            try:
                with open(args.private_key_file, encoding="utf-8") as fh:
                    pem = fh.read(MAX_KEY_BYTES + 1)
            except (OSError, UnicodeDecodeError) as exc:
                return fail(f"cannot read the private key file: {type(exc).__name__}")
            if len(pem) > MAX_KEY_BYTES:
                return fail("the private key file is too large to be a key")
            machine = ClientCredentials(args.client_id, "private_key_jwt", private_key_pem=pem,
                                        signing_algorithm=args.signing_algorithm, issuer=args.issuer, scope=args.scope)
            machine.check_key()
            return machine
        secret = os.environ.get(args.client_secret_env)
        if not secret:
            return fail(f"the environment variable {args.client_secret_env} is not set")
        method: AuthMethod = "client_secret_post" if args.auth_method == "post" else "client_secret_basic"
        return ClientCredentials(args.client_id, method, secret=secret, issuer=args.issuer, scope=args.scope)
    except CredentialsError as exc:
        return fail(str(exc))
