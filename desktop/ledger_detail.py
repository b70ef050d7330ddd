"""What the ledger view's detail pane says about one entry, as HTML.

A tool entry shows its input, then what it caused (the result or error and
each file change with its diff); a file change shows its unified diff with
added and removed lines coloured; anything else is said in words, with
times as local times and durations in words (a grant's ``until`` is an epoch
in the ledger; nobody reads that). The entry's raw JSON is one click away,
behind a toggle (``JSON_LINK``). Plain Python over the ledger, so the wording
is tested without a window.
"""

from __future__ import annotations

import html
import json
import os
import time
from dataclasses import dataclass
from typing import Callable, Protocol

from kernel.api import (
    AgentKill, AgentSpawn, Denied, Entry, Expired, FileChange, LeaseGrant, LeaseRevoke, LedgerError, Snapshot,
    ToolCall, ToolError, ToolResult, Undo, describe_duration,
)
from kernel.api import Compaction  # the context engine (issue 24)

from .wording import plural

JSON_LINK = "agentdesk:json"  # the detail pane's "show JSON" toggle
THUMB_URL = "agentdesk-thumb:"  # + a blob's sha256: its thumbnail (the view loads it from the kernel)
TILE_URL = "agentdesk-tile:"    # + words: a framed tile saying why a side has no picture
NO_FILE = "no file"
NO_PICTURE = "no picture"       # not kept, damaged, or not a picture at all
LOADING = "loading\u2026"
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff", ".svg")


def is_picture_path(path: str) -> bool:
    """A file shown as pictures, before and after (by its name: its contents are the kernel's to read)."""
    return os.path.splitext(path)[1].lower() in PICTURE_SUFFIXES


class Pictures(Protocol):
    """Thumbnails the detail pane can show (``desktop.picture_tiles.Thumbnails`` is one)."""

    def known(self, sha: str) -> bool: ...
    def has_image(self, sha: str) -> bool: ...
    def size_words(self, sha: str) -> str: ...
    def want(self, sha: str) -> None: ...


def side_of(pictures: Pictures, sha: str | None) -> tuple[str, str]:
    """One side of a picture file: the image's URL and the words under it (asking for it when unknown)."""
    if sha is None:
        return TILE_URL + NO_FILE, NO_FILE
    if not pictures.known(sha):
        pictures.want(sha)
        return TILE_URL + LOADING, LOADING
    if not pictures.has_image(sha):
        return TILE_URL + NO_PICTURE, NO_PICTURE
    return THUMB_URL + sha, pictures.size_words(sha)


def pictures_html(change: FileChange, pictures: Pictures, p: "Palette") -> str:
    """The file before and after, side by side: thumbnails, or tiles saying "no file"/"no picture"."""
    cells = []
    for label, sha in (("before", change.before), ("after", change.after)):
        url, words = side_of(pictures, sha)
        words = f"{label}: {words}" if words else label
        cells.append(f'<td align="center" style="padding:4px"><img src="{html.escape(url)}"><br>'
                     f'<span style="color:{p.muted}">{html.escape(words)}</span></td>')
    return ("<table cellspacing='0' style='margin:4px 0'><tr>" + cells[0]
            + f"<td valign='middle' style='color:{p.muted}; padding:4px'>\u2192</td>" + cells[1] + "</tr></table>")


def local_time(ts: float) -> str:
    """``14:05:12`` today, ``2025-06-09 14:05:12`` on another day (local time, never an epoch)."""
    stamp = time.localtime(ts)
    same_day = stamp[:3] == time.localtime()[:3]
    return time.strftime("%H:%M:%S" if same_day else "%Y-%m-%d %H:%M:%S", stamp)


