from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from botmemory.core.base.errors import BadInput, Refused
from botmemory.core.disk.paths import ARCHIVE_FILE, MEMORY_FILE
from botmemory.core.notes import update
from botmemory.core.store.writer import Actor
from botmemory.core.text import entries as E

from ..conftest import BOT, entry

PERSON = Actor.person()


def full_memory(n: int = 199, first: str = "Hand-written: call me Sam") -> str:
    start = date(2025, 1, 1)
    lines = [first] + [entry((start + timedelta(days=i)).isoformat(), f"fact number {i}") for i in range(1, n + 1)]
    return "\n".join(lines) + "\n"


def test_remember_appends_a_dated_entry(mem):
    r = update.remember(mem.store, BOT, "prefers short replies", Actor.bot("Follow-up"))
    assert r.entry == '- 2026-10-15 · from chat "Follow-up" · prefers short replies'
    assert mem.store.text(BOT, MEMORY_FILE) == r.entry + "\n"
    r2 = update.remember(mem.store, BOT, "second", PERSON)
    assert r2.entry == "- 2026-10-15 · from cli · second"
    assert mem.store.text(BOT, MEMORY_FILE).splitlines() == [r.entry, r2.entry]


def test_remember_on_a_file_without_final_newline(mem):
    mem.store.write(BOT, MEMORY_FILE, "hand", PERSON)
    update.remember(mem.store, BOT, "x", PERSON)
    assert mem.store.text(BOT, MEMORY_FILE) == "hand\n- 2026-10-15 · from cli · x\n"


def test_multi_line_entry_is_indented(mem):
    update.remember(mem.store, BOT, "deploy steps\nmake build\nmake ship", PERSON)
    assert mem.store.text(BOT, MEMORY_FILE) == "- 2026-10-15 · from cli · deploy steps\n  make build\n  make ship\n"


@pytest.mark.parametrize("text", ["x" * 1001, "\n".join(["l"] * 21), "  "])
def test_limits(mem, text):
    with pytest.raises(BadInput):
        update.remember(mem.store, BOT, text, PERSON)
    assert mem.store.text(BOT, MEMORY_FILE) == ""


def test_archive_order_struck_then_expired_then_oldest(mem):
    lines = ["# Notes"]
    lines += [entry("2025-06-01", f"live {i}") for i in range(189)]
    lines += [entry("2026-01-01", "expired one · until 2026-02-01")]
    lines += ["- ~~2024-01-01 · from cli · old struck~~ · superseded 2026-03-01"]
    lines += [entry("2020-01-01", "Allergic to peanuts")]  # health: never moves
    lines += [entry("2019-01-01", "oldest live")]
    lines += ["hand-written"] * 6
    mem.store.write(BOT, MEMORY_FILE, "\n".join(lines) + "\n", PERSON)  # 200 lines
    r = update.remember(mem.store, BOT, "n1", PERSON)
    assert r.moved_count == 1 and "old struck" in r.moved[0]
    r = update.remember(mem.store, BOT, "n2", PERSON)
    assert "expired one" in r.moved[0]
    r = update.remember(mem.store, BOT, "n3", PERSON)
    assert "oldest live" in r.moved[0]
    r = update.remember(mem.store, BOT, "n4", PERSON)
    assert "live 0" in r.moved[0]  # date ties keep file order
    text = mem.store.text(BOT, MEMORY_FILE)
    assert "Allergic to peanuts" in text and text.count("hand-written") == 6
    arch = mem.store.text(BOT, ARCHIVE_FILE).splitlines()
    assert arch[0] == "- ~~2024-01-01 · from cli · old struck~~ · superseded 2026-03-01 · moved 2026-10-15"
    assert all(l.endswith("· moved 2026-10-15") for l in arch)


