"""Noticing facts (capture), About me lines, and the checks on every answer, against loopback model servers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.disk import config
from botmemory.core.disk.paths import ARCHIVE_FILE, MEMORY_FILE
from botmemory.core.faces.cli import main
from botmemory.core.notes import update
from botmemory.core.outside.turns import turn_begin, turn_end
from botmemory.core.store.writer import Actor
from botmemory.core.text import frontmatter
from botmemory.core.upkeep import capture as C
from botmemory.core.upkeep import capture_queue
from tests.conftest import examples

from ..conftest import BOT, entry
from .test_helper import FakeModel, _fresh_log_once, configure, fake_model, memory_keyring  # noqa: F401

PERSON = Actor.person()
TRAVEL = "memory/travel.md"
TRAVEL_TEXT = "---\ntitle: Travel\naliases: [trips, flights]\n---\n# Travel\n"


@pytest.fixture
def model(mem, fake_model, memory_keyring):
    configure(mem.home, fake_model, memory_keyring)
    fake_model.answer = lambda seen: facts()
    return fake_model


def facts(*items: dict) -> str:
    return json.dumps({"facts": list(items)})


def fact(text: str, target: str = "memory", kind: str = "person", quote: str | list[str] = "", **kw) -> dict:
    return {"text": text, "target": target, "kind": kind, "quote": quote, "topic": kw.pop("topic", ""),
            "aliases": kw.pop("aliases", []), "until": kw.pop("until", ""), **kw}


def prompt_of(seen) -> str:
    return seen.body["messages"][-1]["content"]


def system_of(seen) -> str:
    return seen.body.get("system") or seen.body["messages"][0]["content"]


def write_transcript(path: Path, *msgs: tuple[str, str], mode: str = "w") -> Path:
    with open(path, mode, encoding="utf-8") as f:
        for role, text in msgs:
            f.write(json.dumps({"role": role, "text": text, "at": "2026-10-15T10:00:00Z"}) + "\n")
    return path


_n = iter(range(10_000))


def a_turn(mem, tmp_path, *msgs: tuple[str, str], chat: str = "Plans", **kw) -> str | None:
    """A whole turn through the harness's boundary: begin, end, and its transcript noted."""
    path = write_transcript(tmp_path / f"turn-{next(_n)}.jsonl", *msgs)
    turn_id = turn_begin(mem, BOT, chat)
    turn_end(mem, BOT, turn_id, "ok")
    return C.note_turn(mem, BOT, turn_id, chat, path, **kw)


def text(mem, rel: str) -> str:
    return mem.store.text(BOT, rel)


SAID = ("person", "I'm vegetarian, and I live in Pune. My sister Asha visits on 2026-11-02. "
                  "Can you suggest note-takers for a 10-person startup? Write a launch plan for an AI app. "
                  "Suppose I moved to Berlin.")


# ----- the pending turns


def test_a_turn_is_kept_as_its_id_and_location_never_its_text(mem, tmp_path):
    assert a_turn(mem, tmp_path, SAID, ("bot", "Noted.")) is None
    raw = C.pending_path(mem.home).read_text()
    assert "vegetarian" not in raw and "Noted" not in raw
    (chat,) = C.read_pending(mem.home)
    assert chat["bot"] == BOT and chat["chat"] == "Plans" and len(chat["turns"]) == 1
    t = chat["turns"][0]
    assert t["transcript"].endswith(".jsonl") and t["start"] == 0 and t["end"] > 0


@pytest.mark.parametrize("kw, why", [
    ({"failed": True}, "failed"),
    ({"started_by": "bot"}, "another bot"),
    ({"started_by": "harness"}, "harness"),
    ({"started_by": "routine"}, "routine"),
    ({"room": True}, "roomMemoryCapture"),
])
def test_turns_that_are_never_read_are_not_kept(mem, tmp_path, kw, why):
    assert why in a_turn(mem, tmp_path, SAID, **kw)
    assert C.read_pending(mem.home) == []


