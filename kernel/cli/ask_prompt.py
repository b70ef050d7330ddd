"""``agentdesk ask "/server:prompt name=value …"``: an MCP server's prompt as the question.

The line is recognised by a cheap pattern here (an attached ``ask`` must not load the MCP modules before its
question is on its way); the kernel parses and checks it (``extensions/mcp_prompts.py``), and the prompt's
messages join the agent's first message as untrusted context, which is then sent without words of its own. A
prompt that cannot be used (no such server or prompt, a required argument missing) is bad usage, exit 2.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..core.errors import ConfigError

if TYPE_CHECKING:
    from ..api import KernelFacade

_COMMAND = re.compile(r"^/[a-z][a-z0-9_-]{0,31}:[^\s=]")


def is_prompt_command(text: str) -> bool:
    """Whether ``text`` names an MCP prompt (``/server:prompt``) rather than being a question."""
    return _COMMAND.match(text.strip()) is not None


async def prompt_or_text(kernel: "KernelFacade", agent_id: str, text: str) -> str:
    """``text``, or "" once the MCP prompt it names (``/server:prompt a=b``) waits for the message."""
    if not is_prompt_command(text):
        return text
    try:
        await kernel.extensions.mcp_use_prompt(agent_id, text)
    except ValueError as exc:
        raise ConfigError(str(exc), "prompt") from None
    return ""
