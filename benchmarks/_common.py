"""Helpers the benchmark scripts share (each script puts its own folder on sys.path to import this)."""
from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import date, timedelta


def median(fn: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None) -> float:
    """Median of *repeat* timed runs of *fn* (seconds; *setup* runs before each, untimed)."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def full_memory() -> str:
    """A MEMORY.md of 200 dated entry lines."""
    start = date(2025, 1, 1)
    return "".join(f'- {(start + timedelta(days=i)).isoformat()} · from chat "Plans" · fact {i:03d} '
                   + "words " * 8 + "\n" for i in range(200))


def core_text() -> str:
    """A hand-written MEMORY.md heading and dated core facts, as many as fit in 24 KB."""
    start = date(2026, 1, 1)
    core = ["# What I know", "Written by hand: call me Sam"]
    core += [f'- {(start + timedelta(days=i)).isoformat()} · from chat "Bench" · core fact {i} ' + "x" * 60
             for i in range(199)]
    text = "\n".join(core) + "\n"
    while len(text.encode("utf-8")) > 24 * 1024:
        core.pop()
        text = "\n".join(core) + "\n"
    return text


def desktop_args() -> argparse.Namespace:
    """The arguments of a benchmark that starts the app in child processes: ``--child KIND ROOT EXTRA``, ``--quick``."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs="+")
    ap.add_argument("--quick", action="store_true")
    return ap.parse_args()


def run_child(child: list[str], start: Callable[[str, float], None], idle: Callable[[str, str], None]) -> int:
    """Run the child process's part: ``start`` (ROOT, the parent's start time) or else ``idle`` (ROOT, EXTRA)."""
    kind, root, extra = child
    if kind == "start":
        start(root, float(extra))
    else:
        idle(root, extra)
    return 0