def test_at_most_50_chats_wait(mem, tmp_path):
    for i in range(55):
        a_turn(mem, tmp_path, ("person", "hello"), chat=f"Chat {i}")
    chats = C.read_pending(mem.home)
    assert len(chats) == C.MAX_PENDING_CHATS and chats[0]["chat"] == "Chat 5"


def test_a_chat_is_due_after_two_quiet_minutes_or_six_turns(mem, tmp_path):
    for _ in range(5):
        a_turn(mem, tmp_path, ("person", "hello"), now=1000.0)
    chats = C.read_pending(mem.home)
    assert C.due_chats(chats, 1000.0 + 119, 120) == []
    assert len(C.due_chats(chats, 1000.0 + 120, 120)) == 1
    a_turn(mem, tmp_path, ("person", "hello"), now=1000.0)
    assert len(C.due_chats(C.read_pending(mem.home), 1000.0, 120)) == 1
    config.write_config(mem.home, {"memory": {"captureQuietMs": 5000}})
    assert C.quiet_seconds(mem.home) == 5.0


def test_one_file_per_chat_is_read_from_where_the_last_turn_ended(mem, tmp_path):
    path = write_transcript(tmp_path / "chat.jsonl", ("person", "first turn words"))
    t1 = turn_begin(mem, BOT, "Plans")
    turn_end(mem, BOT, t1)
    C.note_turn(mem, BOT, t1, "Plans", path)
    write_transcript(path, ("person", "second turn words"), mode="a")
    t2 = turn_begin(mem, BOT, "Plans")
    turn_end(mem, BOT, t2)
    C.note_turn(mem, BOT, t2, "Plans", path)
    (chat,) = C.read_pending(mem.home)
    first, second = chat["turns"]
    assert second["start"] == first["end"]
    msgs, note = C.read_turn(second["transcript"], second["start"], second["end"])
    assert [m.text for m in msgs] == ["second turn words"] and note is None


# ----- reading transcripts


def test_a_torn_transcript_keeps_its_whole_lines(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"role": "person", "text": "I live in Pune"}\n{"role": "bot", "te\n\xff\xfe\n[1]\n'
                  b'{"role": "person", "text": "I like tea"}\n')
    msgs, note = C.read_turn(str(p), 0, p.stat().st_size)
    assert [m.text for m in msgs] == ["I live in Pune", "I like tea"]
    assert "3 unreadable lines" in note


def test_a_huge_transcript_is_read_only_for_the_turns_end(tmp_path, monkeypatch):
    monkeypatch.setattr(capture_queue, "MAX_TURN_BYTES", 200)   # where read_turn reads it
    p = write_transcript(tmp_path / "t.jsonl", *[("person", f"line {i} " + "x" * 40) for i in range(100)])
    msgs, note = C.read_turn(str(p), 0, p.stat().st_size)
    assert 1 <= len(msgs) <= 3 and msgs[-1].text.startswith("line 99") and "only its end" in note


def test_a_missing_or_rewound_transcript_reads_nothing(tmp_path):
    assert "gone" in C.read_turn(str(tmp_path / "none.jsonl"), 0, 10)[1]
    p = write_transcript(tmp_path / "t.jsonl", ("person", "hello"))
    assert "rewound" in C.read_turn(str(p), 0, p.stat().st_size + 100)[1]


def test_a_transcript_is_never_read_through_a_symbolic_link(tmp_path):
    real = write_transcript(tmp_path / "real.jsonl", ("person", "I live in Pune"))
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    msgs, note = C.read_turn(str(link), 0, real.stat().st_size)
    assert msgs == [] and note


def test_claude_code_lines_tool_results_and_meta_are_not_the_persons_words():
    user = {"type": "user", "message": {"role": "user", "content": "I live in Pune"}}
    meta = {"type": "user", "isMeta": True, "message": {"role": "user", "content": "<command>x</command>"}}
    tool = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": "secret file"}]}}
    bot = {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "Noted."}, {"type": "tool_use", "name": "Read", "input": {}}]}}
    got = [C.parse_line(json.dumps(d).encode()) for d in (user, meta, tool, bot)]
    assert [(m.role, m.text) for m in got if m] == [("person", "I live in Pune"), ("other", ""), ("other", ""),
                                                     ("bot", "Noted.")]