def entry_words(entry: Entry) -> str | None:
    """One sentence for the kinds that have no view of their own; None for the rest."""
    e = html.escape
    match entry:
        case LeaseGrant(subject=subject, scope=scope, until=until, duration_s=duration):
            return (f"Granted <code>{e(scope)}</code> to {e(subject)} for {e(describe_duration(duration).lower())}, "
                    f"until {local_time(until)} (lease #{entry.seq}).")
        case LeaseRevoke(lease=lease, subject=subject, reason=reason):
            return f"Lease #{lease} of {e(subject)} revoked" + (f": {e(reason)}." if reason else ".")
        case Expired(scope=scope, subject=subject, tool=tool, lease=lease):
            if lease:
                return f"Lease #{lease} (<code>{e(scope)}</code>) of {e(subject)} ran out."
            return (f"{e(subject)}'s request for <code>{e(scope)}</code>"
                    + (f" to call <code>{e(tool)}</code>" if tool else "") + " expired unanswered.")
        case Denied(tool=tool, scope=scope, subject=subject):
            return f"Denied <code>{e(scope)}</code> to {e(subject)}: <code>{e(tool)}</code> was not run."
        case AgentSpawn(name=name, provider=provider, model=model, budget=budget, workspace=workspace):
            what = f"Started {e(name)} ({e(entry.actor)})"
            if provider or model:
                what += f" on {e(provider)} \u00b7 {e(model)}"
            if budget:
                what += f", budget {budget:,} tokens"
            return what + (f", workspace <code>{e(workspace)}</code>." if workspace else ".")
        case AgentKill(subject=subject, reason=reason):
            return f"{e(subject)} was stopped" + (f": {e(reason)}." if reason else ".")
        case Compaction(mode="summary", first=first, last=last, trigger=trigger, focus=focus, summary=summary):
            return (f"The conversation from #{first} to #{last} was summarized ({e(trigger)})"
                    + (f", keeping <i>{e(focus)}</i>" if focus else "") + f":<br><pre>{e(summary)}</pre>")
        case Compaction(last=last, entries=entries, trigger=trigger):
            return (f"{plural(entries, 'tool result')} recorded up to #{last} were cleared from the model's context "
                    f"({e(trigger)}); the ledger keeps them.")
        case Snapshot(root=root, files=files, changed=changed):
            return f"Snapshot of <code>{e(root)}</code>: {plural(files, 'file')}, {changed:,} changed."
    return None


@dataclass(frozen=True)
class Palette:
    """Colours for the diff and for errors, picked from the running theme by the caller."""

    added: str = "#1a7f37"
    removed: str = "#b42318"
    hunk: str = "#6639ba"
    error: str = "#b91c1c"
    muted: str = "#6b7280"
    mono: str = "monospace"


def diff_html(diff: str, p: Palette) -> str:
    """A unified diff as preformatted HTML, + lines in the added colour, - in the removed one."""
    if not diff:
        return f'<p style="color:{p.muted}">(no change in content)</p>'
    out = []
    for line in diff.splitlines():
        esc = html.escape(line)
        if line.startswith(("+++", "---")):
            out.append(f'<span style="color:{p.muted}">{esc}</span>')
        elif line.startswith("+"):
            out.append(f'<span style="color:{p.added}">{esc}</span>')
        elif line.startswith("-"):
            out.append(f'<span style="color:{p.removed}">{esc}</span>')
        elif line.startswith("@@"):
            out.append(f'<span style="color:{p.hunk}">{esc}</span>')
        else:
            out.append(esc)
    return f'<pre style="font-family:{p.mono}; margin:0">' + "\n".join(out) + "</pre>"


def json_html(value: object, p: Palette) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return f'<pre style="font-family:{p.mono}; margin:0">{html.escape(text)}</pre>'


def _h(text: str) -> str:
    return f"<h4 style='margin:8px 0 4px 0'>{html.escape(text)}</h4>"


