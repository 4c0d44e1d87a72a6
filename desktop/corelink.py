"""The desktop's one door to the core's journal, watcher and upkeep.

Every function here runs on the worker (never on the UI thread) and only calls
the core; no rule lives here. Keeping the calls in one module means the panel,
the tray and the session do not each know the core's signatures.
"""
from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from botmemory.core.ops import Memory

if TYPE_CHECKING:  # the journal, the watcher and upkeep load on first use (on the worker)
    from botmemory.core.ops import Journal, LearnedLine, Row, RowFilter, UndoPlan, UndoResult, UpkeepState, Watcher

ABOUT_ME = "@home"
"""The journal view's name for About me's own journal (the core's ``HOME_JOURNAL``; never a bot id)."""
ABOUT_ME_FILES = ["about-me.md", "profile-learned.json"]

logger = logging.getLogger(__name__)


def journal_of(mem: Memory) -> Journal:
    """The journal the home's Memory writes to."""
    return mem.journal


@dataclass(frozen=True)
class JournalQuery:
    """Which rows the journal view lists: one bot, optionally one file, one kind of author, words in the diff."""

    bot: str
    file: str | None = None
    who: str | None = None
    grep: str | None = None

    def filter(self) -> RowFilter:
        """The core's row filter for this query (`botmemory journal --file/--who/--grep` use the same)."""
        from botmemory.core.ops import RowFilter

        return RowFilter(self.file or None, self.who or None, tuple((self.grep or "").split()))

    def matches(self, row: Row) -> bool:
        return bool(row.bot == self.bot and self.filter().matches(row))


class Cursor:
    """Pages through the rows of a query, newest first, remembering where it stopped.

    The journal is read from its end, a page at a time, by one generator kept
    between pages — page 500 costs what page 1 does. Only one page is read at
    a time (the model asks for the next only when the last has arrived).
    """

    def __init__(self, mem: Memory, query: JournalQuery) -> None:
        self.mem = mem
        self.query = query
        self._it: Iterator[Row] | None = None

    def _rows(self) -> Iterator[Row]:
        if self.query.bot == ABOUT_ME:   # an edit of About me made elsewhere is recorded first
            from botmemory.core import ops

            ops.about_me_journal(self.mem, limit=0)
        return journal_of(self.mem).matching(self.query.bot, self.query.filter())

    def page(self, limit: int) -> list[Row]:
        if self._it is None:
            self._it = self._rows()
        return list(itertools.islice(self._it, limit))

    def close(self) -> None:
        if self._it is not None:
            self._it.close()  # type: ignore[attr-defined]  # a generator
            self._it = None


def journal_files(mem: Memory, bot: str, limit: int = 20_000) -> set[str]:
    """The files named by the newest *limit* rows of a bot's journal (deleted files included)."""
    return journal_of(mem).files_named(bot, limit)


# ----- the memory folders of agents found on this computer (core: `discover_agents`, `track`).


@dataclass(frozen=True)
class FoundFolder:
    """One agent memory folder found on this computer (``agents --json``; docs/RULES.md "Agent kinds")."""

    id: str
    agent: str
    path: str
    tracked: bool
    name: str = ""


def find_agents(mem: Memory) -> list[FoundFolder] | None:
    """Runs on the worker: the Claude Code, OpenClaw and Hermes folders found here."""
    from botmemory.core.ops import discover

    return [FoundFolder(c.id, c.agent, str(c.path), c.tracked, c.name) for c in discover(mem).folders]


def undo_lines(mem: Memory, bot: str, row_id: str, force: bool = False,
               expected_hash: str | None = None) -> UndoResult:
    """Undo one row by its own lines (About me's rows too: *bot* :data:`ABOUT_ME`); ``UndoConflict`` when the
    lines it touched changed since, unless *force* (checked against *expected_hash*, the text the person saw)."""
    from botmemory.core import ops

    if bot == ABOUT_ME:
        return ops.undo_home(mem, row_id, force=force, expected_hash=expected_hash)
    return ops.undo(mem, bot, row_id, force=force, expected_hash=expected_hash)


def undo_preview(mem: Memory, bot: str, row_id: str) -> UndoPlan | None:
    """What undoing a row would do now (the lines that come back), before anything is written."""
    from botmemory.core import ops

    if bot == ABOUT_ME:
        return ops.home_undo_preview(mem, row_id)
    return ops.undo_preview(mem, bot, row_id)


def foresee_rm(mem: Memory, bot: str, rel: str) -> list[str]:
    """What deleting a file could not bring back (the delete dialog says it before asking)."""
    from botmemory.core import ops

    return ops.foresee_rm(mem, bot, rel)


def foresee_save(mem: Memory, bot: str, rel: str, text: str) -> list[str]:
    """What saving a text could not bring back (the editor asks before saving)."""
    from botmemory.core import ops

    return ops.foresee_save(mem, bot, rel, text)

def last_tidy(mem: Memory, bot: str) -> UpkeepState:
    from botmemory.core.ops import last_tidy as last

    return last(mem, bot)


def heavy_line(mem: Memory, bot: str) -> str | None:
    from botmemory.core.ops import heavy_line as heavy

    return heavy(mem, bot)


def run_due(mem: Memory, now: datetime) -> dict[str, Any]:
    """The nightly tidy-up of every bot for which one is due now (never while a turn is open)."""
    from botmemory.core.ops import periodic

    return periodic(mem, now, index=False, capture=False).tidied


def capture_due(mem: Memory) -> dict[str, Any]:
    """Capture the chats that are due (quiet for memory.captureQuietMs, or six turns waiting)."""
    from botmemory.core.ops import periodic

    return periodic(mem, tidy=False, index=False).captured


def last_capture(mem: Memory, bot: str) -> dict[str, Any] | None:
    from botmemory.core.ops import last_capture as last

    return last(mem, bot)


def learned_lines(mem: Memory) -> list[LearnedLine]:
    """About me's learned lines (core ``LearnedLine``: id, line, …), newest first."""
    from botmemory.core.ops import learned

    return list(learned(mem))


def start_watcher(mem: Memory, on_rows: Callable[..., None] | None,
                  on_presence: Callable[[str, bool], None] | None = None) -> Watcher:
    """Start the core's live watcher; it rescans every workspace first (this call waits for that). Its rows reach
    the app through the journal's row listener; *on_presence* hears a folder go away or come back."""
    from botmemory.core.ops import watcher

    w = watcher(mem, on_rows, on_presence)
    w.start()
    return w


def stop_watcher(watch: Watcher) -> None:
    watch.stop()