# ----- the checks (pure)


@pytest.mark.parametrize("quote, problem", [
    ("Can you suggest note-takers for a 10-person startup?", "question"),
    ("note-takers for a 10-person startup?", "question"),
    ("Write a launch plan for an AI app", "task"),
    ("please draft an email to my landlord", "task"),
    ("Suppose I moved to Berlin", "suppose"),
    ("what if I lived in Berlin", "suppose"),
    ("I'm vegetarian", None),
    ("I live in Pune", None),
])
def test_a_question_a_task_or_a_suppose_is_never_a_fact(quote, problem):
    got = C.quote_problem(quote)
    assert (got is None) if problem is None else (problem in got)


def test_anchors_are_numbers_paths_and_urls():
    assert C.anchors("Deploys https://x.example/a?b=1 from ~/src/app to /srv/app on port 8080, v1.5") == [
        "https://x.example/a?b=1", "~/src/app", "/srv/app", "8080", "1.5"]


def test_quotes_compare_after_normalising_whitespace_and_quote_marks():
    assert C.normalise("I\u2019m   a  \u201cnight owl\u201d") == C.normalise("i'm a \"night owl\"")


# ----- capture against the model


def test_a_core_fact_goes_to_memory_marked_noticed(mem, tmp_path, model):
    mem.store.write(BOT, MEMORY_FILE, entry("2026-10-01", "Prefers short replies") + "\n", PERSON)
    mem.store.write(BOT, TRAVEL, TRAVEL_TEXT, PERSON)
    a_turn(mem, tmp_path, SAID, ("bot", "Noted."))
    model.answer = lambda seen: facts(fact("The person is vegetarian", quote="I'm vegetarian"))
    r = C.capture(mem, BOT, organize=False)
    assert r.filed == [{"fact": "The person is vegetarian", "file": MEMORY_FILE}] and r.skipped == []
    assert text(mem, MEMORY_FILE).splitlines()[-1] == \
        '- 2026-10-15 · from chat "Plans" (noticed) · The person is vegetarian'
    (seen,) = model.seen                               # one helper call for the batch
    p = prompt_of(seen)
    assert "1. " + entry("2026-10-01", "Prefers short replies") in p
    assert "travel.md — Travel (aliases: trips, flights)" in p and "[person] I'm vegetarian" in p
    assert C.read_pending(mem.home) == []
    row = mem.journal.list(BOT, limit=1)[0]
    assert (row.who, row.how, row.file) == ("upkeep", "capture", MEMORY_FILE)
    assert C.last_capture(mem.home, BOT)["report"]["filed"] == r.filed


def test_the_rest_goes_to_a_topic_reused_or_created_with_a_header(mem, tmp_path, model):
    mem.store.write(BOT, TRAVEL, TRAVEL_TEXT, PERSON)
    a_turn(mem, tmp_path, ("person", "We fly to Oslo on Friday. Acme's contact is Priya."), ("bot", "ok"))
    model.answer = lambda seen: facts(
        fact("Flying to Oslo on Friday", "topic", "decision", topic="trips", until="2026-10-20"),
        fact("Acme's contact is Priya", "topic", "other", topic="Acme Corp", aliases=["acme", "the client"]))
    r = C.capture(mem, BOT, organize=False)
    assert [f["file"] for f in r.filed] == [TRAVEL, "memory/acme-corp.md"]
    assert text(mem, TRAVEL) == TRAVEL_TEXT + \
        '- 2026-10-15 · from chat "Plans" (noticed) · Flying to Oslo on Friday · until 2026-10-20\n'
    acme = text(mem, "memory/acme-corp.md")
    fm = frontmatter.read(acme)
    assert fm.title == "Acme Corp" and fm.aliases == ("acme", "the client")
    assert acme.endswith("· Acme's contact is Priya\n")
    assert {c.file for c in r.changes} == {TRAVEL, "memory/acme-corp.md"}


