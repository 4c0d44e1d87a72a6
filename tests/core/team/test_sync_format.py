"""The team folder merges file by file (docs/TEAMS.md, "Across computers"): two computers accepting different
cards change different files and converge when their files are put together; the same note changed on both is
the one overlap, kept as a conflict card. The sync engine itself is not here: the merge is done by copying."""
from __future__ import annotations

import shutil
from pathlib import Path

from botmemory.core.ops import team as T
from botmemory.core.store.memory import Memory

from .conftest import BOT, PERSON, TODAY


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def changed(base: dict[str, bytes], now: dict[str, bytes]) -> set[str]:
    return {k for k in set(base) | set(now) if base.get(k) != now.get(k)}


def test_two_computers_accepting_different_cards_change_different_files_and_converge(mem, tmp_path):
    team = T.create(mem, "Launch", [BOT], PERSON).team.team
    a = T.propose(mem, team, "The launch moved to Friday", PERSON, key="launch/date").card
    b = T.propose(mem, team, "The press kit is in Drive", PERSON, key="launch/press").card
    n = T.accept(mem, team, T.propose(mem, team, "Venue is the Pune office", PERSON, key="launch/venue").card.card,
                 1, PERSON).note
    laptop_root = tmp_path / "laptop"
    shutil.copytree(mem.home.root, laptop_root)              # the other computer, as the last sync left it
    laptop = Memory.open(str(laptop_root), TODAY)
    folder = lambda m: m.home.root / "teams" / team
    base = tree(folder(mem))

    T.accept(mem, team, a.card, a.rev, PERSON)                # here
    T.accept(laptop, team, b.card, b.rev, PERSON)             # there
    T.edit(laptop, team, n.note, "Venue is the Baner office", n.rev, PERSON)
    here, there = changed(base, tree(folder(mem))), changed(base, tree(folder(laptop)))
    assert here and there and not here & there                # nothing to merge by hand
    for rel in there:                                         # what a sync brings in, each way
        shutil.copy2(folder(laptop) / rel, folder(mem) / rel)
    for rel in here:
        shutil.copy2(folder(mem) / rel, folder(laptop) / rel)
    texts = lambda m: sorted(x["text"] for x in T.show(m, team).as_dict()["notes"])
    assert texts(mem) == texts(laptop) == ["The launch moved to Friday", "The press kit is in Drive",
                                           "Venue is the Baner office"]
    assert T.show(mem, team).cards == T.show(laptop, team).cards == []


def test_the_same_note_changed_on_both_is_one_file_and_becomes_a_conflict_card(mem, tmp_path):
    team = T.create(mem, "Launch", [BOT], PERSON).team.team
    n = T.accept(mem, team, T.propose(mem, team, "Venue is the Pune office", PERSON, key="launch/venue").card.card,
                 1, PERSON).note
    laptop_root = tmp_path / "laptop"
    shutil.copytree(mem.home.root, laptop_root)
    laptop = Memory.open(str(laptop_root), TODAY)
    folder = lambda m: m.home.root / "teams" / team
    base = tree(folder(mem))
    T.edit(mem, team, n.note, "Venue is the Baner office", n.rev, PERSON)
    T.edit(laptop, team, n.note, "Venue is the Kharadi office", n.rev, PERSON)
    overlap = changed(base, tree(folder(mem))) & changed(base, tree(folder(laptop)))
    assert overlap == {f"notes/{n.note}.json"}
    # the merge keeps this side's file and hands the other side's text back: a card, never an overwrite
    r = T.keep_other_side(mem, team, n.note, "Venue is the Kharadi office", host="laptop")
    assert [x["text"] for x in T.show(mem, team).as_dict()["notes"]] == ["Venue is the Baner office"]
    card = T.show(mem, team).cards[0]
    assert card["card"] == r.card.card and card["conflict"] and card["replaces_text"] == "Venue is the Baner office"
