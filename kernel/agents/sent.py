"""What was sent, rebuilt from the record: every provider request of an agent, exactly.

The ``prompt`` entries hold the system prompt and tools, the conversation
entries the history, and each ``request`` entry the state block it appended
and its cache hints; folded in order they give back each ``ProviderRequest``
as it was made, so an adapter builds the same bytes from it (tested through
the real SDKs against the loopback server). Secrets the redactor took out of
an entry are not on the record, so a request that carried one rebuilds with
the redaction in its place.
"""

from __future__ import annotations

from typing import Any, Mapping

from ledger import AgentSpawn, Ledger, ModelRequest, SystemPrompt

from ..context.layout import place, with_states
from ..core.messages import ToolSpec
from ..providers.base import ProviderRequest
from .rebuild import CONVERSATION_KINDS, AgentRecord, converse


def sent_requests(ledger: Ledger, spawn: AgentSpawn) -> list[tuple[ModelRequest, ProviderRequest]]:
    """Each request entry of the agent with the request it stands for, oldest first."""
    rec = AgentRecord(spawn, spawn.budget)
    out: list[tuple[ModelRequest, ProviderRequest]] = []
    for e in ledger.of_actor(spawn.actor, CONVERSATION_KINDS, after=spawn.seq):
        if isinstance(e, ModelRequest) and e.reason != "compaction":  # a summary request is housekeeping
            rec.settle()
            placed = place(rec.conversation, e.state) if isinstance(e.state, str) and e.state else None
            states = rec.states + ([placed] if placed is not None else [])
            out.append((e, _request(rec.prompt, e, with_states(rec.conversation, states))))
        converse(rec, e)
    return out


def _request(prompt: SystemPrompt | None, e: ModelRequest, messages: Any) -> ProviderRequest:
    tools = tuple(_tool(t) for t in (prompt.tools if prompt is not None else ()) if isinstance(t, Mapping))
    return ProviderRequest(system=prompt.text if prompt is not None else "", messages=messages, tools=tools,
                           model=e.model, max_tokens=e.max_tokens, cache_key=e.cache_key, cache_ttl=e.cache_ttl,
                           cache_breaks=tuple(e.cache_breaks))


def _tool(t: Mapping[str, Any]) -> ToolSpec:
    schema = t.get("input_schema")
    return ToolSpec(str(t.get("name", "")), str(t.get("description", "")), schema if isinstance(schema, Mapping) else {})
