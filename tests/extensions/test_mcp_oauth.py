"""The pieces of MCP sign-in that are ours (the flow itself is the SDK's, proven by tests/conformance):
the loopback redirect, the tokens in the key store and held for redaction, and ``agentdesk mcp login``'s
refusals."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx2
import pytest

from kernel.config.secrets import SecretStore
from kernel.config.settings import SettingsStore
from kernel.extensions.mcp_oauth import KeyStoreTokens, LoopbackRedirect
from tests.cli.inproc import agentdesk


def test_the_loopback_redirect_takes_the_code_once_per_sign_in_and_refuses_other_paths():
    async def main() -> None:
        redirect = LoopbackRedirect()
        await redirect.start()
        try:
            async with httpx2.AsyncClient() as http:
                assert (await http.get(f"http://127.0.0.1:{redirect.port}/elsewhere?code=x")).status_code == 404
                await http.get(redirect.uri + "?code=c1&state=s1")
                first = await redirect.wait()
                assert (first.code, first.state) == ("c1", "s1")
                redirect.expect()  # a step-up signs in again: the old answer is not reused
                await http.get(redirect.uri + "?error=access_denied&state=s2")
                with pytest.raises(Exception, match="access_denied"):
                    await redirect.wait()
        finally:
            await redirect.close()

    asyncio.run(asyncio.wait_for(main(), 30))


def test_tokens_live_in_the_key_store_and_are_held_for_redaction(tmp_path: Path):
    from mcp.shared.auth import OAuthToken

    vault = SecretStore(SettingsStore(tmp_path), use_keyring=False)
    held: list[tuple[str, str]] = []
    tokens = KeyStoreTokens(vault, "web", lambda value, label: held.append((value, label)))

    async def main() -> None:
        await tokens.pre_register("client-1", "s3cret-value-123")
        await tokens.set_tokens(OAuthToken(access_token="acc-token-abcdef123", refresh_token="ref-token-abcdef456"))
        again = await KeyStoreTokens(vault, "web").get_tokens()
        assert again is not None and again.access_token == "acc-token-abcdef123"
        info = await tokens.get_client_info()
        assert info is not None and info.client_id == "client-1" and info.token_endpoint_auth_method == \
            "client_secret_basic"

    asyncio.run(main())
    assert {v for v, _ in held} == {"s3cret-value-123", "acc-token-abcdef123", "ref-token-abcdef456"}
    keys = json.loads((tmp_path / "keys.json").read_text())
    assert "acc-token-abcdef123" in keys["mcp:oauth:web"]  # the owner-only key file, never mcp.json
    assert not (tmp_path / "mcp.json").exists()
    tokens.forget()
    assert not tokens.signed_in()


def test_mcp_login_names_what_it_cannot_sign_in_to(tmp_path: Path):
    home = tmp_path / "home"
    (home).mkdir()
    (home / "mcp.json").write_text(json.dumps({"servers": {"local": {"command": "true"}}}))
    out = agentdesk(["mcp", "login", "local"], home)
    assert out.returncode == 2 and "no remote (--url) server called 'local'" in out.stderr
    out = agentdesk(["mcp", "login", "nope"], home)
    assert out.returncode == 2 and "'nope'" in out.stderr