def test_a_yearly_date_never_gets_an_until(mem, tmp_path, model):
    a_turn(mem, tmp_path, ("person", "My birthday is on 12 March"))
    model.answer = lambda seen: facts(fact("The person's birthday is on 12 March", quote="My birthday is on 12 March",
                                           until="2027-03-12"))
    C.capture(mem, BOT, organize=False)
    assert text(mem, MEMORY_FILE).rstrip().endswith("· The person's birthday is on 12 March")


def test_hostile_answers_are_skipped_each_with_its_reason(mem, tmp_path, model):
    update.forget(mem.store, BOT, ["Asha"], PERSON)
    a_turn(mem, tmp_path, SAID, ("bot", "You said you live in Mumbai and your key is sk-ant-abc"))
    model.answer = lambda seen: facts(
        fact("The person lives in Mumbai", quote="I live in Mumbai"),                     # invented quote
        fact("The person lives in Mumbai", quote="you live in Mumbai"),                   # the bot's words
        fact("The person lives in Pune, at 12 Hill Road", quote="I live in Pune"),       # number not in quote
        fact("The person runs a startup", quote="Can you suggest note-takers for a 10-person startup?"),
        fact("The person is launching an AI app", quote="Write a launch plan for an AI app"),
        fact("The person lives in Berlin", quote="Suppose I moved to Berlin"),
        fact("Their API key is sk-ant-api03-q7Hk2LmN9pR4sT6vW8xY1zA3bC5dE7fG9hJ2kL4mN6pQ8rS0tU", "memory", "other"),           # a secret
        fact("Sister Asha visits on 2026-11-02", "topic", "person", quote="My sister Asha visits on 2026-11-02",
             topic="family"),                                                             # a forgotten word
        fact("The person likes cats"),                                                    # no quote
        fact("The person is vegetarian", quote="I\u2019m   vegetarian"),                  # fine
        "nonsense", {"text": 5},
    )
    r = C.capture(mem, BOT, organize=False)
    reasons = [s["reason"] for s in r.skipped]
    assert r.filed == [{"fact": "The person is vegetarian", "file": MEMORY_FILE}]
    assert reasons[:2] == ["the quote is not in the person's words"] * 2
    assert reasons[2] == "the number 12 is not in its quotes"
    assert "question" in reasons[3] and "task" in reasons[4] and "suppose" in reasons[5]
    assert "secret" in reasons[6] and "forget" in reasons[7] and "quoted" in reasons[8]
    assert reasons[9:] == ["not a fact object", "no text"]
    assert "Mumbai" not in text(mem, MEMORY_FILE) and "sk-ant" not in text(mem, MEMORY_FILE)
    assert "q7Hk2LmN9" not in C.last_file(mem.home, BOT).read_text()     # the kept report holds no secret
    assert mem.home.topics(BOT) == []


def test_an_outdated_note_stays_when_its_replacement_fails(mem, tmp_path, model):
    old = entry("2026-09-01", "The person lives in Pune")
    mem.store.write(BOT, MEMORY_FILE, old + "\n", PERSON)
    a_turn(mem, tmp_path, ("person", "I moved to Mumbai last week"))
    model.answer = lambda seen: facts(fact("The person lives in Delhi", quote="I moved to Delhi", replaces=1))
    C.capture(mem, BOT, organize=False)
    assert text(mem, MEMORY_FILE) == old + "\n"
    a_turn(mem, tmp_path, ("person", "I moved to Mumbai last week"))
    model.answer = lambda seen: facts(fact("The person lives in Mumbai", quote="I moved to Mumbai", replaces=1))
    C.capture(mem, BOT, organize=False)
    assert text(mem, MEMORY_FILE).splitlines() == [
        '- ~~2026-09-01 · from chat "Plans" · The person lives in Pune~~ · superseded 2026-10-15',
        '- 2026-10-15 · from chat "Plans" (noticed) · The person lives in Mumbai']


