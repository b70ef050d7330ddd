"""Agent processes made from their records (``agents.rebuild``): after a restart, or when an
archived agent is continued, and the History rows of those out of the table.

An agent that was working when the kernel stopped (its conversation ends
with something the model has not answered) comes back ``interrupted`` and
waits for the user to resume it; one whose last request failed comes back
``failed``; one at its budget ``paused``; the rest ``idle``.
"""

from __future__ import annotations

from typing import Mapping

from ..core.messages import Message
from ..core.summaries import HistoryItem
from ..accounting.budget import Budget
from ..accounting.mixed import by_price, mixed_cost
from ..core.states import AgentState
from ..routes.build import route_of_spawn
from .process import AgentProcess
from ledger import AgentSpawn, ModelRequest

from ..routes.words import another_model

from .rebuild import UTILITY, AgentRecord, record_of
from .services import Services

STOPPED = "the kernel stopped while it worked; resume to continue"


def process_from(rec: AgentRecord, services: Services) -> AgentProcess:
    """The agent's process; its conversation is read from the record when first needed."""
    spawn, upto = rec.spawn, services.ledger.last_seq()  # later entries are appended to it in memory
    agent = AgentProcess(rec.id, spawn.name, spawn.provider, spawn.model, spawn.workspace, spawn.ts, services,
                         Budget(rec.budget, spent=rec.usage), messages=None)
    agent.load_messages = lambda: _load(agent, services, spawn, upto)
    agent.priced = by_price(services.settings.prices, rec.served)
    agent.route = route_of_spawn(spawn.provider, spawn.model, spawn.fallbacks, spawn.any_vendor, spawn.price_ceiling)
    agent.state, agent.reason = _state(rec, agent.budget)
    agent.request_reason = "resume"
    _keep_prefix(agent, rec)
    agent.context.restored_input = rec.last_input  # "context 41%" in the Ask window before the next request
    return agent


def _load(agent: AgentProcess, services: Services, spawn: AgentSpawn, upto: int) -> tuple[Message, ...]:
    """The conversation from the record, and the state blocks sent with it (so its prefix is unchanged)."""
    rec = record_of(services.ledger, spawn, upto)
    agent.context.states = rec.states + agent.context.states
    return rec.conversation


def _keep_prefix(agent: AgentProcess, rec: AgentRecord) -> None:
    """The recorded system prompt and tool order carry over a restart, so the cached prefix does too
    (the prompt is rebuilt only if what it was built from changed meanwhile)."""
    prompt = rec.prompt
    if prompt is None or not isinstance(prompt.text, str) or not isinstance(prompt.basis, str):
        return
    ctx = agent.context
    ctx.system, ctx.basis = prompt.text, prompt.basis
    tools = prompt.tools if isinstance(prompt.tools, tuple) else ()
    ctx.tool_order = tuple(t["name"] for t in tools if isinstance(t, Mapping) and isinstance(t.get("name"), str))


def _state(rec: AgentRecord, budget: Budget) -> tuple[AgentState, str]:
    if not rec.needs_reply:
        return AgentState.IDLE, ""
    if rec.failure is not None:
        return AgentState.FAILED, rec.failure
    if budget.reached:
        return AgentState.PAUSED, budget.describe()
    return AgentState.INTERRUPTED, STOPPED


def history_item(rec: AgentRecord, services: Services, served: tuple[str, ...] = ()) -> HistoryItem:
    """``served``: the other models that answered it (``served_by``)."""
    spawn, used = rec.spawn, rec.usage
    return HistoryItem(
        rec.id, spawn.name, rec.first_prompt, spawn.ts, rec.last_ts, used.input_tokens, used.output_tokens,
        mixed_cost(services.settings.prices, (spawn.provider, spawn.model), used,
                   by_price(services.settings.prices, rec.served)),
        spawn.provider, spawn.model, rec.archived, rec.killed, served)


def served_by(services: Services) -> dict[str, set[tuple[str, str]]]:
    """For each agent: who answered its own requests (served provider, model), from one grouped query;
    housekeeping (``route: utility``) is left out: it answers for the agent, never as the agent."""
    groups = services.ledger.per_actor_groups(ModelRequest.KIND, ("route", "served_provider", "served_model"), ())
    out: dict[str, set[tuple[str, str]]] = {}
    for actor, rows in groups.items():
        for (route, provider, model), _sums in rows:
            if route != UTILITY and isinstance(provider, str) and isinstance(model, str):
                out.setdefault(actor, set()).add((provider, model))
    return out


def other_models(spawn: AgentSpawn, answered: set[tuple[str, str]]) -> tuple[str, ...]:
    """The models other than the agent's own (a dated snapshot of it is its own) that answered it, sorted."""
    if not (isinstance(spawn.provider, str) and isinstance(spawn.model, str)):
        return ()
    return tuple(sorted(f"{provider}:{model}" for provider, model in answered
                        if another_model(spawn.provider, spawn.model, provider, model)))
