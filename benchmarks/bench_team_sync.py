"""A team across computers: what a team's sync rounds cost, against a bot's of the same run.

Two homes (laptop, desktop) on one bare repository over ``file://``. The laptop makes a team of N accepted
notes (each about 200 bytes, edited once so it keeps two versions) and N/10 pending cards; both add it to sync.
Measured, as CPU time of ``sync now`` in this process plus the git processes it waits for (what the tray and
``watch`` pay), median of --repeat rounds where a round can be repeated:

1. the desktop's **first sync** of the team (every file comes in, one row each);
2. a round with **nothing to do** (the team's journal has no new row, the remote did not move), against the
   same for a bot with a full MEMORY.md;
3. a round bringing in **one accepted card** from the laptop;
4. a round **merging a note edited on both** computers (the merge, a conflict card, the push).

Run:  .venv/bin/python benchmarks/bench_team_sync.py [--notes 50,500] [--repeat 5]
"""
from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from botmemory.core import Actor, Memory, team_accept, team_create, team_edit, team_propose, team_show
from botmemory.core.ops import sync

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import core_text, tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

TODAY = "2026-10-15"
BOT = "bench"
PERSON = Actor.person()


def cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t = cpu()
    fn()
    return cpu() - t


def home(root: Path, host: str, remote: Path) -> Memory:
    mem = Memory.open(str(root / host), TODAY)
    mem.store.init(BOT)
    mem.store.write(BOT, "MEMORY.md", core_text(), PERSON)
    sync.setup(mem, remote.as_uri(), host=host)
    return mem


def run(notes: int, repeat: int) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="bench-team-sync-"))
    try:
        remote = root / "memory.git"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        a, b = home(root, "laptop", remote), home(root, "desktop", remote)
        key = team_create(a, "Bench", [BOT], PERSON).team.team
        ids = []
        for i in range(notes):
            c = team_propose(a, key, f"Shared fact {i:05d} about subject{i % 37} " + "w" * 150, PERSON,
                             key=f"bench/{i}").card
            n = team_accept(a, key, c.card, c.rev, PERSON).note
            ids.append(team_edit(a, key, n.note, n.text + " (checked)", n.rev, PERSON).note.note)
        for i in range(notes // 10):
            team_propose(a, key, f"A proposal {i:05d} for subject{i % 37}", PERSON)
        for m in (a, b):
            sync.add(m, BOT, sync=False)
            sync.add_team(m, key, sync=False)
        sync.now(a)
        out = {"first": timed(lambda: sync.now(b, [f"team-{key}"]))}
        sync.now(b)
        out["idle team"] = statistics.median(timed(lambda: sync.now(b, [f"team-{key}"])) for _ in range(repeat))
        out["idle bot"] = statistics.median(timed(lambda: sync.now(b, [BOT])) for _ in range(repeat))
        ins, merges = [], []
        for i in range(repeat):
            c = team_propose(a, key, f"Came in {i}", PERSON, key=f"came/{i}").card
            team_accept(a, key, c.card, c.rev, PERSON)
            sync.now(a)
            ins.append(timed(lambda: sync.now(b, [f"team-{key}"])))
            note = ids[i]
            rev = next(n["rev"] for n in team_show(a, key).as_dict()["notes"] if n["note"] == note)
            team_edit(a, key, note, f"Edited on the laptop {i}", rev, PERSON)
            team_edit(b, key, note, f"Edited on the desktop {i}", rev, PERSON)
            sync.now(a)
            merges.append(timed(lambda: sync.now(b, [f"team-{key}"])))
            sync.now(a)
        out["one card in"] = statistics.median(ins)
        out["edited on both"] = statistics.median(merges)
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", default="50,500")
    ap.add_argument("--repeat", type=int, default=5)
    args = tiny_defaults(ap, notes="10", repeat=1).parse_args()
    print(f"{'notes':>6} {'first sync':>11} {'idle team':>10} {'idle bot':>9} {'ratio':>6} {'one card in':>12} "
          f"{'edited on both':>15}   (CPU ms, this process and its git processes)")
    for n in (int(x) for x in args.notes.split(",")):
        r = run(n, args.repeat)
        print(f"{n:>6} {r['first'] * 1000:>11.0f} {r['idle team'] * 1000:>10.0f} {r['idle bot'] * 1000:>9.0f} "
              f"{r['idle team'] / r['idle bot']:>6.2f} {r['one card in'] * 1000:>12.0f} "
              f"{r['edited on both'] * 1000:>15.0f}")


if __name__ == "__main__":
    main()
