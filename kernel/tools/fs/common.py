"""What the file tools share: finding a path, telling text from binary, diffs, schema parts.

Every path a model names goes through ``Workspace.resolve`` first, so
confinement is decided in one place. Problems become ``ToolFailure``
messages written for the model: what is wrong and what to do instead (the
nearest names when a file is missing, ``fs_list`` for a folder). Reading
bodies run in a worker thread so a large search never stalls the event loop
(the desktop's UI runs on it); a cancelled call sets a stop flag the body
checks between files. Writing bodies run inline: they are short, and a
cancelled write has then either been recorded and landed, or not started.
"""

from __future__ import annotations

import asyncio
import codecs
import difflib
import os
import stat
import threading
from pathlib import Path
from typing import Any, Callable, Mapping

from ...core.errors import ToolFailure
from ..descriptor import CallPreview, Runner, ToolContext, ToolOutput
from ...workspace.root import Workspace

SNIFF_BYTES = 8192
DIFF_MAX_LINES = 400

Body = Callable[[ToolContext, Mapping[str, Any]], ToolOutput]
ThreadBody = Callable[[ToolContext, Mapping[str, Any], threading.Event], ToolOutput]


# ---- text and binary ---------------------------------------------------------

def looks_binary(head: bytes, complete: bool) -> bool:
    """True when the first bytes of a file hold a NUL or are not UTF-8 (``complete``: that is the whole file)."""
    if b"\0" in head:
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=complete)
    except UnicodeDecodeError:
        return True
    return False


def is_text(data: bytes) -> bool:
    """True when ``data`` is UTF-8 text without NUL bytes."""
    return not looks_binary(data[:SNIFF_BYTES], complete=len(data) <= SNIFF_BYTES) and _utf8(data)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def count_lines(text: str) -> int:
    """Lines as an editor counts them: a last line without a newline still counts."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def encode_text(text: str, what: str) -> bytes:
    """UTF-8 bytes of ``text`` (ToolFailure for lone surrogates, which are not text)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolFailure(f"{what} is not valid Unicode text ({exc.reason} at character {exc.start})") from exc


def size_words(data: bytes) -> str:
    """'12 lines, 340 bytes' for text, '340 bytes' for binary."""
    if is_text(data):
        return f"{count_lines(data.decode('utf-8'))} lines, {len(data):,} bytes"
    return f"{len(data):,} bytes"


# ---- paths -------------------------------------------------------------------

def _near_names(path: Path) -> str:
    """' (did you mean a, b?)' from the names beside ``path``, or a note that its folder is missing."""
    parent = path.parent
    if not parent.is_dir():
        return " (its folder does not exist either)"
    try:
        names = os.listdir(parent)
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def existing(workspace: Workspace, rel: str | None) -> Path:
    """The resolved path for ``rel``, which must exist."""
    path = workspace.resolve(rel)
    if not os.path.lexists(path):
        raise ToolFailure(f"{rel} does not exist in the workspace{_near_names(path)}")
    return path


