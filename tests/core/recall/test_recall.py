"""Recall before each turn, and session search (core/recall.py)."""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from datetime import date, datetime
from pathlib import Path

import pytest

from botmemory.core.base.errors import BadInput
from botmemory.core.disk import config, safeio
from botmemory.core.disk.paths import Home
from botmemory.core.recall import build as B
from botmemory.core.recall import index as I
from botmemory.core.recall import query as R
from botmemory.core.recall.query import content_words, recall
from botmemory.core.recall.search import parse_when, search
from tests.core.recall_fixtures import BOT, TODAY, entry, home, ws  # noqa: F401 - home, ws: fixtures


def put(ws: Path, rel: str, text: str, *, mday: date | None = None) -> Path:
    p = ws / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    if mday is not None:
        set_mday(p, mday)
    return p


def set_mday(p: Path, day: date, hour: int = 12) -> None:
    t = datetime(day.year, day.month, day.day, hour).timestamp()
    os.utime(p, (t, t))


TRAVEL = ("---\ntitle: Travel\naliases: [trips]\ndescription: flights and hotels\n---\n"
          + entry("2026-09-10", "Flight to Lisbon leaves 3 November at 07:40", "Trips") + "\n")
FOOD = "---\ntitle: Food\n---\n" + entry("2026-09-11", "Vegetarian place near the office is Green Fork", "Lunch") + "\n"


# ----- words


def test_content_words_drop_stop_words_short_words_and_repeats() -> None:
    assert content_words("When does my Lisbon flight leave?") == ["lisbon", "flight", "leave"]
    assert content_words("Hey, thanks! Please tell me about it, ok?") == []
    assert content_words("Flights, flight and FLIGHTS to Zürich") == ["flights", "zürich"]
    assert content_words("snake_case 07:40 IST") == ["snake", "case", "ist"]
    for w in ("what", "when", "does", "my", "the", "please", "thanks", "hey", "about", "that"):
        assert w in R.STOP_WORDS


def test_back_is_a_content_word_and_that_is_not() -> None:
    # "back up" reduces to "back" ("up" is shorter than 3 letters): without it "back up my vault" was "vault"
    assert content_words("What is the best way to back up my vault?") == ["back", "vault"]
    assert content_words("the note that shows the picture") == ["note", "shows", "picture"]


# ----- recall


def test_the_matching_note_is_recalled_numbered_with_file_and_date(home: Home, ws: Path) -> None:
    put(ws, "memory/travel.md", TRAVEL)
    put(ws, "memory/food.md", FOOD)
    r = recall(home, BOT, "When does my Lisbon flight leave?", TODAY)
    assert [(n.n, n.file, n.date) for n in r.notes] == [(1, "memory/travel.md", date(2026, 9, 10))]
    assert r.notes[0].text == "Flight to Lisbon leaves 3 November at 07:40"
    lines = r.text.splitlines()
    assert "instruction" in lines[0].lower() and "own notes" in lines[0].lower()
    assert "1. memory/travel.md · 2026-09-10" in lines
    assert "Green Fork" not in r.text
    d = r.as_dict()
    assert d["notes"] == [{"n": 1, "file": "memory/travel.md", "date": "2026-09-10",
                           "text": "Flight to Lisbon leaves 3 November at 07:40"}]
    assert d["text"] == r.text
    json.dumps(d)


def test_a_short_message_recalls_nothing(home: Home, ws: Path) -> None:
    put(ws, "memory/travel.md", TRAVEL)
    assert recall(home, BOT, "Lisbon", TODAY).notes == []
    assert recall(home, BOT, "   Lisbon\n  ", TODAY) == R.RecallResult([], "")
    assert len(recall(home, BOT, "Lisbon??", TODAY).notes) == 1  # eight characters count


def test_a_message_of_only_filler_recalls_nothing(home: Home, ws: Path) -> None:
    put(ws, "memory/travel.md", TRAVEL)
    assert recall(home, BOT, "hey, what about that, please?", TODAY).notes == []


def test_memory_md_the_archive_and_daily_logs_are_never_recalled(home: Home, ws: Path) -> None:
    put(ws, "MEMORY.md", entry("2026-09-01", "Zanzibar trip planned") + "\n")
    put(ws, "memory/archive.md", entry("2026-08-01", "Zanzibar visa done") + "\n")
    put(ws, "memory/log/2026-10-14.md", '- 09:05 · chat "Trips" · Booked the Zanzibar ferry\n')
    r = recall(home, BOT, "What about the Zanzibar plans?", TODAY)
    assert r.notes == [] and r.text == ""
    put(ws, "memory/islands.md", entry("2026-09-02", "Zanzibar ferry leaves from pier 3") + "\n")
    r = recall(home, BOT, "What about the Zanzibar plans?", TODAY)
    assert [n.file for n in r.notes] == ["memory/islands.md"]