def test_an_entry_moves_whole_with_its_lines(mem):
    body = ["- 2020-01-01 · from cli · snippet", "  line a", "  line b", "- 2020-02-01 · from cli · old fence", "```", "code", "```"]
    body += [entry("2025-01-01", f"f{i}") for i in range(193)]
    mem.store.write(BOT, MEMORY_FILE, "\n".join(body) + "\n", PERSON)
    r = update.remember(mem.store, BOT, "new", PERSON)
    assert r.moved_count == 1
    arch = mem.store.text(BOT, ARCHIVE_FILE)
    assert arch == "- 2020-01-01 · from cli · snippet · moved 2026-10-15\n  line a\n  line b\n"
    r = update.remember(mem.store, BOT, "new2\nwith\nthree lines", PERSON)
    assert mem.store.text(BOT, ARCHIVE_FILE).endswith("- 2020-02-01 · from cli · old fence · moved 2026-10-15\n```\ncode\n```\n")


def test_bytes_budget_moves_several(mem):
    fat = [entry(f"2025-01-{i + 1:02d}", "x" * 900) for i in range(26)]
    mem.store.write(BOT, MEMORY_FILE, "\n".join(fat) + "\n", PERSON)
    r = update.remember(mem.store, BOT, "y" * 1000, PERSON)
    assert r.moved_count >= 1 and not r.over_budget
    assert len(mem.store.text(BOT, MEMORY_FILE).encode()) <= 24576


def test_report_lists_first_five_and_counts_all(mem):
    fat = [entry(f"2025-01-{i + 1:02d}", f"{i:02d}" + "x" * 950) for i in range(25)]
    mem.store.write(BOT, MEMORY_FILE, "\n".join(fat) + "\n", PERSON)
    big = "\n".join(["z" * 45] * 20)
    r = update.remember(mem.store, BOT, big[:1000], PERSON)
    assert r.moved_count >= 1 and len(r.moved) == min(5, r.moved_count)


def test_unmovable_lines_still_save(mem):
    mem.store.write(BOT, MEMORY_FILE, "".join(f"hand {i}\n" for i in range(200)), PERSON)
    r = update.remember(mem.store, BOT, "still saved", PERSON)
    assert r.over_budget and r.moved_count == 0
    assert "still saved" in mem.store.text(BOT, MEMORY_FILE)


def test_bot_write_refused_when_memory_off(mem):
    from botmemory.core.disk import config
    from botmemory.core.ops import operations as ops
    config.set_bot_setting(mem.home, BOT, "memory", False)
    with pytest.raises(Refused):     # the switch is the operation's rule (ops), not the store's
        ops.remember(mem, BOT, "x", Actor.bot("Plans"))
    ops.remember(mem, BOT, "the person's own", PERSON)


def test_remember_redacts(mem):
    update.remember(mem.store, BOT, "key AKIAZ7Q4L2M9XW3RT8KP", PERSON)
    assert "AKIAZ7Q4L2M9XW3RT8KP" not in mem.store.text(BOT, MEMORY_FILE)


# ----- forget


def test_forget_whole_words_everywhere_keeps_headers(mem):
    mem.store.write(BOT, MEMORY_FILE, "\n".join([
        "# Memory", entry("2026-09-01", "Times are in IST"), entry("2026-09-02", "Dentist on Friday"),
        "Hand-written IST note", "",
    ]) + "\n", PERSON)
    mem.store.write(BOT, "memory/work.md", "---\ntitle: IST work\n---\n# IST\n" + entry("2026-09-03", "Standup at 10 IST") + "\n  with a sub line\n", PERSON)
    (mem.home.about_me).write_text("- 2026-09-01 · learned by scout · Works in IST\n- likes tea\n")
    r = update.forget(mem.store, BOT, ["ist"], PERSON)
    assert mem.store.text(BOT, MEMORY_FILE) == "# Memory\n" + entry("2026-09-02", "Dentist on Friday") + "\n\n"
    assert mem.store.text(BOT, "memory/work.md") == "---\ntitle: IST work\n---\n# IST\n"
    assert mem.home.about_me.read_text() == "- likes tea\n"
    assert set(r.files) == {MEMORY_FILE, "memory/work.md", "about-me.md"} and len(r.removed) == 4
    data = json.loads(mem.home.profile_learned.read_text())
    assert data["forgotten"][0]["words"] == ["ist"]
    assert update.is_forgotten(mem.home, "the IST timezone")


