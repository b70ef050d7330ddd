"""Cheap first: old tool results replaced by a line that names the ledger entry holding them.

Most of a tool loop's context is what tools returned (files read, command
output), and the model rarely needs a result from many exchanges ago once it
has acted on it. So before anything is summarized, results older than the
last ``KEEP_EXCHANGES`` exchanges are replaced, all in one chunk, by a
placeholder naming their entry (the record keeps every byte). One chunk
breaks the cached prefix once instead of on every request. Small results
(a refusal, "ok") are kept: they cost little and say what happened. The same
function rebuilds the cleared conversation from the record (``agents.rebuild``),
identified by each result's place in the conversation, so ids a local server
reuses (``call_0``) cannot mix results up.
"""

from __future__ import annotations

from typing import Sequence

from ..core.messages import Message, ToolResultPart

KEEP_EXCHANGES = 3
MIN_CHARS = 300  # a result this short stays: clearing it saves nothing
PLACEHOLDER = ("[cleared to keep the conversation inside the model's window: this {name} result is kept in the "
               "ledger as entry #{seq}; call the tool again if you need it]")


def placeholder(name: str, seq: int) -> str:
    return PLACEHOLDER.format(name=name or "tool", seq=seq)


def boundary(messages: Sequence[Message], keep: int = KEEP_EXCHANGES) -> int:
    """Index of the first message of the last ``keep`` exchanges (an assistant turn that called tools);
    0 when there are not that many (nothing to clear)."""
    seen = 0
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant" and messages[index].tool_uses:
            seen += 1
            if seen == keep:
                return index
    return 0


def results_before(messages: Sequence[Message], end: int) -> int:
    """How many tool results the messages before ``end`` hold."""
    return sum(1 for m in messages[:end] for p in m.parts if isinstance(p, ToolResultPart))


def result_seqs(messages: Sequence[Message], outcomes: Sequence[tuple[int, str | None]]) -> list[int]:
    """The entry of each tool result in the conversation, in its order: each result message's call ids
    matched, going forward, to the outcome entries recorded for them (a parallel batch is recorded in the
    order its calls finished, and a local server may reuse ids across turns); 0 where none was recorded."""
    out: list[int] = []
    start = 0
    for message in messages:
        ids = [p.tool_use_id for p in message.parts if isinstance(p, ToolResultPart)]
        if not ids:
            continue
        taken: dict[str, int] = {}
        end = start
        wanted = set(ids)
        for i in range(start, len(outcomes)):
            seq, call = outcomes[i]
            if call in wanted and call not in taken:
                taken[call] = seq
                end = i + 1
                if len(taken) == len(wanted):
                    break
        out += [taken.get(cid, 0) for cid in ids]
        start = max(start, end)
    return out


def cleared(messages: tuple[Message, ...], seqs: Sequence[int], upto: int) -> tuple[tuple[Message, ...], int]:
    """``messages`` with every long result whose entry (``seqs[k]``: the entry of the k-th result in the
    conversation) is at or before ``upto`` replaced by its placeholder, and how many were."""
    out, ordinal, count = [], 0, 0
    for message in messages:
        parts = list(message.parts)
        changed = False
        for i, part in enumerate(parts):
            if not isinstance(part, ToolResultPart):
                continue
            seq = seqs[ordinal] if ordinal < len(seqs) else 0
            ordinal += 1
            if 0 < seq <= upto and len(part.content) > MIN_CHARS:
                parts[i] = ToolResultPart(part.tool_use_id, part.name, placeholder(part.name, seq), part.is_error)
                changed, count = True, count + 1
        out.append(Message(message.role, tuple(parts)) if changed else message)
    return tuple(out), count
