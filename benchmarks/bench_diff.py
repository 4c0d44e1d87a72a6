"""What a journal row of a huge change costs, and what --grep pays for seeing past the cut.

Prints one table of ratios against baselines measured in the same run:

1. a 60,000-line rewrite of a topic: ``make_row`` (the diff cut at 4,000
   characters, the true counts, the word filter of every changed line) vs
   splitting the two texts into lines alone; the row's bytes vs its diff's;
2. the word filter's false matches: 10,000 words that are in no changed line,
   checked against the filter of that change (target ≤ 2 %);
3. ``--grep`` over 200 rows of cut 60,000-line diffs vs 200 rows of one-line
   diffs (median of 5), both for a word that is past every cut;
4. a write's check for outside changes since the file's last row: 200 writes
   to a 24 KB MEMORY.md in a workspace of 1,000 topics, with the check vs the
   same writes with it switched off (target ≤ 1.1×), and 200 writes each after
   an outside edit (two rows each) vs the same.

    .venv/bin/python benchmarks/bench_diff.py [--tiny]

``--tiny``: a 300-line rewrite (its diff still cut), 20 writes, 1,000 absent words, one run each.
"""
from __future__ import annotations

import random
import statistics
import string
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from botmemory.core.disk.safeio import text_hash
from botmemory.core.store.journal import RowFilter, make_row
from botmemory.core.store.writer import Actor, Change, new_change_id
from botmemory.core.text.diff import WordFilter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import sized  # noqa: E402 - the benchmarks' shared helpers

LINES, ABSENT, ROWS, WRITES, TOPICS = sized((60_000, 10_000, 200, 200, 1000), (300, 1000, 5, 20, 10))

WORDS = ["person", "prefers", "short", "replies", "lives", "Pune", "works", "Acme", "likes", "tomatoes", "garden",
         "project", "launch", "friday", "invoice", "client", "meeting", "travel", "Berlin", "coffee"]


def change(before: str, after: str) -> Change:
    at = datetime.now(UTC)
    return Change("bench", "memory/big.md", before, text_hash(before), after, text_hash(after),
                  Actor.person("cli"), at, id=new_change_id(at))


def text(rng: random.Random, n: int, tag: str) -> str:
    return "".join(f"- 2026-01-01 · from cli · {' '.join(rng.choices(WORDS, k=8))} {tag}{i}\n" for i in range(n))


def median(f, runs: int = sized(5, 1)) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    rng = random.Random(7)
    before, after = text(rng, LINES, "old"), text(rng, LINES, "new")
    rows: list[tuple[str, str, str]] = []

    base = median(lambda: (before.splitlines(True), after.splitlines(True)))
    t = median(lambda: make_row(change(before, after)))
    t_filter = median(lambda: WordFilter.of([before, after]))
    row = make_row(change(before, after + "- 2026-02-02 · from cli · zanzibar trip booked\n"))
    rows.append((f"make_row of a {LINES:,}-line rewrite vs splitting its texts",
                 f"{t * 1000:.0f} ms vs {base * 1000:.0f} ms = {t / base:.1f}×",
                 f"of which the word filter {t_filter * 1000:.0f} ms; counts {row.counts()}"))
    size = len(row.line())
    rows.append(("row bytes vs its diff's characters (earlier text > 1 MB is not kept)",
                 f"{size:,} vs {len(row.diff):,} = {size / len(row.diff):.1f}×",
                 f"filter {len(row.words or ''):,} chars (bound {4 * 128 * 1024 // 3:,})"))

    f = WordFilter.load(row.words or "")
    assert f is not None
    absent = ["".join(rng.choices(string.ascii_lowercase, k=9)) for _ in range(ABSENT)]
    false = sum(f.may_hold(w) for w in absent)
    rows.append((f"false matches of {ABSENT:,} absent words", f"{false} = {false / ABSENT * 100:.2f} %", "target ≤ 2 %"))
    assert f.may_hold("zanzibar") and "zanzibar" not in row.diff

    small = [make_row(change(f"- a {i}\n", f"- b {i}\n")) for i in range(ROWS)]
    cut = [row] * ROWS
    flt = RowFilter(words=("zanzibar",))
    t_small = median(lambda: [flt.matches(r) for r in small])
    t_cut = median(lambda: [flt.matches(r) for r in cut])
    rows.append((f"--grep over {ROWS} cut rows vs {ROWS} one-line rows",
                 f"{t_cut * 1000:.1f} ms vs {t_small * 1000:.1f} ms = {t_cut / t_small:.1f}×",
                 f"{sum(flt.matches(r) for r in cut)} of {ROWS} cut rows found"))

    rows += bench_write_path()

    print("\n| figure | measured | note |\n|---|---|---|")
    for what, figure, note in rows:
        print(f"| {what} | {figure} | {note} |")
    return 0


def bench_write_path() -> list[tuple[str, str, str]]:
    import tempfile
    from pathlib import Path

    from botmemory.core.store.memory import Memory

    out: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(dir="/var/tmp") as d:
        mem = Memory.open(d, "2026-10-15")
        mem.journal.durable = False
        mem.store.init("bench")
        ws = Path(d) / "workspaces" / "bench"
        for i in range(TOPICS):
            (ws / "memory" / f"t{i}.md").write_text(f"# topic {i}\n- a note {i}\n")
        base = "".join(f"- 2026-01-01 · from cli · note {i} {' '.join(WORDS[:10])}\n" for i in range(160))
        mem.store.write("bench", "MEMORY.md", base, Actor.person())
        real = Memory._outside_before

        def writes(outside: bool) -> float:
            t = time.perf_counter()
            for i in range(WRITES):
                if outside:
                    with open(ws / "MEMORY.md", "a") as f:
                        f.write(f"- outside {i}\n")
                mem.store.write("bench", "MEMORY.md", base + f"- 2026-10-15 · from cli · write {i}\n", Actor.person())
            return time.perf_counter() - t

        for outside in (False, True):
            offs, ons = [], []
            for _ in range(sized(3, 1)):   # alternated, so the shadows' pack compaction falls on both alike
                Memory._outside_before = lambda self, bot, changes: []  # type: ignore[method-assign]
                offs.append(writes(outside))
                Memory._outside_before = real  # type: ignore[method-assign]
                ons.append(writes(outside))
            off, on = statistics.median(offs), statistics.median(ons)
            what = "after an outside edit each" if outside else "nothing changed outside"
            out.append((f"{WRITES} writes, {what}: with the check vs without",
                        f"{on * 1000:.0f} ms vs {off * 1000:.0f} ms = {on / off:.2f}×",
                        "target ≤ 1.1×" if not outside else "two rows a write vs one"))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
