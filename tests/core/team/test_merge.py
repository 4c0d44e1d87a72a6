"""A team folder changed on two computers, put together (core/team/merge.py): every rule on records built
here, without git (the rounds over real git are tests/core/ops/test_team_sync.py)."""
from __future__ import annotations

import json

import pytest

from botmemory.core.base.errors import BadInput, Refused
from botmemory.core.base.record import replace
from botmemory.core.team.files import render
from botmemory.core.team.merge import merge_card, merge_folder, merge_note, merge_team, same_facts
from botmemory.core.team.records import Card, Note, Team, Version
from botmemory.core.team.teams import unchanged_since

AT = "2026-10-15T09:00:00.000Z"
DAY = "2026-10-15"


def version(rev: int, text: str, *, how: str = "edit", at: str = AT, card: str | None = None) -> Version:
    return Version(rev, "", text, at, DAY, "person", how, None, card)


def note(text: str = "Venue is Pune", *, nid: str = "n-0000000001", key: str | None = "launch/venue",
         created: str = AT, cards: tuple[str, ...] = ("c-00000000a1",)) -> Note:
    v = version(1, text, how="accept", card=cards[0] if cards else None)
    return Note(nid, key, "", text, 1, False, "accepted", created, AT, DAY, cards, (v,))


def edited(n: Note, text: str, at: str) -> Note:
    return n.with_version(version(n.rev + 1, text, at=at))


def card(cid: str = "c-00000000b1", state: str = "pending", rev: int = 1) -> Card:
    return Card(cid, "The launch moved to Friday", "", "launch/date", rev, state, AT, DAY, "bot", "mcp", "scout")


def team(name: str = "Launch", bots: tuple[str, ...] = ("scout", "ledger"), rev: int = 1) -> Team:
    return Team("t-0000000001", name, bots, AT, None, rev)


# ----- a note changed on both


def test_the_same_note_edited_on_both_keeps_the_higher_rev_and_hands_the_other_text_back():
    base = note()
    ours = edited(base, "Venue is Baner", "2026-10-15T10:00:00Z")
    theirs = edited(edited(base, "Venue is Aundh", "2026-10-15T10:01:00Z"), "Venue is Kharadi",
                    "2026-10-15T10:02:00Z")
    merged, lost = merge_note(base, ours, theirs)
    assert merged.text == "Venue is Kharadi"                                   # theirs: rev 3 beats rev 2
    assert [(k.text, k.side) for k in lost] == [("Venue is Baner", "ours")]    # never dropped: a card
    # on a tie the note here keeps its text
    merged2, lost2 = merge_note(base, ours, edited(base, "Venue is Aundh", "2026-10-15T10:03:00Z"))
    assert merged2.text == "Venue is Baner" and [k.text for k in lost2] == ["Venue is Aundh"]


def test_revisions_above_both_sides_name_one_text_for_ever():
    """rev 2 meant Baner here and Kharadi there: after the merge no number either side issued names the note,
    every kept version has a number of its own, and the current text is the last one."""
    base = note()
    ours = edited(base, "Venue is Baner", "2026-10-15T10:00:00Z")
    theirs = edited(base, "Venue is Kharadi", "2026-10-15T10:01:00Z")
    merged, _ = merge_note(base, ours, theirs)
    revs = [v.rev for v in merged.versions]
    assert merged.rev > max(ours.rev, theirs.rev) and len(set(revs)) == len(revs) and revs == sorted(revs)
    assert merged.versions[-1].rev == merged.rev and merged.versions[-1].text == merged.text
    assert [v.text for v in merged.versions] == ["Venue is Pune", "Venue is Kharadi", "Venue is Baner"]
    # a replacement proposed against either side's rev 2 (or the base's) is stale now: the fact changed
    assert not unchanged_since(merged, 2) and not unchanged_since(merged, 1)
    assert unchanged_since(merged, merged.rev)


def test_a_pin_on_one_side_and_an_edit_on_the_other_are_both_kept_without_a_conflict():
    base = note()
    ours = replace(base, pinned=True)
    theirs = edited(base, "Venue is Baner", "2026-10-15T10:00:00Z")
    merged, lost = merge_note(base, ours, theirs)
    assert (merged.pinned, merged.text, merged.rev, lost) == (True, "Venue is Baner", 2, [])
    assert merged.versions == theirs.versions                  # only one side made revisions: no renumbering


