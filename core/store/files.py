"""save, rm and undo: whole-file writes as operations on the opened home.

Like every operation (``update``: remember/forget/prefer, ``recall``:
recall/search, ``upkeep``: tidy), each takes the opened :class:`Memory` first
and returns a result with its ``changes`` (one :class:`Change` per file
written, its journal row id in ``Change.id``). The rules about who may write
live here and in the other operations — a bot's writes are refused while memory
is switched off for it (:func:`check_bot_writes`) — while :meth:`Store.apply`
keeps the file rules only (hashes, logs read-only, MEMORY.md never deleted).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..base.errors import Refused
from ..disk.config import bot_settings
from .memory import Memory
from .writer import Actor, Change, Write


def check_bot_writes(mem: Memory, bot: str, actor: Actor) -> None:
    """The memory switch: while memory is off for *bot*, its own writes are refused (a person's are not)."""
    if actor.who == "bot" and not bot_settings(mem.home, bot).memory:
        raise Refused(f"memory is switched off for {bot}: bot writes are refused "
                      f"(`botmemory settings {bot} memory on` turns it back on)")


@dataclass(frozen=True)
class FileResult:
    """What a save, rm or undo did: the file, its hash afterwards (None: it does not exist), the changes."""

    path: str
    hash: str | None
    changes: list[Change] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)   # said before the write: what its row cannot bring back

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def unkept_reason(self) -> str | None:
        """Why this change cannot be undone (its earlier text was not kept, or was not UTF-8), or None."""
        change = self.changes[0] if self.changes else None
        if change is None:
            return None
        if change.unkept:
            return change.unkept
        return None if change.before_valid else "it was not valid UTF-8"


def _result(mem: Memory, bot: str, path: str, changes: list[Change]) -> FileResult:
    ft = mem.store.read(bot, path)
    return FileResult(path, ft.hash if ft else None, changes)


def save(mem: Memory, bot: str, path: str, text: str, actor: Actor, *, expected_hash: str | None = None,
         checked: bool = False, create: bool = True) -> FileResult:
    """Write *text* to *path*, hash-checked: with *expected_hash* (or *checked*: None means "must not
    exist") the file must still be what was opened, else :class:`Conflict` and nothing is written.
    *create*: the bot's workspace is created on first use."""
    mem.home.file(bot, path)                       # a bad path is bad input before anything else
    if create:
        mem.store.ensure(bot)
    else:
        mem.home.require_bot(bot)
    check_bot_writes(mem, bot, actor)
    warnings = outlook(mem, bot, path, text)
    changes = mem.store.apply(bot, [Write(path, text, expected_hash, checked)], actor)
    r = _result(mem, bot, path, changes)
    return FileResult(r.path, r.hash, r.changes, warnings if changes else [])


def outlook(mem: Memory, bot: str, path: str, text: str | None) -> list[str]:
    """What the row of writing *text* to *path* (None: deleting it) could not bring back, said before the
    change is made (``store.undo.foresee``); nothing when the file cannot be read (the write says why)."""
    from ..base.errors import BotMemoryError
    from .undo import foresee

    try:
        now = mem.store.read(bot, path)
    except BotMemoryError:
        return []
    return foresee(mem.home, bot, path, now, text)


def rm(mem: Memory, bot: str, path: str, actor: Actor, *, expected_hash: str | None = None) -> FileResult:
    """Delete a topic, the archive or a daily log (MEMORY.md is refused: it can be emptied, never deleted)."""
    mem.home.require_bot(bot)
    check_bot_writes(mem, bot, actor)
    warnings = outlook(mem, bot, path, None)
    change = mem.store.delete(bot, path, actor, expected_hash=expected_hash)
    return FileResult(path, None, [change] if change is not None else [], warnings if change is not None else [])


@dataclass(frozen=True)
class UndoResult:
    """An undo: the row undone, the change that wrote it (none when the file already held it), and what it did:
    the lines that came back, those it took out, and those that could not come back (they held a credential)."""

    undone: str
    changes: list[Change] = field(default_factory=list)
    back: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)
    file: str | None = None
    removed: bool = False          # the undo removed the file (it was created by the row)
    whole: bool = False
    row: str | None = None         # the undo's own row (when it has no Change: About me's journal)

    @property
    def changed(self) -> bool:
        return bool(self.changes) or self.row is not None

    def as_dict(self) -> dict[str, object]:
        change = self.changes[0] if self.changes else None
        return {"undone": self.undone, "changed": self.changed, "row": change.id if change else self.row,
                "file": self.file, "hash": change.after_hash if change else None, "removed": self.removed,
                "back": self.back, "gone": self.gone, "withheld": self.withheld, "whole": self.whole}


def undo(mem: Memory, bot: str, row_id: str, *, whole: bool = False, force: bool = False,
         expected_hash: str | None = None) -> UndoResult:
    """Undo row *row_id*: its own lines reversed against the file as it is now (``store.undo``); *whole*: its
    whole earlier text back, while the file is as the row left it. The undo is itself a row."""
    from .undo import undo_row

    done = undo_row(mem, bot, row_id, whole=whole, force=force, expected_hash=expected_hash)
    p = done.plan
    changes = [done.change] if done.change is not None else []
    return UndoResult(row_id, changes, p.lines_back(done.forced) if changes else [],
                      p.lines_gone(done.forced) if changes else [], p.withheld, p.file,
                      done.change is not None and done.change.after_hash is None, p.whole)
