"""Which agents have calls in flight on one MCP server, so a server's request can be laid at a caller's door.

A server's questions (elicitation), model requests (sampling) and roots requests arrive on the
connection, not on the call that caused them: on stdio and on 2025 revisions nothing ties them to a
call. The connection counts its calls in flight per agent; while exactly one agent is calling, a
server's request is that agent's (its user answers, its budget pays, its workspace is the root).
With two agents calling at once it cannot be told whose it is, and the request is refused rather
than guessed (``sole`` is ""). (Each call's progress token is the SDK's: its request id.)

``stop(agent_id, why)`` ends that agent's calls in flight (it was paused): the request's task is
cancelled, so the SDK sends the server ``notifications/cancelled``, and the call fails with ``why``
(``CallStopped``) instead of the cancellation reaching the agent's own task. A kill cancels the agent's
task, which abandons its calls the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from dataclasses import dataclass
from typing import Awaitable, Iterator, TypeVar

T = TypeVar("T")


class CallStopped(Exception):
    """A call ended on purpose (its agent was paused): ``why`` in words."""


@dataclass
class Caller:
    """One call in flight: the agent, the model's id of the call (its tool card), and the task sending it."""

    agent_id: str
    call_id: str
    task: "asyncio.Task[object] | None" = None
    stopped: str = ""

    async def watch(self, work: Awaitable[T]) -> T:
        """``work``, in the task that can be stopped (``InFlight.stop``)."""
        self.task = asyncio.current_task()
        try:
            return await work
        except asyncio.CancelledError:
            if self.stopped:
                raise CallStopped(self.stopped) from None
            raise


class InFlight:
    def __init__(self, server: str) -> None:
        self._server = server
        self._counts: Counter[str] = Counter()
        self._live: dict[int, Caller] = {}

    @contextlib.contextmanager
    def calling(self, agent_id: str, call_id: str = "") -> Iterator[Caller]:
        """While the body runs, ``agent_id`` has one more call in flight on this server."""
        caller = Caller(agent_id, call_id)
        self._counts[agent_id] += 1
        self._live[id(caller)] = caller
        try:
            yield caller
        finally:
            self._live.pop(id(caller), None)
            self._counts[agent_id] -= 1
            if self._counts[agent_id] <= 0:
                del self._counts[agent_id]

    def sole(self) -> str:
        """The one agent with calls in flight, or "" (none, or more than one)."""
        agents = [a for a, n in self._counts.items() if n > 0 and a]
        return agents[0] if len(agents) == 1 else ""

    def stop(self, agent_id: str, why: str) -> int:
        """End ``agent_id``'s calls in flight here (the server is told each was cancelled); how many."""
        stopped = 0
        for caller in list(self._live.values()):
            if caller.agent_id == agent_id and caller.task is not None and not caller.task.done():
                caller.stopped = why
                caller.task.cancel()
                stopped += 1
        return stopped
