"""What a member bot loads of its teams (6,000 bytes a team, pinned first) and what search finds."""
from __future__ import annotations

import subprocess
import sys

import pytest

from botmemory.core.disk import config
from botmemory.core.notes.loader import load_block
from botmemory.core.ops import operations
from botmemory.core.ops import team as T
from botmemory.core.team.loading import TEAM_MAX_BYTES, note_line, plan

from ..conftest import entry
from .conftest import BOT, BOT_ACTOR, OTHER, PERSON, THIRD, TODAY


def make(mem, bots=(BOT, OTHER, THIRD), name="Launch") -> str:
    return T.create(mem, name, list(bots), PERSON).team.team


def accept(mem, team: str, text: str, **kw) -> T.NoteResult:
    card = T.propose(mem, team, text, PERSON, **kw).card
    return T.accept(mem, team, card.card, card.rev, PERSON)


def many(mem, team: str, n: int, size: int = 300) -> list[str]:
    ids = []
    for i in range(n):
        ids.append(accept(mem, team, f"Fact {i:02d} " + "x" * (size - 8)).note.note)
    return ids


def test_accepted_notes_load_into_each_member_bots_turn_in_a_section_of_their_own(mem):
    team = make(mem, bots=(BOT, OTHER))
    mem.store.write(BOT, "MEMORY.md", entry("2026-10-01", "Short answers") + "\n", PERSON)
    accept(mem, team, "The launch moved to Friday", title="Launch date")
    T.propose(mem, team, "A proposal never loads", PERSON)
    block = load_block(mem, BOT)
    assert block == (entry("2026-10-01", "Short answers") + "\n\n"
                     "## Team memory: Launch (shared by ledger, scout; accepted by a person)\n"
                     "- Launch date: The launch moved to Friday\n")
    assert "The launch moved to Friday" in load_block(mem, OTHER)
    assert load_block(mem, THIRD) == ""                     # not a member


def test_only_what_fits_in_6000_bytes_loads_pinned_first_and_the_block_says_how_many_did_not(mem):
    team = make(mem)
    ids = many(mem, team, 30)                               # 30 notes of about 300 bytes: about 9,000 bytes
    T.pin(mem, team, ids[0], True, PERSON)                  # the oldest, pinned: it loads first
    shown = T.show(mem, team).as_dict()
    loads = [n["loads"] for n in shown["notes"]]
    assert shown["notes"][0]["note"] == ids[0] and loads[0]
    assert loads == sorted(loads, reverse=True)             # a run that loads, then the rest
    assert shown["loaded_bytes"] <= TEAM_MAX_BYTES < shown["loaded_bytes"] + 303
    assert shown["not_loaded"] == loads.count(False) > 0 and shown["loaded"] == loads.count(True)
    block = load_block(mem, BOT)
    assert f"{shown['not_loaded']} more notes did not load" in block and 'scope "team"' in block
    lines = [line for line in block.splitlines() if line.startswith("- ")]
    assert len(lines) == shown["loaded"] and lines[0].startswith("- Fact 00")
    # the newest load after the pinned ones; the oldest unpinned do not
    assert lines[1].startswith("- Fact 29") and not any(line.startswith("- Fact 01") for line in lines)
    assert sum(len(line.encode()) + 1 for line in lines) == shown["loaded_bytes"]


def test_the_plan_stops_at_the_first_note_that_does_not_fit():
    from botmemory.core.team.records import Note

    def note(i: int, size: int) -> Note:
        return Note(f"n-{i:010x}", None, "", "y" * size, 1, False, "accepted", "", f"2026-10-{10 + i:02d}", "")

    p = plan([note(3, 10), note(2, 5990), note(1, 10)])   # newest first: 10, then 5,990 does not fit, nor 10 after it
    assert p.loads == (True, False, False) and p.loaded_bytes == len(note_line(p.notes[0]).encode()) + 1


def test_memory_switched_off_loads_and_finds_nothing_of_the_team(mem):
    team = make(mem)
    accept(mem, team, "The launch moved to Friday")
    config.set_bot_setting(mem.home, BOT, "memory", False)
    assert load_block(mem, BOT) == "" and T.search(mem, BOT, ["launch"]).hits == []


def test_search_in_scope_team_finds_notes_that_did_not_load(mem):
    team = make(mem)
    many(mem, team, 30)
    hits = T.search(mem, BOT).hits
    assert len(hits) == 30 and not all(h.loads for h in hits)
    old = [h for h in T.search(mem, BOT, ["fact", "00"]).hits]
    assert len(old) == 1 and old[0].as_dict()["loads"] is False and old[0].file.startswith(f"team:{team}/")


def test_ordinary_search_includes_accepted_notes_and_nothing_else(mem):
    team = make(mem)
    n = accept(mem, team, "The launch is on Thursday", key="launch/date").note
    T.edit(mem, team, n.note, "The launch moved to Friday", n.rev, PERSON)       # Thursday is superseded
    T.propose(mem, team, "The launch moved to Saturday", BOT_ACTOR, bot=BOT)      # a proposal
    gone = accept(mem, team, "The launch party is cancelled").note
    T.remove(mem, team, gone.note, gone.rev, PERSON)                              # deleted
    mem.store.write(BOT, "memory/plans.md", entry("2026-10-10", "Launch checklist is in Notion") + "\n", PERSON)
    hits = operations.search(mem, BOT, ["launch"]).as_list()
    assert [h["text"] for h in hits] == ["The launch moved to Friday", "- 2026-10-10 · from chat \"Plans\" · "
                                         "Launch checklist is in Notion"]
    assert hits[0] == {"file": f"team:{team}/{n.note}", "date": TODAY, "text": "The launch moved to Friday"}
    for word in ("thursday", "saturday", "cancelled"):
        assert operations.search(mem, BOT, [word]).hits == [] and T.search(mem, BOT, [word]).hits == []
    assert operations.search(mem, THIRD, ["friday"]).hits != []                   # a member
    T.set_bots(mem, team, [BOT], PERSON)
    assert operations.search(mem, THIRD, ["friday"]).hits == []                   # no longer


@pytest.mark.parametrize("args", [["search", BOT, "launch"], ["search", BOT, "--since", "3d", "--json"]])
def test_the_quick_search_path_finds_team_notes_as_the_full_command_line(mem, args):
    team = make(mem)
    accept(mem, team, "The launch moved to Friday")
    run = lambda entry: subprocess.run([sys.executable, "-m", entry, "--root", str(mem.home.root), "--today", TODAY,
                                        *args], capture_output=True, text=True)
    quick, full = run("botmemory.core.faces.entry"), run("botmemory.core.faces.cli")
    assert quick.returncode == 0 and "The launch moved to Friday" in quick.stdout
    assert (quick.returncode, quick.stdout, quick.stderr) == (full.returncode, full.stdout, full.stderr)
