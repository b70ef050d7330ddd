"""The host part of a command's view, remembered while nothing it was built from has changed.

``view.host_view`` resolves the home folder, every secret, every PATH
entry and the Settings folders: about 5 ms of CPU for every command (measured
2026-12-01), a third of shell_exec's budget over bare bwrap. It depends only
on those host paths, so it is kept and reused as long as a fingerprint of
them is unchanged: for each path, what ``lstat`` says (device, inode, type)
and, for a link, what ``stat`` says too. A secret appearing, a link retargeted
(a new link is a new inode), a folder on the way replaced, a toolchain added:
each changes the fingerprint, and the view is built afresh. Times are left
out: the ledger's own files (secrets too) change at every entry, and a
changed time never changes what the view shows. About 100 lstat calls, well
under a millisecond. The workspace part (its refusal, its masks,
its git folders) is planned fresh for every command.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from .view import (COMPANIONS, HOME_SECRETS, HOST_SOCKET_DIRS, SHARED_HOME_DIRS, SYSTEM_DIRS, HostPaths,
                           HostView, View, host_view, plan)

_Mark = tuple[object, ...]


class ViewCache:
    """``plan`` with the host part reused while its inputs are unchanged; thread-safe."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[_Mark, HostView]] = {}
        self._inputs: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        self.builds = 0  # host views built (a rebuild at every command would cost ~5 ms each)

    def plan(self, workspace: Path, host: HostPaths) -> View:
        key = repr(host)
        inputs = self._inputs.get(key)
        if inputs is None:
            inputs = _inputs(host)
            self._inputs = {key: inputs}  # one host at a time
        mark = tuple(_mark(path) for path in inputs)
        with self._lock:
            kept = self._kept.get(key)
        if kept is None or kept[0] != mark:
            kept = (mark, host_view(host))
            self.builds += 1
            with self._lock:
                self._kept = {key: kept}  # one host at a time: settings changes replace it
        return plan(workspace, host, kept[1])


def fingerprint(host: HostPaths) -> _Mark:
    """What ``host_view`` read, as stat results: equal fingerprints give equal host views."""
    return tuple(_mark(path) for path in _inputs(host))  # (ViewCache keeps the list of paths)


def _inputs(host: HostPaths) -> list[str]:
    home = host.home
    paths = [*SYSTEM_DIRS, *HOST_SOCKET_DIRS, *(str(p) for p in host.secrets)]
    if home.is_absolute():
        paths += [str(home), *(str(home / rel) for rel in HOME_SECRETS)]
        paths += [str(home / extra) for extras in (*COMPANIONS.values(), *SHARED_HOME_DIRS.values())
                  for extra in extras]
    for entry in host.path.split(":"):
        if entry.startswith("/") and "\0" not in entry:
            paths += [entry, os.path.dirname(os.path.normpath(entry))]
    read_only = host.read_only if isinstance(host.read_only, (list, tuple)) else ()
    for item in read_only:
        if isinstance(item, str) and item and "\0" not in item:
            paths.append(str(home / item[2:]) if item.startswith("~/") and home.is_absolute() else item)
    return paths


def _mark(path: str) -> _Mark:
    try:
        st = os.lstat(path)
        own: _Mark = (st.st_dev, st.st_ino, st.st_mode)  # not times: the ledger's files change at every entry
    except (OSError, ValueError):
        return ()  # nothing there (a missing folder on the way: nothing below it either)
    if not stat.S_ISLNK(st.st_mode):
        return own
    try:
        to = os.stat(path)
        target: _Mark = (to.st_dev, to.st_ino, to.st_mode)
    except (OSError, ValueError):
        target = ()
    return own + (None,) + target
