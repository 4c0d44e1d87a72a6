"""Undo and the journal as operations: what the CLI's ``undo``/``journal``, the routes' revert and the desktop's
journal view call (the one door, as ``ops.operations`` is for the rest).

Each takes the opened :class:`Memory` first. An undo reverses a row's own lines
against the file as it is now (``store.undo``); ``whole`` puts its whole
earlier text back while the file is as the row left it. :func:`preview` says
what an undo would do before anything is written (the lines that come back,
those it takes out, those that cannot come back, the clashes). The home's own
journal — About me and the ``profile-learned.json`` entries that ride with its
changes — has the same three: :func:`home_journal`, :func:`undo_home`,
:func:`preview_home`. :func:`foresee_save` and :func:`foresee_rm` say, before a
change is made, what its row could not bring back (the panel's dialogs).
"""
from __future__ import annotations

from ..disk.safeio import read_file
from ..notes import about_me
from ..store import files
from ..store.files import UndoResult
from ..store.home_journal import ABOUT_ME
from ..store.journal import HOME, Row
from ..store.memory import Memory
from ..store.undo import UndoPlan, plan, plan_row

__all__ = ["HOME", "UndoPlan", "UndoResult", "foresee_rm", "foresee_save", "home_journal", "preview",
           "preview_home", "undo", "undo_home"]


def undo(mem: Memory, bot: str, row_id: str, *, whole: bool = False, force: bool = False,
         expected_hash: str | None = None) -> UndoResult:
    """Undo row *row_id* of *bot*: its own lines reversed against the file now (``UndoConflict`` on a clash,
    unless *force*); *whole*: its whole earlier text back, while the file is as the row left it."""
    return files.undo(mem, bot, row_id, whole=whole, force=force, expected_hash=expected_hash)


def preview(mem: Memory, bot: str, row_id: str, *, whole: bool = False) -> UndoPlan:
    """What undoing row *row_id* would do now; nothing is written (Refused when it cannot be undone)."""
    return plan(mem, bot, row_id, whole=whole)


def home_journal(mem: Memory, *, limit: int | None = 50) -> list[Row]:
    """About me's rows (the home's own journal), newest first; an edit made elsewhere since is recorded first."""
    return about_me.home_rows(mem.home, limit)


def undo_home(mem: Memory, row_id: str, *, whole: bool = False, force: bool = False,
              expected_hash: str | None = None) -> UndoResult:
    """Undo a row of About me's journal (``undo --home``): its lines, and the learned entries that rode with it."""
    return about_me.undo_home(mem.home, row_id, whole=whole, force=force, expected_hash=expected_hash)


def preview_home(mem: Memory, row_id: str) -> UndoPlan | None:
    """What undoing a row of About me's journal would do to About me (None: a row of profile-learned.json alone)."""
    row = mem.journal.find(HOME, row_id)
    if row.file != ABOUT_ME:
        return None
    ft = read_file(mem.home.about_me)
    return plan_row(row, ft, about_me.later_text(mem.journal, row, ft))


def foresee_save(mem: Memory, bot: str, path: str, text: str) -> list[str]:
    """What the row of saving *text* to *path* could not bring back (said before the save; [] when nothing)."""
    return files.outlook(mem, bot, path, text)


def foresee_rm(mem: Memory, bot: str, path: str) -> list[str]:
    """What the row of deleting *path* could not bring back (the delete dialog says it before asking)."""
    from ..base.errors import BotMemoryError
    from ..disk.safeio import MAX_FILE_BYTES, TooLarge

    try:
        ft = mem.store.read(bot, path)
    except TooLarge:
        return [f"{path} is larger than the {MAX_FILE_BYTES // (1024 * 1024)} MB botmemory reads: the journal "
                "cannot keep its text, so this deletion cannot be undone"]
    except BotMemoryError:
        return []
    if ft is not None and not ft.valid:
        return [f"{path} is not valid UTF-8: the journal cannot keep its text exactly, so this deletion cannot "
                "be undone"]
    return files.outlook(mem, bot, path, None)