def test_forget_needs_every_word(mem):
    mem.store.write(BOT, MEMORY_FILE, entry("2026-09-01", "Asha likes tea") + "\n" + entry("2026-09-01", "Asha likes coffee") + "\n", PERSON)
    update.forget(mem.store, BOT, ["Asha", "tea"], PERSON)
    assert mem.store.text(BOT, MEMORY_FILE) == entry("2026-09-01", "Asha likes coffee") + "\n"


def test_forget_nothing_matches_changes_nothing(mem):
    mem.store.write(BOT, MEMORY_FILE, "keep\n", PERSON)
    r = update.forget(mem.store, BOT, ["absent"], PERSON)
    assert r.removed == [] and mem.store.text(BOT, MEMORY_FILE) == "keep\n"


def test_remember_again_unforgets(mem):
    update.forget(mem.store, BOT, ["Lisbon"], PERSON)
    assert update.is_forgotten(mem.home, "trip to Lisbon")
    update.remember(mem.store, BOT, "Moving to Lisbon in May", PERSON)
    assert not update.is_forgotten(mem.home, "trip to Lisbon")


def test_forget_empty_words_is_bad_input(mem):
    with pytest.raises(BadInput):
        update.forget(mem.store, BOT, [" "], PERSON)


# ----- prefer


def test_prefer_adds_once(mem):
    r = update.prefer(mem.home, BOT, "Reminders go to my task app", mem.today)
    assert r.added and r.line == "- 2026-10-15 · learned by scout · Reminders go to my task app"
    r2 = update.prefer(mem.home, "other", "reminders go to my task app.", mem.today)
    assert not r2.added
    assert mem.home.about_me.read_text().count("task app") == 1


@pytest.mark.parametrize("text", ["", "x" * 301, "two\nlines"])
def test_prefer_limits(mem, text):
    with pytest.raises(BadInput):
        update.prefer(mem.home, BOT, text, mem.today)


# ----- forget judges the fact, never its source (issue 17.1)


SOURCE_WORDS = ["berlin", "trip", "chat", "cli", "2026", "until", "noticed", "moved", "superseded", "room",
                "dentist", "learned", "scout", "from"]


def _notes_with_sources(mem):
    mem.store.write(BOT, MEMORY_FILE, "\n".join([
        '- 2026-09-01 · from chat "Berlin trip" · Prefers aisle seats',
        '- 2026-09-02 · from room "Dentist" (noticed) · Likes window light · until 2026-12-01',
        "- 2026-09-03 · from cli · Drinks green tea",
        '* 2026-09-04 · from chat "Berlin trip" · Starred bullet fact',
    ]) + "\n", PERSON)
    mem.store.write(BOT, ARCHIVE_FILE, "\n".join([
        '- 2026-08-01 · from chat "Berlin trip" · Old hotel booking · moved 2026-09-01',
        '- ~~2026-07-01 · from chat "Berlin trip" · Office in Pune~~ · superseded 2026-08-01',
        "- ~~Office in Delhi~~ · superseded 2026-08-02 · moved 2026-09-03",
    ]) + "\n", PERSON)
    mem.store.write(BOT, "memory/travel.md", "# Travel\n" + '- 2026-09-05 · from chat "Berlin trip" · Seat 12A\n',
                    PERSON)
    mem.home.about_me.write_text("- 2026-09-01 · learned by scout · Reminders go to my task app\n")


@pytest.mark.parametrize("word", SOURCE_WORDS)
def test_forget_never_matches_the_date_source_or_suffixes(mem, word):
    _notes_with_sources(mem)
    before = {rel: mem.store.text(BOT, rel) for rel in (MEMORY_FILE, ARCHIVE_FILE, "memory/travel.md")}
    about = mem.home.about_me.read_text()
    if word in update.STOP_WORDS:   # refused outright; the matcher must still not see the suffix
        with pytest.raises(BadInput):
            update.forget(mem.store, BOT, [word], PERSON)
        for rel, text in before.items():
            assert update.forget_in_text(text, [E.whole_word(word)], keep_header=True) == (text, []), rel
        return
    r = update.forget(mem.store, BOT, [word], PERSON)
    assert r.removed == [] and r.files == []
    assert {rel: mem.store.text(BOT, rel) for rel in before} == before
    assert mem.home.about_me.read_text() == about


