"""One home, opened: the store with its listeners wired. The CLI and the desktop both start here.

Pass the returned :class:`Memory` in; nothing in core reaches for a global.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .paths import Home, today as local_today
from .store import Store


@dataclass
class Memory:
    home: Home
    store: Store

    @property
    def today(self) -> date:
        return self.store.today

    @classmethod
    def open(cls, root: str | None = None, today: str | None = None) -> Memory:
        home = Home.locate(root)
        store = Store(home, today=local_today(today))
        return cls(home, store)
