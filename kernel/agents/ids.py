"""Agent ids: ``a1``, ``a2``, ``a3`` … dense, and unique across every process sharing a home.

An id used to be ``a<seq>`` of the agent's spawn entry, so ids jumped with
everything else the ledger recorded (a1, a2, a3, a40, a48). Now it is one
more than the highest agent number in the ledger's ``agent.spawn`` entries,
read inside the same write transaction (``BEGIN IMMEDIATE``) that appends
the spawn entry: a desktop and an ``agentdesk ask`` spawning at the same
moment are serialised by SQLite and cannot mint the same id. Counting from
the highest number (not the number of spawns) keeps ids unique in a ledger
written by the old scheme: after a48 comes a49.
"""

from __future__ import annotations

from ledger import AgentSpawn, Ledger

from ..routes.route import Route

PREFIX = "a"


def record_spawn(ledger: Ledger, *, name: str | None, provider: str, model: str, budget: int,
                 workspace: str, route: Route | None = None) -> AgentSpawn:
    """Append the ``agent.spawn`` entry of a new agent with the next dense id (and ``agent-<n>`` as
    its name unless one is given); returns the stored entry."""

    def make(_seq: int) -> AgentSpawn:  # runs inside append_numbered's write transaction
        number = ledger.highest_number(AgentSpawn.KIND, PREFIX) + 1
        return AgentSpawn(actor=f"{PREFIX}{number}", name=name or f"agent-{number}", provider=provider,
                          model=model, budget=budget, workspace=workspace,
                          fallbacks=tuple(str(t) for t in route.fallbacks) if route is not None else (),
                          any_vendor=route.any_vendor if route is not None else False,
                          price_ceiling=route.price_ceiling if route is not None else 1.0)

    entry = ledger.append_numbered(make)
    assert isinstance(entry, AgentSpawn)
    return entry
