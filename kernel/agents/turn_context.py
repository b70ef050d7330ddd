"""Context a person adds to their next message from outside the conversation: an MCP resource they attached,
an MCP prompt they chose (``/server:prompt``), a resource they attached that changed since.

It is someone else's text the person picked, so it joins the user turn the way a channel message does: each
piece under a heading in the kernel's own words, between the agent's provenance markers, on the record in
the ``message`` entry, with an ``untrusted`` entry per piece that taints the agent (``provenance``) before
the model sees it. The extensions keep the pieces until the next ``send`` takes them: a port
(``TurnContext``), handed to the agents desk by the composition root, so the agents never import them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..core.messages import ImagePart

from ..trust.markers import defang, wrap
from .process import AgentProcess
from .provenance import admit_untrusted


@dataclass(frozen=True)
class ContextPiece:
    """One piece of outside text for the next user turn: ``heading`` is ours, ``content`` is ``source``'s."""

    source: str
    heading: str
    content: str
    images: tuple[ImagePart, ...] = ()  # pictures it holds (fitted, kept, marked untrusted), shown with the turn


class TurnContext(Protocol):
    def waiting(self, agent_id: str) -> bool:
        """Whether pieces wait for ``agent_id``'s next message (a message of only those is not empty)."""
        ...

    def take(self, agent_id: str) -> tuple[ContextPiece, ...]:
        """The pieces waiting for ``agent_id``'s next message (handed over once)."""
        ...


class NoContext:
    def waiting(self, agent_id: str) -> bool:
        return False

    def take(self, agent_id: str) -> tuple[ContextPiece, ...]:
        return ()


def with_context(text: str, pieces: tuple[ContextPiece, ...], nonce: str) -> str:
    """The user turn's text: the person's words, then each piece under its heading, wrapped."""
    blocks = [f"{defang(p.heading)}\n{wrap(p.content, p.source, nonce)}" for p in pieces]  # a name or URI of the
    # server's in a heading is defanged too: it stands outside the markers
    return "\n\n".join(([text] if text.strip() else []) + blocks)


def admit_context(agent: AgentProcess, pieces: tuple[ContextPiece, ...], turn_seq: int) -> None:
    """Record that the agent read each piece (cause: the user turn that holds it) and taint it."""
    for piece in pieces:
        admit_untrusted(agent, "mcp", piece.source, piece.content, turn_seq)