def test_a_note_deleted_on_one_side_and_edited_on_the_other_stays_deleted_and_the_edit_is_kept():
    base = note()
    ours = replace(base, state="deleted", rev=2)
    theirs = edited(base, "Venue is Baner", "2026-10-15T10:00:00Z")
    merged, lost = merge_note(base, ours, theirs)
    assert merged.state == "deleted" and merged.rev == 3
    assert [(k.text, k.side) for k in lost] == [("Venue is Baner", "theirs")]
    # the deletion alone loses nothing accepted: no card
    merged, lost = merge_note(base, ours, replace(base, pinned=True))
    assert merged.state == "deleted" and lost == []


def test_the_same_card_accepted_into_a_note_on_both_is_one_version():
    base = note()
    ours = replace(base.with_version(version(2, "The launch moved", how="accept", card="c-00000000c1",
                                             at="2026-10-15T10:00:00Z")), cards=(*base.cards, "c-00000000c1"))
    theirs = replace(base.with_version(version(2, "The launch moved", how="accept", card="c-00000000c1",
                                               at="2026-10-15T10:05:00Z")), cards=(*base.cards, "c-00000000c1"))
    merged, lost = merge_note(base, ours, theirs)
    assert lost == [] and merged.text == "The launch moved" and merged.cards == base.cards + ("c-00000000c1",)
    # the two acceptances were one change, made twice: one version, at a rev above both
    assert [v.text for v in merged.versions] == ["Venue is Pune", "The launch moved"] and merged.rev == 3


def test_cards_accepted_into_a_note_merge_as_sets():
    base = note()
    ours = replace(edited(base, "A", AT), cards=(*base.cards, "c-00000000d1"))
    theirs = replace(base, cards=(), rev=2, state="deleted")     # its acceptance undone there
    merged, _ = merge_note(base, ours, theirs)
    assert merged.cards == ("c-00000000d1",)


# ----- cards and team.json


def test_a_card_changed_on_both_keeps_a_decision_at_a_rev_above_both():
    base = card()
    merged = merge_card(base, card(state="rejected", rev=2), card(state="withdrawn", rev=2))
    assert (merged.state, merged.rev) == ("rejected", 3)
    merged = merge_card(base, card(state="withdrawn", rev=2), card(state="rejected", rev=2))
    assert merged.state == "rejected"
    merged = merge_card(card(state="rejected", rev=2), card(state="pending", rev=3), card(state="rejected", rev=2))
    assert (merged.state, merged.rev) == ("pending", 3)         # only one side changed it: its change


def test_team_json_changed_on_both_merges_name_members_and_retirement():
    base = team()
    ours = replace(base, name="Launch Q4", bots=("scout", "ledger", "quill"), rev=2)
    theirs = replace(base, bots=("scout",), rev=2)
    merged = merge_team(base, ours, theirs)
    assert (merged.name, merged.bots, merged.rev) == ("Launch Q4", ("scout", "quill"), 3)
    merged = merge_team(base, replace(base, name="A", rev=2), replace(base, name="B", rev=3))
    assert merged.name == "B"
    merged = merge_team(base, replace(base, retired="2026-10-16T00:00:00Z", rev=2), replace(base, name="C", rev=2))
    assert merged.retired == "2026-10-16T00:00:00Z" and merged.name == "C"


# ----- the folder


def files(*notes: Note, cards: tuple[Card, ...] = ()) -> dict[str, str]:
    out = {f"notes/{n.note}.json": render(n.as_dict()) for n in notes}
    out.update({f"cards/{c.card}.json": render(c.as_dict()) for c in cards})
    return out


def host(where: str) -> str:
    return "desktop" if where == "ours" else "laptop"


def test_a_conflict_card_is_made_once_even_when_the_round_runs_again():
    base, rel = note(), "notes/n-0000000001.json"
    ours = edited(base, "Venue is Baner", "2026-10-15T10:00:00Z")
    theirs = edited(base, "Venue is Kharadi", "2026-10-15T10:01:00Z")
    o, t, b = files(ours), files(theirs), files(base)
    out = merge_folder("t-0000000001", o, dict(o), {rel: (b[rel], o[rel], t[rel])}, at=AT, day=DAY, host=host)
    (made,) = out.made
    c = Card.from_dict(json.loads(out.texts[made.rel]), made.rel)
    assert (c.text, c.conflict, c.host, c.replaces, c.state) == ("Venue is Kharadi", True, "laptop", base.note,
                                                                 "pending")
    assert c.replaces_rev == Note.from_dict(json.loads(out.texts[rel]), rel).rev
    # killed after writing the card, before the state was saved: the same merge again finds it made
    here = {**o, made.rel: out.texts[made.rel]}
    again = merge_folder("t-0000000001", here, dict(here), {rel: (b[rel], o[rel], t[rel])}, at=AT, day=DAY,
                         host=host)
    assert again.made == () and made.rel not in again.texts