def _change_html(ledger: "LedgerReader", change: FileChange, rel: Callable[[str, str | None], str], p: Palette,
                 pictures: Pictures | None = None) -> str:
    try:
        diff = ledger.diff(change.seq)
    except LedgerError as exc:
        diff = f"(diff unavailable: {exc})"
    shown = rel(change.path, change.actor)
    diff = diff.replace(f"a{change.path}", f"a/{shown}", 1).replace(f"b{change.path}", f"b/{shown}", 1)
    title = f"#{change.seq} fs.write  {shown}"
    if change.reverts is not None:
        title += f"  (reverts #{change.reverts})"
    head = f'<p style="font-family:{p.mono}; margin:8px 0 4px 0"><b>{html.escape(title)}</b></p>'
    if pictures is None or not is_picture_path(change.path):
        return head + diff_html(diff, p)
    shown = pictures_html(change, pictures, p)
    if diff.startswith("Binary file"):  # the pictures say it better than a byte count (an SVG keeps its diff)
        return head + shown
    return head + shown + diff_html(diff, p)


class LedgerReader(Protocol):
    """What the detail pane reads: the kernel facade provides it."""

    def diff(self, seq: int) -> str: ...

    def caused_by(self, seq: int) -> list[Entry]: ...


def entry_html(ledger: LedgerReader, entry: Entry, rel: Callable[[str, str | None], str], p: Palette,
               undone_by: int | None = None, show_json: bool = False, pictures: Pictures | None = None) -> str:
    """The detail pane's contents for ``entry`` (its raw JSON below when ``show_json``); a picture file's
    change shows its thumbnails before and after when ``pictures`` is given."""
    head = (f"<b>#{entry.seq}</b> · {html.escape(entry.kind)} · {html.escape(entry.actor)}"
            f" · {local_time(entry.ts)}")
    if undone_by is not None:
        head += f' · <span style="color:{p.muted}"><s>undone</s> by #{undone_by}</span>'
    parts = [f"<p style='margin:0 0 4px 0'>{head}</p>"]
    match entry:
        case FileChange():
            parts.append(_change_html(ledger, entry, rel, p, pictures))
        case ToolCall(tool=tool, scope=scope, input=tool_input):
            parts.append(f'<p style="font-family:{p.mono}; margin:0">{html.escape(tool)}  {html.escape(scope)}</p>')
            parts.append(_h("Input"))
            parts.append(json_html(dict(tool_input), p))
            caused = ledger.caused_by(entry.seq)
            for c in caused:
                if isinstance(c, ToolResult):
                    parts.append(_h("Result" + (f" · {c.duration_ms:.0f} ms" if c.duration_ms is not None else "")))
                    parts.append(json_html(c.output, p))
                elif isinstance(c, ToolError):
                    parts.append(_h("Error"))
                    parts.append(f'<p style="color:{p.error}">{html.escape(c.message)}</p>')
            changes = [c for c in caused if isinstance(c, FileChange)]
            if changes:
                parts.append(_h(f"File changes ({len(changes)})"))
                parts.extend(_change_html(ledger, c, rel, p, pictures) for c in changes)
            elif not caused:
                parts.append(f'<p style="color:{p.muted}">No result recorded yet.</p>')
        case Undo(reversed=rev, conflicts=conflicts):
            parts.append(f"<p>Reversed {plural(len(rev), 'change')} after #{entry.after_seq}"
                         + (f" made by {html.escape(entry.only_actor)}" if entry.only_actor else "") + ".</p>")
            for path in conflicts:
                parts.append(f'<p style="color:{p.error}; font-family:{p.mono}">conflict: '
                             f'{html.escape(rel(path, None))}</p>')
            for c in ledger.caused_by(entry.seq):
                if isinstance(c, FileChange):
                    parts.append(_change_html(ledger, c, rel, p, pictures))
        case _:
            words = entry_words(entry)
            if words is not None:
                parts.append(f"<p style='margin:4px 0'>{words}</p>")
            else:
                show_json = True  # nothing better to say than the entry itself
    toggle = "\u25be hide JSON" if show_json else "\u25b8 show JSON"
    parts.append(f"<p style='margin:8px 0 4px 0'><a href='{JSON_LINK}'>{toggle}</a></p>")
    if show_json:
        parts.append(json_html(entry.to_json(), p))
    return "".join(parts)