def test_a_noticed_fact_keeps_the_budget_like_remember(mem, tmp_path, model):
    from ...conftest import memory_text

    mem.store.write(BOT, MEMORY_FILE, memory_text(200), PERSON)
    a_turn(mem, tmp_path, ("person", "I'm vegetarian"))
    model.answer = lambda seen: facts(fact("The person is vegetarian", quote="I'm vegetarian"))
    r = C.capture(mem, BOT, organize=False)
    assert [c.file for c in r.changes] == [ARCHIVE_FILE, MEMORY_FILE]     # the archive first
    out = text(mem, MEMORY_FILE).splitlines()
    assert len(out) == 200 and out[-1].endswith("(noticed) · The person is vegetarian")
    assert "· moved 2026-10-15" in text(mem, ARCHIVE_FILE)


def test_about_me_is_added_once_and_a_removed_fact_never_again(mem, tmp_path, model):
    a_turn(mem, tmp_path, ("person", "I'm a night owl"))
    model.answer = lambda seen: facts(fact("Is a night owl", "about-me", quote="I'm a night owl"))
    r = C.capture(mem, BOT, organize=False)
    line = f"- 2026-10-15 · learned by {BOT} · Is a night owl"
    assert r.filed == [{"fact": "Is a night owl", "file": "about-me.md"}]
    assert mem.home.about_me.read_text() == line + "\n"
    from botmemory.core.notes import about_me as profile

    (learned,) = profile.learned_lines(mem.home)
    assert learned.line == line
    a_turn(mem, tmp_path, ("person", "I'm a night owl"))
    assert C.capture(mem, BOT, organize=False).skipped[0]["reason"] == "already in About me"
    profile.remove_learned(mem.home, learned.id, mem.today)
    assert mem.home.about_me.read_text() == ""
    a_turn(mem, tmp_path, ("person", "I'm a night owl"))
    r = C.capture(mem, BOT, organize=False)
    assert r.filed == [] and "never added again" in r.skipped[0]["reason"]
    assert mem.home.about_me.read_text() == ""


def test_in_a_room_another_persons_words_never_reach_about_me(mem, tmp_path, model):
    config.write_config(mem.home, {**config.read_config(mem.home), "features": {"roomMemoryCapture": True}})
    a_turn(mem, tmp_path, ("person", "I'm a night owl"), ("other-person", "The launch moved to Friday"),
           ("other-bot", "I deployed it to 10 servers"), chat="Launch", room=True)
    model.answer = lambda seen: facts(
        fact("Is a night owl", "about-me", quote="I'm a night owl"),
        fact("The launch moved to Friday", "topic", "decision", quote="The launch moved to Friday", topic="launch"),
        fact("Sam is a night owl", "memory", "person", quote="The launch moved to Friday"))
    r = C.capture(mem, BOT, organize=False)
    assert r.filed == [{"fact": "The launch moved to Friday", "file": "memory/launch.md"}]
    assert "another person's words" in r.skipped[0]["reason"]
    assert r.skipped[1]["reason"] == "the quote is not in the person's words"
    assert text(mem, "memory/launch.md").endswith('- 2026-10-15 · from room "Launch" (noticed) · '
                                                  "The launch moved to Friday\n")
    assert not mem.home.about_me.exists()


def test_a_stretch_without_the_persons_words_is_skipped(mem, tmp_path, model):
    a_turn(mem, tmp_path, ("bot", "I did the thing"))
    r = C.capture(mem, BOT, organize=False)
    assert model.seen == [] and "no words of the person" in r.skipped[0]["reason"]
    assert C.read_pending(mem.home) == []


# ----- a helper missing, slow, failing or answering nonsense; a crash


def test_no_helper_captures_nothing_and_breaks_nothing(mem, tmp_path):
    a_turn(mem, tmp_path, SAID)
    r = C.capture(mem, BOT)
    assert r.filed == [] and "no helper model is set" in r.skipped[0]["reason"]
    assert text(mem, MEMORY_FILE) == "" and C.read_pending(mem.home) == []


