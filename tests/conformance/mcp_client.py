"""The client side of the MCP conformance suite: the kernel's own MCP client, driven by one scenario.

The suite (npm ``@modelcontextprotocol/conformance``) starts a test server per scenario and runs
``python tests/conformance/mcp_client.py URL`` with ``MCP_CONFORMANCE_SCENARIO`` (its name) and
``MCP_CONFORMANCE_CONTEXT`` (JSON it hands the client: pre-registered credentials, say) set. This
script connects through ``kernel.extensions.mcp_client.McpConnection`` exactly as ``agentdesk mcp
login`` does: the OAuth tokens go to a real key store (``keys.json`` in a scratch home), the
sign-in comes back to the connection's loopback redirect, and the "person" is played by code: the
browser follows the authorization URL (the suite's authorization server approves at once) and the
user accepts a server's form as shown, defaults filled in. It lists the tools and calls each one;
the suite judges the exchange it watched on the wire. A client-credentials scenario hands over the
client its authorization server issued (an ID with a secret, or with a private key): the adapter saves
it where ``agentdesk mcp login --client-credentials`` does, and no browser is involved.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kernel.config.secrets import SecretStore  # noqa: E402
from kernel.config.settings import SettingsStore  # noqa: E402
from kernel.extensions.mcp_client import McpConnection, McpError  # noqa: E402
from kernel.extensions.mcp_config import McpServerConfig  # noqa: E402
from kernel.extensions.mcp_elicit import ElicitAnswer, ElicitQuestion  # noqa: E402
from kernel.extensions.mcp_hooks import McpHooks  # noqa: E402
from kernel.extensions.mcp_machine import ClientCredentials  # noqa: E402
from kernel.extensions.mcp_oauth import KeyStoreTokens  # noqa: E402

CIMD_URL = "https://conformance-test.local/client-metadata.json"  # the suite's client ID metadata document


def arguments_for(schema: Any) -> dict[str, Any]:
    """Placeholder arguments that satisfy a tool's input schema's property types."""
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    out: dict[str, Any] = {}
    for name, spec in props.items():
        kind = spec.get("type", "string") if isinstance(spec, dict) else "string"
        out[name] = 1 if kind in ("number", "integer") else True if kind == "boolean" else "test"
    return out


def machine_client(context: dict[str, Any]) -> ClientCredentials:
    """The client the scenario's authorization server issued: an ID with a secret or a private key."""
    key = context.get("private_key_pem")
    if key:
        return ClientCredentials(str(context["client_id"]), "private_key_jwt", private_key_pem=str(key),
                                 signing_algorithm=str(context.get("signing_algorithm") or "RS256"))
    return ClientCredentials(str(context["client_id"]), "client_secret_basic", secret=str(context["client_secret"]))


async def browser(url: str) -> None:
    """The person's browser: open the authorization page and follow its redirects (to our loopback)."""
    import httpx2

    async with httpx2.AsyncClient(follow_redirects=True, timeout=20) as http:
        await http.get(url)


async def user(question: ElicitQuestion) -> ElicitAnswer:
    """The person accepts the server's form as shown: its defaults filled in."""
    return ElicitAnswer("accept", question.with_defaults())


async def run(url: str, scenario: str, context: dict[str, Any], home: Path) -> int:
    vault = SecretStore(SettingsStore(home), use_keyring=False)
    if scenario.startswith("auth/client-credentials"):  # the person configured a machine client (mcp login
        KeyStoreTokens(vault, "conformance").set_credentials(machine_client(context))  # --client-credentials)
    elif context.get("client_id") and scenario.startswith("auth/"):
        secret = context.get("client_secret")
        await KeyStoreTokens(vault, "conformance").pre_register(str(context["client_id"]),
                                                               str(secret) if secret else None)
    hooks = McpHooks(vault=vault, browser=browser, elicit=user, client_metadata_url=CIMD_URL)
    connection = McpConnection(McpServerConfig("conformance", url=url, timeout_s=20.0), hooks=hooks,
                               log_path=home / "server.log")
    try:
        tools = await connection.list_tools()
        for tool in tools:
            if scenario.startswith("elicitation") and "elicit" not in tool.name:
                continue
            try:
                await connection.call(tool.name, arguments_for(tool.input_schema))
            except McpError as exc:
                print(f"{tool.name}: {exc.message}", file=sys.stderr)
        return 0
    except McpError as exc:
        print(exc.message, file=sys.stderr)
        return 1
    finally:
        await connection.close()


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: mcp_client.py SERVER_URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT", "")
    context = json.loads(raw) if raw else {}
    with tempfile.TemporaryDirectory() as home:
        return asyncio.run(run(sys.argv[1], scenario, context if isinstance(context, dict) else {}, Path(home)))


if __name__ == "__main__":
    sys.exit(main())