def test_struck_entries_and_frontmatter_are_never_recalled(home: Home, ws: Path) -> None:
    put(ws, "memory/work.md",
        "---\ntitle: Work\ndescription: the Porto office and its keycards\n---\n"
        "- ~~2026-01-05 · from cli · The office is in Porto~~ · superseded 2026-09-10\n"
        + entry("2026-09-10", "The office is in Pune now") + "\n")
    r = recall(home, BOT, "Where is the Porto office?", TODAY)
    assert all("Porto" not in n.text for n in r.notes)
    assert [n.text for n in r.notes] == ["The office is in Pune now"]
    assert recall(home, BOT, "Anything about keycards?", TODAY).notes == []


def test_expired_entries_are_not_recalled(home: Home, ws: Path) -> None:
    put(ws, "memory/parking.md",
        entry("2026-09-01", "Parking spot 14 at the garage · until 2026-10-14") + "\n\n"
        + entry("2026-09-02", "Garage level 2 while the ramp is closed · until 2026-10-15") + "\n")
    r = recall(home, BOT, "Which garage spot do I use?", TODAY)   # (a garage *code* is a credential: redacted)
    assert [n.text for n in r.notes] == ["Garage level 2 while the ramp is closed"]


def test_hand_written_paragraphs_are_passages_dated_by_the_file(home: Home, ws: Path) -> None:
    put(ws, "memory/clients.md",
        "# Clients\n\nAcme pays invoices late;\nalways chase Dana in accounts.\n\nGlobex is easy going.\n",
        mday=date(2026, 10, 2))
    r = recall(home, BOT, "Remind me about Acme invoices", TODAY)
    assert [(n.file, n.date, n.text) for n in r.notes] == [
        ("memory/clients.md", date(2026, 10, 2), "Acme pays invoices late;\nalways chase Dana in accounts.")]
    # a heading alone is not a passage
    assert recall(home, BOT, "Tell me about clients", TODAY).notes[0].text != "# Clients"


def test_with_five_content_words_a_hit_needs_two(home: Home, ws: Path) -> None:
    put(ws, "memory/a.md", entry("2026-09-01", "The hotel in Lisbon is Casa Azul") + "\n")
    put(ws, "memory/b.md", entry("2026-09-20", "Hotel loyalty number 5521") + "\n")
    few = recall(home, BOT, "Which hotel did we pick?", TODAY)  # hotel, pick: one word is enough
    assert {n.file for n in few.notes} == {"memory/a.md", "memory/b.md"}
    many = recall(home, BOT, "Which hotel did we pick in Lisbon for the conference trip?", TODAY)
    assert len(content_words("Which hotel did we pick in Lisbon for the conference trip?")) >= 5
    assert [n.file for n in many.notes] == ["memory/a.md"]  # b.md holds only "hotel"


def test_a_plural_s_is_folded(home: Home, ws: Path) -> None:
    put(ws, "memory/travel.md", entry("2026-09-10", "Two flights booked with TAP") + "\n")
    put(ws, "memory/cars.md", entry("2026-09-11", "The rental car is a blue Fiat") + "\n")
    assert [n.file for n in recall(home, BOT, "When is my flight?", TODAY).notes] == ["memory/travel.md"]
    assert [n.file for n in recall(home, BOT, "Which rental cars again?", TODAY).notes] == ["memory/cars.md"]


def test_words_match_whole_words_only(home: Home, ws: Path) -> None:
    put(ws, "memory/health.md", entry("2026-09-10", "Dentist appointment on Monday") + "\n")
    put(ws, "memory/team.md", entry("2026-09-11", "Standup is at 09:30 IST") + "\n")
    r = recall(home, BOT, "Meeting times in IST?", TODAY)
    assert [n.file for n in r.notes] == ["memory/team.md"]
    assert recall(home, BOT, "How about Dent again?", TODAY).notes == []


def test_ranking_is_by_score_then_newer_date(home: Home, ws: Path) -> None:
    put(ws, "memory/t.md", "\n".join([
        entry("2026-01-01", "Lisbon flight and hotel both booked"),   # 3 words, oldest
        entry("2026-05-01", "Lisbon trams are slow in November"),      # 1 word
        entry("2026-06-01", "Lisbon weather is mild in November"),     # the same word, as long: newer first
        entry("2026-03-01", "Flight to Lisbon is TP1351"),             # 2 words
        entry("2026-04-01", "Garden needs watering"),                  # none
    ]) + "\n")
    r = recall(home, BOT, "Lisbon flight hotel?", TODAY)
    assert [n.date for n in r.notes] == [date(2026, 1, 1), date(2026, 3, 1), date(2026, 6, 1), date(2026, 5, 1)]
    assert [n.n for n in r.notes] == [1, 2, 3, 4]


