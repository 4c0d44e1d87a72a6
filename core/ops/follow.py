"""Following a home while it changes: what a long-running viewer (the desktop app) asks of core.

- :func:`catch_up`: the rows a bot's journal gained since a :class:`JournalMark`, read from the journal's end;
  when the journal's active file has not changed since the mark (its size and time stamp), nothing is read;
- :func:`bot_names`: each bot as people name it — a workspace by its id, a tracked folder by its project's path or
  its name, never an internal id like ``claude-tmp-b-home-work-shop-app``;
- :func:`folders_present`: whether each tracked folder is there (a folder deleted or moved away is *gone*).

The app gets the rows it writes itself from the operations (``Memory.capture_rows``) and from the journal's
row listeners; it reads the journal only for what other processes wrote.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..base.errors import BotMemoryError
from ..store.journal import Row
from ..store.memory import Memory

__all__ = ["Catchup", "JournalMark", "bot_names", "catch_up", "display_name", "folders_present"]

CATCH_UP_LIMIT = 5000
"""At most this many rows are read back when catching up after many changes at once."""


@dataclass(frozen=True)
class JournalMark:
    """Where a reader of one bot's journal stopped: the newest row it saw ("" an empty journal; None when it has
    not looked yet, so no row counts as new) and the active file's (size, modification time) then."""

    bot: str
    row: str | None = None
    stamp: tuple[int, int] | None = None


@dataclass(frozen=True)
class Catchup:
    """The rows recorded after a mark (newest first), the journal's newest *recent* rows, and the new mark.

    ``read`` is False when the journal had not changed since the mark: nothing was read, ``rows`` and
    ``newest`` are empty and ``mark`` is the mark given."""

    rows: list[Row]
    newest: list[Row]
    mark: JournalMark
    read: bool = True


def _stamp(mem: Memory, bot: str) -> tuple[int, int] | None:
    try:
        st = os.stat(mem.journal.active(bot), follow_symlinks=False)
    except (OSError, BotMemoryError):
        return None
    return st.st_size, st.st_mtime_ns


def catch_up(mem: Memory, bot: str, mark: JournalMark | None = None, *, recent: int = 10,
             limit: int = CATCH_UP_LIMIT) -> Catchup:
    """The rows *bot*'s journal gained after *mark*, read once from the journal's end (a closed segment only
    when more rows than the active file holds are new). Without a mark nothing is new: the result only marks
    where the journal ends now."""
    stamp = _stamp(mem, bot)
    if mark is not None and mark.row is not None and stamp == mark.stamp:
        return Catchup([], [], mark, read=False)
    seen = mark.row if mark is not None else None
    fresh: list[Row] = []
    newest: list[Row] = []
    reached = seen is None
    for row in mem.journal.rows(bot):
        if len(newest) < recent:
            newest.append(row)
        if not reached:
            if row.id == seen or len(fresh) >= limit:
                reached = True
            else:
                fresh.append(row)
        if reached and len(newest) >= recent:
            break
    return Catchup(fresh, newest, JournalMark(bot, newest[0].id if newest else "", stamp))


def display_name(mem: Memory, bot: str) -> str:
    """*bot* as people name it: a workspace's id; a tracked folder's name (a Claude Code project's path, an agent's
    name) — the id only when the folder has no other name."""
    f = mem.home.folder(bot)
    return f.name if f is not None and f.name else bot


def bot_names(mem: Memory, bots: Iterable[str] | None = None) -> dict[str, str]:
    """:func:`display_name` of every bot (or of *bots*)."""
    return {b: display_name(mem, b) for b in (mem.home.bots() if bots is None else bots)}


def folders_present(mem: Memory, bots: Sequence[str] | None = None) -> dict[str, bool]:
    """Whether each bot's folder is there: a workspace always is while listed; a tracked folder is gone when it
    was deleted or moved away (its journal stays, and it is picked up again when it comes back)."""
    out: dict[str, bool] = {}
    for b in mem.home.bots() if bots is None else bots:
        f = mem.home.folder(b)
        out[b] = f is None or (f.path.is_dir() and not f.path.is_symlink())
    return out

