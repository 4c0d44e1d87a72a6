"""Team memory's rules (docs/TEAMS.md "Rules"): identity, cards, keys, versions, revisions, undo,
and the files on disk."""
from __future__ import annotations

import json
import stat

import pytest

from botmemory.core.base.errors import BadInput, Refused
from botmemory.core.ops import team as T
from botmemory.core.team import files as F
from botmemory.core.team.records import MAX_VERSIONS
from botmemory.core.team.teams import TeamConflict, Teams

from .conftest import BOT, BOT_ACTOR, OTHER, PERSON, THIRD


def make(mem, name="Launch", bots=(BOT, OTHER, THIRD)) -> str:
    return T.create(mem, name, list(bots), PERSON).team.team


def accepted(mem, team: str, text: str, **kw) -> T.NoteResult:
    card = T.propose(mem, team, text, BOT_ACTOR, bot=kw.pop("bot", BOT), **kw).card
    return T.accept(mem, team, card.card, card.rev, PERSON)


def texts(mem, team: str) -> list[str]:
    return [n["text"] for n in T.show(mem, team).as_dict()["notes"]]


# ----- identity


def test_a_team_has_a_key_that_never_changes_and_a_rename_keeps_notes_and_pending_cards(mem):
    team = make(mem, "Ops")
    accepted(mem, team, "Backups run at 02:00")
    card = T.propose(mem, team, "Restores are tested monthly", BOT_ACTOR, bot=BOT).card
    r = T.rename(mem, team, "Operations", PERSON)
    assert r.team.team == team and r.team.name == "Operations"
    shown = T.show(mem, "Operations").as_dict()
    assert shown["team"] == team and texts(mem, team) == ["Backups run at 02:00"]
    assert [c["card"] for c in shown["cards"]] == [card.card]
    with pytest.raises(BadInput, match="no team 'Ops'"):
        T.show(mem, "Ops")


def test_deleting_retires_the_key_and_a_new_team_with_the_old_name_gets_none_of_its_notes(mem):
    team = make(mem, "Ops")
    accepted(mem, team, "Backups run at 02:00")
    T.propose(mem, team, "Restores are tested monthly", BOT_ACTOR, bot=BOT)
    T.delete(mem, team, PERSON)
    again = make(mem, "Ops")
    assert again != team
    assert T.show(mem, again).as_dict()["notes"] == [] and T.show(mem, again).cards == []
    assert T.show(mem, "Ops").team.team == again                  # the name is the new team's now
    assert [t.team for t in T.list_teams(mem)] == [again]
    assert {t.team for t in T.list_teams(mem, retired=True)} == {team, again}
    # the retired records stay on disk for recovery, and nothing of them loads or is found
    assert (F.folder(mem.home, team) / "notes").is_dir()
    assert "Backups" not in T.search(mem, BOT, ["backups"]).as_list().__repr__()
    with pytest.raises(Refused, match="was deleted"):
        T.propose(mem, team, "Anything", PERSON)


def test_a_team_name_is_unique_among_teams_that_are_not_retired(mem):
    make(mem, "Ops")
    with pytest.raises(BadInput, match="exists already"):
        make(mem, "ops")
    other = make(mem, "Sales")
    with pytest.raises(BadInput, match="exists already"):
        T.rename(mem, other, "OPS", PERSON)


def test_members_must_be_bots_of_the_home(mem):
    with pytest.raises(BadInput, match="unknown bot 'nobody'"):
        make(mem, "Ops", bots=(BOT, "nobody"))
    team = make(mem, "Ops", bots=(BOT,))
    assert T.set_bots(mem, team, [BOT, OTHER], PERSON).team.bots == (BOT, OTHER)


# ----- cards and keys


def test_a_bot_proposes_and_a_person_accepts_or_rejects(mem):
    team = make(mem)
    p = T.propose(mem, team, "The launch moved to Friday", BOT_ACTOR, key="launch/date", bot=BOT)
    assert p.as_dict()["replaces"] is None and p.card.state == "pending"
    assert texts(mem, team) == []                                  # a proposal is not a note yet
    r = T.reject(mem, team, p.card.card, p.card.rev, PERSON)
    assert r.card.state == "rejected" and T.show(mem, team).cards == []
    p2 = T.propose(mem, team, "The launch moved to Friday", BOT_ACTOR, key="launch/date", bot=BOT)
    T.accept(mem, team, p2.card.card, p2.card.rev, PERSON)
    assert texts(mem, team) == ["The launch moved to Friday"] and T.show(mem, team).cards == []