def test_at_most_four_notes(home: Home, ws: Path) -> None:
    put(ws, "memory/t.md", "\n".join(entry(f"2026-09-{d:02d}", f"Invoice {d} sent") for d in range(1, 10)) + "\n")
    r = recall(home, BOT, "Which invoice was sent?", TODAY)
    assert [n.date.day for n in r.notes] == [9, 8, 7, 6]


def test_a_topic_with_a_matching_name_recalls_its_opening_below_passages(home: Home, ws: Path) -> None:
    put(ws, "memory/lisbon.md", "---\ntitle: Porto and the coast\n---\n# Notes\nCasa Azul near the river.\n"
        "Tram 28 is slow.\nTake the ferry.\nFourth line is not in the opening.\n", mday=date(2026, 10, 10))
    put(ws, "memory/travel.md", entry("2026-09-10", "Flight to Lisbon leaves at 07:40") + "\n")
    r = recall(home, BOT, "Anything on Lisbon again?", TODAY)
    assert [n.file for n in r.notes] == ["memory/travel.md", "memory/lisbon.md"]
    assert r.notes[1].text == "# Notes\nCasa Azul near the river.\nTram 28 is slow."
    assert r.notes[1].date == date(2026, 10, 10)
    # title and aliases count too
    put(ws, "memory/x1.md", "---\ntitle: Garden\naliases: [allotment, plot]\n---\nTomatoes by the shed.\n")
    assert [n.file for n in recall(home, BOT, "How is the allotment doing?", TODAY).notes] == ["memory/x1.md"]
    assert [n.file for n in recall(home, BOT, "What is in the garden?", TODAY).notes] == ["memory/x1.md"]


def test_the_block_is_at_most_6000_characters_and_long_notes_are_cut(home: Home, ws: Path) -> None:
    long = "Lisbon " + "word " * 800   # about 4,000 characters each
    put(ws, "memory/t.md", "\n\n".join([long.strip()] * 3 + ["Lisbon is short."]) + "\n", mday=date(2026, 10, 1))
    r = recall(home, BOT, "Tell me about Lisbon", TODAY)
    assert len(r.notes) == 4
    assert len(r.text) <= 6000
    assert "Lisbon is short." in [n.text for n in r.notes]          # a short note stays whole
    cut = [n for n in r.notes if n.text.endswith("…")]
    assert len(cut) == 3 and all(len(n.text) < 2000 for n in cut)
    assert r.text.startswith(R.HEADER)
    single = "Zanzibar " + "x" * 10_000
    put(ws, "memory/z.md", single + "\n")
    r = recall(home, BOT, "Tell me about Zanzibar", TODAY)
    assert len(r.text) <= 6000 and r.notes[0].text.endswith("…") and len(r.text) > 5900


def test_memory_off_or_auto_recall_off_recalls_nothing(home: Home, ws: Path) -> None:
    put(ws, "memory/travel.md", TRAVEL)
    msg = "When does my Lisbon flight leave?"
    assert recall(home, BOT, msg, TODAY).notes
    config.write_config(home, {"features": {"autoRecall": False}})
    assert recall(home, BOT, msg, TODAY) == R.RecallResult([], "")
    config.write_config(home, {"features": {"autoRecall": True}})
    config.set_bot_setting(home, BOT, "memory", False)
    assert recall(home, BOT, msg, TODAY) == R.RecallResult([], "")


def test_an_empty_recall_says_why(home: Home, ws: Path) -> None:
    """The panel's preview shows core's reason; it no longer repeats the switch and length rules."""
    put(ws, "memory/travel.md", TRAVEL)
    msg = "When does my Lisbon flight leave?"
    r = recall(home, BOT, msg, TODAY)
    assert r.notes and r.why == ""
    assert recall(home, BOT, "Lisbon", TODAY).why == "Recall starts at 8 characters."
    assert recall(home, BOT, "about the weather in Oslo", TODAY).why.startswith("No note matches")
    assert recall(home, BOT, "hey, what about that, please?", TODAY).why.startswith("No note matches")
    config.write_config(home, {"features": {"autoRecall": False}})
    assert "features.autoRecall is false" in recall(home, BOT, msg, TODAY).why
    config.set_bot_setting(home, BOT, "memory", False)
    assert recall(home, BOT, msg, TODAY).why.startswith("Memory is off for this bot")