def test_forget_matches_the_text_of_every_kind_of_note(mem):
    _notes_with_sources(mem)
    for word in ["aisle", "window", "starred", "hotel", "pune", "delhi", "12A", "reminders"]:
        r = update.forget(mem.store, BOT, [word], PERSON)
        assert len(r.removed) == 1, word
    assert mem.store.text(BOT, MEMORY_FILE) == "- 2026-09-03 · from cli · Drinks green tea\n"
    assert mem.store.text(BOT, ARCHIVE_FILE) == ""
    assert mem.store.text(BOT, "memory/travel.md") == "# Travel\n"
    assert mem.home.about_me.read_text() == ""


def test_forget_counts_the_lines_under_an_entry_as_its_fact(mem):
    mem.store.write(BOT, MEMORY_FILE, entry("2026-09-01", "Passport details") + "\n  number ends in 4471\n"
                    + entry("2026-09-02", "Other") + "\n", PERSON)
    r = update.forget(mem.store, BOT, ["4471"], PERSON)
    assert r.removed == [entry("2026-09-01", "Passport details")]
    assert mem.store.text(BOT, MEMORY_FILE) == entry("2026-09-02", "Other") + "\n"


def test_forget_judges_a_hand_written_line_whole(mem):
    mem.store.write(BOT, MEMORY_FILE, "- From the Berlin trip: aisle seats\nkeep\n", PERSON)
    update.forget(mem.store, BOT, ["berlin"], PERSON)
    assert mem.store.text(BOT, MEMORY_FILE) == "keep\n"


@pytest.mark.parametrize("words", [["the"], ["THE"], ["and"], ["is"], ["x"], ["42"], ["..."], ["tea", "of"],
                                   ["of the"]])
def test_forget_refuses_words_that_name_nothing(mem, words):
    mem.store.write(BOT, MEMORY_FILE, entry("2026-09-01", "The tea is 42 x ... of it") + "\n", PERSON)
    with pytest.raises(BadInput):
        update.forget(mem.store, BOT, words, PERSON)
    assert mem.store.text(BOT, MEMORY_FILE) == entry("2026-09-01", "The tea is 42 x ... of it") + "\n"
    assert not mem.home.profile_learned.exists()


def test_forget_accepts_a_phrase_and_a_short_cjk_word(mem):
    mem.store.write(BOT, MEMORY_FILE, entry("2026-09-01", "Call the dentist") + "\n"
                    + entry("2026-09-02", "喜欢 猫") + "\n", PERSON)
    assert len(update.forget(mem.store, BOT, ["the dentist"], PERSON).removed) == 1
    assert len(update.forget(mem.store, BOT, ["猫"], PERSON).removed) == 1
    assert mem.store.text(BOT, MEMORY_FILE) == ""


# ----- a forget that cannot look at a file says so (issue 17.5)


def _bad_utf8_setup(mem):
    mem.store.write(BOT, MEMORY_FILE, entry("2026-09-01", "Lisbon flat") + "\n", PERSON)
    mem.home.about_me.write_text("- Lisbon is home\n")


@pytest.mark.parametrize("bad", ["memory/notes.md", ARCHIVE_FILE, "about-me"])
def test_forget_refuses_when_a_file_is_not_utf8_and_writes_nothing(mem, bad):
    _bad_utf8_setup(mem)
    target = mem.home.about_me if bad == "about-me" else mem.home.workspace(BOT) / bad
    target.write_bytes(b"- Lisbon \xff\xfe notes\n")
    with pytest.raises(BadInput, match="about-me.md" if bad == "about-me" else bad):
        update.forget(mem.store, BOT, ["Lisbon"], PERSON)
    assert mem.store.text(BOT, MEMORY_FILE) == entry("2026-09-01", "Lisbon flat") + "\n"
    if bad != "about-me":
        assert mem.home.about_me.read_text() == "- Lisbon is home\n"
    assert not mem.home.profile_learned.exists()
    assert mem.journal.list(BOT) == [] or all(r.file != MEMORY_FILE or "Lisbon" not in r.summary()
                                              for r in mem.journal.list(BOT)[:1])


