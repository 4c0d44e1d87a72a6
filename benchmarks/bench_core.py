"""Core speed, as ratios against a baseline measured in the same run.

    python benchmarks/bench_core.py [--tiny]

1. ``remember`` with archiving on a full MEMORY.md vs two bare atomic writes of
   the same bytes (target ≤ 3×) — with the store alone, and with the journal and
   shadow copies wired as the CLI runs it; and the floor of the second: the same two writes with only
   what its write-ahead record and journal row cost on disk (their bytes appended and fsynced, no Python).
2. gauge + load of a 1 MB MEMORY.md vs a plain read and splitlines (target ≤ 10×).
3. ``botmemory gauge`` as a whole process vs ``python3 -c pass`` (target ≤ 3×).
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from botmemory.core.disk.paths import ARCHIVE_FILE, MEMORY_FILE
from botmemory.core.disk.safeio import atomic_write
from botmemory.core.notes import update
from botmemory.core.notes.loader import load_block
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor, Store
from botmemory.core.text import budget

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import full_memory, median, sized  # noqa: E402 - the benchmarks' shared helpers

BOT = "scout"
TODAY = "2026-10-15"


def bench_remember(root: Path) -> list[tuple[str, float, float, str]]:
    rows = []
    initial = full_memory()
    for label, wired in (("store only", False), ("with journal + shadows", True)):
        home = root / f"home-{wired}"
        mem = Memory.open(str(home), TODAY)
        store: Store = mem.store if wired else Store(mem.home, mem.store.today)
        store.init(BOT)
        ws = mem.home.workspace(BOT)
        counter = [0]

        def setup() -> None:
            # Through the store, so the timed write finds no outside change to record first (with the journal
            # wired, a reset made behind its back would add an "outside" row to every timed remember).
            store.write(BOT, MEMORY_FILE, initial, Actor.person())
            store.write(BOT, ARCHIVE_FILE, "", Actor.person())

        def run() -> None:
            counter[0] += 1
            r = update.remember(store, BOT, f"a brand new fact {counter[0]}", Actor.person())
            assert r.moved_count == 1

        t_remember = median(run, sized(40, 1), setup)
        new_mem = store.text(BOT, MEMORY_FILE).encode()
        new_arch = store.text(BOT, ARCHIVE_FILE).encode()
        t_bare = median(lambda: (atomic_write(ws / "bare-a.md", new_arch), atomic_write(ws / "bare-m.md", new_mem)), sized(40, 1))
        rows.append((f"remember with archiving ({label})", t_remember, t_bare, "≤ 3×"))
        if wired:   # the floor: the last remember's two rows, appended durably twice (intents, journal)
            record = b"".join(mem.journal.active(BOT).read_bytes().splitlines(keepends=True)[-2:])

            def floor() -> None:
                atomic_write(ws / "bare-a.md", new_arch)
                atomic_write(ws / "bare-m.md", new_mem)
                for name in ("bare-intents", "bare-journal"):
                    fd = os.open(ws / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                    try:
                        os.write(fd, record)
                        os.fsync(fd)
                    finally:
                        os.close(fd)

            rows.append(("  its floor: the two writes + rows appended, fsynced", median(floor, sized(40, 1)), t_bare,
                         "(info)"))
    return rows


def bench_gauge_load(root: Path) -> tuple[str, float, float, str]:
    mem = Memory.open(str(root / "home-big"), TODAY)
    mem.store.init(BOT)
    line = '- 2025-01-01 · from chat "Plans" · ' + "a fact with some words in it " * 3 + "\n"
    text = line * (sized(1024 * 1024, 16 * 1024) // len(line.encode()))
    (mem.home.workspace(BOT) / MEMORY_FILE).write_text(text, encoding="utf-8")
    path = mem.home.workspace(BOT) / MEMORY_FILE

    def ours() -> None:
        budget.gauge(mem.store.text(BOT, MEMORY_FILE))
        load_block(mem, BOT)

    def plain() -> None:
        path.read_text(encoding="utf-8").splitlines()

    return (f"gauge + load of a {sized('1 MB', '16 KB')} MEMORY.md", median(ours, sized(20, 1)),
            median(plain, sized(20, 1)), "≤ 10×")


def _cpu(cmd: list[str]) -> float:
    """The CPU time (user + system) of one run of *cmd*: what a busy machine disturbs less than wall time."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def bench_process(root: Path) -> list[tuple[str, float, float, str]]:
    """A full MEMORY.md (200 lines, ~19 KB) and a few topics: what a real home's gauge reads. Wall time and CPU
    time, the two processes taking turns."""
    exe = shutil.which("botmemory", path=os.path.dirname(sys.executable)) or "botmemory"
    mem = Memory.open(str(root / "home-process"), TODAY)
    mem.store.init(BOT)
    (mem.home.workspace(BOT) / MEMORY_FILE).write_text(full_memory(), encoding="utf-8")
    for i in range(5):
        (mem.home.workspace(BOT) / "memory" / f"topic-{i}.md").write_text(f"---\ntitle: Topic {i}\n---\n- a note\n")
    home = str(mem.home.root)
    gauge, bare = [exe, "--root", home, "gauge", BOT], [sys.executable, "-c", "pass"]
    ours = median(lambda: subprocess.run(gauge, check=True, capture_output=True), sized(15, 1))
    base = median(lambda: subprocess.run(bare, check=True, capture_output=True), sized(15, 1))
    cpu_ours, cpu_base = [], []
    for _ in range(sized(15, 1)):
        cpu_ours.append(_cpu(gauge))
        cpu_base.append(_cpu(bare))
    return [("`botmemory gauge` as a process (venv's python -c pass)", ours, base, "≤ 3×"),
            ("the same, CPU time", statistics.median(cpu_ours), statistics.median(cpu_base), "≤ 3×")]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rows = [*bench_remember(root), bench_gauge_load(root), *bench_process(root)]
    print(f"{'measure':56} {'ours':>10} {'baseline':>10} {'ratio':>7}  target")
    for name, ours, base, target in rows:
        print(f"{name:56} {ours * 1000:8.2f}ms {base * 1000:8.2f}ms {ours / base:6.2f}×  {target}")


if __name__ == "__main__":
    main()
