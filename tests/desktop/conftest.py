"""Shared fixtures of the desktop tests: a real home in tmp_path, a session over it, helpers to wait."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from botmemory.core import Memory

from ..conftest import BOT, OTHER, TODAY, entry, memory_text, open_home

__all__ = ["BOT", "OTHER", "TODAY", "delete", "drain", "entry", "idle", "memory_text", "open_home"]


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
def home_bots() -> Sequence[str]:
    """The desktop tests' home has two bots."""
    return (BOT, OTHER)


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


def drain(session) -> None:
    """Run every task the session has and will submit, and deliver their callbacks, with no clock: the worker's
    pools are waited on (a task always ends), then the queued results are delivered on this thread, until nothing
    is left. However loaded the machine, this waits exactly as long as the work takes (pytest-timeout bounds a
    hang). Then the layouts the results asked for are done."""
    from PySide6.QtCore import QCoreApplication, QEvent

    app = QCoreApplication.instance()
    assert app is not None
    while True:
        session.worker.wait()
        QCoreApplication.sendPostedEvents()
        app.processEvents()
        if not session.worker.busy:
            break
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


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
