"""Shared test set-up: headless Qt, no thread may outlive its test, and the fixtures every suite uses.

tests/core/conftest.py and tests/desktop/conftest.py hold only what is their
own (the desktop's session and Qt helpers) and re-export these names for
``from .conftest import BOT``.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from botmemory.core import Memory

# Tests never touch the real home: HOME (and the XDG folders under it) is a folder of the test run's own, set
# before anything is imported, so every subprocess and editor a test starts inherits it (vim wrote ~/.viminfo into
# the real home once). The real one is kept for the test that checks this.
REAL_HOME = os.environ.get("HOME", "")
# the differential suite's agents are a cache kept between runs, on purpose: still the real home's, unless set
os.environ.setdefault("BOTMEMORY_CONFORMANCE_CACHE", os.path.join(REAL_HOME, ".cache", "botmemory-conformance"))
TEST_HOME = tempfile.mkdtemp(prefix="botmemory-tests-home-")
os.environ["HOME"] = TEST_HOME
for _xdg, _sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                   ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")):
    os.environ[_xdg] = os.path.join(TEST_HOME, _sub)
os.environ.pop("CLAUDE_CONFIG_DIR", None)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("OPENMAUSBOT_HOME", None)
os.environ.pop("BOTMEMORY_TODAY", None)
os.environ.pop("OMB_HELPER_INSTANCE", None)
os.environ.pop("OMB_HELPER_MODEL", None)


# Hypothesis profiles: "ci" (the default: each property test runs the examples it asks for) and "thorough"
# (ten times as many), chosen with `./dev test --hypothesis-profile=thorough` or HYPOTHESIS_PROFILE.
# A property test asks with @settings(max_examples=examples(N)), so the profile scales every test alike.
settings.register_profile("ci", deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("thorough", parent=settings.get_profile("ci"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def examples(n: int) -> int:
    """*n* examples under the "ci" profile, scaled by the profile loaded (×10 under "thorough")."""
    return max(1, n * settings.default.max_examples // 100)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The test run's home goes with it."""
    shutil.rmtree(TEST_HOME, ignore_errors=True)


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


# ----- the shared home

TODAY = "2026-10-15"
BOT = "scout"
OTHER = "ledger"


def entry(day: str, text: str, chat: str = "Plans") -> str:
    return f'- {day} · from chat "{chat}" · {text}'


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every folder (as ``name/``: None) and file (its bytes) below *folder*, to compare before and after."""
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), folder) + "/"] = None
        for f in filenames:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, folder)] = Path(p).read_bytes()
    return out


def d(text: str) -> date:
    return date.fromisoformat(text)


def memory_text(lines: int, *, start_day: int = 1) -> str:
    """A MEMORY.md of *lines* dated entries (distinct, all movable)."""
    out = []
    for i in range(lines):
        day = f"2026-{1 + (i // 28) % 9:02d}-{1 + i % 28:02d}"
        out.append(entry(day, f"Fact number {i + start_day} about the launch plan"))
    return "\n".join(out) + "\n"


def open_home(root: Path, today: str = TODAY) -> Memory:
    """The home opened as the CLI and the app open it (with the journal wired as a store listener)."""
    return Memory.open(str(root), today)


@pytest.fixture
def home_bots() -> Sequence[str]:
    """The bots the `mem` fixture creates (tests/desktop/conftest.py adds a second one)."""
    return (BOT,)


@pytest.fixture
def mem(tmp_path: Path, home_bots: Sequence[str]) -> Memory:
    m = open_home(tmp_path / "home")
    for bot in home_bots:
        m.store.init(bot)
    return m


@pytest.fixture
def ws(mem: Memory) -> Path:
    return mem.home.workspace(BOT)
