"""A team's sync killed (SIGKILL) at every step loses nothing: the next rounds converge, every accepted text is a
note or the one conflict card it became, and the conflict card is made once."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from botmemory.core.ops import sync
from botmemory.core.ops import team as T
from botmemory.core.store.writer import Actor

from ..sync.conftest import BOT, Computer, bare, copy_world

DRIVER = Path(__file__).parents[1] / "sync" / "kill_driver.py"
PERSON = Actor.person("cli")


def world(root: Path) -> str:
    """Two computers with team changes on both sides since their last sync: the same note edited on each, a
    card accepted on each, a card the laptop accepted and the desktop rejected, a card proposed on each. The
    desktop's next round pulls, merges (making a conflict card), writes, commits and pushes."""
    remote = bare(root / "memory.git")
    a, b = Computer(root / "laptop", "laptop"), Computer(root / "desktop", "desktop")
    for c in (a, b):
        c.mem.store.init(BOT)
        sync.setup(c.mem, remote.as_uri(), host=c.host)
    team = T.create(a.mem, "Launch", [BOT], PERSON).team.team
    venue = T.accept(a.mem, team, T.propose(a.mem, team, "Venue is Pune", PERSON, key="launch/venue").card.card, 1,
                     PERSON).note
    one = T.propose(a.mem, team, "Launch is on Friday", PERSON, key="launch/date").card
    two = T.propose(a.mem, team, "Press kit is in Drive", PERSON, key="launch/press").card
    three = T.propose(a.mem, team, "Budget is 40 seats", PERSON, key="launch/seats").card
    for c in (a, b):
        sync.add_team(c.mem, team)
    a.sync()
    b.sync()
    T.edit(a.mem, team, venue.note, "Venue is Baner", venue.rev, PERSON)
    T.accept(a.mem, team, one.card, one.rev, PERSON)
    T.accept(a.mem, team, three.card, three.rev, PERSON)
    T.propose(a.mem, team, "Proposed on the laptop", PERSON)
    a.sync()
    T.edit(b.mem, team, venue.note, "Venue is Kharadi", venue.rev, PERSON)
    T.accept(b.mem, team, two.card, two.rev, PERSON)
    T.reject(b.mem, team, three.card, three.rev, PERSON)
    T.propose(b.mem, team, "Proposed on the desktop", PERSON)
    return team


def drive(root: Path, k: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(DRIVER), str(root / "desktop" / "home"), str(k)],
                          capture_output=True, text=True, timeout=120)


def folder(c: Computer, team: str) -> dict[str, str]:
    base = c.mem.home.root / "teams" / team
    return {p.relative_to(base).as_posix(): p.read_text() for p in sorted(base.rglob("*.json"))}


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_a_team_sync_killed_at_every_step_loses_nothing_and_converges(tmp_path):
    template = tmp_path / "template"
    team = world(template)
    probe = tmp_path / "probe"
    copy_world(template, probe)
    done = drive(probe, 10 ** 6)
    assert done.returncode == 0, done.stderr
    points = done.stderr.strip().splitlines()
    assert int(done.stdout) == len(points) > 20
    assert {"step fetch", "step written", "step push", "step saved", "before write", "after write",
            "during git push"} <= set(points)
    for k in range(1, len(points) + 1):
        here = tmp_path / f"k{k}"
        copy_world(template, here)
        r = drive(here, k)
        assert r.returncode == -9, f"point {k} ({points[k - 1]}) did not kill: {r.stderr[-500:]}"
        time.sleep(0.02)
        a, b = Computer(here / "laptop", "laptop"), Computer(here / "desktop", "desktop")
        for c in (b, a, b):
            c.sync()
        where = f"killed at {points[k - 1]}"
        assert folder(a, team) == folder(b, team), f"{where}: the computers differ"
        shown = T.show(a.mem, team).as_dict()
        notes = sorted(n["text"] for n in shown["notes"])
        conflict = [c["text"] for c in shown["cards"] if c["conflict"]]
        assert len(conflict) == 1, f"{where}: conflict cards {conflict}"
        assert not any(c["stale"] for c in shown["cards"] if c["conflict"]), f"{where}: the conflict card is stale"
        assert sorted([n for n in notes if n.startswith("Venue")] + conflict) == ["Venue is Baner",
                                                                                 "Venue is Kharadi"], where
        assert [n for n in notes if not n.startswith("Venue")] == ["Budget is 40 seats", "Launch is on Friday",
                                                                   "Press kit is in Drive"], where
        assert sorted(c["text"] for c in shown["cards"] if not c["conflict"]) == [
            "Proposed on the desktop", "Proposed on the laptop"], where
        rejected = [json.loads(t) for rel, t in folder(a, team).items() if rel.startswith("cards/")]
        assert [c["text"] for c in rejected if c["state"] == "rejected"] == ["Budget is 40 seats"], where
        rows = T.journal(b.mem, team, None)
        assert len({r.id for r in rows}) == len(rows), where
