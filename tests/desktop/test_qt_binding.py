"""The Qt binding does not corrupt reference counts (PySide6 6.12.0 does: see pyproject's pin).

PySide6 6.12.0 drops a reference to ``True`` on every ``Signal.emit()`` and to
``None`` on every Python ``QRunnable.run()``; a tray app that runs for a day
emits enough signals to free ``True`` and crash. These checks fail on such a
version before the app does.
"""
from __future__ import annotations

import sys

from PySide6.QtCore import QObject, QThreadPool, Signal


class _Emitter(QObject):
    fired = Signal(object)


def test_emit_keeps_reference_counts(qtbot):
    e = _Emitter()
    e.fired.connect(lambda _v: None)
    true_before, none_before = sys.getrefcount(True), sys.getrefcount(None)
    for _ in range(50):
        e.fired.emit((1, True))
    assert sys.getrefcount(True) - true_before > -5, "Signal.emit() loses references to True"
    assert sys.getrefcount(None) - none_before > -5


def test_pool_runs_keep_reference_counts(qtbot):
    pool = QThreadPool()
    none_before = sys.getrefcount(None)
    for _ in range(50):
        pool.start(lambda: None)
    pool.waitForDone()
    assert sys.getrefcount(None) - none_before > -5, "QThreadPool runs lose references to None"
