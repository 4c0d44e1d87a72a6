"""Helpers the benchmark scripts share (each script puts its own folder on sys.path to import this).

Tiny mode: every script takes ``--tiny`` (or runs with ``BOTMEMORY_BENCH_TINY=1``) and then runs the same code
paths at the smallest size — a few items, one run, short waits — in seconds, so that the test suite can run
it (tests/test_benchmarks.py) and a benchmark cannot rot. Importing this module takes ``--tiny`` out of
``sys.argv`` (so the script's own argument parsing never sees it) and sets ``BOTMEMORY_BENCH_TINY=1`` in the
environment, so the script's child processes (the desktop benchmarks' ``--child`` runs) are tiny too. A tiny
run's figures mean nothing: its targets are printed but never make it exit non-zero (see :func:`verdict`).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any, TypeVar

T = TypeVar("T")
TINY_ENV = "BOTMEMORY_BENCH_TINY"


def _tiny() -> bool:
    if "--tiny" in sys.argv[1:]:
        sys.argv[1:] = [a for a in sys.argv[1:] if a != "--tiny"]
        os.environ[TINY_ENV] = "1"
    return os.environ.get(TINY_ENV) == "1"


TINY = _tiny()
"""True in tiny mode (``--tiny`` or ``BOTMEMORY_BENCH_TINY=1``)."""


def _compiled() -> None:
    """Time botmemory as it is installed: its modules' bytecode written first. Under
    ``PYTHONDONTWRITEBYTECODE`` (set in some shells and CI images) every process would compile each module
    changed since its bytecode was last written — tens of milliseconds no installed copy pays."""
    import compileall
    import importlib.util

    for name in ("botmemory.core", "botmemory.desktop"):
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            compileall.compile_dir(folder, quiet=2)


if not TINY:
    _compiled()


def sized(full: T, tiny: T) -> T:
    """*tiny* in tiny mode, else *full*: ``files = sized(2000, 10)``."""
    return tiny if TINY else full


def tiny_defaults(ap: argparse.ArgumentParser, **defaults: Any) -> argparse.ArgumentParser:
    """In tiny mode, the parser's defaults become *defaults* (an option given on the command line still wins)."""
    if TINY:
        ap.set_defaults(**defaults)
    return ap


def verdict(ok: bool) -> int:
    """The exit status of a script that judges its figures against targets: 1 when one was missed, but never in
    tiny mode (a tiny run's timings say nothing; what it checks is that the code runs and its own asserts hold)."""
    return 0 if ok or TINY else 1


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
