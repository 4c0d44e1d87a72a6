"""Two processes accepting the same card: one wins, the other gets the conflict (the home's locks)."""
from __future__ import annotations

import json
import subprocess
import sys

from botmemory.core.ops import team as T

from .conftest import BOT, PERSON, TODAY

# Runs `botmemory team accept …` in a real process whose write of the note first waits (up to 4 s) until
# both processes got that far. With the team's lock only one can: the other is still waiting for the lock,
# so the first goes on after the wait, and the second then finds the card accepted. Without the lock both
# would pass the revision check, meet here, and both write.
ACCEPT = """
import pathlib, sys, time
from botmemory.core.team import teams
from botmemory.core.faces.cli import main

barrier = pathlib.Path(sys.argv[1])
real = teams.Teams._write

def slow(self, *a, **kw):
    (barrier / str(id(self))).touch()
    deadline = time.monotonic() + 4
    while len(list(barrier.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    return real(self, *a, **kw)

teams.Teams._write = slow
sys.exit(main(sys.argv[2:]))
"""


def test_two_processes_accepting_the_same_card_one_wins_and_one_gets_the_conflict(mem, tmp_path):
    team = T.create(mem, "Launch", [BOT], PERSON).team.team
    card = T.propose(mem, team, "The launch moved to Friday", PERSON, key="launch/date").card
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    argv = ["--root", str(mem.home.root), "--today", TODAY, "team", "accept", team, card.card, "--rev",
            str(card.rev), "--json"]
    procs = [subprocess.Popen([sys.executable, "-c", ACCEPT, str(barrier), *argv], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert sorted(code for code, _, _ in outs) == [0, 3], outs
    lost = next(o for o in outs if o[0] == 3)
    assert json.loads(lost[1]) == {"conflict": True, "text": "The launch moved to Friday", "hash": "1"}
    assert "accepted already" in lost[2]
    notes = T.show(mem, team).as_dict()["notes"]
    assert [n["text"] for n in notes] == ["The launch moved to Friday"] and notes[0]["rev"] == 1
    assert [r.file.split("/")[0] for r in T.journal(mem, team)] == ["notes", "cards", "team.json"]