def test_an_unknown_bot_is_bad_input(home: Home) -> None:
    with pytest.raises(BadInput, match="unknown bot"):
        recall(home, "nobody", "When does my Lisbon flight leave?", TODAY)
    with pytest.raises(BadInput):
        search(home, "nobody", ["lisbon"], None, None)


def test_an_invalid_utf8_topic_is_read_and_an_unreadable_one_skipped(home: Home, ws: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (ws / "memory" / "bad.md").write_bytes(b"Lisbon ferry \xff\xfe at noon\n")
    put(ws, "memory/ok.md", entry("2026-09-10", "Lisbon flight at 07:40") + "\n")
    r = recall(home, BOT, "Lisbon ferry times?", TODAY)
    assert [n.file for n in r.notes] == ["memory/bad.md", "memory/ok.md"]
    assert "\ufffd" in r.notes[0].text
    # a symbolic link is not a topic; a file too large to read is skipped
    os.symlink(ws / "memory" / "ok.md", ws / "memory" / "link.md")
    put(ws, "memory/huge.md", "Lisbon " * 50 + "\n")
    monkeypatch.setattr(safeio, "MAX_FILE_BYTES", 200)
    r = recall(home, BOT, "Lisbon ferry times?", TODAY)
    assert sorted(n.file for n in r.notes) == ["memory/bad.md", "memory/ok.md"]


# ----- the index


def test_the_index_lives_outside_the_workspace_with_mode_0600(home: Home, ws: Path) -> None:
    put(ws, "memory/travel.md", TRAVEL)
    recall(home, BOT, "When does my Lisbon flight leave?", TODAY)
    path = R.index_path(home, BOT)
    assert path.is_file() and ws not in path.parents
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_the_index_picks_up_an_edited_a_new_and_a_deleted_file(home: Home, ws: Path) -> None:
    p = put(ws, "memory/travel.md", entry("2026-09-10", "Flight to Lisbon at 07:40") + "\n")
    msg = "When does my Lisbon flight leave?"
    assert recall(home, BOT, msg, TODAY).notes[0].text == "Flight to Lisbon at 07:40"
    before = p.stat()
    p.write_text(entry("2026-09-10", "Flight to Lisbon at 09:15") + "\n", encoding="utf-8")  # same size
    os.utime(p, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
    assert p.stat().st_size == before.st_size
    assert [n.text for n in recall(home, BOT, msg, TODAY).notes] == ["Flight to Lisbon at 09:15"]
    put(ws, "memory/more.md", entry("2026-09-12", "Lisbon hotel is Casa Azul") + "\n")
    assert [n.file for n in recall(home, BOT, msg, TODAY).notes] == ["memory/travel.md", "memory/more.md"]
    p.unlink()
    assert [n.file for n in recall(home, BOT, msg, TODAY).notes] == ["memory/more.md"]
    (ws / "memory" / "more.md").unlink()
    assert recall(home, BOT, msg, TODAY).notes == []


def test_a_change_seen_by_a_fresh_process_state(home: Home, ws: Path) -> None:
    """The in-process memo never hides a change made while another process kept the index."""
    p = put(ws, "memory/travel.md", entry("2026-09-10", "Flight to Lisbon at 07:40") + "\n")
    msg = "When does my Lisbon flight leave?"
    recall(home, BOT, msg, TODAY)
    I._synced.clear()                      # as a new process would start
    p.write_text(entry("2026-09-10", "Flight to Lisbon at 11:00") + "\n", encoding="utf-8")
    os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 1_000_000_000))
    assert recall(home, BOT, msg, TODAY).notes[0].text == "Flight to Lisbon at 11:00"


def test_a_corrupt_index_is_rebuilt(home: Home, ws: Path) -> None:
    put(ws, "memory/travel.md", TRAVEL)
    msg = "When does my Lisbon flight leave?"
    first = recall(home, BOT, msg, TODAY)
    path = R.index_path(home, BOT)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    assert recall(home, BOT, msg, TODAY) == first
    assert path.read_bytes().startswith(b"SQLite format 3")
    assert path.stat().st_mode & 0o777 == 0o600
    # an index of another schema version is rebuilt too
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA user_version = 999")
    I._synced.clear()
    assert recall(home, BOT, msg, TODAY) == first


