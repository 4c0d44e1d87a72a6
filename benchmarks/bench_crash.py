"""SIGKILL a writer at random moments, hundreds of times, and check nothing is torn or lost.

    python benchmarks/bench_crash.py [ROUNDS] [--tiny]

A subprocess runs `remember` in a loop on a full MEMORY.md (so every call
archives an entry); it is killed after a random delay. After every kill: no
file ends mid-line, every fact that was in MEMORY.md is in MEMORY.md or the
archive, and the next writer removes what the killed one left behind. The
harness is the test suite's (tests/core/store/test_crash.py runs 20 rounds); this
runs it at length and prints a table.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import sized  # noqa: E402 - the benchmarks' shared helpers

from tests.core.store.test_crash import kill_rounds  # noqa: E402


def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        killed, mid_write = kill_rounds(Path(tmp), rounds, seed=2026)  # raises on any violation
        elapsed = time.perf_counter() - t0
    print(f"{'kills':>6} {'mid-write':>10} {'violations':>11} {'seconds':>8}")
    print(f"{killed:>6} {mid_write:>10} {0:>11} {elapsed:>8.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else sized(300, 3))
