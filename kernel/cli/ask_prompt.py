"""``agentdesk ask "/server:prompt name=value …"``: an MCP server's prompt as the question.

The line is recognised by a cheap pattern here (an attached ``ask`` must not load the MCP modules before its
question is on its way); the kernel parses and checks it (``extensions/mcp_prompts.py``), and the prompt's
messages join the agent's first message as untrusted context, which is then sent without words of its own. A
prompt that cannot be used (no such server or prompt, a required argument missing) is bad usage, exit 2.
"""

from __future__ import annotations

import re

_COMMAND = re.compile(r"^/[a-z][a-z0-9_-]{0,31}:[^\s=]")


def is_prompt_command(text: str) -> bool:
    """Whether ``text`` names an MCP prompt (``/server:prompt``) rather than being a question."""
    return _COMMAND.match(text.strip()) is not None
