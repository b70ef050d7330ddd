"""The home's secret that salts the Message-IDs and event UIDs of outward calls.

A send whose outcome is unknown is verified by looking for its Message-ID on
the server (Sent and INBOX). Derived from the call's idempotency key alone
(sha256 of the agent, the tool, the arguments and the model's call id, all on
the record or easy to guess), anyone could plant a mail with that Message-ID
and make a send that never left look "sent" (issue 23). So the ids are an
HMAC of the key under a per-home secret, kept in the home's key store (the
system keyring, else the owner-only keys.json) and made on first use. An
intent records the id it used, so checking an old call never needs the secret
again, even after the secret is lost and made anew.
"""

from __future__ import annotations

import secrets as random_bytes
from typing import Protocol

SECRET_NAME = "kernel:outward-id-salt"  # the name in the home's secret store (kernel.config.secrets)


class SecretBook(Protocol):
    """The home's secret store, as far as these ids need it."""

    def get(self, name: str) -> str | None: ...
    def set(self, name: str, value: str) -> str: ...


def home_salt(book: SecretBook) -> str:
    """The home's salt for outward ids, made (256 random bits) and kept on first use."""
    salt = book.get(SECRET_NAME)
    if not salt:
        salt = random_bytes.token_hex(32)
        book.set(SECRET_NAME, salt)
    return salt
