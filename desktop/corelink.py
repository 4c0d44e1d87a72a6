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
from typing import Any

from botmemory.core import Memory

logger = logging.getLogger(__name__)

SINCE_LIMIT = 5000
"""At most this many rows are read back when catching up after many changes at once."""


def journal_of(mem: Memory) -> Any:
    """The journal the home's Memory writes to (its store listener), else one opened on the home."""
    existing = getattr(mem, "journal", None)
    if existing is not None:
        return existing
    from botmemory.core import Journal

    return Journal(mem.home)


@dataclass(frozen=True)
class JournalQuery:
    """Which rows the journal view lists: one bot, optionally one file, one kind of author, words in the diff."""

    bot: str
    file: str | None = None
    who: str | None = None
    grep: str | None = None

    def filter(self) -> Any:
        """The core's row filter for this query (`botmemory journal --file/--who/--grep` use the same)."""
        from botmemory.core import RowFilter

        return RowFilter(self.file or None, self.who or None, tuple((self.grep or "").split()))

    def matches(self, row: Any) -> bool:
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
        self._it: Iterator[Any] | None = None

    def _rows(self) -> Iterator[Any]:
        rows: Iterator[Any] = journal_of(self.mem).matching(self.query.bot, self.query.filter())
        return rows

    def page(self, limit: int) -> list[Any]:
        if self._it is None:
            self._it = self._rows()
        return list(itertools.islice(self._it, limit))

    def close(self) -> None:
        if self._it is not None:
            self._it.close()  # type: ignore[attr-defined]
            self._it = None


def catch_up(mem: Memory, bot: str, seen: str | None, recent: int,
             limit: int = SINCE_LIMIT) -> tuple[list[Any], list[Any], str]:
    """One read from the journal's end: (rows after row *seen*, the newest *recent* rows, the newest id).

    *seen* None: nothing was seen yet, so no row counts as new; "" means the
    journal was empty, so every row is new. Reading once keeps the three consistent.
    """
    fresh: list[Any] = []
    newest: list[Any] = []
    reached = seen is None
    for row in journal_of(mem).rows(bot):
        if len(newest) < recent:
            newest.append(row)
        if not reached:
            if row.id == seen or len(fresh) >= limit:
                reached = True
            else:
                fresh.append(row)
        if reached and len(newest) >= recent:
            break
    return fresh, newest, newest[0].id if newest else ""


def journal_files(mem: Memory, bot: str, limit: int = 20_000) -> set[str]:
    """The files named by the newest *limit* rows of a bot's journal (deleted files included)."""
    return {row.file for row in itertools.islice(journal_of(mem).rows(bot), limit)}


def newest_rows(mem: Memory, bot: str, limit: int) -> list[Any]:
    return list(journal_of(mem).list(bot, limit=limit))


def rows_since(mem: Memory, bot: str, seen: str | None, limit: int = SINCE_LIMIT) -> list[Any]:
    """The rows of *bot* recorded after row *seen* (by position, newest first), at most *limit*.

    ``seen`` None means nothing was seen yet: no row is new.
    """
    if seen is None:
        return []
    out: list[Any] = []
    for row in journal_of(mem).rows(bot):
        if row.id == seen or len(out) >= limit:
            break
        out.append(row)
    return out


# ----- the memory folders of agents found on this computer (core: `discover_agents`, `track`).


@dataclass(frozen=True)
class FoundFolder:
    """One agent memory folder found on this computer (DESIGN.md: ``agents --json``)."""

    id: str
    agent: str
    path: str
    tracked: bool
    name: str = ""


def find_agents(mem: Memory) -> list[FoundFolder] | None:
    """Runs on the worker: the Claude Code, OpenClaw and Hermes folders found here."""
    from botmemory.core import discover_agents

    found, _unread = discover_agents(mem.home)
    return [FoundFolder(c.id, c.agent, str(c.path), c.tracked, c.name) for c in found]


def track_agent(mem: Memory, folder_id: str) -> None:
    """Runs on the worker: start tracking a found folder."""
    from botmemory.core import track

    track(mem.home, folder_id)


def undo(mem: Memory, bot: str, row_id: str) -> Any:
    return mem.undo(bot, row_id)


def tidy_now(mem: Memory, bot: str) -> dict[str, Any]:
    from botmemory.core import tidy_now as core_tidy_now

    report: dict[str, Any] = core_tidy_now(mem, bot).as_dict()
    return report


def last_tidy(mem: Memory, bot: str) -> Any:
    from botmemory.core import read_state

    return read_state(mem.home, bot)


def heavy_line(mem: Memory, bot: str) -> str | None:
    from botmemory.core import heavy_line as core_heavy_line

    return core_heavy_line(mem, bot)


def run_due(mem: Memory, now: datetime) -> dict[str, Any]:
    """The nightly tidy-up of every bot for which one is due now (never while a turn is open)."""
    from botmemory.core import run_due as core_run_due, turn_open

    result: dict[str, Any] = core_run_due(mem, now, lambda bot: turn_open(mem, bot))
    return result


def capture_due(mem: Memory) -> dict[str, Any]:
    """Capture the chats that are due (quiet for memory.captureQuietMs, or six turns waiting)."""
    from botmemory.core import capture_due as core_capture_due

    result: dict[str, Any] = core_capture_due(mem)
    return result


def last_capture(mem: Memory, bot: str) -> dict[str, Any] | None:
    from botmemory.core import last_capture as core_last_capture

    return core_last_capture(mem.home, bot)


def learned_lines(mem: Memory) -> list[Any]:
    """About me's learned lines (core ``LearnedLine``: id, line, …), newest first."""
    from botmemory.core import learned_lines as core_learned_lines

    return list(core_learned_lines(mem.home))


def remove_learned(mem: Memory, line_id: str) -> Any:
    from botmemory.core import remove_learned as core_remove_learned

    return core_remove_learned(mem.home, line_id, mem.today)


def start_watcher(mem: Memory, on_rows: Callable[..., None]) -> Any:
    """Start the core's live watcher; it rescans every workspace first (this call waits for that)."""
    from botmemory.core import Watcher

    w = Watcher(mem, on_rows=on_rows)
    w.start()
    return w


def stop_watcher(watch: Any) -> None:
    watch.stop()
