"""The reading file tools: fs_read, fs_list, fs_search (scope ``fs.read``).

What comes back is sized for a model's context, not for completeness: a read
stops at ``read_max_bytes`` (and a line cap the model chooses), a listing at
``list_max_entries``, a search at ``search_max_matches``. Whenever something
was cut, the output ends with a bracketed note saying what was cut and how to
get the rest (``offset=``, a narrower path). Binary files are never dumped: a
read reports size and sha256, a search skips them. Files are streamed, so a
huge log costs only the bytes shown. Every file and folder is opened through
``walk`` (from the root, never through a link), so a folder swapped for a
link mid-call cannot make a read show what lies outside; staged temporary
files (``.NAME.<hex>.agentdesk``) are never listed or searched.

A read, and a search hit, of bytes a tainted agent wrote comes back untrusted (``source`` set:
``kernel.trust.content_taint``); for that a read hashes the whole file (up to 64 MB, about 2 ms
per MB; a larger one is judged by its last recorded write).
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator, Mapping

from ledger.blobs import digest_fd
from ledger.files import is_temp_name

from ...core.errors import ToolFailure
from ...trust.content_taint import ContentTaint, bytes_taint, fd_taint
from ...workspace.ignore import SKIP_DIRS
from ..descriptor import Risk, ToolContext, ToolDescriptor, ToolOutput
from ...workspace.root import Workspace
from .picture import PictureFile, picture_format, read_picture, show
from .common import (
    BOOL, SNIFF_BYTES, existing, integer, looks_binary, obj, require_dir, require_file, string,
    thread_runner,
)
from ...workspace import walk

COUNT_MAX_BYTES = 64 * 1024 * 1024   # beyond this, a truncated read does not count the file's lines
SNIPPET_CHARS = 240                  # a search match line is shown at most this long


# ---- fs_read -------------------------------------------------------------------

def _skip_lines(fh: IO[bytes], n: int) -> int:
    """Skip ``n`` lines (in bounded chunks); how many there were."""
    skipped, partial = 0, False
    while skipped < n:
        chunk = fh.readline(1 << 20)
        if not chunk:
            skipped += 1 if partial else 0
            break
        partial = not chunk.endswith(b"\n")
        skipped += 0 if partial else 1
    return skipped


def _lines_left(fh: IO[bytes], mid_line: bool) -> int:
    """Lines from the current position to the end (a line already begun counts once)."""
    newlines, last = 0, b"\n" if not mid_line else b""
    for chunk in iter(lambda: fh.read(1 << 20), b""):
        newlines += chunk.count(b"\n")
        last = chunk[-1:]
    return newlines + (1 if last != b"\n" else 0)


def _at_eof(fh: Any) -> bool:
    return not fh.peek(1)


@dataclass(frozen=True)
class _Window:
    """What a read collected: ``lines`` whole lines, or (``cut``) the start of one too long to fit."""

    data: bytes
    lines: int
    cut: bool


def _collect(fh: Any, limit: int | None, budget: int) -> _Window:
    """Whole lines from the current position, at most ``limit`` of them and ``budget`` bytes."""
    parts: list[bytes] = []
    used = lines = 0
    while (limit is None or lines < limit) and used < budget:
        chunk = fh.readline(budget - used)
        if not chunk:
            break
        if not chunk.endswith(b"\n") and not _at_eof(fh):  # this line does not fit in what is left
            if lines:
                fh.seek(-len(chunk), os.SEEK_CUR)
                break
            return _Window(chunk, 0, True)
        parts.append(chunk)
        used += len(chunk)
        lines += 1
    return _Window(b"".join(parts), lines, False)


def _binary(shown: str, fh: IO[bytes], size: int) -> ToolOutput:
    digest = digest_fd(fh.fileno())
    return ToolOutput(f"{shown} is a binary file, {size:,} bytes, sha256 {digest}; its bytes are not shown",
                      {"path": shown, "bytes": size, "binary": True, "sha256": digest})


def _read(ctx: ToolContext, args: Mapping[str, Any], stop: threading.Event) -> ToolOutput | PictureFile:
    rel: str = args["path"]
    path = require_file(ctx.workspace, rel, "read")
    shown = ctx.workspace.relative(path)
    offset: int = args.get("offset", 1)
    limit: int | None = args.get("limit")
    budget = ctx.limits.read_max_bytes
    with walk.reading(ctx.workspace, path) as (fh, st):
        size = st.st_size
        head = fh.read(SNIFF_BYTES)
        fmt = picture_format(head)
        if fmt is not None:  # a picture, by its bytes: shown to the model (kernel/tools/fs/picture.py)
            taint = fd_taint(ctx.ledger, fh.fileno(), shown, str(path))
            return read_picture(fh, shown, size, fmt, None if taint is None else taint.source)
        if looks_binary(head, complete=len(head) < SNIFF_BYTES):
            return _binary(shown, fh, size)
        fh.seek(0)
        if _skip_lines(fh, offset - 1) < offset - 1 or (offset > 1 and _at_eof(fh)):
            fh.seek(0)
            raise ToolFailure(f"offset {offset} is past the end of {shown}, which has {_lines_left(fh, False)} lines")
        window = _collect(fh, limit, budget)
        more = not _at_eof(fh)
        counted = not more or size <= COUNT_MAX_BYTES
        total = offset - 1 + window.lines + (_lines_left(fh, window.cut) if more and counted else 0)
        taint = fd_taint(ctx.ledger, fh.fileno(), shown, str(path)) if size else None  # a tainted agent's bytes
    source = None if taint is None else taint.source
    text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(window.data, final=not window.cut)
    first, last = offset, offset + window.lines - 1
    data = {"path": shown, "bytes": size, "binary": False, "first_line": first, "last_line": max(last, 0),
            "total_lines": total if counted else None, "truncated": more}
    if size == 0:
        return ToolOutput(f"[{shown} is empty]", data)
    if not more:
        return ToolOutput(text, data, source)
    of_total = f" of {total}" if counted else ""
    if window.cut:
        note = (f"[cut: line {first} is longer than the {budget:,}-byte read limit; only its first "
                f"{len(window.data):,} bytes are shown. fs_search can find text further along it; "
                f"read on with offset={first + 1}]")
    elif limit is not None and window.lines >= limit:
        note = f"[showed lines {first}-{last}{of_total} of {shown}; read on with offset={last + 1}]"
    else:
        note = (f"[truncated at the {budget:,}-byte read limit: showed lines {first}-{last}{of_total} "
                f"of {shown} ({size:,} bytes); read on with offset={last + 1}]")
    return ToolOutput(text + ("" if text.endswith("\n") else "\n") + note, data, source)


_read_in_thread = thread_runner(_read)  # type: ignore[arg-type]  # its body may hand back a picture


async def _run_read(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    """fs_read: the file in a worker thread; a picture is then fitted and kept (``picture.show``)."""
    out: ToolOutput | PictureFile = await _read_in_thread(ctx, args)
    return await show(ctx, out) if isinstance(out, PictureFile) else out


FS_READ = ToolDescriptor(
    risk=Risk.LOCAL_READ, trusted=True,
    name="fs_read",
    description=("Read a text file in the workspace and return its contents. Use offset (1-based line) and limit "
                 "(lines) to read part of a long file. An image file (PNG, JPEG, WebP, GIF) is shown to you as a "
                 "picture; other binary files are described, not shown."),
    input_schema=obj({
        "path": string("file path relative to the workspace root"),
        "offset": integer("first line to return, counting from 1 (default 1)", minimum=1),
        "limit": integer("most lines to return (default: as many as fit the read limit)", minimum=1),
    }, required=("path",)),
    output_schema=obj({
        "path": {"type": "string"}, "bytes": {"type": "integer", "minimum": 0}, "binary": BOOL,
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "image": {"type": "object"},
        "first_line": {"type": "integer", "minimum": 1}, "last_line": {"type": "integer", "minimum": 0},
        "total_lines": {"type": ["integer", "null"], "minimum": 0}, "truncated": BOOL,
    }, required=("path", "bytes", "binary")),
    tool_class="read", scope="fs.read", run=_run_read, timeout_s=30.0,
)


# ---- fs_list -------------------------------------------------------------------

def _entry_line(workspace: Workspace, folder: Path, entry: os.DirEntry[str]) -> str:
    """'name/' for a folder, 'name  N bytes' for a file; links say where they lead (looked at
    through the walk, so a link's target is only ever stat'ed inside the workspace)."""
    try:
        if entry.is_symlink():
            try:
                target = workspace.resolve(str(folder / entry.name))
                st = walk.lstat(workspace, target)
            except ToolFailure:
                return f"{entry.name}@  (link to outside the workspace)"
            except (FileNotFoundError, NotADirectoryError):
                return f"{entry.name}@  (broken link)"
            where = f"(link to {workspace.relative(target)})"
            if stat.S_ISDIR(st.st_mode):
                return f"{entry.name}/  {where}"
            return f"{entry.name}  {st.st_size:,} bytes  {where}"
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            return f"{entry.name}/"
        return f"{entry.name}  {st.st_size:,} bytes"
    except OSError:
        return f"{entry.name}  (unreadable)"


def _list(ctx: ToolContext, args: Mapping[str, Any], stop: threading.Event) -> ToolOutput:
    rel = args.get("path") or "."
    path = require_dir(ctx.workspace, rel)
    shown = ctx.workspace.relative(path)
    cap = ctx.limits.list_max_entries
    with walk.folder(ctx.workspace, path) as fd:
        with os.scandir(fd) as it:
            entries = sorted((e for e in it if not is_temp_name(e.name)), key=lambda e: (e.name.casefold(), e.name))
        lines = [_entry_line(ctx.workspace, path, e) for e in entries[:cap]]
    data = {"path": shown, "entries": len(entries), "shown": len(lines), "truncated": len(entries) > cap}
    if not entries:
        return ToolOutput(f"[{shown} is empty]", data)
    if len(entries) > cap:
        lines.append(f"[showing the first {cap:,} of {len(entries):,} entries; "
                     "list a subfolder or use fs_search to narrow down]")
    return ToolOutput("\n".join(lines), data)


FS_LIST = ToolDescriptor(
    risk=Risk.LOCAL_READ, trusted=True,
    name="fs_list",
    description=("List a folder in the workspace: one entry per line, folders end with '/', files show their size. "
                 "Without a path, lists the workspace root."),
    input_schema=obj({"path": string("folder path relative to the workspace root (default: the root)", None)}),
    output_schema=obj({
        "path": {"type": "string"}, "entries": {"type": "integer", "minimum": 0},
        "shown": {"type": "integer", "minimum": 0}, "truncated": BOOL,
    }, required=("path", "entries", "shown", "truncated")),
    tool_class="read", scope="fs.read", run=thread_runner(_list), timeout_s=30.0,
)


# ---- fs_search -----------------------------------------------------------------

_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _walk(workspace: Workspace, base: Path, stop: threading.Event) -> Iterator[tuple[Path, int, str]]:
    """Files under ``base`` in a stable order, as (path, open folder, name), skipping VCS, virtualenv
    and dependency folders; folders are entered through descriptors, never through a link."""
    if not base.is_dir():
        with walk.place(workspace, base) as where:
            yield base, where.dir_fd, where.name
        return
    with walk.folder(workspace, base) as top:
        for folder, dirs, names, dir_fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
            if stop.is_set():
                return
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not _is_venv(d, dir_fd))
            for name in sorted(names):
                if not is_temp_name(name):
                    yield base / folder / name, dir_fd, name


def _is_venv(name: str, dir_fd: int) -> bool:
    try:
        os.stat(f"{name}/pyvenv.cfg", dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return True


def _contents(workspace: Workspace, path: Path, dir_fd: int, name: str, max_file: int,
              base: Path | None = None) -> bytes | int | None:
    """The bytes of a regular file to search, its size when over ``max_file``, None to skip it. A link
    is read only when it leads to a file inside the searched folder ``base`` (reached through the walk):
    a search of ``docs`` reads nothing outside ``docs``, as a skill allowed only ``docs/`` expects."""
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EMLINK):
            return None
        try:
            target = workspace.resolve(str(path))
            if base is not None and target != base and base not in target.parents:
                return None
            with walk.reading(workspace, target) as (fh, st):
                return st.st_size if st.st_size > max_file else fh.read()
        except (ToolFailure, OSError):
            return None  # a link out of the workspace (or a broken one) is not followed
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None
        return st.st_size if st.st_size > max_file else fh.read()


def _snippet(line: str, match: re.Match[str]) -> str:
    """The line, or a window of it around the match when it is long."""
    if len(line) <= SNIPPET_CHARS:
        return line
    start = max(0, match.start() - SNIPPET_CHARS // 3)
    piece = line[start:start + SNIPPET_CHARS]
    return ("…" if start else "") + piece + ("…" if start + SNIPPET_CHARS < len(line) else "")


def _search(ctx: ToolContext, args: Mapping[str, Any], stop: threading.Event) -> ToolOutput:
    pattern: str = args["pattern"]
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolFailure(f"bad regular expression {pattern!r}: {exc}") from exc
    rel = args.get("path") or "."
    base = existing(ctx.workspace, rel)
    shown = ctx.workspace.relative(base)
    cap, max_file = ctx.limits.search_max_matches, ctx.limits.search_max_file_bytes
    out: list[str] = []
    searched = binary = 0
    tainted: list[ContentTaint] = []  # files with hits whose bytes a tainted agent wrote
    large: list[str] = []
    truncated = False
    for path, dir_fd, file_name in _walk(ctx.workspace, base, stop):
        if stop.is_set() or truncated:
            break
        try:
            raw = _contents(ctx.workspace, path, dir_fd, file_name, max_file, base)
        except OSError:
            continue
        if raw is None:
            continue
        if isinstance(raw, int):
            large.append(ctx.workspace.relative(path))
            continue
        if looks_binary(raw[:SNIFF_BYTES], complete=len(raw) <= SNIFF_BYTES):
            binary += 1
            continue
        searched += 1
        name = ctx.workspace.relative(path)
        text = raw.decode("utf-8", errors="replace")
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        hits = len(out)
        for number, line in enumerate(lines, 1):
            line = line.rstrip("\r")
            match = regex.search(line)
            if match is None:
                continue
            if len(out) >= cap:
                truncated = True
                break
            out.append(f"{name}:{number}: {_snippet(line, match)}")
        if len(out) > hits:
            found = bytes_taint(ctx.ledger, raw, name)
            if found is not None:
                tainted.append(found)
    data = {"pattern": pattern, "path": shown, "matches": len(out), "files_searched": searched,
            "truncated": truncated, "skipped_large": len(large), "skipped_binary": binary}
    if not out:
        body = f"no matches for {pattern!r} in {shown} ({searched} text files searched)"
    else:
        body = "\n".join(out)
    notes = []
    if truncated:
        notes.append(f"[stopped at {cap} matches; narrow the pattern or the path to see the rest]")
    if large:
        listed = ", ".join(large[:5]) + (", …" if len(large) > 5 else "")
        notes.append(f"[skipped {len(large)} file(s) over {max_file:,} bytes: {listed}; use fs_read with offset]")
    return ToolOutput("\n".join([body, *notes]), data, _search_source(tainted))


def _search_source(tainted: list[ContentTaint]) -> str | None:
    """The source a search's hits in tainted files name: the first such file, and how many more."""
    if not tainted:
        return None
    more = f" (and {len(tainted) - 1} more tainted file{'s' if len(tainted) > 2 else ''})" if len(tainted) > 1 else ""
    return tainted[0].source + more


FS_SEARCH = ToolDescriptor(
    risk=Risk.LOCAL_READ, trusted=True,
    name="fs_search",
    description=("Search text files under a workspace path for a Python regular expression; returns "
                 "'path:line: text' for each matching line. Use (?i) for case-insensitive matching."),
    input_schema=obj({
        "pattern": string("Python regular expression, matched against each line"),
        "path": string("file or folder to search, relative to the workspace root (default: the root)", None),
    }, required=("pattern",)),
    output_schema=obj({
        "pattern": {"type": "string"}, "path": {"type": "string"},
        "matches": {"type": "integer", "minimum": 0}, "files_searched": {"type": "integer", "minimum": 0},
        "truncated": BOOL, "skipped_large": {"type": "integer", "minimum": 0},
        "skipped_binary": {"type": "integer", "minimum": 0},
    }, required=("pattern", "path", "matches", "files_searched", "truncated")),
    tool_class="read", scope="fs.read", run=thread_runner(_search), timeout_s=60.0,
)