def test_a_round_killed_after_writing_the_merged_note_merges_to_the_same_note_and_card_again():
    """Killed after it wrote the card and the merged note, before it saved its base: the next round merges the
    merged note with the same remote text. The merged note already holds both sides' versions: it is kept as it
    is (not renumbered above itself), so the conflict card made against it is not stale."""
    base, rel = note(), "notes/n-0000000001.json"
    ours = edited(base, "Venue is Kharadi", "2026-10-15T10:00:00Z")
    theirs = edited(base, "Venue is Baner", "2026-10-15T10:01:00Z")
    o, t, b = files(ours), files(theirs), files(base)
    out = merge_folder("t-0000000001", o, dict(o), {rel: (b[rel], o[rel], t[rel])}, at=AT, day=DAY, host=host)
    (made,) = out.made
    here = {**o, made.rel: out.texts[made.rel], rel: out.texts[rel]}
    again = merge_folder("t-0000000001", here, dict(here), {rel: (b[rel], here[rel], t[rel])}, at=AT, day=DAY,
                         host=host)
    assert again.made == () and made.rel not in again.texts
    assert again.texts[rel] == out.texts[rel]                   # the same note, at the same rev
    merged = Note.from_dict(json.loads(again.texts[rel]), rel)
    c = Card.from_dict(json.loads(here[made.rel]), made.rel)
    assert c.text == "Venue is Baner" and unchanged_since(merged, c.replaces_rev)
    # the same holds for the note alone, whichever side holds the merge
    first, _ = merge_note(base, ours, theirs)
    assert merge_note(base, first, theirs)[0] == first and merge_note(base, theirs, first)[0] == first
    # the other side changed something the merge does not hold yet (deleted it there): merged as before
    gone = merge_note(base, first, replace(theirs, state="deleted", rev=3))[0]
    assert gone.state == "deleted" and gone.rev > first.rev


def test_one_card_accepted_on_both_computers_is_one_note_and_the_same_key_twice_a_conflict_card():
    older = note("The launch moved to Friday", nid="n-00000000a1", created="2026-10-15T10:00:00Z",
                 cards=("c-00000000c1",))
    newer = note("The launch moved to Friday", nid="n-00000000a2", created="2026-10-15T10:00:05Z",
                 cards=("c-00000000c1",))
    final = files(older, newer)
    gone = same_facts(final, {"notes/n-00000000a2.json"})
    assert list(gone) == ["notes/n-00000000a2.json"]
    deleted, kept = gone["notes/n-00000000a2.json"]
    assert deleted.state == "deleted" and deleted.cards == ("c-00000000c1",) and kept.note == older.note
    # both came in, or neither did: left as they are (a computer's own undo, say)
    assert same_facts(final, set(final)) == {} and same_facts(final, set()) == {}
    # two cards of one key accepted on two computers, each a new note: one fact, the other text a card
    other = note("The launch moved to Monday", nid="n-00000000a2", created="2026-10-15T10:00:05Z",
                 cards=("c-00000000c2",))
    here = files(older)
    desired = {**here, **files(other)}
    out = merge_folder("t-0000000001", here, desired, {}, at=AT, day=DAY, host=host)
    assert json.loads(out.texts["notes/n-00000000a2.json"])["state"] == "deleted"
    (made,) = out.made
    c = json.loads(out.texts[made.rel])
    assert (c["text"], c["replaces"], c["host"]) == ("The launch moved to Monday", older.note, "laptop")


def test_a_file_gone_from_the_remote_stays_and_an_unknown_format_is_refused_before_anything_is_written():
    n = note()
    here = files(n)
    out = merge_folder("t-0000000001", here, {rel: None for rel in here}, {}, at=AT, day=DAY, host=host)
    assert out.texts == here
    newer = json.loads(here["notes/n-0000000001.json"])
    newer["format"] = 3
    with pytest.raises(Refused, match="format 3.*update botmemory"):
        merge_folder("t-0000000001", here, {"notes/n-0000000001.json": json.dumps(newer)}, {}, at=AT, day=DAY,
                     host=host)
    with pytest.raises(BadInput, match="damaged"):
        merge_folder("t-0000000001", here, {"notes/n-0000000001.json": "{not json"}, {}, at=AT, day=DAY, host=host)
