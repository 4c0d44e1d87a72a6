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

from .paths import Home
from .paths import today as local_today
from .store import Change, Store

if TYPE_CHECKING:  # the journal and shadows load on first use: a gauge or a load never needs them
    from .journal import Journal, Row
    from .reconcile import Shadow, Shadows

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
        from .reconcile import Shadows

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
