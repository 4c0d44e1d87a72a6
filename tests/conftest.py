"""Shared test set-up: headless Qt, and no thread may outlive its test."""
from __future__ import annotations

import os
import threading
import time

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("OPENMAUSBOT_HOME", None)
os.environ.pop("BOTMEMORY_TODAY", None)
os.environ.pop("OMB_HELPER_INSTANCE", None)
os.environ.pop("OMB_HELPER_MODEL", None)


def leaked_threads(before: set[threading.Thread], wait: float = 5.0) -> list[threading.Thread]:
    """Threads alive now that were not in *before*, after waiting up to *wait* seconds for them to end.

    Daemon threads count too: the live watcher's thread and watchdog's observer
    and emitters are daemons, and one left running keeps writing after its test.
    A thread Python did not start (Qt's pool calling into Python shows up as a
    ``_DummyThread``, which ``threading`` never forgets) is Qt's to manage.
    """
    deadline = time.monotonic() + wait
    while True:
        extra = [t for t in threading.enumerate()
                 if t not in before and t.is_alive() and not isinstance(t, threading._DummyThread)]
        if not extra or time.monotonic() > deadline:
            return extra
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def no_thread_leaks():
    """Every thread a test starts (daemon or not, watchdog observers included) must be gone when it ends."""
    before = set(threading.enumerate())
    yield
    extra = leaked_threads(before)
    assert not extra, f"threads left running: {extra}"