def test_forget_refuses_a_topic_that_is_a_link(mem, tmp_path):
    _bad_utf8_setup(mem)
    outside = tmp_path / "outside.md"
    outside.write_text("- Lisbon secret\n")
    (mem.home.workspace(BOT) / "memory" / "linked.md").symlink_to(outside)
    with pytest.raises(Refused, match="memory/linked.md"):
        update.forget(mem.store, BOT, ["Lisbon"], PERSON)
    assert outside.read_text() == "- Lisbon secret\n"
    assert mem.store.text(BOT, MEMORY_FILE) == entry("2026-09-01", "Lisbon flat") + "\n"


def test_forget_refuses_an_unreadable_forgotten_words_file_and_keeps_it(mem):
    _bad_utf8_setup(mem)
    mem.home.profile_learned.write_text("{not json")
    with pytest.raises(BadInput, match="profile-learned.json"):
        update.forget(mem.store, BOT, ["Lisbon"], PERSON)
    assert mem.home.profile_learned.read_text() == "{not json"
    assert mem.store.text(BOT, MEMORY_FILE) == entry("2026-09-01", "Lisbon flat") + "\n"


# ----- the forgotten words are read: one check for every learning step (issue 17.14)


def test_learning_check_names_the_forgotten_words_and_judges_the_fact(mem):
    update.forget(mem.store, BOT, ["IST"], PERSON)
    assert update.learning_check(mem.home, "Times are in IST") == \
        "it mentions words the person asked to forget: IST"
    assert update.learning_check(mem.home, "Visits the dentist") is None
    assert update.learning_check(mem.home, '- 2026-09-01 · from chat "IST" · Likes tea') is None
    assert update.learning_check(mem.home, '- 2026-09-01 · from chat "x" · Meeting 10 IST') is not None


def test_an_unreadable_forgotten_words_file_blocks_nothing(mem):
    mem.home.profile_learned.write_text("[1, 2")
    assert update.learning_check(mem.home, "anything") is None


def test_remember_lifts_the_words_and_says_so(mem):
    update.forget(mem.store, BOT, ["IST"], PERSON)
    update.forget(mem.store, BOT, ["Asha", "tea"], PERSON)
    r = update.remember(mem.store, BOT, "Times are in IST", PERSON)
    assert r.learnable_again == [["IST"]] and r.as_dict()["learnable_again"] == [["IST"]]
    assert update.learning_check(mem.home, "IST") is None
    assert update.forgotten_words(mem.home) == [["Asha", "tea"]]
    assert update.remember(mem.store, BOT, "Another note", PERSON).learnable_again == []


def test_prefer_lifts_the_words(mem):
    update.forget(mem.store, BOT, ["task", "app"], PERSON)
    r = update.prefer(mem.home, BOT, "Reminders go to my task app", mem.today)
    assert r.learnable_again == [["task", "app"]]


# ----- prefer names the line already there (issue 17.16)


def test_duplicate_prefer_names_the_line_already_in_about_me(mem):
    first = update.prefer(mem.home, BOT, "Reminders go to my task app", date(2026, 9, 1))
    r = update.prefer(mem.home, "other", "reminders go to my task app.", mem.today)
    assert not r.added and r.line == first.line == "- 2026-09-01 · learned by scout · Reminders go to my task app"


def test_duplicate_prefer_of_a_hand_written_line(mem):
    mem.home.about_me.write_text("# About me\n* Reminders go to my task app\n")
    r = update.prefer(mem.home, BOT, "Reminders go to my task app", mem.today)
    assert not r.added and r.line == "* Reminders go to my task app"
    assert mem.home.about_me.read_text() == "# About me\n* Reminders go to my task app\n"


