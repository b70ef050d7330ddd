"""``channel_send_file``: a channel's agent sends a file from its workspace to the chat it answers.

Scope ``channel.send_file``, risk R3 (a file leaves the machine, to a chat
the kernel cannot take it back from). Every call is a one-off confirmation
(``always_confirm``): a channel agent has read untrusted chat messages, and
DESIGN's Trust rule makes each outward call of a tainted agent a confirmation
no lease covers; the confirmation says which file, how large, to which chat.
It goes to the desktop, or is refused by the kernel when none is attached
(``approver.ChannelApprover``); the chat sender never sees it and cannot
answer it. The path is confined to the agent's workspace (``Workspace.resolve``
refuses anything outside, and the file is opened through the walk, never
through a link), only a regular file is sent, and at most what the chat's
service takes in one file: each adapter declares it (``max_file_bytes``:
Telegram 50 MB, Slack 1 GB, Discord 10 MiB, WhatsApp 100 MB, WebChat 10 MB),
capped by ``MAX_SEND_BYTES`` because the file is held in memory whole while
it is sent. A file over the limit is refused in a sentence naming the
service and its limit, before anyone is asked and before any upload. As every
outward call it records an ``intent`` before sending and an ``outcome`` after
(``tools/outward.OutwardBook``): a repeated call in one turn sends once, and a
send cut short is ``unknown`` (a bot cannot search a chat for its own file),
never retried. The tool is
offered once a channel runs (``ChannelHub._start``); an agent that is not a
channel's gets a sentence instead of a send.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ledger import Intent

from ..core.errors import ToolFailure
from ..tools.descriptor import Risk, ToolContext, ToolDescriptor, ToolOutput
from ..tools.outward import DONE, UNKNOWN, OutwardBook
from ..workspace import walk

if TYPE_CHECKING:
    from ..workspace.root import Workspace
    from .hub import ChannelHub

NAME = "channel_send_file"
SCOPE = "channel.send_file"
MAX_SEND_BYTES = 100 * 1024 * 1024  # the ceiling over every service's own limit: the file is held in memory
CAPTION_MAX = 1000  # under every service's caption limit (Telegram and WhatsApp: 1,024 characters)

SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1, "maxLength": 4096,
                 "description": "the file, relative to your workspace"},
        "caption": {"type": "string", "maxLength": CAPTION_MAX, "description": "a line shown with the file"},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def too_large(shown: str, size: int, service: str, limit: int) -> ToolFailure:
    """The sentence the model sees for a file over the chat service's limit."""
    return ToolFailure(f"{shown} has {size:,} bytes; {service} takes at most {limit:,} bytes in one file, so it "
                       "was not sent (send a smaller or compressed file)")


def read_for_sending(workspace: Workspace, path: Path, service: str, limit: int) -> bytes:
    """The regular file ``path`` (already resolved inside ``workspace``), whole, or ToolFailure when it is not
    there or over ``limit`` (``service``'s, already capped by MAX_SEND_BYTES); run in a thread."""
    shown = workspace.relative(path)
    try:
        with walk.reading(workspace, path) as (fh, st):
            if st.st_size > limit:
                raise too_large(shown, st.st_size, service, limit)
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise ToolFailure(f"{shown} does not exist in your workspace") from None
    if len(data) > limit:
        raise ToolFailure(f"{shown} grew past {limit:,} bytes while it was read; it was not sent")
    return data


def limit_of(channels: ChannelHub, agent_id: str) -> tuple[str, str, int]:
    """The chat ``agent_id`` answers in words, its service's name and the largest file it takes (capped), or
    ToolFailure when there is no chat or its service takes no files."""
    where = channels.where(agent_id)
    if where is None:
        raise ToolFailure("you are not answering anyone on a chat channel, so there is no chat to send to")
    service, limit = channels.file_limit(agent_id)
    if limit <= 0:
        raise ToolFailure(f"files cannot be sent to {where}: {service or 'its service'} takes none from a bot")
    return where, service, min(limit, MAX_SEND_BYTES)


def send_file_tool(hub: Callable[[], ChannelHub]) -> ToolDescriptor:
    """The tool, bound to the kernel's channel hub (asked for at each call)."""

    def detail(agent_id: str, tool_input: Mapping[str, Any]) -> tuple[str, ...]:
        """The send in words for the confirmation; ToolFailure before anyone is asked when it cannot be."""
        where, service, limit = limit_of(hub(), agent_id)
        workspace = hub().workspace_of(agent_id)
        path = workspace.resolve(str(tool_input["path"]))
        try:
            found = os.stat(path)
        except OSError:
            raise ToolFailure(f"{workspace.relative(path)} does not exist in your workspace") from None
        if found.st_size > limit:
            raise too_large(workspace.relative(path), found.st_size, service, limit)
        size = f"{found.st_size:,} bytes"
        caption = " ".join(str(tool_input.get("caption") or "").split())
        return (f"Send the file: {workspace.relative(path)} ({size})", f"To: {where}",
                *((f"Caption: {caption[:200]}",) if caption else ()),
                "The chat's people get a copy; it cannot be taken back.")

    books: list[OutwardBook] = []  # one per kernel (its ledger), made at the first call

    async def run(ctx: ToolContext, tool_input: Mapping[str, Any]) -> ToolOutput:
        channels = hub()
        where, service, limit = limit_of(channels, ctx.agent_id)
        path = ctx.workspace.resolve(str(tool_input["path"]))
        shown = ctx.workspace.relative(path)
        data = await asyncio.to_thread(read_for_sending, ctx.workspace, path, service, limit)
        digest = hashlib.sha256(data).hexdigest()
        caption = str(tool_input.get("caption") or "")[:CAPTION_MAX]

        async def act(_key: str) -> Mapping[str, Any]:
            message = await channels.send_file(ctx.agent_id, path.name, data, caption)
            return {"path": shown, "bytes": len(data), "sha256": digest, "to": where, "message": message}

        async def verify(_intent: Intent) -> bool:
            return False  # a bot cannot search a chat for what it sent: an interrupted send stays unknown

        if not books:
            books.append(OutwardBook(ctx.ledger))
        outcome, replayed = await books[0].once(ctx, NAME, tool_input, lambda _k: f"{shown} ({digest[:12]}) to {where}",
                                                act, verify)
        if outcome.status == DONE:
            return ToolOutput(f"{'already ' if replayed else ''}sent {shown} ({len(data):,} bytes) to {where}",
                              data=dict(outcome.data))
        if outcome.status == UNKNOWN:
            raise ToolFailure(f"it is not known whether {shown} reached the chat ({outcome.detail}); it is not "
                              "sent again")
        raise ToolFailure(f"{shown} was not sent: {outcome.detail}")

    return ToolDescriptor(
        name=NAME,
        description="Send a file from your workspace to the chat you are answering on a chat channel (at most "
                    "what the chat's service takes in one file: Discord and WebChat 10 MB, Telegram 50 MB, Slack "
                    "and WhatsApp 100 MB). The user confirms every send.",
        input_schema=SCHEMA, output_schema={}, tool_class="execute", scope=SCOPE, run=run,
        risk=Risk.OUTWARD, trusted=True, timeout_s=120.0, always_confirm=True, detail_of=detail)
