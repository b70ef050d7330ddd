"""The changing file tools: fs_write, fs_edit, fs_delete, fs_move (scope ``fs.write``).

Each tool first *plans* its change as plain values (the path, the bytes
before, the bytes after) from the workspace and the input alone. The same
plan feeds both the lease dialog's preview (a summary and a unified diff)
and the run, so what the user approves is what lands. A run lands its plan
only through ``ctx.write``, which records the change in the ledger (with
this call as cause) before the file changes; nothing here touches the disk
directly. A plan that cannot succeed raises ``ToolFailure`` before anything
is recorded.

Old contents are read through ``walk`` (never through a link) and whole only
up to ``INLINE_MAX`` (for the diff and the summary); a larger file is kept
for undo by the ledger straight from its open descriptor, in chunks. A file
whose old contents the ledger cannot keep (over ``blob_max_bytes``) is never
deleted, overwritten or moved — the model is told it is too large to undo
and to ask the user — and ``fs_edit``, which holds the file in memory several
times over, stops at ``edit_max_bytes``. Measured 2026-12-01
(benchmarks/huge_file_bench.py, peak RSS above the resting process): on a
2 GiB file fs_edit took 8.6 GB and 125 s and fs_delete 4.3 GB (and could
not be undone); both are now refused within 1 MB. On a 48 MiB file
fs_delete, fs_write (overwrite) and fs_move took 191, 141 and 141 MB; now
11, 11 and 11 MB. fs_edit of 15 MiB takes 78 MB, as before.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ledger.blobs import Opened
from ledger.files import is_temp_name

from ...core.errors import ToolFailure
from ..descriptor import CallPreview, Risk, ToolContext, ToolDescriptor, ToolLimits, ToolOutput
from ...workspace.root import Workspace
from ...workspace import walk
from .common import (
    BOOL, SEQS, check_creatable, count_lines, encode_text, existing, inline_runner, is_text, obj,
    require_file, safe_preview, size_words, string, unified_diff,
)

_INT = {"type": "integer", "minimum": 0}
INLINE_MAX = 8 * 1024 * 1024  # old contents up to this size are read whole, for the diff and the summary
_DEFAULT_LIMITS = ToolLimits()  # what a preview assumes (the run checks the agent's own limits)


@dataclass(frozen=True)
class Old:
    """A file as it is before a change: size, permission bits, and its bytes when at most INLINE_MAX."""

    size: int
    mode: int
    data: bytes | None


@dataclass(frozen=True)
class PlannedChange:
    """One planned file change: ``rel`` goes from ``old`` to ``after`` (None: no file)."""

    path: Path
    rel: str
    old: Old | None
    after: bytes | None

    @property
    def before(self) -> bytes | None:
        return None if self.old is None else self.old.data

    def diff(self) -> str:
        if self.old is not None and self.old.data is None:
            new = "no file" if self.after is None else f"{len(self.after):,} bytes"
            return f"Large file {self.rel} changes ({self.old.size:,} bytes -> {new}); not shown\n"
        return unified_diff(self.rel, self.before, self.after)

    def old_words(self) -> str:
        """'12 lines, 340 bytes' for what the file holds now."""
        assert self.old is not None
        return f"{self.old.size:,} bytes" if self.old.data is None else size_words(self.old.data)


def _read_old(workspace: Workspace, path: Path, whole_max: int = INLINE_MAX) -> Old | None:
    """The file at ``path`` as it is now, read through the walk; None when there is none."""
    try:
        with walk.reading(workspace, path) as (fh, st):
            return Old(st.st_size, stat.S_IMODE(st.st_mode), fh.read() if st.st_size <= whole_max else None)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _keepable(rel: str, old: Old | None, limits: ToolLimits, verb: str) -> None:
    """Refuse to replace a file whose old contents the ledger could not keep for undo."""
    if old is not None and old.size > limits.blob_max_bytes:
        raise ToolFailure(f"{rel} is too large to undo: ask the user to {verb} it ({old.size:,} bytes; the ledger "
                          f"keeps old contents up to {limits.blob_max_bytes:,} bytes, so this could not be undone)")


def _current(old: Old | None) -> tuple[bytes | None, int | None] | None:
    """What to tell the ledger is there now: the bytes read, or None to let it read (in chunks)."""
    if old is None:
        return None, None
    return None if old.data is None else (old.data, old.mode)


def _file_not_folder(workspace: Workspace, rel: str, verb: str, hint: str) -> Path:
    """``rel`` resolved; it must be a file (a folder is refused with ``hint``)."""
    if existing(workspace, rel).is_dir():
        raise ToolFailure(f"{rel} is a folder; fs_{verb} works on single files only ({hint})")
    return require_file(workspace, rel, verb)


# ---- fs_write ------------------------------------------------------------------

def plan_write(workspace: Workspace, args: Mapping[str, Any], limits: ToolLimits = _DEFAULT_LIMITS) -> PlannedChange:
    """The change fs_write would make."""
    rel: str = args["path"]
    path = workspace.resolve(rel)
    if is_temp_name(path.name):
        raise ToolFailure(f"{rel} is named like Agentdesk's temporary files (.NAME.<hex>.agentdesk); pick another name")
    old = _existing_file(workspace, rel, path)
    _keepable(workspace.relative(path), old, limits, "overwrite")
    return PlannedChange(path, workspace.relative(path), old, encode_text(args["content"], "content"))


def _existing_file(workspace: Workspace, rel: str, path: Path) -> Old | None:
    """What is at ``path`` now, None for a file that can be created; one stat decides (a folder or
    a device is refused, and a pipe is never opened)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        check_creatable(workspace, rel, path)
        return None
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailure(f"{rel} is a folder; give the path of a file")
    if not stat.S_ISREG(st.st_mode):
        raise ToolFailure(f"{rel} is not a regular file; fs_write writes files only")
    return _read_old(workspace, path)


