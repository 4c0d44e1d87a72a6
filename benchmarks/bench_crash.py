"""SIGKILL a writer at random moments, hundreds of times, and check nothing is torn or lost.

    python benchmarks/bench_crash.py [ROUNDS]

A subprocess runs `remember` in a loop on a full MEMORY.md (so every call
archives an entry); it is killed after a random delay. After every kill:
no file ends mid-line, every fact that was ever in MEMORY.md is in MEMORY.md or
the archive, and the next writer removes what the killed one left behind.
Prints a table: rounds, kills that landed mid-write (a temp file was left),
and violations (must be 0).
"""
from __future__ import annotations

import random
import signal
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from botmemory.core import update
from botmemory.core.paths import ARCHIVE_FILE, MEMORY_FILE
from botmemory.core.service import Memory
from botmemory.core.store import Actor

BOT = "scout"
TODAY = "2026-10-15"
WRITER = r"""
import sys
from botmemory.core import update
from botmemory.core.service import Memory
from botmemory.core.store import Actor
mem = Memory.open(sys.argv[1], "2026-10-15")
i = 0
while True:
    update.remember(mem.store, "scout", f"loop fact {i:05d}", Actor.person())
    print(i, flush=True)
    i += 1
"""


def facts(text: str) -> set[str]:
    return {line.split(" · ")[2] for line in text.splitlines() if line.startswith("- 20")}


def main(rounds: int) -> int:
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        mem = Memory.open(str(home), TODAY)
        mem.store.init(BOT)
        start = date(2025, 1, 1)
        lines = [f'- {(start + timedelta(days=i)).isoformat()} · from cli · fact {i:03d}' for i in range(200)]
        (mem.home.workspace(BOT) / MEMORY_FILE).write_text("\n".join(lines) + "\n")
        seen = facts("\n".join(lines))
        mid_write = violations = 0
        t0 = time.perf_counter()
        for _ in range(rounds):
            p = subprocess.Popen([sys.executable, "-c", WRITER, str(home)], stdout=subprocess.PIPE, text=True)
            assert p.stdout is not None
            p.stdout.readline()
            time.sleep(rng.uniform(0, 0.03))
            p.send_signal(signal.SIGKILL)
            p.wait()
            p.stdout.close()
            ws = mem.home.workspace(BOT)
            if list(ws.rglob("*.botmemory.tmp")):
                mid_write += 1
            m = (ws / MEMORY_FILE).read_text()
            a = (ws / ARCHIVE_FILE).read_text() if (ws / ARCHIVE_FILE).exists() else ""
            ok = all(t == "" or t.endswith("\n") for t in (m, a)) and seen <= facts(m) | facts(a)
            violations += not ok
            seen |= facts(m)
        update.remember(Memory.open(str(home), TODAY).store, BOT, "after the storm", Actor.person())
        left = len(list(mem.home.workspace(BOT).rglob("*.botmemory.tmp")))
        elapsed = time.perf_counter() - t0
    print(f"{'rounds':>8} {'killed mid-write':>17} {'violations':>11} {'temps left after next write':>28} {'seconds':>8}")
    print(f"{rounds:>8} {mid_write:>17} {violations:>11} {left:>28} {elapsed:>8.1f}")
    return 1 if violations or left else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 300))