def test_a_bot_that_is_not_a_member_cannot_propose(mem):
    team = make(mem, bots=(BOT,))
    with pytest.raises(Refused, match="not a member"):
        T.propose(mem, team, "The launch moved to Friday", BOT_ACTOR, bot=OTHER)


def test_a_correction_with_the_same_key_replaces_the_fact_under_a_new_title_and_keeps_the_old_in_history(mem):
    team = make(mem)
    first = accepted(mem, team, "The launch is on Thursday", key="launch/date", title="Launch")
    p = T.propose(mem, team, "The launch moved to Friday", BOT_ACTOR, key="Launch/Date", title="Launch day",
                  bot=OTHER)
    assert p.as_dict()["replaces"] == first.note.note and p.as_dict()["replaces_text"] == "The launch is on Thursday"
    after = T.accept(mem, team, p.card.card, p.card.rev, PERSON).note
    assert after.note == first.note.note and (after.title, after.text) == ("Launch day", "The launch moved to Friday")
    notes = T.show(mem, team).as_dict()["notes"]
    assert [(n["title"], n["text"]) for n in notes] == [("Launch day", "The launch moved to Friday")]
    history = T.history(mem, team, after.note)
    assert [(v.title, v.text, v.how) for v in history] == [("Launch day", "The launch moved to Friday", "accept"),
                                                            ("Launch", "The launch is on Thursday", "accept")]


def test_a_card_without_a_key_makes_a_note_of_its_own(mem):
    team = make(mem)
    accepted(mem, team, "The launch is on Thursday", key="launch/date")
    accepted(mem, team, "Press kit is in the shared drive")
    assert sorted(texts(mem, team)) == ["Press kit is in the shared drive", "The launch is on Thursday"]


def test_the_same_pending_card_is_not_made_twice_and_an_accepted_note_is_not_proposed_again(mem):
    team = make(mem)
    a = T.propose(mem, team, "The launch moved to Friday", BOT_ACTOR, bot=BOT)
    b = T.propose(mem, team, "The  launch moved to Friday", BOT_ACTOR, bot=BOT)
    assert b.card.card == a.card.card and b.row is None
    T.accept(mem, team, a.card.card, 1, PERSON)
    with pytest.raises(Refused, match="has this note already"):
        T.propose(mem, team, "The launch moved to Friday", BOT_ACTOR, bot=BOT)


def test_keys_follow_their_rule(mem):
    team = make(mem)
    for bad in ("a b", "/x", "x/", "x//y", "ä/b", "x" * 121):
        with pytest.raises(BadInput, match="bad key"):
            T.propose(mem, team, "Anything at all", PERSON, key=bad)
    assert T.propose(mem, team, "Anything at all", PERSON, key="Tapa/Sequence-02/colour").card.key == \
        "tapa/sequence-02/colour"


# ----- revisions


def test_every_change_carries_the_revision_it_was_based_on(mem):
    team = make(mem)
    n = accepted(mem, team, "The launch is on Thursday").note
    for call in (lambda rev: T.edit(mem, team, n.note, "x", rev, PERSON),
                 lambda rev: T.remove(mem, team, n.note, rev, PERSON),
                 lambda rev: T.restore(mem, team, n.note, 1, rev, PERSON)):
        with pytest.raises(T.RevisionMissing):
            call(None)
        with pytest.raises(TeamConflict) as e:
            call(n.rev + 7)
        assert e.value.current["text"] == "The launch is on Thursday" and e.value.current["rev"] == n.rev
        assert e.value.exit_code == 3
    card = T.propose(mem, team, "The launch moved to Friday", PERSON).card
    for decide in (T.accept, T.reject):
        with pytest.raises(T.RevisionMissing):
            decide(mem, team, card.card, None, PERSON)
        with pytest.raises(TeamConflict):
            decide(mem, team, card.card, "9", PERSON)
    assert texts(mem, team) == ["The launch is on Thursday"]     # nothing was written
    assert T.edit(mem, team, n.note, "The launch is on Friday", str(n.rev), PERSON).note.rev == n.rev + 1


def test_a_stale_edit_is_refused_with_the_current_text(mem):
    team = make(mem)
    n = accepted(mem, team, "The launch is on Thursday").note
    T.edit(mem, team, n.note, "The launch is on Friday", n.rev, PERSON)
    with pytest.raises(TeamConflict) as e:
        T.edit(mem, team, n.note, "The launch is on Monday", n.rev, PERSON)     # based on the old text
    assert e.value.text == "The launch is on Friday" and e.value.hash == str(n.rev + 1)
    assert texts(mem, team) == ["The launch is on Friday"]


