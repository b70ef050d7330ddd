"""The changing file tools: fs_write, fs_edit, fs_delete, fs_move (scope ``fs.write``).

Each tool first *plans* its change as plain values (the path, the bytes
before, the bytes after) from the workspace and the input alone. The same
plan feeds both the lease dialog's preview (a summary and a unified diff)
and the run, so what the user approves is what lands. A run lands its plan
only through ``ctx.write``, which records the change in the ledger (with
this call as cause) before the file changes; nothing here touches the disk
directly. A plan that cannot succeed raises ``ToolFailure`` before anything
is recorded.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ledger import files

from ...errors import ToolFailure
from ..descriptor import CallPreview, ToolContext, ToolDescriptor, ToolOutput
from ..workspace import Workspace
from .common import (
    BOOL, SEQS, check_creatable, count_lines, encode_text, existing, inline_runner, is_text, obj,
    require_file, safe_preview, size_words, string, unified_diff,
)

_INT = {"type": "integer", "minimum": 0}


@dataclass(frozen=True)
class Change:
    """One planned file change: ``rel`` goes from ``before`` to ``after`` (None: no file)."""

    path: Path
    rel: str
    before: bytes | None
    after: bytes | None
    mode: int | None = None  # permission bits of the file before, when known

    def diff(self) -> str:
        return unified_diff(self.rel, self.before, self.after)


def _file_not_folder(workspace: Workspace, rel: str, verb: str, hint: str) -> Path:
    """``rel`` resolved; it must be a file (a folder is refused with ``hint``)."""
    if existing(workspace, rel).is_dir():
        raise ToolFailure(f"{rel} is a folder; fs_{verb} works on single files only ({hint})")
    return require_file(workspace, rel, verb)


# ---- fs_write ------------------------------------------------------------------

def plan_write(workspace: Workspace, args: Mapping[str, Any]) -> Change:
    """The change fs_write would make."""
    rel: str = args["path"]
    path = workspace.resolve(rel)
    before, mode = _current(workspace, rel, path)
    return Change(path, workspace.relative(path), before, encode_text(args["content"], "content"), mode)


def _current(workspace: Workspace, rel: str, path: Path) -> tuple[bytes | None, int | None]:
    """The bytes and permission bits at ``path`` now, (None, None) for a file that can be created;
    one stat decides (a folder or a device is refused, and a pipe is never opened)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        check_creatable(workspace, rel, path)
        return None, None
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailure(f"{rel} is a folder; give the path of a file")
    if not stat.S_ISREG(st.st_mode):
        raise ToolFailure(f"{rel} is not a regular file; fs_write writes files only")
    return files.read(path)  # bytes and mode from one open file, as the ledger would read them


