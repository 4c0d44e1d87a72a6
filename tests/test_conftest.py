"""The shared thread-leak check catches what it is for: a watcher started and never stopped."""
from __future__ import annotations

import threading

from botmemory.core import Memory, Watcher

from .conftest import leaked_threads


def test_a_started_and_never_stopped_watcher_is_a_leak(tmp_path):
    mem = Memory.open(str(tmp_path / "home"), "2026-10-15")
    mem.store.init("scout")
    before = set(threading.enumerate())
    w = Watcher(mem)
    w.start()
    try:
        extra = leaked_threads(before, wait=0.2)
        names = {t.name for t in extra}
        assert "botmemory-watcher" in names                               # the watcher's own (daemon) thread
        assert any(type(t).__module__.startswith("watchdog.") for t in extra)   # and watchdog's observer
    finally:
        w.stop()
    assert leaked_threads(before) == []
