"""The capture step's own overhead per batch, with an instant helper, against reading the files it reads once.

A home with one bot: a full MEMORY.md (~24 KB, 199 dated entries) and 500 topic
files with frontmatter. One batch is a chat's six turns (transcripts on disk,
about 1 KB each). The helper is an in-process fake that answers at once, so
what is measured is botmemory's own work: reading the turns, MEMORY.md and the
topic list, building the prompt, checking every answered fact, and the writes
(MEMORY.md through the budget rule, one existing topic, one new topic, each a
journal row). Measured, median of --repeat runs on a fresh copy each time:

- reading MEMORY.md and every topic file once (the floor);
- a batch whose answer files nothing (prompt and checks only);
- a batch whose answer files three facts and skips three hostile ones (three
  files written atomically with fsync, three journal rows, shadows);
- the first batch, before the topic list is kept (every topic's frontmatter read).

Target: <= 50 ms for the six-turn batch on this home.

Run:  .venv/bin/python benchmarks/bench_capture.py [--topics 500] [--repeat 7] [--tiny]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.disk.safeio import read_file
from botmemory.core.outside.turns import turn_begin, turn_end
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor
from botmemory.core.upkeep import capture as C

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import core_text, tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

TODAY = "2026-10-15"
BOT = "bench"
CHAT = "Plans"
TURN = [("person", "I'm vegetarian and I live in Pune. We fly to Oslo on Friday for the Acme kickoff."),
        ("bot", "Noted: vegetarian, Pune, and the Oslo trip on Friday."),
        ("person", "Priya is Acme's contact; her budget is 40000 EUR for the pilot."),
        ("bot", "Got it. " + "Here is a longer answer with some detail. " * 12)]


class Instant:
    """A helper that answers at once with a scripted text."""

    def __init__(self, answer: str) -> None:
        self.answer = answer

    @property
    def name(self) -> str:
        return "instant/bench"

    def complete(self, system: str, prompt: str, *, max_tokens: int = 1024) -> str:
        return self.answer


FILED = json.dumps({"facts": [
    {"text": "The person is vegetarian", "target": "memory", "kind": "person", "quote": "I'm vegetarian"},
    {"text": "Flying to Oslo on Friday for the Acme kickoff", "target": "topic", "kind": "decision",
     "topic": "topic 7", "until": "2026-10-20"},
    {"text": "Priya is Acme's contact; pilot budget 40000 EUR", "target": "topic", "kind": "other",
     "topic": "Acme", "aliases": ["client"], "quote": "Priya is Acme's contact; her budget is 40000 EUR"},
    {"text": "The person lives in Mumbai", "target": "memory", "kind": "person", "quote": "I live in Mumbai"},
    {"text": "Pilot budget is 50000 EUR", "target": "topic", "kind": "other", "topic": "Acme",
     "quote": "her budget is 40000 EUR"},
    {"text": "Wants a launch plan", "target": "about-me", "kind": "preference",
     "quote": "Can you write a launch plan?"},
]})
NOTHING = json.dumps({"facts": []})


def entry(day: date, text: str) -> str:
    return f'- {day.isoformat()} · from chat "Bench" · {text}'


def build(root: Path, topics: int) -> None:
    mem = Memory.open(str(root), TODAY)
    mem.store.init(BOT)
    start = date(2026, 1, 1)
    text = core_text()
    mem.store.write(BOT, MEMORY_FILE, text, Actor.person())
    ws = mem.home.workspace(BOT)
    for t in range(topics):
        lines = ["---", f"title: Topic {t}", f"aliases: [t{t}, subject{t}]", "---", f"# Topic {t}", ""]
        lines += [entry(start + timedelta(days=i * 3), f"detail {i} of topic {t} " + "y" * 40) for i in range(20)]
        (ws / "memory" / f"topic-{t:03d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    hour_ago = time.time() - 3600                 # topics not edited in the last seconds, as on a real home
    for p in (ws / "memory").glob("*.md"):
        os.utime(p, (hour_ago, hour_ago))
    for n in range(6):
        path = root / f"turn-{n}.jsonl"
        path.write_text("".join(json.dumps({"role": r, "text": s, "at": "2026-10-15T10:00:00Z"}) + "\n"
                                for r, s in TURN), encoding="utf-8")
        turn_id = turn_begin(mem, BOT, CHAT)
        turn_end(mem, BOT, turn_id, "ok")
        assert C.note_turn(mem, BOT, turn_id, CHAT, path) is None


def read_all(root: Path) -> None:
    mem = Memory.open(str(root), TODAY)
    read_file(mem.home.file(BOT, MEMORY_FILE))
    for rel in mem.home.topics(BOT):
        read_file(mem.home.file(BOT, rel))


def run(root: Path, answer: str) -> C.CaptureReport:
    mem = Memory.open(str(root), TODAY)
    return C.capture(mem, BOT, helper=Instant(answer), organize=False)


def timed(fn: Callable[[], object], repeat: int,
          setup: Callable[[], None] | None = None) -> tuple[float, float]:
    """Median wall time and median CPU time of this process (the latter hardly moved by a busy machine)."""
    times, cpu = [], []
    for _ in range(repeat):
        if setup is not None:
            setup()
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=7)
    args = tiny_defaults(ap, topics=10, repeat=1).parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-capture-") as tmp:
        template = Path(tmp) / "template"
        work = Path(tmp) / "work"

        def fresh() -> None:
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(template, work)
            # the pending file names the template's transcripts: point it at this copy's
            pending = work / C.PENDING_FILE
            pending.write_text(pending.read_text().replace(str(template), str(work)))

        build(template, args.topics)
        cold_cache = C.topic_cache_file(Memory.open(str(template), TODAY).home, BOT)

        def cold() -> None:
            fresh()
            (work / cold_cache.relative_to(template)).unlink(missing_ok=True)

        C.list_topics(Memory.open(str(template), TODAY), BOT)     # the topic list as the last batch left it
        fresh()
        read_all(work)                       # warm the page cache before any measurement
        check = run(work, FILED)
        assert len(check.filed) == 3 and len(check.skipped) == 3, check.as_dict()
        read_once = timed(lambda: read_all(work), args.repeat)
        nothing = timed(lambda: run(work, NOTHING), args.repeat, setup=fresh)
        filed = timed(lambda: run(work, FILED), args.repeat, setup=fresh)
        first = timed(lambda: run(work, NOTHING), args.repeat, setup=cold)

    print(f"home: MEMORY.md (24 KB) + {args.topics} topic files; a batch of 6 turns; "
          f"median of {args.repeat} runs; instant in-process helper")
    print(f"the filing batch: {len(check.filed)} filed, {len(check.skipped)} skipped "
          f"({'; '.join(s['reason'] for s in check.skipped)})")
    print()
    print(f"{'what':<48}{'wall ms':>9}{'× read':>8}{'CPU ms':>9}{'× read':>8}")
    for name, (t, c) in [("read MEMORY.md and every topic once", read_once),
                         ("capture a batch, nothing filed (prompt, checks)", nothing),
                         ("capture a batch, 3 filed + 3 skipped (writes)", filed),
                         ("nothing filed, topic list not kept yet (first)", first)]:
        print(f"{name:<48}{t * 1000:>9.1f}{t / read_once[0]:>8.1f}{c * 1000:>9.1f}{c / read_once[1]:>8.1f}")
    print(f"\ntarget: <= 50 ms per 6-turn batch (the code's own overhead, nothing filed): "
          f"{'met' if nothing[0] <= 0.050 else 'NOT met'} on the wall clock, "
          f"{'met' if nothing[1] <= 0.050 else 'NOT met'} in CPU time")


if __name__ == "__main__":
    main()