def test_a_bot_forget_with_memory_off_is_refused_even_when_only_about_me_matches(mem):
    from botmemory.core.disk import config

    mem.home.about_me.write_text("- Lisbon is home\n")
    config.set_bot_setting(mem.home, BOT, "memory", False)
    with pytest.raises(Refused):
        update.forget(mem.store, BOT, ["Lisbon"], Actor.bot("Plans"))
    assert mem.home.about_me.read_text() == "- Lisbon is home\n" and not mem.home.profile_learned.exists()


def test_star_bullet_entries_move_to_the_archive_like_dash_ones(mem):
    text = full_memory().replace("- 2025-01-02 ·", "* 2025-01-02 ·").replace("- 2025-01-01 ·", "* 2025-01-01 ·")
    assert text.startswith("Hand-written: call me Sam\n* 2025-01-02 · ")
    mem.store.write(BOT, MEMORY_FILE, text, PERSON)
    r = update.remember(mem.store, BOT, "new fact", PERSON)
    assert r.moved == ['* 2025-01-02 · from chat "Plans" · fact number 1']
    assert mem.store.text(BOT, ARCHIVE_FILE) == '* 2025-01-02 · from chat "Plans" · fact number 1 · moved 2026-10-15\n'


# ----- make room now (the panel's Make room)


def test_move_overflow_moves_what_the_preview_lists_in_one_write(mem):
    from botmemory.core.base.errors import Conflict
    from botmemory.core.text import entries as E

    text = full_memory(230)
    mem.store.write(BOT, MEMORY_FILE, text, PERSON)
    preview = E.parse(text)
    expected, _ = update.make_room(preview, mem.store.today, None)
    before = mem.store.read(BOT, MEMORY_FILE)
    with pytest.raises(Conflict):
        update.move_overflow(mem.store, BOT, PERSON, expected_hash="0" * 64)
    assert mem.store.text(BOT, MEMORY_FILE) == text and mem.store.read(BOT, ARCHIVE_FILE) is None
    r = update.move_overflow(mem.store, BOT, PERSON, expected_hash=before.hash)
    assert r.moved == [b.first_line for b in expected] and r.fits
    assert [c.file for c in r.changes] == [ARCHIVE_FILE, MEMORY_FILE]   # the archive first, then MEMORY.md
    after = mem.store.text(BOT, MEMORY_FILE)
    assert after.startswith("Hand-written: call me Sam\n") and after.endswith("\n")
    assert len(after.splitlines()) <= 200
    arch = mem.store.text(BOT, ARCHIVE_FILE)
    for first in r.moved:
        assert first not in after and first in arch
    assert arch.count("· moved 2026-10-15") == len(r.moved)


def test_overflow_preview_is_what_the_next_remember_would_move():
    """The panel's warning before a save (it no longer combines the gauge and make_room itself)."""
    today = date(2026, 10, 15)
    within = update.overflow_preview(full_memory(149), today)
    assert not within.over and within.moved == [] and within.fits_after
    over = update.overflow_preview(full_memory(202), today)
    assert over.over and over.gauge.unloaded_lines == 3 and over.fits_after
    assert over.moved == [entry((date(2025, 1, 1) + timedelta(days=i)).isoformat(), f"fact number {i}")
                          for i in (1, 2, 3)]
    hand = update.overflow_preview("a line by hand\n" * 230, today)
    assert hand.over and hand.moved == [] and not hand.fits_after


def test_move_overflow_within_budget_changes_nothing(mem):
    mem.store.write(BOT, MEMORY_FILE, full_memory(10), PERSON)
    r = update.move_overflow(mem.store, BOT, PERSON)
    assert r.moved == [] and r.fits and r.changes == []
    assert mem.store.read(BOT, ARCHIVE_FILE) is None


