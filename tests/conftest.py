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


@pytest.fixture(autouse=True)
def no_thread_leaks():
    """Every thread a test starts must be gone when it ends (watchdog's habit)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 5
    while True:
        extra = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
        if not extra or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not extra, f"threads left running: {extra}"
