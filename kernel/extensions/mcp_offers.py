"""What MCP servers offer a person beside tools, as plain values the facade speaks (and the socket carries):
the resources the Ask window's picker lists, the prompts its slash commands name, and what attaching or
choosing one did. Kept apart from the modules that talk to servers so a client of a kernel in another
process imports only these few dataclasses."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class McpResource:
    """One resource a server lists (what the Ask window's picker shows)."""

    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str = ""
    subscribable: bool = False   # the server keeps subscribers up to date (an attachment stays current)


@dataclass(frozen=True)
class McpAttached:
    """A resource attached to an agent's next message: read now, ``chars`` long; ``subscribed``: its later
    changes reach the agent's next turns, marked as updated."""

    agent_id: str
    server: str
    uri: str
    name: str
    chars: int
    images: int = 0
    subscribed: bool = False


@dataclass(frozen=True)
class McpPromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class McpPrompt:
    """One prompt a server lists: a slash command ``/server:name arg=value`` in the message box."""

    server: str
    name: str
    description: str = ""
    arguments: tuple[McpPromptArgument, ...] = ()

    @property
    def command(self) -> str:
        return f"/{self.server}:{self.name}"


@dataclass(frozen=True)
class McpPromptUsed:
    """A prompt chosen for an agent's next message: its messages (``messages``, ``chars`` long) join it."""

    agent_id: str
    server: str
    prompt: str
    arguments: tuple[tuple[str, str], ...]
    messages: int
    chars: int
