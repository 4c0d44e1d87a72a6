from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from botmemory.core import update
from botmemory.core.errors import BadInput, Refused
from botmemory.core.paths import ARCHIVE_FILE, MEMORY_FILE
from botmemory.core.store import Actor

from .conftest import BOT, entry

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
    from botmemory.core import config
    config.set_bot_setting(mem.home, BOT, "memory", False)
    with pytest.raises(Refused):
        update.remember(mem.store, BOT, "x", Actor.bot("Plans"))
    update.remember(mem.store, BOT, "the person's own", PERSON)


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


# ----- make room now (the panel's Make room)


def test_move_overflow_moves_what_the_preview_lists_in_one_write(mem):
    from botmemory.core import entries as E
    from botmemory.core.errors import Conflict

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


def test_move_overflow_within_budget_changes_nothing(mem):
    mem.store.write(BOT, MEMORY_FILE, full_memory(10), PERSON)
    r = update.move_overflow(mem.store, BOT, PERSON)
    assert r.moved == [] and r.fits and r.changes == []
    assert mem.store.read(BOT, ARCHIVE_FILE) is None


def test_undo_overflow_puts_both_files_back_in_one_write_unless_one_changed(mem):
    from botmemory.core.errors import Conflict

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
