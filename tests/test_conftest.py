"""The shared thread-leak check catches what it is for: a watcher started and never stopped."""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from botmemory.core import Memory, Watcher

from .conftest import REAL_HOME, TEST_HOME, leaked_threads


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


def test_the_tests_run_in_a_home_of_their_own():
    """Subprocesses and editors the tests start inherit a HOME that is not the person's."""
    real = pwd.getpwuid(os.getuid()).pw_dir
    assert os.environ["HOME"] == TEST_HOME and os.path.realpath(TEST_HOME) != os.path.realpath(real)
    assert REAL_HOME != TEST_HOME
    for xdg in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        assert os.environ[xdg].startswith(TEST_HOME + os.sep)
    assert Path.home() == Path(TEST_HOME)


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
def test_vim_started_by_a_test_keeps_its_viminfo_out_of_the_real_home(tmp_path):
    real = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".viminfo"
    before = real.stat().st_mtime_ns if real.exists() else None
    note = tmp_path / "note.md"
    note.write_text("- a note\n")
    subprocess.run(["vim", "-Es", "-u", "NONE", "-N", "-c", "call append('$', 'more')", "-c", "wq", str(note)],
                   check=True, stdin=subprocess.DEVNULL, timeout=30)
    assert (Path(TEST_HOME) / ".viminfo").exists()
    assert (real.stat().st_mtime_ns if real.exists() else None) == before