def _write(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    change = plan_write(ctx.workspace, args)
    assert change.after is not None
    data = {"path": change.rel, "bytes": len(change.after), "lines": count_lines(args["content"]),
            "created": change.before is None, "changed": change.before != change.after, "seqs": []}
    words = f"{data['lines']} lines, {len(change.after):,} bytes"
    if not data["changed"]:
        return ToolOutput(f"{change.rel} already holds exactly this content ({words}); nothing was written", data)
    entry = ctx.write(change.path, change.after, current=(change.before, change.mode))
    data["seqs"] = [entry.seq]
    verb = "created" if change.before is None else "wrote"
    return ToolOutput(f"{verb} {change.rel} ({words})", data)


def _preview_write(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
    change = plan_write(workspace, args)
    assert change.after is not None
    if change.before is None:
        summary = f"create {change.rel} ({size_words(change.after)})"
    elif change.before == change.after:
        summary = f"write {change.rel}: no change (it already holds this content)"
    else:
        summary = f"overwrite {change.rel} with {size_words(change.after)} (was {size_words(change.before)})"
    return CallPreview(summary, change.rel, change.diff())


FS_WRITE = ToolDescriptor(
    name="fs_write",
    description=("Create a text file in the workspace, or replace its whole contents, creating missing folders. "
                 "To change part of an existing file, prefer fs_edit."),
    input_schema=obj({
        "path": string("file path relative to the workspace root"),
        "content": string("the complete new contents of the file (UTF-8 text)", None),
    }, required=("path", "content")),
    output_schema=obj({"path": {"type": "string"}, "bytes": _INT, "lines": _INT, "created": BOOL,
                       "changed": BOOL, "seqs": SEQS},
                      required=("path", "bytes", "lines", "created", "changed", "seqs")),
    tool_class="write", scope="fs.write", run=inline_runner(_write), timeout_s=30.0, idempotent=True,
    preview=safe_preview("write a file", _preview_write),
)


# ---- fs_edit -------------------------------------------------------------------

def _occurrences(text: str, needle: str) -> list[int]:
    """Start offsets of every occurrence of ``needle``, overlapping ones included."""
    found, at = [], text.find(needle)
    while at != -1:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _crlf(text: str) -> str:
    return re.sub(r"(?<!\r)\n", "\r\n", text)


@dataclass(frozen=True)
class Edit:
    change: Change
    line: int       # where the replaced text began
    removed: int    # lines of old text
    added: int      # lines of new text


def plan_edit(workspace: Workspace, args: Mapping[str, Any]) -> Edit:
    """The change fs_edit would make: exactly one occurrence of ``old`` replaced by ``new``."""
    rel: str = args["path"]
    old, new = args["old"], args["new"]
    path = _file_not_folder(workspace, rel, "edit", "give the path of a file inside it")
    before = path.read_bytes()
    if not is_text(before):
        raise ToolFailure(f"{rel} is not UTF-8 text; fs_edit edits text files only (fs_write replaces a whole file)")
    if old == new:
        raise ToolFailure("old and new are the same text; there is nothing to change")
    text = before.decode("utf-8")
    found = _occurrences(text, old)
    if not found and "\r\n" in text and _crlf(old) != old:  # the file uses CRLF; the model wrote LF
        old, new = _crlf(old), _crlf(new)
        found = _occurrences(text, old)
    if not found:
        hint = " (it is there with different whitespace around it)" if old.strip() and old.strip() in text else ""
        raise ToolFailure(f"the old text was not found in {rel}{hint}; 0 occurrences. Read the file and copy the "
                          "exact text to replace, including indentation and line breaks")
    if len(found) > 1:
        lines = sorted({text.count("\n", 0, at) + 1 for at in found})
        where = ", ".join(map(str, lines[:10])) + (", …" if len(lines) > 10 else "")
        raise ToolFailure(f"the old text occurs {len(found)} times in {rel} (lines {where}); include more of the "
                          "surrounding text so that it matches exactly once")
    at = found[0]
    after = encode_text(text[:at] + new + text[at + len(old):], "new")
    change = Change(path, workspace.relative(path), before, after)
    return Edit(change, text.count("\n", 0, at) + 1, count_lines(old), count_lines(new))


def _edit(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    edit = plan_edit(ctx.workspace, args)
    change = edit.change
    assert change.after is not None
    entry = ctx.write(change.path, change.after)
    return ToolOutput(
        f"edited {change.rel} at line {edit.line}: replaced {edit.removed} line(s) with {edit.added}",
        {"path": change.rel, "bytes": len(change.after), "line": edit.line, "removed_lines": edit.removed,
         "added_lines": edit.added, "seqs": [entry.seq]})


def _preview_edit(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
    edit = plan_edit(workspace, args)
    return CallPreview(f"edit {edit.change.rel} at line {edit.line}: replace {edit.removed} line(s) with {edit.added}",
                       edit.change.rel, edit.change.diff())


FS_EDIT = ToolDescriptor(
    name="fs_edit",
    description=("Replace one exact piece of text in a workspace file with new text. `old` must occur exactly "
                 "once in the file, including whitespace; add surrounding lines to make it unique."),
    input_schema=obj({
        "path": string("file path relative to the workspace root"),
        "old": string("the exact text to replace; must occur exactly once in the file"),
        "new": string("the replacement text (may be empty to delete `old`)", None),
    }, required=("path", "old", "new")),
    output_schema=obj({"path": {"type": "string"}, "bytes": _INT, "line": {"type": "integer", "minimum": 1},
                       "removed_lines": _INT, "added_lines": _INT, "seqs": SEQS},
                      required=("path", "bytes", "line", "seqs")),
    tool_class="write", scope="fs.write", run=inline_runner(_edit), timeout_s=30.0, idempotent=False,
    preview=safe_preview("edit a file", _preview_edit),
)


# ---- fs_delete -----------------------------------------------------------------

def plan_delete(workspace: Workspace, args: Mapping[str, Any]) -> Change:
    """The change fs_delete would make."""
    rel: str = args["path"]
    path = _file_not_folder(workspace, rel, "delete", "folders are not deleted; delete the files inside one by one")
    return Change(path, workspace.relative(path), path.read_bytes(), None)


def _delete(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    change = plan_delete(ctx.workspace, args)
    assert change.before is not None
    entry = ctx.write(change.path, None)
    return ToolOutput(f"deleted {change.rel} ({size_words(change.before)})",
                      {"path": change.rel, "bytes": len(change.before), "seqs": [entry.seq]})


def _preview_delete(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
    change = plan_delete(workspace, args)
    assert change.before is not None
    return CallPreview(f"delete {change.rel} ({size_words(change.before)})", change.rel, change.diff())


FS_DELETE = ToolDescriptor(
    name="fs_delete",
    description="Delete one file in the workspace (not a folder). The change is recorded and can be undone.",
    input_schema=obj({"path": string("file path relative to the workspace root")}, required=("path",)),
    output_schema=obj({"path": {"type": "string"}, "bytes": _INT, "seqs": SEQS}, required=("path", "bytes", "seqs")),
    tool_class="write", scope="fs.write", run=inline_runner(_delete), timeout_s=30.0, idempotent=False,
    preview=safe_preview("delete a file", _preview_delete),
)


# ---- fs_move -------------------------------------------------------------------

def plan_move(workspace: Workspace, args: Mapping[str, Any]) -> tuple[Change, Change]:
    """The two changes fs_move would make: create ``dst`` with the bytes of ``src``, then remove ``src``."""
    src, dst = args["src"], args["dst"]
    src_path = _file_not_folder(workspace, src, "move", "move the files inside it one by one")
    dst_path = workspace.resolve(dst)
    if dst_path == src_path:
        raise ToolFailure(f"{src} and {dst} are the same file; nothing to move")
    if dst_path.is_dir():
        raise ToolFailure(f"{dst} is an existing folder; give the full new path of the file, e.g. {dst}/{src_path.name}")
    if dst_path.exists() or dst_path.is_symlink():
        raise ToolFailure(f"{dst} already exists; fs_move does not overwrite (delete it first, or pick another name)")
    check_creatable(workspace, dst, dst_path)
    data = src_path.read_bytes()
    return (Change(dst_path, workspace.relative(dst_path), None, data),
            Change(src_path, workspace.relative(src_path), data, None))


def _move(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    create, remove = plan_move(ctx.workspace, args)
    assert create.after is not None
    # The copy lands before the original goes, so a crash in between leaves two copies, never none.
    created = ctx.write(create.path, create.after)
    removed = ctx.write(remove.path, None)
    return ToolOutput(f"moved {remove.rel} to {create.rel} ({size_words(create.after)})",
                      {"src": remove.rel, "dst": create.rel, "bytes": len(create.after),
                       "seqs": [created.seq, removed.seq]})


def _preview_move(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
    create, remove = plan_move(workspace, args)
    assert create.after is not None
    diff = (f"diff --git a/{remove.rel} b/{create.rel}\nsimilarity index 100%\n"
            f"rename from {remove.rel}\nrename to {create.rel}\n")
    return CallPreview(f"move {remove.rel} to {create.rel} ({size_words(create.after)})", remove.rel, diff)


FS_MOVE = ToolDescriptor(
    name="fs_move",
    description=("Move or rename one file within the workspace, creating missing folders. "
                 "Refuses to overwrite an existing file and does not move folders."),
    input_schema=obj({
        "src": string("current file path, relative to the workspace root"),
        "dst": string("new file path, relative to the workspace root; must not exist yet"),
    }, required=("src", "dst")),
    output_schema=obj({"src": {"type": "string"}, "dst": {"type": "string"}, "bytes": _INT,
                       "seqs": {**SEQS, "minItems": 2, "maxItems": 2}},
                      required=("src", "dst", "bytes", "seqs")),
    tool_class="write", scope="fs.write", run=inline_runner(_move), timeout_s=30.0, idempotent=False,
    preview=safe_preview("move a file", _preview_move),
)