def test_undo_overflow_puts_both_files_back_in_one_write_unless_one_changed(mem):
    from botmemory.core.base.errors import Conflict

    text = full_memory(230)
    mem.store.write(BOT, MEMORY_FILE, text, PERSON)
    mem.store.write(BOT, ARCHIVE_FILE, "# Archive\n", PERSON)
    room = update.move_overflow(mem.store, BOT, PERSON)
    changes = update.undo_overflow(mem.store, BOT, room, Actor("person", "undo"))
    assert [c.file for c in changes] == [MEMORY_FILE, ARCHIVE_FILE]
    assert mem.store.text(BOT, MEMORY_FILE) == text and mem.store.text(BOT, ARCHIVE_FILE) == "# Archive\n"
    room = update.move_overflow(mem.store, BOT, PERSON)
    mem.store.write(BOT, ARCHIVE_FILE, mem.store.text(BOT, ARCHIVE_FILE) + "a later line\n", PERSON)
    with pytest.raises(Conflict):
        update.undo_overflow(mem.store, BOT, room, Actor("person", "undo"))
    assert "a later line" in mem.store.text(BOT, ARCHIVE_FILE)          # nothing written
    assert len(mem.store.text(BOT, MEMORY_FILE).splitlines()) <= 200


# ----- a large archive is appended to, never read whole (issue 17 item 12)


