from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from botmemory.core.memory import Memory

TODAY = "2026-10-15"
BOT = "scout"


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = Memory.open(str(tmp_path / "home"), TODAY)
    m.store.init(BOT)
    return m


@pytest.fixture
def ws(mem: Memory) -> Path:
    return mem.home.workspace(BOT)


def entry(day: str, text: str, chat: str = "Plans") -> str:
    return f'- {day} · from chat "{chat}" · {text}'


def d(text: str) -> date:
    return date.fromisoformat(text)
