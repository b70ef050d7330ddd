"""Extensions under the same rules as built-in tools: MCP servers, skills and project instructions.

An extension only ever adds tool descriptors (or prompt text): the executor applies the same
schema, lease, timeout, taint and recording rules to an MCP tool as to ``fs_write``. Nothing here
imports the ``mcp`` SDK at module level; it is loaded (about 0.4 s) only when a server is configured.
"""
