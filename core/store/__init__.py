"""The store wing: the only writer of memory files (``writer``), the journal of changes, shadow copies, the opened
home (``memory.Memory``), and save / rm / undo as file operations.

Stands on ``kinds``, ``disk``, ``text`` and ``redact``. ``botmemory.core.store`` was the writer module until
round 3; its names still resolve here for one release (``base.moved``).
"""
from __future__ import annotations

TYPE_CHECKING = False
if not TYPE_CHECKING:
    from ..base.moved import forward

    __getattr__ = forward("store")