def test_a_missing_index_folder_that_cannot_be_made_falls_back_to_memory(home: Home, ws: Path) -> None:
    put(ws, "memory/travel.md", TRAVEL)
    home.state_dir.mkdir(parents=True, exist_ok=True)
    (home.state_dir / "index").write_text("a file where the folder should be")
    r = recall(home, BOT, "When does my Lisbon flight leave?", TODAY)
    assert [n.file for n in r.notes] == ["memory/travel.md"]


def test_recall_from_several_threads_at_once(home: Home, ws: Path) -> None:
    for i in range(30):
        put(ws, f"memory/t{i}.md", entry(f"2026-09-{i % 28 + 1:02d}", f"Lisbon note {i} about ferries") + "\n")
    expected: list[R.RecallResult] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            expected.append(recall(home, BOT, "Lisbon ferries?", TODAY))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(expected) == 6 and all(r == expected[0] for r in expected) and len(expected[0].notes) == 4


def test_only_new_and_changed_topics_are_read_again(home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "RACY_NS", 0)
    for i in range(5):
        put(ws, f"memory/t{i}.md", entry("2026-09-10", f"Lisbon note {i}") + "\n")
    read: list[str] = []
    real = B._read_topic
    monkeypatch.setattr(B, "_read_topic", lambda h, b, name: read.append(name) or real(h, b, name))
    recall(home, BOT, "Lisbon notes?", TODAY)
    assert sorted(read) == [f"t{i}.md" for i in range(5)]
    read.clear()
    recall(home, BOT, "Lisbon notes?", TODAY)
    I._synced.clear()
    recall(home, BOT, "Lisbon notes?", TODAY)
    assert read == []
    put(ws, "memory/t2.md", entry("2026-09-11", "Lisbon note two, changed") + "\n")
    put(ws, "memory/t9.md", entry("2026-09-12", "Lisbon note nine") + "\n")
    r = recall(home, BOT, "Lisbon nine?", TODAY)
    assert sorted(read) == ["t2.md", "t9.md"]
    assert r.notes[0].text == "Lisbon note nine"
    assert recall(home, BOT, "Lisbon changed?", TODAY).notes[0].text == "Lisbon note two, changed"


