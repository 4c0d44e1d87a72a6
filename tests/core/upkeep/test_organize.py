"""Organizing: detail in MEMORY.md filed, unchanged, into topics — with the fixed rules — against loopback models."""
from __future__ import annotations

import json

import pytest

from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.store.writer import Actor
from botmemory.core.text import frontmatter
from botmemory.core.text.entries import parse
from botmemory.core.upkeep import organize as O
from botmemory.core.upkeep import schedule as upkeep

from ..conftest import BOT, entry
from .test_helper import FakeModel, _fresh_log_once, configure, fake_model, memory_keyring  # noqa: F401

PERSON = Actor.person()

LINES = [
    entry("2026-10-01", "The person's name is Mira"),                     # 1 core
    entry("2026-10-02", "Sister Asha likes jazz and lives in Goa"),       # 2 detail about another person
    entry("2026-10-03", "Allergic to peanuts"),                            # never offered
    "- Never schedule calls before 10",                                    # a rule: never offered
    entry("2026-10-04", "Always answer in English"),                       # a rule: never offered
    entry("2026-09-01", "PR 42 for Acme merged"),                          # 3 a finished work log
    "- Hand-written: Acme's invoices go to Priya",                         # 4 a hand-written bullet
    "# Heading",
]


@pytest.fixture
def model(mem, fake_model, memory_keyring):
    configure(mem.home, fake_model, memory_keyring)
    return fake_model


def answer(moves=(), core=()) -> str:
    return json.dumps({"moves": [{"line": n, "topic": t, "title": t.title(), "aliases": a} for n, t, a in moves],
                       "core": list(core)})


def offered_lines(seen) -> list[str]:
    prompt = seen.body["messages"][-1]["content"]
    return [line for line in prompt.split("\n") if line[:1].isdigit() and ". " in line[:4]]


def test_detail_moves_unchanged_into_its_topic_and_each_file_is_an_undoable_row(mem, model):
    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES) + "\n", PERSON)
    model.answer = lambda seen: answer([(2, "family", ["sister", "Asha"]), (3, "work-log", []),
                                        (4, "acme", ["client"])], core=[1])
    r = O.organize(mem, BOT)
    (seen,) = model.seen
    assert [line.split(". ", 1)[1] for line in offered_lines(seen)] == [
        LINES[0], LINES[1], LINES[5], LINES[6]]                      # health and rules never offered
    assert [m["file"] for m in r.moved] == ["memory/family.md", "memory/work-log.md", "memory/acme.md"]
    assert mem.store.text(BOT, MEMORY_FILE).splitlines() == [LINES[0], LINES[2], LINES[3], LINES[4], LINES[7]]
    fam = mem.store.text(BOT, "memory/family.md")
    assert fam.endswith(LINES[1] + "\n") and frontmatter.read(fam).aliases == ("sister", "Asha")
    assert mem.store.text(BOT, "memory/acme.md").endswith(LINES[6] + "\n")
    assert [c.file for c in r.changes][-1] == MEMORY_FILE                        # topics first
    rows = mem.journal.list(BOT, limit=4)
    assert {(row.who, row.how) for row in rows} == {("upkeep", "filed into topics")}
    mem.undo(BOT, next(row.id for row in rows if row.file == MEMORY_FILE))
    assert LINES[1] in mem.store.text(BOT, MEMORY_FILE)


def test_an_allergy_line_offered_by_the_model_anyway_never_moves(mem, model):
    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES) + "\n", PERSON)
    model.answer = lambda seen: json.dumps({"moves": [
        {"line": LINES[2], "topic": "food", "title": "Food", "aliases": []},
        {"line": LINES[3], "topic": "calls", "title": "Calls", "aliases": []},
        {"line": 99, "topic": "x", "title": "X", "aliases": []}], "core": []})
    r = O.organize(mem, BOT)
    assert r.moved == [] and mem.store.text(BOT, MEMORY_FILE) == "\n".join(LINES) + "\n"
    assert [s["reason"] for s in r.skipped] == ["not one of the lines offered"] * 3


