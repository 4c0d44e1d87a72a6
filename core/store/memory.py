"""One home, opened: the store with its listeners wired. The CLI and the desktop both start here.

Pass the returned :class:`Memory` in; nothing in core reaches for a global.

Every change the store makes is committed here after the file is replaced:
its journal row first, then the shadow copy. When the file had changed outside
since its last row (its text before the write is not its shadow), that change
is recorded first, as its own row — so the rows of a file form a chain without
gaps (each row's before-hash is the previous row's after-hash). Journaling
never fails a write or a turn: a row that cannot be written is logged as a
warning and dropped, and the shadow stays as it was, so the next
``watch --once`` records the change the journal missed.
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from ..base.log import get_logger
from ..text.entries import clean_title
from ..base.errors import BotMemoryError
from ..disk.paths import Home, check_bot_id
from ..disk.paths import today as local_today
from ..disk.safeio import read_file
from .writer import Actor, Change, Store, new_change_id

if TYPE_CHECKING:  # the journal and shadows load on first use: a gauge or a load never needs them
    from .journal import Journal, Row
    from .shadows import Shadow, Shadows

logger = get_logger(__name__)

RowListener = Callable[["Row"], None]


@dataclass
class Memory:
    home: Home
    store: Store
    row_listeners: list[RowListener] = field(default_factory=list)
    """Called with every row this process records (any thread; must not block)."""
    _local: threading.local = field(default_factory=threading.local, repr=False)

    def __post_init__(self) -> None:
        self.store.listeners.append(self._on_change)

    @cached_property
    def journal(self) -> Journal:
        from .journal import Journal

        return Journal(self.home)

    @cached_property
    def shadows(self) -> Shadows:
        from .shadows import Shadows

        return Shadows(self.home)

    @property
    def today(self) -> date:
        return self.store.today

    @classmethod
    def open(cls, root: str | None = None, today: str | None = None) -> Memory:
        from ..kinds.tracked import attach

        home = attach(Home.locate(root))   # the tracked agent folders are bots too
        store = Store(home, today=local_today(today))
        return cls(home, store)

    def _on_change(self, changes: Sequence[Change]) -> None:
        from .journal import make_row

        bot = changes[0].bot
        with self.store.locked(bot):   # still held by the write: nothing can change the shadows in between
            outside = self._outside_before(bot, changes)
            self.commit(bot, [c for c, _ in outside] + list(changes),
                        [r for _, r in outside] + [make_row(c) for c in changes])

    def _outside_before(self, bot: str, changes: Sequence[Change]) -> list[tuple[Change, Row]]:
        """What changed outside in the files of *changes* since their last row: one change and row per file
        whose text before the write is not its shadow (attributed like a scan would: to the open turn's
        chat while a turn is open, else to "changed outside the app")."""
        from .journal import make_row

        try:
            index = self.shadows.load(bot)
        except (OSError, BotMemoryError) as e:
            logger.warning("could not read the shadows of %s before a write: %s", bot, e)
            return []
        if index is None:   # no baseline yet: the write takes it
            return []
        pending = [c for c in changes
                   if (index.files[c.file].hash if c.file in index.files else None) != c.before_hash]
        if not pending:
            return []
        latest = self.journal.latest_hashes(bot, [c.file for c in pending])   # a row whose shadow update failed
        pending = [c for c in pending if latest.get(c.file, "") != c.before_hash]
        chat = self._open_turn_chat(bot)
        actor = Actor.bot(chat, "task") if chat is not None else Actor("person", "outside")
        out: list[tuple[Change, Row]] = []
        for c in pending:
            sh = index.files.get(c.file)
            earlier = self.shadows.text(bot, c.file, sh) if sh is not None else None
            lost = sh is not None and earlier is None
            at = c.at - timedelta(milliseconds=1)
            found = Change(bot, c.file, "" if lost else earlier, sh.hash if sh else None, c.before, c.before_hash,
                           actor, at, before_valid=sh.valid if sh else True, id=new_change_id(at))
            row = make_row(found, earlier_secret=sh.secret if sh else False)
            if lost:
                row = replace(row, earlier_text=None, undoable=False,
                              reason="the app's copy of its earlier text was lost, so it cannot be put back")
            out.append((found, row))
        return out

    def _open_turn_chat(self, bot: str) -> str | None:
        """The chat of the oldest open turn of *bot* (the records turns.py keeps), or None."""
        folder = self.home.state_dir / "turns" / check_bot_id(bot)
        oldest: tuple[float, str] | None = None
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        except (FileNotFoundError, NotADirectoryError):
            return None
        for name in names:
            try:
                ft = read_file(folder / name, self.home.root)
                d = json.loads(ft.text) if ft else None
                if not isinstance(d, dict):
                    continue
                began, chat = float(d["began"]), clean_title(str(d["chat"]))
            except (OSError, BotMemoryError, ValueError, TypeError, KeyError, RecursionError):
                continue
            if oldest is None or began < oldest[0]:
                oldest = (began, chat)
        return oldest[1] if oldest else None

    def commit(self, bot: str, changes: Sequence[Change], rows: Sequence[Row],
               touched: Mapping[str, Shadow] | None = None) -> list[Row]:
        """Journal *rows*, then bring the shadows up to date with *changes* (under the workspace lock).

        Returns the rows written. Journaling never fails a write or a turn: when
        the rows cannot be written, a warning is logged, they are dropped, and
        the shadows stay as they were (the next scan records the changes).
        """
        rows = self.journal.within_limit(rows)   # an earlier text past memory.journalKeepMB is not kept
        with self.store.locked(bot):
            try:
                self.journal.append(bot, rows)
            except OSError as e:
                logger.warning("could not write %d row(s) to the journal of %s (%s): the change stands, and "
                               "`botmemory watch --once` records it once the journal can be written",
                               len(rows), bot, e)
                try:
                    self.shadows.keep_before(bot, changes)
                except (OSError, BotMemoryError) as e2:
                    logger.warning("could not keep the shadows of %s as they were: %s", bot, e2)
                return []
            except BaseException:
                self.shadows.keep_before(bot, changes)
                raise
            self.shadows.update(bot, changes, touched)
        sink: list[Row] | None = getattr(self._local, "sink", None)
        if sink is not None:
            sink.extend(rows)
        for row in rows:
            for listener in self.row_listeners:
                try:
                    listener(row)
                except Exception:
                    logger.exception("a row listener failed for row %s", row.id)
        return list(rows)

    @contextmanager
    def capture_rows(self) -> Iterator[list[Row]]:
        """Collect the rows this thread records inside the block."""
        outer: list[Row] | None = getattr(self._local, "sink", None)
        rows: list[Row] = []
        self._local.sink = rows
        try:
            yield rows
        finally:
            self._local.sink = outer
            if outer is not None:
                outer.extend(rows)

    def undo(self, bot: str, row_id: str, *, whole: bool = False) -> Change | None:
        """Undo row *row_id*: its own lines reversed against the file as it is now (``store.undo``); *whole*:
        its whole earlier text back, while the file is as the row left it. The undo is itself a row
        (``who: person, how: undo``). Returns None when there was nothing to write; Conflict when the lines
        it touched changed since; Refused when the row cannot be undone; BadInput for an unknown row.
        """
        from .undo import undo_row

        return undo_row(self, bot, row_id, whole=whole).change
