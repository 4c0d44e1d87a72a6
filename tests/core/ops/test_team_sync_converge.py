"""The property teams across computers are done by: two homes applying random team operations (propose, accept,
reject, edit, delete, pin, undo) and syncing in random interleavings converge — the same files on both — with no
accepted note lost (every text a computer ever had accepted is accepted at the end, waits as a conflict card, or
was taken away by a person's own change on some computer: never by a merge), every conflict a card (the engine
keeps no text conflict of a team), and revisions monotonic (on each computer a note's rev only grows and never
names two texts)."""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from botmemory.core.base.errors import BotMemoryError
from botmemory.core.ops import sync
from botmemory.core.ops import team as T
from botmemory.core.store.writer import Actor
from botmemory.core.sync.state import Paths, read_state
from tests.conftest import examples

from ..sync.conftest import BOT, Computer, bare

PERSON = Actor.person("cli")
WORDS = ("Pune", "Friday", "Baner", "seats", "Drive", "invoice")
KEYS = (None, "launch/date", "launch/venue")

fact = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
op = st.one_of(
    st.tuples(st.just("propose"), fact, st.sampled_from(KEYS)),
    st.tuples(st.just("accept"), st.integers(0, 5)),
    st.tuples(st.just("reject"), st.integers(0, 5)),
    st.tuples(st.just("edit"), st.integers(0, 5), fact),
    st.tuples(st.just("delete"), st.integers(0, 5)),
    st.tuples(st.just("pin"), st.integers(0, 5)),
    st.tuples(st.just("undo"), st.integers(0, 5)),
    st.tuples(st.just("sync"),),
)
steps = st.lists(st.tuples(st.sampled_from((0, 1)), op), min_size=1, max_size=14)


class World:
    """Two computers and what the test saw of them."""

    def __init__(self, root: Path) -> None:
        remote = bare(root / "memory.git")
        self.cs = [Computer(root / "laptop", "laptop"), Computer(root / "desktop", "desktop")]
        for c in self.cs:
            c.mem.store.init(BOT)
            sync.setup(c.mem, remote.as_uri(), host=c.host)
        self.team = T.create(self.cs[0].mem, "Launch", [BOT], PERSON).team.team
        card = T.propose(self.cs[0].mem, self.team, "Venue is Pune", PERSON, key="launch/venue").card
        T.accept(self.cs[0].mem, self.team, card.card, card.rev, PERSON)
        for c in self.cs:
            sync.add_team(c.mem, self.team)
        self.seen: set[str] = set()                   # every text accepted on any computer at any time
        self.taken: set[str] = set()                  # texts a person's own change took away
        self.revs: list[dict[tuple[str, int], tuple[str, str]]] = [{}, {}]   # per computer: (note, rev) -> (state, text)
        self.top: list[dict[str, int]] = [{}, {}]     # per computer: a note's highest rev seen
        self.look()

    def show(self, i: int) -> dict:
        return T.show(self.cs[i].mem, self.team).as_dict()

    def accepted(self, i: int) -> dict[str, str]:
        return {n["note"]: n["text"] for n in self.show(i)["notes"]}

    def look(self) -> None:
        for i, c in enumerate(self.cs):
            base = c.mem.home.root / "teams" / self.team / "notes"
            for p in sorted(base.glob("*.json")) if base.is_dir() else []:
                d = json.loads(p.read_text())
                now = (d["state"], d["text"])
                was = self.revs[i].setdefault((d["note"], d["rev"]), now)
                assert was == now, f"{c.host}: rev {d['rev']} of {d['note']} named {was} and now {now}"
                assert d["rev"] >= self.top[i].get(d["note"], 0), f"{c.host}: the rev of {d['note']} went back"
                self.top[i][d["note"]] = d["rev"]
                if d["state"] == "accepted":
                    self.seen.add(d["text"])

    def act(self, i: int, step: tuple) -> None:
        kind = step[0]
        c = self.cs[i]
        if kind == "sync":
            c.sync()
            self.look()
            return
        before = self.accepted(i)
        shown = self.show(i)
        notes, cards = shown["notes"], shown["cards"]
        try:
            if kind == "propose":
                T.propose(c.mem, self.team, step[1], PERSON, key=step[2])
            elif kind in ("accept", "reject") and cards:
                card = cards[step[1] % len(cards)]
                if kind == "accept":
                    T.accept(c.mem, self.team, card["card"], card["rev"], PERSON)
                else:
                    T.reject(c.mem, self.team, card["card"], card["rev"], PERSON)
                    self.taken.add(card["text"])     # a person turned this text down
            elif kind == "edit" and notes:
                n = notes[step[1] % len(notes)]
                T.edit(c.mem, self.team, n["note"], step[2], n["rev"], PERSON)
            elif kind == "delete" and notes:
                n = notes[step[1] % len(notes)]
                T.remove(c.mem, self.team, n["note"], n["rev"], PERSON)
            elif kind == "pin" and notes:
                n = notes[step[1] % len(notes)]
                T.pin(c.mem, self.team, n["note"], not n["pinned"], PERSON)
            elif kind == "undo":
                rows = [r for r in T.journal(c.mem, self.team, 20) if r.file != "team.json"]
                if rows:
                    T.undo(c.mem, self.team, rows[step[1] % len(rows)].id)
        except BotMemoryError as e:              # refused as a person would be told: stale, deleted, the same
            assert "damaged" not in str(e) and "format" not in str(e), str(e)
        after = self.accepted(i)
        self.taken |= {text for note, text in before.items() if after.get(note) != text}
        self.look()


@pytest.mark.timeout(1500)
@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_two_computers_changing_a_team_at_random_converge_with_no_accepted_note_lost(plan):
    root = Path(tempfile.mkdtemp(prefix="team-converge-"))
    try:
        w = World(root)
        for who, step in plan:
            w.act(who, step)
        for i in (0, 1, 0, 1):
            w.act(i, ("sync",))
        a, b = w.cs
        files = [{p.relative_to(c.mem.home.root).as_posix(): p.read_bytes()
                  for p in sorted((c.mem.home.root / "teams" / w.team).rglob("*.json"))} for c in w.cs]
        assert files[0] == files[1], "the computers differ"
        shown = w.show(0)
        kept = {n["text"] for n in shown["notes"]} | {c["text"] for c in shown["cards"]}
        event(f"conflict cards at the end: {min(2, sum(1 for c in shown['cards'] if c['conflict']))}")
        lost = sorted(w.seen - kept - w.taken)
        assert lost == [], f"accepted texts lost: {lost}"
        for c in w.cs:     # every conflict is a card: the engine keeps none of its own for a team
            assert read_state(Paths(c.mem.home)).folders[f"team-{w.team}"].conflicts == []
            assert sync.pending(c.mem, [f"team-{w.team}"]) == set()
    finally:
        shutil.rmtree(root, ignore_errors=True)
