"""How fast and how small is the journal, and how fast does the watcher record outside edits?

Prints one table, each figure against its target:

1. the newest 50 rows from a 100,000-row journal vs from a 1,000-row journal
   (``Journal.list``, median of N; target ≤ 2×). Both are measured with the
   active segment at the same fill, and again right after a rotation (the
   newest rows then come from a compressed segment);
2. journal bytes on disk after 10,000 edits of a 24 KB MEMORY.md, every row
   still undoable (checked: each row's earlier text is the text before that
   edit; a sample is really undone), vs the same rows with full texts inline
   (target ≤ 5 %). The rows are made by the same ``make_row`` the store's
   listener uses and appended one by one, as edits would be (without fsync,
   which changes nothing on disk but the time it takes);
3. outside save → row latency over 200 saves into MEMORY.md while the live
   watcher runs (p50 / p95; target p95 ≤ 1 s);
4. 1,000 topic files rewritten at once → 1,000 rows, none lost (target ≤ 10 s);
5. ``watch --once`` over 2,000 unchanged files, in-process and as the CLI
   (target ≤ 300 ms).

    .venv/bin/python benchmarks/bench_journal.py [--quick] [--keep] [--tiny]

``--tiny``: journals of 100 and 300 rows, 30 edits, 3 saves, 20 files, one run each (a test of the script).

Folders are made under /var/tmp (not /tmp, which may be a RAM disk).
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from botmemory.core.disk.safeio import text_hash
from botmemory.core.outside.turns import scan
from botmemory.core.outside.watcher import Watcher
from botmemory.core.store.journal import Journal, Row, make_row
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor, Change, new_change_id

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import sized, verdict  # noqa: E402 - the benchmarks' shared helpers

BOT = "bench"
WORDS = [
    "person", "prefers", "short", "replies", "lives", "in", "Pune", "works", "at", "Acme", "likes", "tomatoes",
    "garden", "project", "launch", "friday", "invoice", "client", "meeting", "travel", "Berlin", "vegetarian",
    "coffee", "morning", "standup", "review", "deploy", "release", "notes", "budget", "flight", "hotel", "dentist",
    "birthday", "sister", "quarterly", "report", "draft", "contract", "renewal",
]
RESULTS: list[tuple[str, str, str, bool]] = []


def line(rng: random.Random, i: int, day: datetime) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18)))
    return f'- {day:%Y-%m-%d} · from chat "Plans {i % 17}" · {words} (note {i})\n'


def report(what: str, figure: str, target: str, ok: bool) -> None:
    RESULTS.append((what, figure, target, ok))
    print(f"  {what}: {figure}  [{target}: {'ok' if ok else 'MISSED'}]", flush=True)


def home_dir(keep: bool) -> Path:
    base = "/var/tmp" if os.path.isdir("/var/tmp") else None
    return Path(tempfile.mkdtemp(prefix="bench-journal-", dir=base))


# ----- 1. newest 50 rows


def build_journal(root: Path, n: int, rng: random.Random) -> Journal:
    """A journal of *n* rows: edits of a few small topics and MEMORY.md, as a busy bot makes them."""
    mem = Memory.open(str(root), "2026-10-15")
    mem.store.init(BOT)
    journal = Journal(mem.home, durable=False)
    texts = {f: "".join(line(rng, i, datetime(2026, 1, 1)) for i in range(12))
             for f in ("MEMORY.md", "memory/garden.md", "memory/work.md", "memory/travel.md")}
    batch: list[Row] = []
    at = datetime(2026, 1, 1, tzinfo=UTC)
    for k in range(n):
        f = rng.choice(list(texts))
        before = texts[f]
        lines = before.splitlines(keepends=True)
        lines.append(line(rng, k, at))
        if len(lines) > 14:
            lines.pop(rng.randrange(len(lines) - 1))
        after = "".join(lines)
        texts[f] = after
        at += timedelta(seconds=1)
        c = Change(BOT, f, before, text_hash(before), after, text_hash(after), Actor.person(), at,
                   id=new_change_id(at))
        batch.append(make_row(c))
        if len(batch) == 200:
            journal.append(BOT, batch)
            batch = []
    journal.append(BOT, batch)
    return journal


def time_list(journal: Journal, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        rows = journal.list(BOT, limit=50)
        times.append(time.perf_counter() - t)
        assert len(rows) == 50
    return statistics.median(times)


def fill_active(journal: Journal, rows: int, rng: random.Random) -> None:
    """Rotate, then leave *rows* rows in the active segment (the same fill for both journals)."""
    if journal.active(BOT).exists():
        journal._rotate(BOT)
    at = datetime(2027, 1, 1, tzinfo=UTC)
    batch = []
    for k in range(rows):
        at += timedelta(seconds=1)
        text = "".join(line(rng, k + j, at) for j in range(12))
        c = Change(BOT, "MEMORY.md", text, text_hash(text), text + "x\n", text_hash(text + "x\n"),
                   Actor.person(), at, id=new_change_id(at))
        batch.append(make_row(c))
    journal.append(BOT, batch)


def bench_listing(base: Path, quick: bool) -> None:
    rng = random.Random(1)
    small_n, big_n = sized((1_000, 20_000 if quick else 100_000), (100, 300))
    print(f"1. newest 50 rows: building journals of {small_n:,} and {big_n:,} rows …", flush=True)
    t = time.perf_counter()
    small = build_journal(base / "small", small_n, rng)
    big = build_journal(base / "big", big_n, rng)
    print(f"   built in {time.perf_counter() - t:.1f} s; "
          f"{len(small.segments(BOT))} and {len(big.segments(BOT))} closed segments", flush=True)
    runs = sized(30, 1)
    for phase, fill in (("active segment holding 100 rows", 100), ("right after a rotation", 0)):
        fill_active(small, fill, rng)
        fill_active(big, fill, rng)
        a, b = time_list(small, runs), time_list(big, runs)
        report(f"newest 50 rows, {phase}: {small_n:,}-row journal {a * 1000:.2f} ms, "
               f"{big_n:,}-row journal {b * 1000:.2f} ms", f"{b / a:.2f}×", "≤ 2×", b / a <= 2)
    exe = Path(sys.executable).with_name("botmemory")
    if exe.exists():
        cli = []
        for root in (base / "small", base / "big"):
            ts = []
            for _ in range(sized(5, 1)):
                t = time.perf_counter()
                subprocess.run([str(exe), "--root", str(root), "journal", BOT, "--limit", "50", "--json"],
                               check=True, capture_output=True)
                ts.append(time.perf_counter() - t)
            cli.append(statistics.median(ts))
        report(f"`botmemory journal --limit 50 --json` (CLI, with start-up): {cli[0] * 1000:.0f} ms vs "
               f"{cli[1] * 1000:.0f} ms", f"{cli[1] / cli[0]:.2f}×", "≤ 2×", cli[1] / cli[0] <= 2)


# ----- 2. bytes on disk


def bench_size(base: Path, quick: bool) -> None:
    n = sized(2_000 if quick else 10_000, 30)
    print(f"2. journal size: {n:,} edits of a 24 KB MEMORY.md …", flush=True)
    rng = random.Random(2)
    mem = Memory.open(str(base / "size"), "2026-10-15")
    mem.store.init(BOT)
    mem.journal.durable = False   # the size does not depend on fsync; building is faster without it
    journal = mem.journal
    at = datetime(2026, 1, 1, tzinfo=UTC)
    lines = [line(rng, i, at) for i in range(400)]
    while sum(len(x.encode()) for x in lines) > 24_000:
        lines.pop(0)
    inline = 0
    expected: dict[str, str] = {}
    t = time.perf_counter()
    for k in range(n):
        before = "".join(lines)
        at += timedelta(minutes=7)
        lines.append(line(rng, 1000 + k, at))
        if rng.random() < 0.3:      # sometimes a line is struck or trimmed in the middle
            i = rng.randrange(len(lines) - 1)
            lines[i] = f"- ~~{lines[i][2:].rstrip()}~~ · superseded {at:%Y-%m-%d}\n"
        while sum(len(x.encode()) for x in lines) > 24_000:
            lines.pop(0)
        after = "".join(lines)
        c = Change(BOT, "MEMORY.md", before, text_hash(before), after, text_hash(after), Actor.bot("Plans"),
                   at, id=new_change_id(at))
        row = make_row(c)
        journal.append(BOT, [row])
        inline += len(row.line())
        expected[row.id] = before
    build = time.perf_counter() - t
    on_disk = journal.bytes_on_disk(BOT)
    rows = journal.list(BOT, limit=None)
    assert len(rows) == n, len(rows)
    assert all(r.undoable and r.earlier_text == expected[r.id] for r in rows), "a row lost its earlier text"
    for r in random.Random(3).sample(rows, 10):     # really undo a few, old ones included: by their own lines,
        left = r.later_text()                       # against the file as that row left it
        assert left is not None and text_hash(left) == r.after_hash, "a row lost its own lines"
        (mem.home.workspace(BOT) / "MEMORY.md").write_text(left)
        mem.undo(BOT, r.id)
        assert (mem.home.workspace(BOT) / "MEMORY.md").read_text() == expected[r.id]
    print(f"   {n:,} rows appended in {build:.1f} s ({len(journal.segments(BOT))} closed segments); "
          f"all {n:,} rows undoable, 10 undone", flush=True)
    report(f"journal bytes after {n:,} edits of a 24 KB MEMORY.md: {on_disk / 1e6:.2f} MB on disk vs "
           f"{inline / 1e6:.1f} MB with full texts inline", f"{on_disk / inline * 100:.2f} %", "≤ 5 %",
           on_disk / inline <= 0.05)


# ----- 3 and 4. the live watcher


class Rows:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.rows: list[tuple[float, Row]] = []

    def __call__(self, rows: list[Row]) -> None:
        now = time.perf_counter()
        with self.cond:
            self.rows.extend((now, r) for r in rows)
            self.cond.notify_all()

    def wait(self, n: int, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: len(self.rows) >= n, timeout)


def bench_latency(base: Path, quick: bool) -> None:
    saves = sized(50 if quick else 200, 3)
    print(f"3. outside save → row: {saves} saves while the watcher runs …", flush=True)
    mem = Memory.open(str(base / "latency"), "2026-10-15")
    mem.store.init(BOT)
    path = mem.home.workspace(BOT) / "MEMORY.md"
    got = Rows()
    watcher = Watcher(mem, got)
    watcher.start()
    lat = []
    rng = random.Random(4)
    text = ""
    try:
        for i in range(saves):
            text += line(rng, i, datetime(2026, 10, 15))
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            t = time.perf_counter()
            assert got.wait(i + 1, 10), f"save {i} was not recorded"
            lat.append(got.rows[i][0] - t)
            time.sleep(rng.uniform(0, 0.05))
    finally:
        watcher.stop()
    assert all(r.how == "outside" for _, r in got.rows) and len(got.rows) == saves
    q = statistics.quantiles(lat, n=20)
    report(f"outside save → row over {saves} saves: p50 {statistics.median(lat) * 1000:.0f} ms",
           f"p95 {q[18] * 1000:.0f} ms", "p95 ≤ 1 s", q[18] <= 1.0)


def bench_burst(base: Path, quick: bool) -> None:
    n = sized(1_000, 20)
    print(f"4. {n:,} files changed at once …", flush=True)
    mem = Memory.open(str(base / "burst"), "2026-10-15")
    mem.store.init(BOT)
    folder = mem.home.workspace(BOT) / "memory"
    for i in range(n):
        (folder / f"topic {i:04d}.md").write_text(f"# Topic {i}\n- first note\n")
    got = Rows()
    watcher = Watcher(mem, got)
    watcher.start()            # the baseline of the topics
    try:
        t = time.perf_counter()
        for i in range(n):
            (folder / f"topic {i:04d}.md").write_text(f"# Topic {i}\n- first note\n- second note {i}\n")
        written = time.perf_counter() - t
        ok = got.wait(n, 60)
        took = (got.rows[-1][0] if got.rows else time.perf_counter()) - t
    finally:
        watcher.stop()
    files = {r.file for _, r in got.rows}
    assert ok and len(got.rows) == n and len(files) == n, f"{len(got.rows)} rows for {len(files)} files"
    assert all("+- second note" in r.diff for _, r in got.rows)
    report(f"{n:,} files changed at once (written in {written:.2f} s): {len(got.rows):,} rows, none lost",
           f"{took:.2f} s", "≤ 10 s", took <= 10)


# ----- 5. watch --once


def bench_once(base: Path, quick: bool) -> None:
    n = sized(2_000, 20)
    print(f"5. watch --once over {n:,} unchanged files …", flush=True)
    root = base / "once"
    mem = Memory.open(str(root), "2026-10-15")
    mem.store.init(BOT)
    folder = mem.home.workspace(BOT) / "memory"
    rng = random.Random(5)
    old = time.time() - 3600
    for i in range(n):
        p = folder / f"note {i:04d}.md"
        p.write_text("".join(line(rng, j, datetime(2026, 1, 1)) for j in range(8)))
        os.utime(p, (old, old))
    assert scan(mem) == []        # the baseline
    assert scan(mem) == []
    times = []
    for _ in range(sized(10, 1)):
        m = Memory.open(str(root), "2026-10-15")   # a fresh process's view: nothing cached
        t = time.perf_counter()
        rows = scan(m)
        times.append(time.perf_counter() - t)
        assert rows == []
    report(f"watch --once over {n:,} unchanged files, in-process (median of {len(times)})",
           f"{statistics.median(times) * 1000:.0f} ms", "≤ 300 ms", statistics.median(times) <= 0.3)
    exe = Path(sys.executable).with_name("botmemory")
    if exe.exists():
        ts = []
        for _ in range(sized(5, 1)):
            t = time.perf_counter()
            subprocess.run([str(exe), "--root", str(root), "watch", "--once"], check=True, capture_output=True)
            ts.append(time.perf_counter() - t)
        py = []
        for _ in range(sized(5, 1)):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import botmemory.core.faces.cli"], check=True)
            py.append(time.perf_counter() - t)
        cli, start = statistics.median(ts), statistics.median(py)
        report(f"`botmemory watch --once` as a command (median of {len(ts)}; Python start-up and imports alone "
               f"{start * 1000:.0f} ms)", f"{cli * 1000:.0f} ms", "≤ 300 ms", cli <= 0.3)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller journals and fewer saves (a smoke run)")
    ap.add_argument("--keep", action="store_true", help="keep the generated homes")
    args = ap.parse_args()
    base = home_dir(args.keep)
    began = time.perf_counter()
    try:
        bench_listing(base, args.quick)
        bench_size(base, args.quick)
        bench_latency(base, args.quick)
        bench_burst(base, args.quick)
        bench_once(base, args.quick)
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    print("\n| figure | measured | target |\n|---|---|---|")
    for what, figure, target, ok in RESULTS:
        print(f"| {what} | {figure} | {target} {'✓' if ok else '✗ missed'} |")
    print(f"\ntotal run time {time.perf_counter() - began:.0f} s")
    return verdict(all(ok for *_, ok in RESULTS))


if __name__ == "__main__":
    sys.exit(main())