@pytest.mark.parametrize("answer", ["I think the person is vegetarian", '{"facts": "all of them"}', "[]",
                                    '{"fax": []}', "```json\n{\"facts\": [1, 2\n```"])
def test_nonsense_answers_capture_nothing(mem, tmp_path, model, answer):
    a_turn(mem, tmp_path, SAID)
    model.answer = lambda seen: answer
    r = C.capture(mem, BOT, organize=False)
    assert r.filed == [] and r.changes == []
    assert text(mem, MEMORY_FILE) == ""


def test_a_failing_helper_is_retried_once_then_the_batch_is_dropped(mem, tmp_path, model):
    a_turn(mem, tmp_path, SAID)
    model.answer = lambda seen: (503, b"overloaded")
    r = C.capture(mem, BOT, organize=False)
    assert "HTTP 503" in r.skipped[0]["reason"] and C.read_pending(mem.home)[0]["attempts"] == 1
    C.capture(mem, BOT, organize=False)
    r = C.capture(mem, BOT, organize=False)
    assert "tried 2 times" in r.skipped[0]["reason"] and C.read_pending(mem.home) == []
    assert text(mem, MEMORY_FILE) == ""


def test_a_slow_helper_captures_nothing(mem, tmp_path, fake_model, memory_keyring):
    configure(mem.home, fake_model, memory_keyring, timeout=0.3)
    fake_model.delay = 30
    a_turn(mem, tmp_path, SAID)
    r = C.capture(mem, BOT, organize=False)
    assert "did not answer within 0.3 seconds" in r.skipped[0]["reason"] and text(mem, MEMORY_FILE) == ""


def test_a_crash_before_the_writes_retries_the_batch_once(mem, tmp_path, model, monkeypatch):
    a_turn(mem, tmp_path, ("person", "I'm vegetarian"))
    model.answer = lambda seen: facts(fact("The person is vegetarian", quote="I'm vegetarian"))

    def crash(*a, **k):
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(C, "_write", crash)
        with pytest.raises(SystemExit):
            C.capture(mem, BOT, organize=False)
    assert text(mem, MEMORY_FILE) == "" and C.read_pending(mem.home)[0]["attempts"] == 1
    r = C.capture(mem, BOT, organize=False)
    assert len(r.filed) == 1 and C.read_pending(mem.home) == []


def test_a_crash_after_the_writes_writes_nothing_twice(mem, tmp_path, model, monkeypatch):
    a_turn(mem, tmp_path, ("person", "I'm vegetarian"), ("person", "I'm a night owl"))
    model.answer = lambda seen: facts(fact("The person is vegetarian", quote="I'm vegetarian"),
                                      fact("Is a night owl", "about-me", quote="I'm a night owl"))

    def crash(*a, **k):
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(C, "_finish", crash)
        with pytest.raises(SystemExit):
            C.capture(mem, BOT, organize=False)
    r = C.capture(mem, BOT, organize=False)
    assert [s["reason"] for s in r.skipped] == ["already noted in MEMORY.md", "already in About me"]
    assert text(mem, MEMORY_FILE).count("vegetarian") == 1
    assert mem.home.about_me.read_text().count("night owl") == 1
    assert C.read_pending(mem.home) == []


def test_a_chat_deleted_meanwhile_leaves_nothing_to_read(mem, tmp_path, model):
    a_turn(mem, tmp_path, SAID)
    Path(C.read_pending(mem.home)[0]["turns"][0]["transcript"]).unlink()
    r = C.capture(mem, BOT, organize=False)
    assert model.seen == [] and "gone" in r.skipped[0]["reason"] and C.read_pending(mem.home) == []


