"""The request laid out for the prompt cache: tools fixed and sorted, breakpoints where they pay.

Providers cache a request's unchanged prefix (tools → system → history), so
whatever sits early must not move. Tools are sorted once for the
conversation and a tool that appears later is appended, never inserted (a
registry that lists tools in arrival order, or an MCP server that reconnects,
would otherwise reshuffle the prefix). Anthropic caches only up to explicit
breakpoints and looks back at most 20 blocks from each for an earlier entry,
so a breakpoint goes on the newest block and, when a turn added more than 20
blocks since the previous request, also on the previous request's last block
(measured with benchmarks/cache_bench.py: without it a long parallel tool turn
rewrites the whole conversation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.messages import Message, TextPart, ToolSpec
from ..providers.base import ProviderRequest
from .state import is_state_block

LOOKBACK_BLOCKS = 20  # Anthropic looks this many blocks back from a breakpoint for a cache entry
Placed = tuple[int, int, str]  # a state block: the message it ends, how many of its parts came before it, its text


@dataclass
class ContextState:
    """What one agent's conversation keeps between requests to stay cacheable."""

    system: str | None = None       # the system prompt, fixed for the conversation (None: not built yet)
    basis: str = ""                 # the digest of what it was built from that may change in kind
    tool_order: tuple[str, ...] = ()
    last_state: str = ""            # the state block last sent ("" after a restart: it is sent again)
    last_sent: int = 0              # how many messages the previous request had
    recorded: tuple[str, tuple[ToolSpec, ...]] | None = None  # the (system, tools) last put on the record
    states: list["Placed"] = field(default_factory=list)  # every state block sent, where it sits in the history
    composed: dict[int, tuple[Message, Message]] = field(default_factory=dict)  # message → with its blocks
    sent_state: str = ""            # the state block the request being made appended ("" if none)
    sent: ProviderRequest | None = None  # the request being made (its cache hints go on the record)
    sent_chars: int = 0             # its size in characters (context.estimate)
    reported_input: int = 0         # the input tokens the provider reported for the last request
    reported_chars: int = 0         # that request's size in characters
    restored_input: int = 0         # after a restart, the last request's input on record (shown, never estimated
                                    # from: the size it was measured at is not known until the conversation is read)
    just_compacted: bool = False    # the context was made smaller and no request has been made since
    sizes: dict[int, tuple[Message, int]] = field(default_factory=dict)  # each message's size (context.estimate)


def ordered_tools(order: tuple[str, ...], specs: tuple[ToolSpec, ...]) -> tuple[tuple[ToolSpec, ...], tuple[str, ...]]:
    """The tools in the conversation's order (known ones first, as before; new ones appended, sorted),
    and that order. A tool gone from the registry is dropped."""
    by_name = {s.name: s for s in specs}
    kept = tuple(n for n in order if n in by_name)
    new = tuple(sorted(n for n in by_name if n not in set(kept)))
    names = kept + new
    return tuple(by_name[n] for n in names), names


def _blocks(message: Message) -> int:
    return max(1, len(message.parts))


def cache_breaks(messages: tuple[Message, ...], previous: int) -> tuple[int, ...]:
    """Indices of the messages whose last block carries a breakpoint: the newest, and the previous
    request's last message when more than ``LOOKBACK_BLOCKS`` blocks were added since it."""
    if not messages:
        return ()
    newest = len(messages) - 1
    if 0 < previous <= newest:
        added = sum(_blocks(m) for m in messages[previous:])
        if added > LOOKBACK_BLOCKS:
            return (previous - 1, newest)
    return (newest,)


def place(messages: tuple[Message, ...], text: str) -> Placed | None:
    """Where a state block sent now sits: after the parts the newest (user) message has now."""
    if not messages or messages[-1].role != "user":
        return None
    return (len(messages) - 1, len(messages[-1].parts), text)


def with_states(messages: tuple[Message, ...], states: list[Placed],
                memo: dict[int, tuple[Message, Message]] | None = None) -> tuple[Message, ...]:
    """The history as the model reads it: each state block inside the message it was sent with, after
    the parts that message had then (a user text merged in later comes after it, so nothing sent moves).
    The conversation itself stays the user's words and the tools' results."""
    if not states:
        return messages
    out = list(messages)
    by_index: dict[int, list[tuple[int, str]]] = {}
    for index, offset, text in states:
        by_index.setdefault(index, []).append((offset, text))
    for index, placed in by_index.items():
        if not 0 <= index < len(out):
            continue
        original = out[index]
        hit = memo.get(index) if memo is not None else None
        if hit is not None and hit[0] is original:
            out[index] = hit[1]
            continue
        parts = list(original.parts)
        for _, (offset, text) in sorted(enumerate(placed), key=lambda p: (p[1][0], p[0]), reverse=True):
            parts.insert(min(max(offset, 0), len(parts)), TextPart(text))  # the later of two at one offset first
        out[index] = Message(original.role, tuple(parts))
        if memo is not None:
            memo[index] = (original, out[index])
    return tuple(out)


def without_states(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """``messages`` as sent, less their state blocks: the conversation itself."""
    out = []
    for m in messages:
        parts = tuple(p for p in m.parts if not (m.role == "user" and isinstance(p, TextPart) and is_state_block(p.text)))
        out.append(m if len(parts) == len(m.parts) else Message(m.role, parts))
    return tuple(out)
