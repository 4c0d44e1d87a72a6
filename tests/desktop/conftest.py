"""Shared fixtures of the desktop tests: a real home in tmp_path, a session over it, helpers to wait."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from botmemory.core.service import Memory

TODAY = "2026-10-15"
BOT = "scout"
OTHER = "ledger"


def entry(day: str, text: str, chat: str = "Plans") -> str:
    return f'- {day} · from chat "{chat}" · {text}'


def memory_text(lines: int, *, start_day: int = 1) -> str:
    """A MEMORY.md of *lines* dated entries (distinct, all movable)."""
    out = []
    for i in range(lines):
        day = f"2026-{1 + (i // 28) % 9:02d}-{1 + i % 28:02d}"
        out.append(entry(day, f"Fact number {i + start_day} about the launch plan"))
    return "\n".join(out) + "\n"


def open_home(root: Path, today: str = TODAY) -> Memory:
    """The home opened as the app opens it (with the journal wired as a store listener)."""
    return Memory.open(str(root), today)


@pytest.fixture(autouse=True)
def no_real_agent_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The app looks for Claude Code, OpenClaw and Hermes folders under ``~``: never the real one in a test."""
    user = tmp_path / "user-home"
    user.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(user))
    for k in ("CLAUDE_CONFIG_DIR", "OPENCLAW_STATE_DIR", "HERMES_HOME"):
        monkeypatch.delenv(k, raising=False)
    return user


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = open_home(tmp_path / "home")
    m.store.init(BOT)
    m.store.init(OTHER)
    return m


@pytest.fixture
def session(qtbot, mem: Memory) -> Iterator:
    from botmemory.desktop.session import Session

    s = Session(mem, live=False, upkeep=False, today_fixed=True)
    yield s
    s.stop()
    delete(s)


def delete(obj) -> None:
    """Destroy a Python-owned QObject now, on this (the UI) thread.

    Left to Python, a QObject caught in a reference cycle is destroyed whenever
    the cyclic garbage collector runs — possibly on a worker thread, which Qt
    does not allow.
    """
    from shiboken6 import Shiboken

    if Shiboken.isValid(obj):
        Shiboken.delete(obj)


def idle(qtbot, session) -> None:
    """Wait until every submitted task has run and its callback was delivered."""
    qtbot.waitUntil(lambda: not session.worker.busy, timeout=10_000)


QT_NOISE = (
    # the offscreen platform plugin says this whenever a top-level window is shown
    r"This plugin does not support propagateSizeHints\(\)",
    r"This plugin does not support raise\(\)",
    # QSystemTrayIcon on a platform without a tray
    r"No such signal QPlatformNativeInterface::systemTrayWindowChanged",
)


def pytest_collection_modifyitems(items):
    here = str(Path(__file__).parent)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.qt_log_ignore(*QT_NOISE))