def test_a_pending_replacement_refuses_approval_once_the_accepted_fact_changed(mem):
    team = make(mem)
    n = accepted(mem, team, "The launch is on Thursday", key="launch/date").note
    p = T.propose(mem, team, "The launch moved to Friday", BOT_ACTOR, key="launch/date", bot=BOT).card
    T.edit(mem, team, n.note, "The launch moved to Monday", n.rev, PERSON)     # a person corrected it meanwhile
    shown = T.show(mem, team).as_dict()["cards"][0]
    assert shown["stale"] is True and shown["replaces_text"] == "The launch moved to Monday"
    with pytest.raises(TeamConflict, match="changed since the card was proposed") as e:
        T.accept(mem, team, p.card, p.rev, PERSON)
    assert e.value.text == "The launch moved to Monday"
    assert texts(mem, team) == ["The launch moved to Monday"]


def test_a_card_for_a_key_accepted_since_it_was_proposed_is_refused_too(mem):
    team = make(mem)
    a = T.propose(mem, team, "The launch is on Thursday", BOT_ACTOR, key="launch/date", bot=BOT).card
    b = T.propose(mem, team, "The launch is on Friday", BOT_ACTOR, key="launch/date", bot=OTHER).card
    T.accept(mem, team, a.card, a.rev, PERSON)
    with pytest.raises(TeamConflict, match="was accepted since"):
        T.accept(mem, team, b.card, b.rev, PERSON)


def test_a_card_accepted_once_cannot_be_accepted_again(mem):
    team = make(mem)
    c = T.propose(mem, team, "The launch is on Thursday", PERSON).card
    T.accept(mem, team, c.card, c.rev, PERSON)
    with pytest.raises(TeamConflict, match="accepted already"):
        T.accept(mem, team, c.card, c.rev, PERSON)


# ----- versions


def test_up_to_50_versions_are_kept_and_a_restore_is_a_new_revision(mem):
    team = make(mem)
    n = accepted(mem, team, "Version 0").note
    for i in range(1, 60):
        n = T.edit(mem, team, n.note, f"Version {i}", n.rev, PERSON).note
    history = T.history(mem, team, n.note)
    assert len(history) == MAX_VERSIONS and history[0].text == "Version 59" and history[-1].text == "Version 10"
    old = history[-1]
    r = T.restore(mem, team, n.note, old.rev, n.rev, PERSON).note
    assert r.text == "Version 10" and r.rev == n.rev + 1
    after = T.history(mem, team, n.note)
    assert after[0].how == "restore" and after[0].restored == old.rev and len(after) == MAX_VERSIONS
    with pytest.raises(BadInput, match="keeps no version 1 "):
        T.restore(mem, team, n.note, 1, r.rev, PERSON)


def test_pinning_is_not_a_revision(mem):
    team = make(mem)
    n = accepted(mem, team, "The launch is on Thursday").note
    assert T.pin(mem, team, n.note, True, PERSON).note.rev == n.rev
    T.edit(mem, team, n.note, "The launch is on Friday", n.rev, PERSON)       # the rev the reviewer saw still holds


# ----- undo


def test_every_change_is_a_journal_row_of_the_team_and_can_be_undone(mem):
    team = make(mem)
    c = T.propose(mem, team, "The launch is on Thursday", BOT_ACTOR, key="launch/date", bot=BOT).card
    n = T.accept(mem, team, c.card, c.rev, PERSON).note
    n = T.edit(mem, team, n.note, "The launch is on Friday", n.rev, PERSON).note
    T.pin(mem, team, n.note, True, PERSON)
    T.remove(mem, team, n.note, n.rev, PERSON)
    T.rename(mem, team, "Launch crew", PERSON)
    rows = T.journal(mem, team)
    assert [r.file for r in rows] == ["team.json", f"notes/{n.note}.json", f"notes/{n.note}.json",
                                      f"notes/{n.note}.json", f"notes/{n.note}.json", f"cards/{c.card}.json",
                                      "team.json"]
    assert all(r.bot == F.journal_id(team) and r.undoable for r in rows)
    assert rows[-2].who == "bot" and rows[0].who == "person"
    # undo, newest first: the name, the deletion, the pin, the edit, the acceptance (its card is pending again)
    T.undo(mem, team, rows[0].id)
    assert T.show(mem, team).team.name == "Launch"
    T.undo(mem, team, rows[1].id)
    assert texts(mem, team) == ["The launch is on Friday"]
    T.undo(mem, team, rows[2].id)
    assert T.show(mem, team).as_dict()["notes"][0]["pinned"] is False
    T.undo(mem, team, rows[3].id)
    assert texts(mem, team) == ["The launch is on Thursday"]
    T.undo(mem, team, rows[4].id)
    assert texts(mem, team) == [] and [x["card"] for x in T.show(mem, team).cards] == [c.card]
    # an undo is itself a row, and can be undone in turn: the note is back, the card accepted again
    again = T.journal(mem, team, 1)[0]
    assert again.who == "person" and again.how == "undo"
    T.undo(mem, team, again.id)
    assert texts(mem, team) == ["The launch is on Thursday"] and T.show(mem, team).cards == []