def test_capture_due_runs_only_quiet_or_full_chats(mem, tmp_path, model):
    a_turn(mem, tmp_path, ("person", "I'm vegetarian"), now=1000.0)
    model.answer = lambda seen: facts(fact("The person is vegetarian", quote="I'm vegetarian"))
    assert C.capture_due(mem, now=1060.0) == {}
    working = turn_begin(mem, BOT, "Other")
    assert C.capture_due(mem, now=1120.0) == {}                # never while the bot is working
    turn_end(mem, BOT, working)
    out = C.capture_due(mem, now=1120.0)
    assert out[BOT]["filed"] == [{"fact": "The person is vegetarian", "file": MEMORY_FILE}]


# ----- the command line


def test_cli_turn_end_with_a_transcript_then_capture(mem, tmp_path, model, capsys):
    root = str(mem.home.root)
    assert main(["--root", root, "--today", "2026-10-15", "turn", "begin", BOT, "--chat", "Plans"]) == 0
    turn_id = capsys.readouterr().out.strip()
    path = write_transcript(tmp_path / "t.jsonl", ("person", "I'm vegetarian"))
    assert main(["--root", root, "turn", "end", BOT, turn_id, "--transcript", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["capture"] == "pending"
    model.answer = lambda seen: facts(fact("The person is vegetarian", quote="I'm vegetarian"))
    assert main(["--root", root, "--today", "2026-10-15", "capture", BOT, "--json", "--no-organize"]) == 0
    assert json.loads(capsys.readouterr().out)["filed"][0]["file"] == MEMORY_FILE


def test_cli_bad_input(mem, tmp_path, capsys):
    root = str(mem.home.root)
    assert main(["--root", root, "turn", "begin", BOT, "--chat", "Plans"]) == 0
    turn_id = capsys.readouterr().out.strip()
    assert main(["--root", root, "turn", "end", BOT, turn_id, "--transcript", str(tmp_path / "none")]) == 2
    assert "not a readable file" in capsys.readouterr().err
    path = write_transcript(tmp_path / "t.jsonl", ("person", "hi"))
    assert main(["--root", root, "turn", "end", BOT, turn_id, "--transcript", str(path), "--started-by", "x"]) == 2
    assert main(["--root", root, "capture", "nobody"]) == 2
    config.set_bot_setting(mem.home, BOT, "upkeep", False)
    assert main(["--root", root, "capture", BOT]) == 4
    assert "upkeep is switched off" in capsys.readouterr().err
    assert main(["--root", root, "learned", "--remove", "0123456789abcdef"]) == 2


# ----- the topic list (read without YAML when simple, kept between batches)


@pytest.mark.parametrize("head", [
    "title: Travel\naliases: [trips, flights]",
    'title: "Acme Corp"\naliases: ["acme", "the client"]',
    "title: Travel\ndescription: Trips and flights\naliases: trips",
    "title: yes\naliases: [on, 12]",
    "title: 'quoted'\naliases:\n  - a\n  - b",
    "title: a: b",
    "title: Travel # comment",
    "title: [broken",
    "aliases: []\ntitle: Food",
])
def test_the_quick_frontmatter_reads_what_yaml_reads(head):
    text = f"---\n{head}\n---\n# x\n"
    quick = C.quick_frontmatter(text)
    assert quick is False or quick == frontmatter.read(text)


def test_the_topic_list_is_kept_and_read_again_when_a_topic_changes(mem, monkeypatch):
    import os
    import time as _time

    ws = mem.home.workspace(BOT)
    (ws / "memory" / "travel.md").write_text(TRAVEL_TEXT, encoding="utf-8")
    old = _time.time() - 3600
    os.utime(ws / "memory" / "travel.md", (old, old))
    (first,) = C.list_topics(mem, BOT)
    assert first.frontmatter.aliases == ("trips", "flights")
    assert "trips" in C.topic_cache_file(mem.home, BOT).read_text()
    calls = []
    from botmemory.core.upkeep import topics as filing

    monkeypatch.setattr(filing, "_read_frontmatter", lambda *a: calls.append(a) or None)
    assert C.list_topics(mem, BOT) == [first] and calls == []       # kept: not read again
    (ws / "memory" / "travel.md").write_text(TRAVEL_TEXT.replace("trips", "journeys"), encoding="utf-8")
    C.list_topics(mem, BOT)
    assert len(calls) == 1                                          # changed: read again


def test_the_simple_form_is_read_without_yaml():
    assert C.quick_frontmatter('---\ntitle: "Acme Corp"\naliases: ["acme", the client]\n---\n') == \
        frontmatter.Frontmatter("Acme Corp", None, ("acme", "the client"))
    assert C.quick_frontmatter(C.topic_header("Sam's \"big\" trip", ["a: b", "x"])) is False   # YAML reads it
    text = C.topic_header("Acme, Inc.", ["client", "Acme"])
    assert frontmatter.read(text) == frontmatter.Frontmatter("Acme, Inc.", None, ("client", "Acme"))


def test_a_decision_without_a_quote_holds_no_number_and_about_me_lines_are_short(mem, tmp_path, model):
    a_turn(mem, tmp_path, ("person", "Let's ship the release on 14 May. I'm a night owl"))
    model.answer = lambda seen: facts(
        fact("The release ships on 14 May", "topic", "decision", topic="release"),
        fact("Ships the release", "topic", "decision", topic="release"),
        fact("Is a night owl " + "and more " * 40, "about-me", quote="I'm a night owl"))
    r = C.capture(mem, BOT, organize=False)
    assert [s["reason"] for s in r.skipped] == ["the number 14 is not in a quote",
                                                "an About me line is at most 300 characters"]
    assert r.filed == [{"fact": "Ships the release", "file": "memory/release.md"}]


def test_a_batch_another_live_process_is_capturing_is_left_alone(mem, tmp_path, model):
    import os

    a_turn(mem, tmp_path, ("person", "I'm vegetarian"))
    chats = C.read_pending(mem.home)
    chats[0]["claim"] = [os.getppid(), 1e12]            # the parent process: alive, and just now
    C._write_pending(mem.home, chats)
    r = C.capture(mem, BOT, organize=False, now=1e12 + 1)
    assert r.chats == [] and model.seen == [] and len(C.read_pending(mem.home)) == 1
    r = C.capture(mem, BOT, organize=False, now=1e12 + C.CLAIM_SECONDS + 1)     # a stale claim is taken over
    assert r.chats == ['chat "Plans"']


def test_a_replaced_line_is_found_by_its_text_when_memory_changed_meanwhile(mem, tmp_path, model):
    old = entry("2026-09-01", "The person lives in Pune")
    mem.store.write(BOT, MEMORY_FILE, old + "\n", PERSON)
    a_turn(mem, tmp_path, ("person", "I moved to Mumbai last week"))

    def answer(seen):   # a line is added above while the model reads: line 1 is no longer the one it saw
        mem.store.write(BOT, MEMORY_FILE, entry("2026-10-14", "Likes tea") + "\n" + old + "\n", PERSON)
        return facts(fact("The person lives in Mumbai", quote="I moved to Mumbai", replaces=1))

    model.answer = answer
    C.capture(mem, BOT, organize=False)
    out = text(mem, MEMORY_FILE).splitlines()
    assert out[0] == entry("2026-10-14", "Likes tea") and out[1].startswith("- ~~2026-09-01")


@settings(max_examples=examples(300))
@given(st.lists(st.text(alphabet="aZ9 .,()/'&+?!-:#[]\"", min_size=1, max_size=12), min_size=1, max_size=3))
def test_the_quick_frontmatter_agrees_with_yaml_on_punctuation(parts):
    text = f"---\ntitle: A{parts[0]}\ndescription: B{parts[-1]}\naliases: [{', '.join('c' + p for p in parts)}]\n---\n"
    quick = C.quick_frontmatter(text)
    assert quick is False or quick == frontmatter.read(text)
    # a sentence ending in ? or ! is the simple form
    assert C.quick_frontmatter("---\ntitle: Why not?\ndescription: Go now!\naliases: [a!, b]\n---\n") == \
        frontmatter.Frontmatter("Why not?", "Go now!", ("a!", "b"))
