"""One home, opened: the store with its listeners wired. The CLI and the desktop both start here.

Pass the returned :class:`Memory` in; nothing in core reaches for a global.

Every change the store makes is committed here after the file is replaced:
its journal row first, then the shadow copy. A row that cannot be written
fails the listener (the store logs it and the write stands) and leaves the
shadow as it was, so the next ``watch --once`` records the change the
journal missed.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING

from .errors import Refused
from .paths import Home, FileKind, classify
from .paths import today as local_today
from .store import Change, Store, Write

if TYPE_CHECKING:  # the journal and shadows load on first use: a gauge or a load never needs them
    from .journal import Journal, Row
    from .shadows import Shadow, Shadows

logger = logging.getLogger(__name__)

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
        home = Home.locate(root)
        store = Store(home, today=local_today(today))
        return cls(home, store)

    def _on_change(self, changes: Sequence[Change]) -> None:
        from .journal import make_row

        self.commit(changes[0].bot, changes, [make_row(c) for c in changes])

    def commit(self, bot: str, changes: Sequence[Change], rows: Sequence[Row],
               touched: Mapping[str, Shadow] | None = None) -> None:
        """Journal *rows*, then bring the shadows up to date with *changes* (under the workspace lock).

        Raises when the rows cannot be written; the shadows then stay as they were.
        """
        with self.store.locked(bot):
            try:
                self.journal.append(bot, rows)
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

    def undo(self, bot: str, row_id: str) -> Change | None:
        """Put the file back to row *row_id*'s earlier text, whatever the file holds now.

        A created file is deleted (MEMORY.md is emptied instead), a deleted file is
        recreated. The undo is itself a row (``who: person, how: undo``) whose
        earlier text is what the file held, so it can be undone in turn. Returns
        None when the file already holds that text. Refused when the row says it
        cannot be undone; BadInput for an unknown row.
        """
        self.home.require_bot(bot)
        row = self.journal.find(bot, row_id)
        if not row.undoable:
            raise Refused(f"row {row_id} cannot be undone: {row.reason}")
        if row.before_hash is None:
            text = "" if classify(row.file) is FileKind.MEMORY else None
            if text is None and self.store.read(bot, row.file) is None:
                return None
        else:
            if row.earlier_text is None:  # an undoable row always keeps its text; a damaged one may not
                raise Refused(f"row {row_id} cannot be undone: it holds no earlier text")
            text = row.earlier_text
        from .journal import UNDO_ACTOR

        changes = self.store.apply(bot, [Write(row.file, text)], UNDO_ACTOR, allow_log=True)
        return changes[0] if changes else None
