"""The built-in file tools, confined to the workspace root.

Reading tools (``fs.read``) live in ``reading``, changing tools
(``fs.write``) in ``writing``, what they share in ``common``. Every path
goes through ``Workspace.resolve``; every change goes through
``ToolContext.write``, so it is in the ledger before it lands.
"""

from __future__ import annotations

from ..descriptor import ToolDescriptor
from .reading import FS_LIST, FS_READ, FS_SEARCH
from .writing import FS_DELETE, FS_EDIT, FS_MOVE, FS_WRITE, plan_delete, plan_edit, plan_move, plan_write

FS_TOOLS: tuple[ToolDescriptor, ...] = (FS_READ, FS_LIST, FS_SEARCH, FS_WRITE, FS_EDIT, FS_DELETE, FS_MOVE)

__all__ = [
    "FS_DELETE", "FS_EDIT", "FS_LIST", "FS_MOVE", "FS_READ", "FS_SEARCH", "FS_TOOLS", "FS_WRITE",
    "plan_delete", "plan_edit", "plan_move", "plan_write",
]