def test_a_file_changed_a_moment_ago_is_checked_again_once(home: Home, ws: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Timestamps are coarse: a second same-size edit within one tick keeps the key, so a file indexed
    within a tick of its change is hashed again on the next call, and parsed again only when its bytes
    changed (never a second full build)."""
    p = put(ws, "memory/t.md", entry("2026-09-10", "Lisbon note") + "\n")
    read: list[str] = []
    hashed: list[str] = []
    real, real_hash, real_list = B._read_topic, I._file_hash, I._list_topics
    monkeypatch.setattr(B, "_read_topic", lambda h, b, name: read.append(name) or real(h, b, name))
    monkeypatch.setattr(I, "_file_hash", lambda h, b, name: hashed.append(name) or real_hash(h, b, name))
    monkeypatch.setattr(B, "TICK_NS", 3_600 * 10**9)
    recall(home, BOT, "Lisbon notes?", TODAY)
    recall(home, BOT, "Lisbon notes?", TODAY)
    assert (read, hashed) == (["t.md"], ["t.md"])          # still racy: hashed, not parsed
    listing = I._list_topics(home, BOT)
    p.write_text(entry("2026-09-10", "Porto note!") + "\n", encoding="utf-8")   # same size, same tick:
    for m in (R, I):                                                        # the same key, other bytes
        monkeypatch.setattr(m, "_list_topics", lambda h, b: listing)
    assert [n.text for n in recall(home, BOT, "Porto notes?", TODAY).notes] == ["Porto note!"]
    assert (read, hashed) == (["t.md", "t.md"], ["t.md", "t.md"])
    for m in (R, I):
        monkeypatch.setattr(m, "_list_topics", real_list)
    monkeypatch.setattr(B, "TICK_NS", 0)
    recall(home, BOT, "Lisbon notes?", TODAY)      # its real key: parsed once more, now settled
    recall(home, BOT, "Lisbon notes?", TODAY)
    assert (read, hashed) == (["t.md", "t.md", "t.md"], ["t.md", "t.md"])


# ----- search


def test_parse_when() -> None:
    assert parse_when("24h", TODAY, "--since") == date(2026, 10, 14)
    assert parse_when("1h", TODAY, "--since") == date(2026, 10, 14)
    assert parse_when("25h", TODAY, "--since") == date(2026, 10, 13)
    assert parse_when("3d", TODAY, "--since") == date(2026, 10, 12)
    assert parse_when(" Yesterday ", TODAY, "--since") == date(2026, 10, 14)
    assert parse_when("today", TODAY, "--until") == TODAY
    assert parse_when("2026-10-01", TODAY, "--until") == date(2026, 10, 1)
    for bad in ("", "3 weeks", "tomorrow", "-3d", "2026-02-30", "10/01/2026", "99999999999d"):
        with pytest.raises(BadInput, match="--since"):
            parse_when(bad, TODAY, "--since")


def _search_home(ws: Path) -> None:
    put(ws, "memory/log/2026-10-14.md", '- 09:05 · chat "Invoices" · Sent the three flagged invoices\n')
    put(ws, "memory/log/2026-10-13.md", '- 08:00 · chat "Garden" · Watered the tomatoes\n')
    put(ws, "memory/log/2026-10-01.md", '- 10:00 · chat "Invoices" · Old invoices work\n')
    put(ws, "MEMORY.md", entry("2026-10-12", "Acme invoice terms are 30 days") + "\n"
        "Hand-written: invoices go to Dana\n", mday=date(2026, 10, 9))
    put(ws, "memory/billing.md", "---\ntitle: Invoices\n---\n"
        "- ~~2026-08-01 · from cli · Invoices go out on Fridays~~ · superseded 2026-10-13\n"
        + entry("2026-10-13", "Invoices go out on Mondays") + "\n", mday=date(2026, 9, 1))
    put(ws, "memory/archive.md", entry("2026-07-01", "Invoice template v1") + "\n")


def test_search_by_words_over_every_memory_file(home: Home, ws: Path) -> None:
    _search_home(ws)
    hits = search(home, BOT, ["invoices"], None, None)
    assert [(h.file, h.date.isoformat()) for h in hits] == [
        ("memory/log/2026-10-14.md", "2026-10-14"),
        ("memory/billing.md", "2026-10-13"),          # the struck entry, dated by its superseded date
        ("memory/billing.md", "2026-10-13"),
        ("MEMORY.md", "2026-10-12"),                  # an entry: its own date ("invoice" folds)
        ("MEMORY.md", "2026-10-09"),                  # a hand-written line: the file's date
        ("memory/log/2026-10-01.md", "2026-10-01"),
        ("memory/archive.md", "2026-07-01"),
    ]
    assert hits[1].text.startswith("- ~~2026-08-01")
    assert hits[0].as_dict() == {"file": "memory/log/2026-10-14.md", "date": "2026-10-14",
                                 "text": '- 09:05 · chat "Invoices" · Sent the three flagged invoices'}
    # every word must match, as a whole word, in any case
    assert [h.text for h in search(home, BOT, ["INVOICES", "mondays"], None, None)] == [
        entry("2026-10-13", "Invoices go out on Mondays")]
    assert search(home, BOT, ["voice"], None, None) == []
    assert search(home, BOT, ["invoices"], None, None, include_memory=False) == []


def test_search_by_time(home: Home, ws: Path) -> None:
    _search_home(ws)

    def texts(words: list[str], since: str | None, until: str | None = None) -> list[str]:
        s = parse_when(since, TODAY, "--since") if since else None
        u = parse_when(until, TODAY, "--until") if until else None
        return [h.text for h in search(home, BOT, words, s, u)]

    out = texts(["invoices"], "3d")
    assert any("three flagged invoices" in t for t in out)
    assert not any("Old invoices work" in t or "tomatoes" in t for t in out)
    assert texts([], "24h") == ['- 09:05 · chat "Invoices" · Sent the three flagged invoices']
    assert texts([], "yesterday") == texts([], "24h")
    assert "- 08:00 · chat \"Garden\" · Watered the tomatoes" in texts([], "2026-10-13", "2026-10-13")
    assert texts(["invoices"], "2026-10-01", "2026-10-01") == ['- 10:00 · chat "Invoices" · Old invoices work']
    with pytest.raises(BadInput, match="--since"):
        texts(["invoices"], "last week")
    with pytest.raises(BadInput, match="after"):
        search(home, BOT, [], date(2026, 10, 14), date(2026, 10, 1))
    with pytest.raises(BadInput):
        search(home, BOT, [], None, None)
    with pytest.raises(BadInput, match="letters or digits"):
        search(home, BOT, ["--"], None, None)


def test_search_skips_an_unreadable_file(home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    put(ws, "memory/log/2026-10-14.md", '- 09:05 · chat "Invoices" · Sent invoices\n')
    put(ws, "memory/big.md", "invoices " * 100 + "\n")
    monkeypatch.setattr(safeio, "MAX_FILE_BYTES", 300)
    assert [h.file for h in search(home, BOT, ["invoices"], None, None)] == ["memory/log/2026-10-14.md"]


def test_recall_stays_fast_on_a_warm_index(home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "RACY_NS", 0)
    for i in range(300):
        put(ws, f"memory/t{i:03d}.md", "\n".join(entry("2026-09-10", f"Note {i} line {j} about topic{i % 17}")
                                                for j in range(20)) + "\n")
    recall(home, BOT, "Anything about topic3 and topic5?", TODAY)
    t = time.perf_counter()
    for _ in range(10):
        recall(home, BOT, "Anything about topic3 and topic5?", TODAY)
    assert (time.perf_counter() - t) / 10 < 0.1


def test_a_simple_frontmatter_is_indexed_without_the_yaml_parser(home: Home, ws: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from botmemory.core.text import frontmatter

    loads: list[str] = []
    real = frontmatter._safe_load
    monkeypatch.setattr(frontmatter, "_safe_load", lambda raw: loads.append(raw) or real(raw))
    put(ws, "memory/x1.md", "---\ntitle: Garden\naliases: [allotment, plot]\n---\nTomatoes by the shed.\n")
    assert [n.file for n in recall(home, BOT, "How is the allotment doing?", TODAY).notes] == ["memory/x1.md"]
    assert loads == []
    # a form the quick reader does not take (a block list) still goes through the safe loader
    put(ws, "memory/x2.md", "---\ntitle: Shed\naliases:\n  - workbench\n---\nSaw and drill.\n")
    assert [n.file for n in recall(home, BOT, "Where is the workbench?", TODAY).notes] == ["memory/x2.md"]
    assert len(loads) == 1


def test_a_section_heading_is_indexed_with_its_paragraph_but_not_shown(home: Home, ws: Path) -> None:
    put(ws, "memory/recovery.md", "# File recovery\n\n## Recover a snapshot\n\nOpen the pane and pick a version.\n")
    put(ws, "memory/other.md", "Pick a version of the app to install.\n")
    r = recall(home, BOT, "How do I recover a snapshot?", TODAY)
    assert [(n.file, n.text) for n in r.notes] == [("memory/recovery.md", "Open the pane and pick a version.")]


def test_an_alias_that_is_a_folder_path_names_the_topic_by_its_last_part() -> None:
    from botmemory.core.recall.passages import _analyse_topic
    text = "---\ntitle: Embed files\naliases:\n  - Linking notes and files/Embedding files\n---\nBody.\n"
    names = _analyse_topic("Embed files.md", text).names
    assert "embedding" in names and "files" in names
    assert "linking" not in names and "notes" not in names


def test_a_name_word_weighs_by_its_rarity() -> None:
    from botmemory.core.recall import ranking
    top = ranking.idf(1000, 0)
    common, rare = ranking.idf(1000, 400), ranking.idf(1000, 2)
    terms = [ranking.Term("t", t, []) for t in (top, common, rare)]
    weight = ranking.name_scores(terms, {0: [0], 1: [1], 2: [2]}, top)
    assert weight[0] == pytest.approx(top)            # a word no passage holds: full weight
    assert weight[1] / common < weight[2] / rare < 1.0


def test_back_up_finds_the_backup_topic_over_pages_that_only_say_vault(home: Home, ws: Path) -> None:
    put(ws, "memory/Back up your files.md", "---\ntitle: Back up your files\n---\n"
        "Copy the vault folder to another drive every week.\n")
    put(ws, "memory/Manage vaults.md", "---\ntitle: Manage vaults\n---\nOpen a vault from the switcher.\n\n"
        "Rename a vault in its folder.\n\nMove a vault to another folder.\n\nDelete a vault you no longer need.\n")
    r = recall(home, BOT, "What is the best way to back up my vault?", TODAY)
    assert r.notes[0].file == "memory/Back up your files.md"


def test_a_passage_in_a_topic_about_the_words_ranks_above_an_equal_passage_elsewhere(home: Home, ws: Path) -> None:
    same = "Rotate the signing keys every month."
    put(ws, "memory/aaa.md", f"{same}\n\nThe keys live in the safe; rotating them needs the admin.\n\n"
        "Old signing keys are revoked after the rotation.\n", mday=date(2026, 9, 1))
    put(ws, "memory/bbb.md", f"{same}\n\nLunch is at noon.\n", mday=date(2026, 10, 1))   # newer: won the tie before
    r = recall(home, BOT, "rotate signing keys", TODAY)
    assert [n.file for n in r.notes[:2]] == ["memory/aaa.md", "memory/bbb.md"]


def test_the_best_note_of_each_topic_comes_before_a_second_note_of_one(home: Home, ws: Path) -> None:
    put(ws, "memory/a.md", "Kayak trip: kayak rental, kayak paddles.\n\nKayak storage by the kayak shed.\n\n"
        "Kayak lessons for the kayak club.\n")
    for name in ("b", "c", "d"):
        put(ws, f"memory/{name}.md", f"We might rent a kayak one day ({name}).\n")
    r = recall(home, BOT, "kayak plans", TODAY)
    assert sorted(n.file for n in r.notes) == ["memory/a.md", "memory/b.md", "memory/c.md", "memory/d.md"]
    assert r.notes[0].file == "memory/a.md"


def test_a_second_note_of_a_topic_fills_a_place_no_other_topic_takes(home: Home, ws: Path) -> None:
    put(ws, "memory/a.md", "Kayak rental.\n\nKayak storage.\n\nKayak lessons.\n")
    put(ws, "memory/b.md", "We might rent a kayak one day.\n")
    r = recall(home, BOT, "kayak plans", TODAY)
    assert sorted(n.file for n in r.notes) == ["memory/a.md", "memory/a.md", "memory/b.md"]   # at most two of a


def test_a_topic_a_matching_passage_links_to_ranks_above_an_equal_passage_elsewhere(home: Home, ws: Path) -> None:
    put(ws, "memory/guide.md", "To hide the panel on the left, see [[Notes/sidebar#Hide|the sidebar page]].\n",
        mday=date(2026, 9, 1))
    put(ws, "memory/Sidebar.md", "Toggle the panel with the button.\n", mday=date(2026, 9, 1))
    put(ws, "memory/zzz.md", "Toggle the panel with the button.\n", mday=date(2026, 10, 1))  # newer: won the tie
    r = recall(home, BOT, "hide the panel", TODAY)
    assert [n.file for n in r.notes] == ["memory/guide.md", "memory/Sidebar.md", "memory/zzz.md"]


def test_a_passage_s_links_are_indexed_by_their_target_topic() -> None:
    from botmemory.core.recall.passages import link_targets
    assert link_targets("See [[Sidebar]], ![[Notes/Tabs.md#Pin|pinning]] and [[sidebar|again]]; [[ ]] [[photo.png]]"
                        ) == ["sidebar", "tabs", "photo.png"]
    assert link_targets("No [[link here, nor [single].") == []
    assert link_targets("[[Über Café]]") == ["Über café"]      # as SQLite's lower() folds the file's name
    assert link_targets("[the panel](Notes/Sidebar%20tips.md#hide), [site](https://x.org/a), [b](<B c.md>)"
                        ) == ["sidebar tips", "b c"]


GHP = "ghp_Zq8Lk2mN4pQ7rT1vX9yB3cD5fG6hJ0kL2mN4"


def test_a_note_from_a_topic_holding_a_credential_is_recalled_redacted(home: Home, ws: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # written outside botmemory (botmemory's own writes never keep one): the index marks the file
    put(ws, "memory/deploys.md", entry("2026-10-01", f"The ferry server deploy key is {GHP}") + "\n")
    put(ws, "memory/ferry.md", "# Ferry\n\nThe ferry server runs the harbour timetable.\n")
    r = recall(home, BOT, "What is the deploy key for the ferry server?", TODAY)
    assert {n.file for n in r.notes} == {"memory/deploys.md", "memory/ferry.md"}
    assert GHP not in r.text and "«redacted" in r.text
    assert "The ferry server runs the harbour timetable." in r.text      # a clean topic is shown as it is
    # and the same when a forked worker parsed the file (large builds are parsed by two)
    monkeypatch.setattr(I, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(I, "_can_fork", lambda: True)
    handed: list[str] = []
    worker = I._worker

    class Counting:       # the real worker process, noting the files handed to it
        def __init__(self, *args: object) -> None:
            self.pool = worker(*args)  # type: ignore[arg-type]

        def submit(self, fn: object, names: list[tuple[str, object]], *args: object) -> object:
            handed.extend(n for n, _key in names)
            return self.pool.submit(fn, names, *args)  # type: ignore[arg-type]

        def shutdown(self, **kw: object) -> None:
            self.pool.shutdown(**kw)  # type: ignore[arg-type]

    monkeypatch.setattr(I, "_worker", Counting)
    put(ws, "memory/zz-keys.md", entry("2026-10-02", f"The harbour gate key is {GHP}") + "\n")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{I.index_path(home, BOT)}{suffix}").unlink(missing_ok=True)
    r = recall(home, BOT, "What is the key for the harbour gate?", TODAY, background=False)
    assert "zz-keys.md" in handed and any(n.file == "memory/zz-keys.md" for n in r.notes)
    assert GHP not in r.text and "«redacted" in r.text
