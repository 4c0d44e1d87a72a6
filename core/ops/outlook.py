"""What a change about to be made could not bring back, said before it is made (the panel's Delete dialog).

:func:`foresee_rm` builds the journal row a deletion would get — with the journal's own rule for what it keeps
(``store.journal.make_row``: an earlier text too large to keep, not UTF-8, holding a credential, or a file too
large for botmemory to read) — without writing anything, so the dialog promises exactly what the row will say.
"""
from __future__ import annotations

from datetime import datetime, timezone

from ..base.errors import BotMemoryError
from ..store.memory import Memory
from ..store.writer import Actor, Change, Write

__all__ = ["foresee_rm"]


def foresee_rm(mem: Memory, bot: str, path: str) -> list[str]:
    """Why deleting *path* of *bot* could not be undone, as its journal row would say it; [] when Undo in the
    journal brings the file back (or when there is nothing to delete)."""
    from ..store.journal import make_row

    try:
        ft = mem.store._current(bot, Write(path, None))
    except BotMemoryError:
        return []
    if ft is None:
        return []
    change = Change(bot, path, ft.text, ft.hash, None, None, Actor.person("panel"), datetime.now(timezone.utc),
                    before_valid=ft.valid, unkept=ft.unkept)
    row = make_row(change)
    return [] if row.undoable else [f"{path} cannot be brought back by Undo: {row.reason}"]
