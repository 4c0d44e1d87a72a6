"""How long the tidy-up (no model) takes over a big home, against reading its files once.

A home with one bot: a full MEMORY.md (199 dated entries, 24 KB) and 500 topic
files of 40 entries each, some expired and some exact duplicates. Measured:

- reading every memory file once (the floor: no tidy-up can do less);
- a tidy-up of a home that is already tidy (the nightly case: nothing changes);
- a tidy-up that moves and removes entries in every file (the first night).

Run:  .venv/bin/python benchmarks/bench_tidy.py [--topics 500] [--repeat 5] [--tiny]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.disk.safeio import read_file
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor
from botmemory.core.upkeep import tidy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import core_text, median, tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

TODAY = "2026-10-15"
BOT = "bench"


def entry(day: date, text: str, until: date | None = None) -> str:
    line = f'- {day.isoformat()} · from chat "Bench" · {text}'
    return line + (f" · until {until.isoformat()}" if until else "")


def build(root: Path, topics: int) -> None:
    mem = Memory.open(str(root), TODAY)
    mem.store.init(BOT)
    start = date(2026, 1, 1)
    text = core_text()
    person = Actor.person()
    mem.store.write(BOT, MEMORY_FILE, text, person)
    ws = mem.home.workspace(BOT)
    for t in range(topics):
        lines = ["---", f"title: Topic {t}", f"aliases: [t{t}, subject{t}]", "---", f"# Topic {t}", ""]
        for i in range(40):
            day = start + timedelta(days=i * 3)
            if i % 10 == 0:  # expired
                lines.append(entry(day, f"event {i} in topic {t}", until=day + timedelta(days=2)))
            elif i % 10 == 5:  # an exact duplicate of the entry before it, written later
                lines.append(entry(day, f"detail {i - 1} of topic {t} " + "y" * 40 + "."))
            else:
                lines.append(entry(day, f"detail {i} of topic {t} " + "y" * 40))
        (ws / "memory" / f"topic-{t:03d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_all(root: Path) -> None:
    mem = Memory.open(str(root), TODAY)
    for rel in mem.home.memory_files(BOT):
        read_file(mem.home.file(BOT, rel))


def run_tidy(root: Path) -> tidy.TidyReport:
    mem = Memory.open(str(root), TODAY)
    return tidy.tidy(mem, BOT, model=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=5)
    args = tiny_defaults(ap, topics=3, repeat=1).parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-tidy-") as tmp:
        template = Path(tmp) / "template"
        work = Path(tmp) / "work"
        build(template, args.topics)
        size = sum(p.stat().st_size for p in (template / "workspaces" / BOT).rglob("*.md"))

        def fresh() -> None:
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(template, work)

        fresh()
        read_all(work)  # warm the page cache before any measurement
        first = run_tidy(work)
        assert first.expired_moved == 4 * args.topics and first.duplicates_removed == 4 * args.topics, first.as_dict()
        read_once = median(lambda: read_all(work), args.repeat)
        tidy_clean = median(lambda: run_tidy(work), args.repeat)
        tidy_dirty = median(lambda: run_tidy(work), args.repeat, setup=fresh)

    files = args.topics + 1
    print(f"home: MEMORY.md + {args.topics} topic files, {size / 1e6:.1f} MB; median of {args.repeat} runs")
    print(f"first tidy-up: {first.expired_moved} expired moved, {first.duplicates_removed} duplicates removed, "
          f"{len(first.rows)} files written")
    print()
    print(f"{'what':<44}{'seconds':>10}{'ms/file':>10}{'× read':>9}")
    for name, t in [("read every file once", read_once),
                    ("tidy-up, already tidy (nightly)", tidy_clean),
                    ("tidy-up, moving and removing (first night)", tidy_dirty)]:
        print(f"{name:<44}{t:>10.3f}{t * 1000 / files:>10.2f}{t / read_once:>9.1f}")


if __name__ == "__main__":
    main()