def require_file(workspace: Workspace, rel: str, verb: str) -> Path:
    """The resolved path for ``rel``, which must be a regular file (``verb`` names the tool's action)."""
    path = existing(workspace, rel)
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise ToolFailure(f"cannot {verb} {rel}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(mode):
        raise ToolFailure(f"{rel} is a folder, not a file; fs_{verb} works on files (use fs_list to see inside it)")
    if not stat.S_ISREG(mode):
        raise ToolFailure(f"{rel} is not a regular file (a device, socket or pipe); fs_{verb} works on files only")
    return path


def require_dir(workspace: Workspace, rel: str | None) -> Path:
    """The resolved path for ``rel`` (default the root), which must be a folder."""
    path = existing(workspace, rel)
    if not path.is_dir():
        raise ToolFailure(f"{rel} is a file, not a folder; use fs_read to read it")
    return path


def check_creatable(workspace: Workspace, rel: str, path: Path) -> None:
    """Refuse a target that is a folder, or whose nearest existing ancestor is not a folder."""
    if path.is_dir():
        raise ToolFailure(f"{rel} is a folder; give the path of a file")
    for ancestor in path.parents:
        if ancestor.exists() or ancestor.is_symlink():
            if not ancestor.is_dir():
                raise ToolFailure(f"cannot create {rel}: {workspace.relative(ancestor)} is a file, not a folder")
            return
        if ancestor == workspace.root:
            return


# ---- diffs and previews ------------------------------------------------------

def unified_diff(rel: str, before: bytes | None, after: bytes | None, max_lines: int = DIFF_MAX_LINES) -> str:
    """A unified diff of one file for the lease dialog, cut after ``max_lines`` lines."""
    sides = [b"" if data is None else data for data in (before, after)]
    if not all(is_text(data) for data in sides):
        old = "no file" if before is None else f"{len(before):,} bytes"
        new = "no file" if after is None else f"{len(after):,} bytes"
        return f"Binary file {rel} changes ({old} -> {new})\n"
    a, b = (data.decode("utf-8").splitlines(keepends=True) for data in sides)
    lines = list(difflib.unified_diff(a, b, "/dev/null" if before is None else f"a/{rel}",
                                      "/dev/null" if after is None else f"b/{rel}"))
    lines = [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]
    if len(lines) > max_lines:
        cut = len(lines) - max_lines
        lines = lines[:max_lines] + [f"... ({cut} more diff lines not shown)\n"]
    return "".join(lines)


def safe_preview(verb: str, build: Callable[[Workspace, Mapping[str, Any]], CallPreview]
                 ) -> Callable[[Workspace, Mapping[str, Any]], CallPreview]:
    """A previewer that never raises: a call that cannot succeed is described as such."""

    def preview(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
        try:
            return build(workspace, args)
        except ToolFailure as exc:
            return CallPreview(summary=f"{verb} (this call will fail: {exc.message})")
        except (OSError, KeyError, TypeError, ValueError) as exc:
            return CallPreview(summary=f"{verb} (cannot preview: {exc})")

    return preview


# ---- running -----------------------------------------------------------------

def _os_failure(workspace: Workspace, exc: OSError) -> ToolFailure:
    where = f" ({workspace.relative(Path(exc.filename))})" if exc.filename else ""
    return ToolFailure(f"the file system refused: {exc.strerror or exc}{where}")


def inline_runner(body: Body) -> Runner:
    """An async runner for a short body run on the event loop (writes)."""

    async def run(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        try:
            return body(ctx, args)
        except OSError as exc:
            raise _os_failure(ctx.workspace, exc) from exc

    run.__name__ = run.__qualname__ = body.__name__.lstrip("_")
    return run


def thread_runner(body: ThreadBody) -> Runner:
    """An async runner for a body run in a worker thread; cancelling the call sets its stop flag."""

    async def run(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        stop = threading.Event()
        try:
            return await asyncio.to_thread(body, ctx, args, stop)
        except asyncio.CancelledError:
            stop.set()
            raise
        except OSError as exc:
            raise _os_failure(ctx.workspace, exc) from exc

    run.__name__ = run.__qualname__ = body.__name__.lstrip("_")
    return run


# ---- schema parts --------------------------------------------------------------

def string(description: str, min_length: int | None = 1) -> dict[str, Any]:
    """A string property (non-empty unless ``min_length`` says otherwise)."""
    prop: dict[str, Any] = {"type": "string", "description": description}
    if min_length is not None:
        prop["minLength"] = min_length
    return prop


def integer(description: str, minimum: int = 0) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "description": description}


def obj(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A closed object schema: no properties beyond ``properties``."""
    return {"type": "object", "properties": dict(properties), "required": list(required),
            "additionalProperties": False}


SEQS = {"type": "array", "items": {"type": "integer", "minimum": 1},
        "description": "seqs of the fs.write ledger entries this call made"}
BOOL = {"type": "boolean"}
