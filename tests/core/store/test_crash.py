"""Crash safety: a failure at any write step never tears a file or loses a line."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import pytest

from botmemory.core.disk.paths import ARCHIVE_FILE, MEMORY_FILE
from botmemory.core.notes import update
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor

from ..conftest import BOT, TODAY, entry

CALLS = ("write", "fsync", "replace", "close")


def full_text() -> str:
    start = date(2025, 1, 1)
    lines = ["Hand-written line"] + [entry((start + timedelta(days=i)).isoformat(), f"fact {i:03d}") for i in range(199)]
    return "\n".join(lines) + "\n"


def facts(text: str) -> set[str]:
    return {l.split(" · ")[2] for l in text.splitlines() if l.startswith("- 20") and "fact " in l}


class Injected(OSError):
    pass


def run_with_failure(monkeypatch, name: str, k: int, fn) -> bool:
    """Run fn with the k-th call of os.<name> failing. True when the failure fired."""
    real = getattr(os, name)
    count = {"n": 0}

    def failing(*a, **kw):
        count["n"] += 1
        if count["n"] == k:
            if name == "close":
                real(*a, **kw)  # the descriptor really closes; the error is what the caller sees
            raise Injected(f"injected failure of os.{name} call {k}")
        return real(*a, **kw)

    monkeypatch.setattr(os, name, failing)
    try:
        fn()
    except Injected:
        pass
    finally:
        monkeypatch.setattr(os, name, real)
    return count["n"] >= k


@pytest.mark.parametrize("name", CALLS)
def test_remember_with_archiving_survives_a_failure_at_every_step(tmp_path, monkeypatch, name):
    home = tmp_path / "home"
    mem = Memory.open(str(home), TODAY)
    mem.store.init(BOT)
    initial_mem = full_text()
    initial_arch = entry("2024-01-01", "archived long ago · moved 2024-02-01") + "\n"

    def reset():
        ws = mem.home.workspace(BOT)
        (ws / MEMORY_FILE).write_text(initial_mem)
        (ws / "memory" / "archive.md").write_text(initial_arch)

    reset()
    update.remember(mem.store, BOT, "brand new", Actor.person())
    done_mem = mem.store.text(BOT, MEMORY_FILE)
    done_arch = mem.store.text(BOT, ARCHIVE_FILE)
    assert done_mem != initial_mem and done_arch != initial_arch  # the call does archive

    fired = 0
    for k in range(1, 200):
        reset()
        if not run_with_failure(monkeypatch, name, k, lambda: update.remember(mem.store, BOT, "brand new", Actor.person())):
            break
        fired += 1
        m, a = mem.store.text(BOT, MEMORY_FILE), mem.store.text(BOT, ARCHIVE_FILE)
        assert m in (initial_mem, done_mem), f"MEMORY.md torn after os.{name} #{k}"
        assert a in (initial_arch, done_arch), f"archive torn after os.{name} #{k}"
        assert facts(initial_mem) <= facts(m) | facts(a), f"a line is out of both files after os.{name} #{k}"
        leftovers = [p.name for p in mem.home.workspace(BOT).rglob("*.botmemory.tmp")]
        assert not leftovers, leftovers
    assert fired >= 2, f"os.{name} was called fewer than twice"


WRITER = r"""
import sys
from botmemory.core.notes import update
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor
mem = Memory.open(sys.argv[1], "2026-10-15")
i = 0
while True:
    update.remember(mem.store, "scout", f"loop fact {i:05d}", Actor.person())
    print(i, flush=True)
    i += 1
"""


def check_home(home: Path, initial: set[str]) -> None:
    mem = Memory.open(str(home), TODAY)
    m = mem.store.text(BOT, MEMORY_FILE)
    a = mem.store.text(BOT, ARCHIVE_FILE)
    for text in (m, a):
        assert text == "" or text.endswith("\n"), "a file ends mid-line: torn"
    assert initial <= facts(m) | facts(a)


def kill_rounds(tmp_path: Path, rounds: int, seed: int = 7) -> tuple[int, int]:
    """SIGKILL a remember-in-a-loop writer *rounds* times; check the files after each kill.

    Returns how many kills there were and how many landed mid-write (a temp
    file was left behind). benchmarks/bench_crash.py runs it hundreds of times.
    """
    rng = random.Random(seed)
    home = tmp_path / "home"
    mem = Memory.open(str(home), TODAY)
    mem.store.init(BOT)
    (mem.home.workspace(BOT) / MEMORY_FILE).write_text(full_text())
    initial = facts(full_text())
    killed = mid_write = 0
    for _ in range(rounds):
        p = subprocess.Popen([sys.executable, "-c", WRITER, str(home)], stdout=subprocess.PIPE, text=True)
        assert p.stdout is not None
        p.stdout.readline()  # it is writing
        time.sleep(rng.uniform(0, 0.05))
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close()
        killed += 1
        mid_write += bool(list(mem.home.workspace(BOT).rglob("*.botmemory.tmp")))
        check_home(home, initial)
    # the next writer cleans what a killed one left behind
    update.remember(Memory.open(str(home), TODAY).store, BOT, "after the storm", Actor.person())
    assert not list(mem.home.workspace(BOT).rglob("*.botmemory.tmp"))
    return killed, mid_write


def test_sigkill_a_writer_at_random_moments(tmp_path):
    assert kill_rounds(tmp_path, rounds=20)[0] == 20


@pytest.mark.parametrize("name", CALLS)
def test_remember_appending_to_a_large_archive_survives_a_failure_at_every_step(tmp_path, monkeypatch, name):
    """Past update.ARCHIVE_APPEND_OVER the archive is appended to in place: still never a line out of both."""
    home = tmp_path / "home"
    mem = Memory.open(str(home), TODAY)
    mem.store.init(BOT)
    initial_mem = full_text()
    old = entry("2024-01-01", "archived long ago · moved 2024-02-01") + "\n"
    initial_arch = old * (update.ARCHIVE_APPEND_OVER // len(old) + 10)
    ws = mem.home.workspace(BOT)

    def reset():
        (ws / MEMORY_FILE).write_text(initial_mem)
        (ws / "memory" / "archive.md").write_text(initial_arch)

    reset()
    update.remember(mem.store, BOT, "brand new", Actor.person())
    done_mem = mem.store.text(BOT, MEMORY_FILE)
    assert done_mem != initial_mem

    fired = 0
    for k in range(1, 200):
        reset()
        if not run_with_failure(monkeypatch, name, k, lambda: update.remember(mem.store, BOT, "brand new", Actor.person())):
            break
        fired += 1
        m, a = mem.store.text(BOT, MEMORY_FILE), (ws / "memory" / "archive.md").read_text()
        assert m in (initial_mem, done_mem), f"MEMORY.md torn after os.{name} #{k}"
        assert a.startswith(initial_arch), f"the archive lost its text after os.{name} #{k}"
        assert facts(initial_mem) <= facts(m) | facts(a), f"a line is out of both files after os.{name} #{k}"
    assert fired >= 1, f"os.{name} was never called"
