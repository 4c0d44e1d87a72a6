"""Capture proposing to a member bot's team, through the checks before a fact is saved (docs/RULES.md
"Capture and organizing"): quotes really said, numbers/paths/URLs from the quotes, secrets refused, an outdated
note left as it is when its replacement fails."""
from __future__ import annotations

from botmemory.core.ops import team as T
from botmemory.core.store.writer import Actor
from botmemory.core.upkeep import capture as C

from ..conftest import BOT
from .test_capture import (
    a_turn,
    fact,
    facts,
    model,  # noqa: F401
    prompt_of,
)
from .test_helper import FakeModel, _fresh_log_once, configure, fake_model, memory_keyring  # noqa: F401

PERSON = Actor.person()
SAID = ("person", "We moved the launch to Friday 14 November. The press kit lives at /shared/press/kit-v3.pdf.")


def team_of(mem) -> str:
    return T.create(mem, "Launch", [BOT], PERSON).team.team


def test_a_team_fact_that_passes_the_checks_is_a_card_waiting_for_a_person(mem, tmp_path, model):
    team = team_of(mem)
    a_turn(mem, tmp_path, SAID, ("bot", "Noted."))
    model.answer = lambda seen: facts(
        fact("The launch moved to Friday 14 November", "team", "decision", quote="We moved the launch to Friday "
             "14 November", key="launch/date"))
    r = C.capture(mem, BOT, organize=False)
    assert r.skipped == [] and r.filed[0]["file"].startswith("team Launch: card ")
    (card,) = T.show(mem, team).cards
    assert (card["text"], card["key"], card["bot"], card["who"], card["how"], card["chat"]) == (
        "The launch moved to Friday 14 November", "launch/date", BOT, "upkeep", "capture", "Plans")
    assert card["quotes"] == ["We moved the launch to Friday 14 November"]
    assert T.show(mem, team).as_dict()["notes"] == []                      # nothing loads before a person accepts
    assert 'target "team"' in prompt_of(model.seen[0]) and "Launch" in prompt_of(model.seen[0])


def test_a_bot_in_no_team_is_never_asked_for_team_facts(mem, tmp_path, model):
    a_turn(mem, tmp_path, SAID)
    model.answer = lambda seen: facts(fact("The launch moved to Friday 14 November", "team", "decision",
                                           quote="We moved the launch to Friday 14 November"))
    r = C.capture(mem, BOT, organize=False)
    assert 'target "team"' not in prompt_of(model.seen[0])
    assert r.filed == [] and r.skipped[0]["reason"] == f"{BOT} is in no team"


def test_team_facts_that_fail_the_checks_are_skipped_and_the_accepted_note_stays(mem, tmp_path, model):
    team = team_of(mem)
    c = T.propose(mem, team, "The launch is on Thursday 13 November", PERSON, key="launch/date").card
    T.accept(mem, team, c.card, c.rev, PERSON)
    a_turn(mem, tmp_path, SAID, ("bot", "The launch is on Saturday 15 November, the key is sk-ant-api03-abcdef"))
    model.answer = lambda seen: facts(
        fact("The launch moved to Friday 14 November", "team", "decision", quote="", key="launch/date"),
        fact("The launch moved to Saturday 15 November", "team", "decision",
             quote="The launch is on Saturday 15 November", key="launch/date"),
        fact("The launch moved to Friday 21 November", "team", "decision",
             quote="We moved the launch to Friday 14 November", key="launch/date"),
        fact("The press kit is at /shared/press/kit-v4.pdf", "team", "decision",
             quote="The press kit lives at /shared/press/kit-v3.pdf"),
        fact("The deploy key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "team", "decision",
             quote="We moved the launch to Friday 14 November"),
        fact("The launch moved to Friday 14 November", "team", "decision",
             quote="We moved the launch to Friday 14 November", key="bad key"),
        fact("Where is the press kit", "team", "decision", quote="Where is the press kit?"))
    r = C.capture(mem, BOT, organize=False)
    reasons = [s["reason"] for s in r.skipped]
    assert reasons == [
        "a team note needs the words it rests on, quoted from what was said",
        "the quote is not in the person's words",              # the bot said it, not the person
        "the number 21 is not in its quotes",
        "the path /shared/press/kit-v4.pdf is not in its quotes",
        "looks like a secret (rejected by the secret detector)",
        "bad key 'bad key': a key is lowercase letters, digits, '.', '_' and '-', in parts joined by '/' "
        "(like tapa/sequence-02/colour), at most 120 characters",
        "the quote is not in the person's words",
    ] and r.filed == []
    assert T.show(mem, team).cards == []
    assert [n["text"] for n in T.show(mem, team).as_dict()["notes"]] == ["The launch is on Thursday 13 November"]


def test_a_correction_from_capture_replaces_the_note_with_its_key_once_accepted(mem, tmp_path, model):
    team = team_of(mem)
    c = T.propose(mem, team, "The launch is on Thursday 13 November", PERSON, key="launch/date").card
    note = T.accept(mem, team, c.card, c.rev, PERSON).note
    a_turn(mem, tmp_path, SAID)
    model.answer = lambda seen: facts(fact("The launch moved to Friday 14 November", "team", "decision",
                                           quote="We moved the launch to Friday 14 November", key="launch/date"))
    C.capture(mem, BOT, organize=False)
    assert "launch/date" in prompt_of(model.seen[0])                     # the model is shown the keys in use
    (card,) = T.show(mem, team).cards
    assert card["replaces"] == note.note and card["replaces_text"] == "The launch is on Thursday 13 November"
    T.accept(mem, team, card["card"], card["rev"], PERSON)
    assert [n["text"] for n in T.show(mem, team).as_dict()["notes"]] == ["The launch moved to Friday 14 November"]
