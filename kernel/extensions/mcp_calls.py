"""Which agents have calls in flight on one MCP server, so a server's request can be laid at a caller's door.

A server's questions (elicitation), model requests (sampling) and roots requests arrive on the
connection, not on the call that caused them: on stdio and on 2025 revisions nothing ties them to a
call. The connection counts its calls in flight per agent; while exactly one agent is calling, a
server's request is that agent's (its user answers, its budget pays, its workspace is the root).
With two agents calling at once it cannot be told whose it is, and the request is refused rather
than guessed (``sole`` is ""). (Each call's progress token is the SDK's: its request id.)
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass
from typing import Iterator


@dataclass(frozen=True)
class Caller:
    """One call in flight: the agent, and the model's id of the call (its tool card)."""

    agent_id: str
    call_id: str


class InFlight:
    def __init__(self, server: str) -> None:
        self._server = server
        self._counts: Counter[str] = Counter()

    @contextlib.contextmanager
    def calling(self, agent_id: str, call_id: str = "") -> Iterator[Caller]:
        """While the body runs, ``agent_id`` has one more call in flight on this server."""
        caller = Caller(agent_id, call_id)
        self._counts[agent_id] += 1
        try:
            yield caller
        finally:
            self._counts[agent_id] -= 1
            if self._counts[agent_id] <= 0:
                del self._counts[agent_id]

    def sole(self) -> str:
        """The one agent with calls in flight, or "" (none, or more than one)."""
        agents = [a for a, n in self._counts.items() if n > 0 and a]
        return agents[0] if len(agents) == 1 else ""