def test_undo_never_brings_a_revision_back(mem):
    """After an undo the note's rev still grows: a reviewer holding the rev of the undone text is stale."""
    team = make(mem)
    n = accepted(mem, team, "The launch is on Thursday").note
    e = T.edit(mem, team, n.note, "The launch is on Friday", n.rev, PERSON)
    T.undo(mem, team, e.row)
    now = T.show(mem, team).as_dict()["notes"][0]
    assert now["text"] == "The launch is on Thursday" and now["rev"] == e.note.rev + 1
    with pytest.raises(TeamConflict):
        T.edit(mem, team, n.note, "Based on Friday", e.note.rev, PERSON)


def test_undoing_the_creation_retires_the_team_and_undoing_a_deletion_needs_the_name_free(mem):
    team = make(mem, "Ops")
    d = T.delete(mem, team, PERSON)
    other = make(mem, "Ops")
    with pytest.raises(BadInput, match="exists already"):
        T.undo(mem, team, d.row)
    T.rename(mem, other, "Ops two", PERSON)
    T.undo(mem, team, d.row)
    assert T.show(mem, "Ops").team.team == team
    created = T.journal(mem, other)[-1]
    T.undo(mem, other, created.id)
    assert [t.team for t in T.list_teams(mem)] == [team]


# ----- on disk


def test_files_live_under_the_home_outside_every_workspace_owner_only_and_redacted(mem):
    team = make(mem)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    c = T.propose(mem, team, f"Deploys use the token {token}", BOT_ACTOR, bot=BOT).card
    T.accept(mem, team, c.card, c.rev, PERSON)
    base = mem.home.root / "teams" / team
    files = sorted(p for p in base.rglob("*") if p.is_file())
    assert [p.relative_to(base).as_posix().split("/")[0] for p in files] == ["cards", "notes", "team.json"]
    for p in files:
        assert stat.S_IMODE(p.stat().st_mode) == 0o600
        assert token not in p.read_text() and mem.home.workspaces not in p.parents
        assert json.loads(p.read_text())["format"] == 2
    journal = mem.home.journal_dir / f"team-{team}.ndjson"
    assert token not in journal.read_text() and "«redacted" in texts(mem, team)[0]


def test_a_note_edited_on_two_computers_becomes_a_conflict_card_never_an_overwrite(mem):
    """What a sync merge hands back: the other side's text is a card replacing the note, for a person."""
    team = make(mem)
    n = accepted(mem, team, "The launch is on Thursday", key="launch/date").note
    r = T.keep_other_side(mem, team, n.note, "The launch is on Saturday", host="laptop")
    card = T.show(mem, team).as_dict()["cards"][0]
    assert card["conflict"] is True and card["host"] == "laptop" and card["replaces"] == n.note
    assert texts(mem, team) == ["The launch is on Thursday"]
    T.accept(mem, team, r.card.card, r.card.rev, PERSON)
    assert texts(mem, team) == ["The launch is on Saturday"]


def test_a_record_in_an_unknown_format_is_refused_in_one_line(mem):
    team = make(mem)
    path = F.folder(mem.home, team) / "team.json"
    d = json.loads(path.read_text())
    path.write_text(json.dumps({**d, "format": 3}))
    with pytest.raises(Refused) as e:
        T.show(mem, team)
    assert "\n" not in str(e.value) and "format 3" in str(e.value) and "update botmemory" in str(e.value)


def test_the_wing_takes_no_revision_from_a_retired_team(mem):
    team = make(mem)
    T.delete(mem, team, PERSON)
    with pytest.raises(Refused):
        Teams(mem).rename(team, "New", PERSON)