def test_at_most_20_lines_move_in_one_pass(mem, model):
    lines = [entry(f"2026-09-{1 + i % 28:02d}", f"Client note {i}") for i in range(40)]
    mem.store.write(BOT, MEMORY_FILE, "\n".join(lines) + "\n", PERSON)
    model.answer = lambda seen: answer([(n, "clients", []) for n in range(1, 41)])
    r = O.organize(mem, BOT)
    assert len(r.moved) == 20 and sum("at most 20" in s["reason"] for s in r.skipped) == 20
    assert len(mem.store.text(BOT, MEMORY_FILE).splitlines()) == 20
    assert mem.store.text(BOT, "memory/clients.md").count("Client note") == 20


def test_a_line_judged_core_is_not_asked_again(mem, model):
    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES[:2]) + "\n", PERSON)
    model.answer = lambda seen: answer(core=[1, 2])
    O.organize(mem, BOT)
    assert O.organize(mem, BOT).offered == 0 and len(model.seen) == 1
    assert "Mira" not in O.judged_file(mem.home, BOT).read_text()      # hashes, never the text


def test_a_line_changed_while_the_model_read_it_stays(mem, model):
    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES[:2]) + "\n", PERSON)

    def edit_meanwhile(seen):
        mem.store.write(BOT, MEMORY_FILE, LINES[0] + "\n" + LINES[1] + " (edited)\n", PERSON)
        return answer([(2, "family", [])])

    model.answer = edit_meanwhile
    r = O.organize(mem, BOT)
    assert r.moved == [] and "changed" in r.skipped[0]["reason"]
    assert mem.home.topics(BOT) == []


@pytest.mark.parametrize("reply", ["move line 2", '{"moves": 3}', '{"core": []}'])
def test_nonsense_moves_nothing(mem, model, reply):
    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES) + "\n", PERSON)
    model.answer = lambda seen: reply
    r = O.organize(mem, BOT)
    assert r.moved == [] and "not the JSON" in r.skipped[0]["reason"]


def test_without_a_helper_nothing_is_offered(mem):
    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES) + "\n", PERSON)
    r = O.organize(mem, BOT)
    assert r.helper is None and "no helper" in r.skipped[0]["reason"]


def test_the_nightly_tidy_up_organizes_too(mem, model):
    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES[:2]) + "\n", PERSON)
    model.answer = lambda seen: ('{"pairs": []}' if "contradictions" in json.dumps(seen.body)
                                 else answer([(2, "family", [])]))
    report = upkeep.tidy_now(mem, BOT)
    assert report.as_dict()["organized"]["moved"][0]["file"] == "memory/family.md"
    assert upkeep.read_state(mem.home, BOT).report["organized"]["moved"]


def test_rules_and_health_are_recognised():
    blocks = parse("\n".join([
        "- Don't send emails after 9pm", "- From now on reply in French", "- every time I ask, cite sources",
        "- Whenever I say 'go', start", entry("2026-10-01", "Is diabetic"), entry("2026-10-01", "Likes jazz"),
    ]) + "\n").blocks
    assert [O.is_candidate(b) for b in blocks] == [False, False, False, False, False, True]


def test_a_line_with_forgotten_words_is_not_filed(mem, model):
    from botmemory.core.notes import update

    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES[:2]) + "\n", PERSON)
    update.forget(mem.store, BOT, ["Goa"], PERSON)            # the line goes, and the word is kept
    mem.store.write(BOT, MEMORY_FILE, "\n".join(LINES[:2]) + "\n", PERSON)   # written back by hand
    model.answer = lambda seen: answer([(2, "family", [])])
    r = O.organize(mem, BOT)
    assert r.moved == [] and "asked to forget" in r.skipped[0]["reason"]
    assert LINES[1] in mem.store.text(BOT, MEMORY_FILE) and mem.home.topics(BOT) == []