def _write(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    change = plan_write(ctx.workspace, args, ctx.limits)
    assert change.after is not None
    unchanged = change.old is not None and change.old.data == change.after
    data = {"path": change.rel, "bytes": len(change.after), "lines": count_lines(args["content"]),
            "created": change.old is None, "changed": not unchanged, "seqs": []}
    words = f"{data['lines']} lines, {len(change.after):,} bytes"
    if unchanged:
        return ToolOutput(f"{change.rel} already holds exactly this content ({words}); nothing was written", data)
    with walk.place(ctx.workspace, change.path, create=True) as where:
        entry = ctx.write(change.path, change.after, current=_current(change.old), place=where)
    data["seqs"] = [entry.seq]
    verb = "created" if change.old is None else "wrote"
    return ToolOutput(f"{verb} {change.rel} ({words})", data)


def _preview_write(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
    change = plan_write(workspace, args)
    assert change.after is not None
    if change.old is None:
        summary = f"create {change.rel} ({size_words(change.after)})"
    elif change.before == change.after:
        summary = f"write {change.rel}: no change (it already holds this content)"
    else:
        summary = f"overwrite {change.rel} with {size_words(change.after)} (was {change.old_words()})"
    return CallPreview(summary, change.rel, change.diff())


FS_WRITE = ToolDescriptor(
    risk=Risk.LOCAL_WRITE, trusted=True,
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
    tool_class="write", scope="fs.write", run=inline_runner(_write), timeout_s=30.0,
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
    change: PlannedChange
    line: int       # where the replaced text began
    removed: int    # lines of old text
    added: int      # lines of new text


def plan_edit(workspace: Workspace, args: Mapping[str, Any], limits: ToolLimits = _DEFAULT_LIMITS) -> Edit:
    """The change fs_edit would make: exactly one occurrence of ``old`` replaced by ``new``."""
    rel: str = args["path"]
    old, new = args["old"], args["new"]
    path = _file_not_folder(workspace, rel, "edit", "give the path of a file inside it")
    found_old = _read_old(workspace, path, limits.edit_max_bytes)
    if found_old is None:
        raise ToolFailure(f"{rel} does not exist in the workspace")
    _keepable(rel, found_old, limits, "edit")
    if found_old.data is None:
        raise ToolFailure(f"{rel} is {found_old.size:,} bytes, too large for fs_edit (at most "
                          f"{limits.edit_max_bytes:,}); ask the user, or change it with a command if you may")
    before = found_old.data
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
    change = PlannedChange(path, workspace.relative(path), found_old, after)
    return Edit(change, text.count("\n", 0, at) + 1, count_lines(old), count_lines(new))


def _edit(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    edit = plan_edit(ctx.workspace, args, ctx.limits)
    change = edit.change
    assert change.after is not None
    with walk.place(ctx.workspace, change.path) as where:
        entry = ctx.write(change.path, change.after, current=_current(change.old), place=where)
    return ToolOutput(
        f"edited {change.rel} at line {edit.line}: replaced {edit.removed} line(s) with {edit.added}",
        {"path": change.rel, "bytes": len(change.after), "line": edit.line, "removed_lines": edit.removed,
         "added_lines": edit.added, "seqs": [entry.seq]})


def _preview_edit(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
    edit = plan_edit(workspace, args)
    return CallPreview(f"edit {edit.change.rel} at line {edit.line}: replace {edit.removed} line(s) with {edit.added}",
                       edit.change.rel, edit.change.diff())


FS_EDIT = ToolDescriptor(
    risk=Risk.LOCAL_WRITE, trusted=True,
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
    tool_class="write", scope="fs.write", run=inline_runner(_edit), timeout_s=30.0,
    preview=safe_preview("edit a file", _preview_edit),
)


# ---- fs_delete -----------------------------------------------------------------

def plan_delete(workspace: Workspace, args: Mapping[str, Any], limits: ToolLimits = _DEFAULT_LIMITS) -> PlannedChange:
    """The change fs_delete would make."""
    rel: str = args["path"]
    path = _file_not_folder(workspace, rel, "delete", "folders are not deleted; delete the files inside one by one")
    old = _read_old(workspace, path)
    if old is None:
        raise ToolFailure(f"{rel} does not exist in the workspace")
    _keepable(rel, old, limits, "delete")
    return PlannedChange(path, workspace.relative(path), old, None)


def _delete(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    change = plan_delete(ctx.workspace, args, ctx.limits)
    assert change.old is not None
    with walk.place(ctx.workspace, change.path) as where:
        entry = ctx.write(change.path, None, current=_current(change.old), place=where)
    return ToolOutput(f"deleted {change.rel} ({change.old_words()})",
                      {"path": change.rel, "bytes": change.old.size, "seqs": [entry.seq]})


def _preview_delete(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
    change = plan_delete(workspace, args)
    return CallPreview(f"delete {change.rel} ({change.old_words()})", change.rel, change.diff())


FS_DELETE = ToolDescriptor(
    risk=Risk.LOCAL_WRITE, trusted=True,
    name="fs_delete",
    description="Delete one file in the workspace (not a folder). The change is recorded and can be undone.",
    input_schema=obj({"path": string("file path relative to the workspace root")}, required=("path",)),
    output_schema=obj({"path": {"type": "string"}, "bytes": _INT, "seqs": SEQS}, required=("path", "bytes", "seqs")),
    tool_class="write", scope="fs.write", run=inline_runner(_delete), timeout_s=30.0,
    preview=safe_preview("delete a file", _preview_delete),
)


# ---- fs_move -------------------------------------------------------------------

def plan_move(workspace: Workspace, args: Mapping[str, Any], limits: ToolLimits = _DEFAULT_LIMITS
              ) -> tuple[PlannedChange, PlannedChange]:
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
    if is_temp_name(dst_path.name):
        raise ToolFailure(f"{dst} is named like Agentdesk's temporary files (.NAME.<hex>.agentdesk); pick another name")
    check_creatable(workspace, dst, dst_path)
    old = _read_old(workspace, src_path)
    if old is None:
        raise ToolFailure(f"{src} does not exist in the workspace")
    _keepable(src, old, limits, "move")
    return (PlannedChange(dst_path, workspace.relative(dst_path), None, old.data),
            PlannedChange(src_path, workspace.relative(src_path), old, None))


def _move(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    create, remove = plan_move(ctx.workspace, args, ctx.limits)
    assert remove.old is not None
    # The copy lands before the original goes, so a crash in between leaves two copies, never none.
    # Both are made from the source opened once, in chunks.
    with walk.reading(ctx.workspace, remove.path) as (fh, st):
        source = Opened(fh.fileno(), st.st_size)
        with walk.place(ctx.workspace, create.path, create=True) as where:
            created = ctx.write(create.path, source, current=(None, None), place=where)
        with walk.place(ctx.workspace, remove.path) as where:
            removed = ctx.write(remove.path, None, current=(source, stat.S_IMODE(st.st_mode)), place=where)
    return ToolOutput(f"moved {remove.rel} to {create.rel} ({remove.old_words()})",
                      {"src": remove.rel, "dst": create.rel, "bytes": st.st_size,
                       "seqs": [created.seq, removed.seq]})


def _preview_move(workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
    create, remove = plan_move(workspace, args)
    diff = (f"diff --git a/{remove.rel} b/{create.rel}\nsimilarity index 100%\n"
            f"rename from {remove.rel}\nrename to {create.rel}\n")
    return CallPreview(f"move {remove.rel} to {create.rel} ({remove.old_words()})", remove.rel, diff)


FS_MOVE = ToolDescriptor(
    risk=Risk.LOCAL_WRITE, trusted=True,
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
    tool_class="write", scope="fs.write", run=inline_runner(_move), timeout_s=30.0,
    preview=safe_preview("move a file", _preview_move),
)
