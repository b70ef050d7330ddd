"""The workspace, as one room: the folder an agent works in and what is known about it.

``root`` says which folders may be a workspace and keeps file tools inside
one (``Workspace``); ``snapshot`` photographs a workspace around each shell
command and records what changed, with ``snapshot_cache`` keeping those
photographs between runs and ``ignore`` the folders they skip; ``watch``
records edits other programs make while the desktop runs. (This package
was ``kernel/snapshot.py``, ``snapshot_cache.py``, ``ignore.py``,
``watch.py`` and ``kernel/tools/workspace.py``; the last moved here as
``root`` so there is one thing called "workspace" in the kernel.)
"""
