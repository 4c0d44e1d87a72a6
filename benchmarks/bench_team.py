"""What team memory costs a bot's turn and a reviewer: load, search and show with teams of growing size.

A home with one bot (a full MEMORY.md, 24 KB) in one team of N accepted notes
(each about 200 bytes, 10 % pinned, every note edited once so it keeps two
versions) and N/10 pending cards. Measured, in-process (median of --repeat):

- ``load`` (what ``botmemory load`` prints) without a team, and with one;
- ``search`` of one word (ordinary search, which includes the team's notes), with and without the team;
- ``team_show`` (the Team tab's read) and one ``team_accept`` (a revision check, one file and one row).

Run:  .venv/bin/python benchmarks/bench_team.py [--notes 50,500] [--repeat 5] [--tiny]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from botmemory.core import (
    Actor,
    Memory,
    load,
    ops,
    team_accept,
    team_create,
    team_edit,
    team_pin,
    team_propose,
    team_show,
)
from botmemory.core.text.budget import MEMORY_MAX_BYTES

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import core_text, median, tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

TODAY = "2026-10-15"
BOT = "bench"
PERSON = Actor.person()


def build(root: Path, notes: int) -> tuple[Memory, str]:
    mem = Memory.open(str(root), TODAY)
    mem.store.init(BOT)
    mem.store.write(BOT, "MEMORY.md", core_text(), PERSON)
    key = team_create(mem, "Bench", [BOT], PERSON).team.team
    for i in range(notes):
        c = team_propose(mem, key, f"Shared fact {i:05d} about subject{i % 37} " + "w" * 150, PERSON,
                         key=f"bench/{i}").card
        n = team_accept(mem, key, c.card, c.rev, PERSON).note
        n = team_edit(mem, key, n.note, n.text + " (checked)", n.rev, PERSON).note
        if i % 10 == 0:
            team_pin(mem, key, n.note, True, PERSON)
    for i in range(notes // 10):
        team_propose(mem, key, f"A proposal {i:05d} for subject{i % 37}", PERSON)
    return mem, key


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", default="50,500")
    ap.add_argument("--repeat", type=int, default=5)
    args = tiny_defaults(ap, notes="10", repeat=1).parse_args()
    print(f"MEMORY.md {MEMORY_MAX_BYTES:,} bytes; times in ms (median of {args.repeat}); ratio = with team / without")
    print(f"{'notes':>6} {'load':>8} {'load+team':>10} {'ratio':>6} {'search':>8} {'search+team':>12} {'ratio':>6} "
          f"{'show':>8} {'accept':>8} {'loaded':>7}")
    for n in (int(x) for x in args.notes.split(",")):
        tmp = Path(tempfile.mkdtemp(prefix="bench-team-"))
        try:
            plain = Memory.open(str(tmp / "plain"), TODAY)
            plain.store.init(BOT)
            plain.store.write(BOT, "MEMORY.md", core_text(), PERSON)
            mem, key = build(tmp / "team", n)
            load0 = median(lambda: load(plain, BOT), args.repeat)
            load1 = median(lambda: load(mem, BOT), args.repeat)
            search0 = median(lambda: ops.search(plain, BOT, ["subject7"]), args.repeat)
            search1 = median(lambda: ops.search(mem, BOT, ["subject7"]), args.repeat)
            show = median(lambda: team_show(mem, key), args.repeat)
            cards = iter(team_show(mem, key).cards)

            def accept() -> None:
                c = next(cards)
                team_accept(mem, key, c["card"], c["rev"], PERSON)

            acc = median(accept, min(args.repeat, max(1, n // 10)))
            shown = team_show(mem, key).as_dict()
            print(f"{n:>6} {load0 * 1e3:>8.1f} {load1 * 1e3:>10.1f} {load1 / load0:>6.1f} {search0 * 1e3:>8.1f} "
                  f"{search1 * 1e3:>12.1f} {search1 / search0:>6.1f} {show * 1e3:>8.1f} {acc * 1e3:>8.1f} "
                  f"{shown['loaded']:>7}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
