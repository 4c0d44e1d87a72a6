"""Link-safe file access, as ratios against a baseline measured in the same run.

    python benchmarks/bench_paths.py [--tiny]

1. read_file of a topic walked from the home (every folder opened O_NOFOLLOW) vs
   read_file with only the file itself checked (the old way), 1,000 topics.
2. a scan (``watch --once``) of 1,000 changed topics: reading through Folders
   (each folder opened once, O_NOFOLLOW) vs the same scan reading by plain path.
3. ``remember`` that archives into a 20 MB archive (appended in place) vs into a
   100 KB archive (rewritten whole, the path under 1 MB).
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.disk.safeio import Folders, read_file
from botmemory.core.notes import update
from botmemory.core.outside.turns import scan
from botmemory.core.store.memory import Memory
from botmemory.core.store.shadows import _stat
from botmemory.core.store.writer import Actor

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import full_memory, median, sized  # noqa: E402 - the benchmarks' shared helpers

BOT = "scout"
TODAY = "2026-10-15"


def main() -> None:
    base = Path(tempfile.mkdtemp(prefix="bench-paths-"))
    try:
        mem = Memory.open(str(base / "home"), TODAY)
        mem.store.init(BOT)
        ws = mem.home.workspace(BOT)
        n = sized(1000, 10)
        files = [ws / "memory" / f"topic {i}.md" for i in range(n)]
        for p in files:
            p.write_text("- a note about something\n" * 20)
        rows = []
        runs = sized(5, 1)
        old = median(lambda: [read_file(p) for p in files], runs)
        new = median(lambda: [read_file(p, mem.home.root) for p in files], runs)
        rows.append((f"read {n:,} topics", old, new))

        scan(mem)  # the baseline

        def touch() -> None:
            for i, p in enumerate(files):
                p.write_text(f"- changed {time.time_ns()} {i}\n")

        scanned = median(lambda: scan(mem), sized(3, 1), touch)
        real_read, real_lstat = Folders.read, Folders.lstat
        Folders.read = lambda self, p: read_file(p)                       # type: ignore[method-assign]
        Folders.lstat = lambda self, p: _stat(p)                          # type: ignore[method-assign]
        try:
            unwalked = median(lambda: scan(mem), sized(3, 1), touch)
        finally:
            Folders.read, Folders.lstat = real_read, real_lstat            # type: ignore[method-assign]
        rows.append((f"scan {n:,} changed topics (walk vs none)", unwalked, scanned))

        arch = ws / "memory" / "archive.md"
        line = '- 2024-01-01 · from chat "Plans" · an old note · moved 2024-02-01\n'

        def setup(size: int) -> Callable[[], None]:
            def go() -> None:
                (ws / MEMORY_FILE).write_text(full_memory())
                arch.write_text(line * (size // len(line)))
            return go

        # the big archive stays past update.ARCHIVE_APPEND_OVER (1 MB) even when tiny: the append-in-place path
        big_size = sized(20_000_000, 2_000_000)
        small = median(lambda: update.remember(mem.store, BOT, "brand new", Actor.person()), runs, setup(100_000))
        big = median(lambda: update.remember(mem.store, BOT, "brand new", Actor.person()), runs, setup(big_size))
        rows.append((f"remember into a {big_size // 1_000_000} MB archive vs 100 KB", small, big))

        print(f"{'case':<44} {'baseline ms':>12} {'measured ms':>12} {'ratio':>7}")
        for name, a, b in rows:
            print(f"{name:<44} {a * 1000:>12.2f} {b * 1000:>12.2f} {b / a:>7.2f}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
