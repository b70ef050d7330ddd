"""The outward desk: mail and calendar calls whose outcome is unknown, exactly once.

A call the kernel could not confirm (the connection dropped mid-send) is
never retried: the Inbox shows it, and the user says whether it went out or
has the kernel look on the server again. ``resume`` verifies what a previous
kernel left open, once at start (the service and ``agentdesk ask`` do).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from ..core.errors import KernelError, ToolFailure

if TYPE_CHECKING:
    from ledger import Ledger

    from ..mail.tools import MailService
    from ..tools.outward import UnknownIntent


class Outward:
    """``kernel.api.OutwardDesk`` in process."""

    def __init__(self, ledger: Ledger, mail: MailService | None) -> None:
        self._ledger = ledger
        self._mail = mail

    async def resume(self) -> int:
        """Verify the outward calls a previous kernel left without an outcome (call once at start):
        found → done, else ``unknown`` (never retried). How many were settled."""
        if self._mail is None:
            return 0
        return len(await self._mail.book.resume(self._mail.verifiers()))

    def unknown(self) -> builtins.list[UnknownIntent]:
        """Outward calls that may or may not have happened, newest first: for the Inbox to show."""
        from ..tools.outward import unknown_intents

        return unknown_intents(self._ledger, None if self._mail is None else self._mail.describe)

    def settle(self, intent_seq: int, sent: bool) -> None:
        """The user's word on an outward call whose outcome is unknown: it was sent, or it was not
        (recorded as an outcome by ``user``; nothing is retried either way)."""
        from ..tools.outward import user_says

        user_says(self._ledger, intent_seq, sent)

    async def recheck(self, intent_seq: int) -> str:
        """Look on the server again for an unknown outward call: "done" (found, recorded) or "unknown"."""
        from ..tools.outward import open_unknown

        intent = open_unknown(self._ledger, intent_seq)
        verify = None if self._mail is None else self._mail.verifiers().get(intent.tool)
        if self._mail is None or verify is None:
            raise KernelError(f"there is no account set up to check {intent.tool} with")
        try:
            found = await self._mail.book.recheck(intent, verify)
        except ToolFailure as exc:
            raise KernelError(f"could not check: {exc.message}") from None
        return "unknown" if found is None else found.status