def _big_archive(ws, size: int, tail: str = "\n") -> bytes:
    line = entry("2024-01-01", "an old archived note with some words · moved 2024-02-01") + "\n"
    data = (line * (size // len(line) + 1)).encode()[: size - len(tail)]
    data = data[: data.rindex(b"\n") + 1] + tail.encode() if tail == "\n" else data + tail.encode()
    (ws / "memory" / "archive.md").write_bytes(data)
    return data


@pytest.mark.parametrize("mb", [2, 17])
def test_an_archive_larger_than_a_journal_copy_is_appended_to(mem, ws, mb, monkeypatch):
    from botmemory.core.disk import safeio

    mem.store.write(BOT, MEMORY_FILE, full_memory(), PERSON)
    before = _big_archive(ws, mb * 1024 * 1024)
    reads: list[str] = []
    real = safeio.read_in
    monkeypatch.setattr(safeio, "read_in", lambda d, name, shown: reads.append(shown) or real(d, name, shown))
    listeners = mem.store.listeners[:]
    mem.store.listeners.clear()   # the write alone: the shadow copy, kept afterwards, may read the file
    r = update.remember(mem.store, BOT, "brand new", PERSON)
    assert r.moved_count >= 1
    assert not any("archive" in s for s in reads), "the archive was read whole"
    mem.store.listeners[:] = listeners
    with mem.capture_rows() as rows:
        mem.store.notify(r.changes)
    after = (ws / "memory" / "archive.md").read_bytes()
    assert after.startswith(before)
    added = after[len(before):].decode()
    assert "fact number 1 · moved 2026-10-15" in added and added.endswith("\n")
    assert "fact number 1\n" not in mem.store.text(BOT, MEMORY_FILE)
    row = next(r for r in rows if r.file == ARCHIVE_FILE)
    assert "+" in row.diff and "fact number 1 · moved 2026-10-15" in row.diff
    assert "an old archived note" not in row.diff
    assert row.undoable is False and "appended" in row.reason


def test_an_append_after_a_torn_archive_tail_starts_on_its_own_line(mem, ws):
    mem.store.write(BOT, MEMORY_FILE, full_memory(), PERSON)
    before = _big_archive(ws, 2 * 1024 * 1024, tail="- 2024-01-01 · torn half li")
    update.remember(mem.store, BOT, "brand new", PERSON)
    after = (ws / "memory" / "archive.md").read_bytes()
    assert after.startswith(before + b"\n- ")


def test_the_append_threshold_is_within_the_journals_earlier_text_limit():
    from botmemory.core.store.journal import EARLIER_TEXT_MAX_BYTES

    assert update.ARCHIVE_APPEND_OVER <= EARLIER_TEXT_MAX_BYTES   # an archive rewritten whole can be undone


@pytest.mark.parametrize("mb", [2, 17])
def test_an_appended_archive_is_not_taken_for_an_outside_change(mem, ws, mb):
    from botmemory.core.outside.turns import scan

    mem.store.write(BOT, MEMORY_FILE, full_memory(), PERSON)
    _big_archive(ws, mb * 1024 * 1024)
    scan(mem)   # the baseline
    update.remember(mem.store, BOT, "brand new", PERSON)
    assert scan(mem) == []
    assert scan(mem) == []


@pytest.mark.parametrize("mb", [2, 17])
def test_make_room_appends_to_a_large_archive_and_its_undo_cuts_it_back(mem, ws, mb, monkeypatch):
    """The panel's Make room with an archive past the append size (17 MB: past what botmemory reads): the
    moved entries are appended, never read whole; the undo cuts the archive back to its old bytes while
    they and the appended ones are unchanged, else it is a conflict and nothing is written."""
    from botmemory.core.base.errors import Conflict
    from botmemory.core.disk import safeio

    text = full_memory(230)
    mem.store.write(BOT, MEMORY_FILE, text, PERSON)
    before = _big_archive(ws, mb * 1024 * 1024, tail="- 2024-01-01 · torn half li")
    reads: list[str] = []
    real = safeio.read_in
    monkeypatch.setattr(safeio, "read_in", lambda d, name, shown: reads.append(shown) or real(d, name, shown))
    listeners = mem.store.listeners[:]
    mem.store.listeners.clear()   # the write alone: the shadow copy, kept afterwards, may read the file
    room = update.move_overflow(mem.store, BOT, PERSON)
    assert room.moved and not any("archive" in s for s in reads), "the archive was read whole"
    mem.store.listeners[:] = listeners
    with mem.capture_rows() as rows:
        mem.store.notify(room.changes)
    after = (ws / "memory" / "archive.md").read_bytes()
    assert after.startswith(before + b"\n") and after.endswith(b"\n")
    assert all(first in after[len(before):].decode() for first in room.moved)
    assert len(mem.store.text(BOT, MEMORY_FILE).splitlines()) <= 200
    row = [r for r in rows if r.file == ARCHIVE_FILE][-1]
    assert "fact number" in row.diff and "an old archived note" not in row.diff

    reads.clear()
    mem.store.listeners.clear()
    changes = update.undo_overflow(mem.store, BOT, room, Actor("person", "undo"))
    assert not any("archive" in s for s in reads), "the undo read the archive whole"
    mem.store.listeners[:] = listeners
    with mem.capture_rows() as rows:
        mem.store.notify(changes)
    assert [c.file for c in changes] == [MEMORY_FILE, ARCHIVE_FILE]
    assert mem.store.text(BOT, MEMORY_FILE) == text
    assert (ws / "memory" / "archive.md").read_bytes() == before
    cut = [r for r in rows if r.file == ARCHIVE_FILE][-1]
    assert "fact number" in cut.diff and "an old archived note" not in cut.diff and not cut.undoable
    assert "-" in cut.summary() and "deleted" not in cut.summary()
    from botmemory.core.outside.turns import scan
    assert scan(mem) == []      # the cut is not taken for an outside change

    room = update.move_overflow(mem.store, BOT, PERSON)
    with open(ws / "memory" / "archive.md", "ab") as f:     # someone adds a line after the move
        f.write(b"- a later line\n")
    grown = (ws / "memory" / "archive.md").read_bytes()
    moved_text = mem.store.text(BOT, MEMORY_FILE)
    with pytest.raises(Conflict):
        update.undo_overflow(mem.store, BOT, room, Actor("person", "undo"))
    assert (ws / "memory" / "archive.md").read_bytes() == grown and mem.store.text(BOT, MEMORY_FILE) == moved_text


def test_an_earlier_copy_of_the_entry_just_written_may_still_move():
    """The parser hands equal lines one shared Block (it remembers lines it read): the entry just written is
    the last one that is it, and an earlier copy of the same line is another entry, movable like the rest."""
    line = "- 2026-01-01 · from chat \"Plans\" · the same fact"
    doc = E.parse(f"{line}\n- 2026-02-01 · cli · another fact\n{line}\n")
    assert doc.blocks[0] is doc.blocks[2]   # what the rule below is for
    order = list(update.movable_order(doc, date(2026, 3, 1), doc.blocks[2]))
    assert order == [0, 1]
    full = E.parse(f"{line}\n" * 260)   # a bot that wrote the same note all day: the copies make room
    last = full.blocks[-1]
    moved, fits = update.make_room(full, date(2026, 3, 1), last)
    assert fits and len(moved) >= 60 and full.blocks[-1] is last
