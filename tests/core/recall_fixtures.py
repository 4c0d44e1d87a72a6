"""The recall tests' home: one bot initialised on TODAY (a date), and its workspace.

Imported by test_recall.py and test_recall_words.py; ``home`` and ``ws`` here stand in for
tests/conftest.py's ``ws`` (which opens a Memory) in those modules only.
"""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from botmemory.core.disk.paths import Home
from botmemory.core.store.writer import Store
from tests.conftest import entry

__all__ = ["BOT", "TODAY", "entry", "home", "ws"]

TODAY = date(2026, 10, 15)
BOT = "scout"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    h = Home(tmp_path / "home")
    Store(h, today=TODAY).init(BOT)
    return h


@pytest.fixture
def ws(home: Home) -> Path:
    return home.workspace(BOT)
