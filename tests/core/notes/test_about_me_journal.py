"""About me is journaled (issue 28): prefer, learned lines (capture), forget in About me and Remove each write a
row of the home's own journal, with the profile-learned.json entries that ride with them, undoable like any row.

Driven through the CLI (``journal --home``, ``undo --home``), as a person would.
"""
from __future__ import annotations

import json

import pytest

from botmemory.core.faces.cli import main
from botmemory.core.store.memory import Memory

from ..conftest import BOT


def cli(capsys, mem: Memory, *args: str) -> tuple[int, str, str]:
    code = main(["--root", str(mem.home.root), "--today", "2026-10-15", *args])
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys, mem: Memory, *args: str):
    code, out, err = cli(capsys, mem, *args)
    assert code == 0, f"{args} exited {code}: {err}"
    return json.loads(out) if "--json" in args else out


def home_rows(capsys, mem: Memory) -> list[dict]:
    return ok(capsys, mem, "journal", "--home", "--json")


def about(mem: Memory) -> str:
    p = mem.home.about_me
    return p.read_text(encoding="utf-8") if p.exists() else ""


def learned(mem: Memory) -> dict:
    p = mem.home.profile_learned
    return json.loads(p.read_text(encoding="utf-8")) if p.exists() else {"forgotten": [], "removed": []}


def test_prefer_is_a_row_of_the_home_journal_and_undo_takes_it_out(capsys, mem):
    mem.home.about_me.write_text("I live in Pune.\n", encoding="utf-8")
    ok(capsys, mem, "prefer", BOT, "Reminders go to my task app")
    [row] = home_rows(capsys, mem)[:1]
    assert row["file"] == "about-me.md" and row["who"] == "person" and row["from_bot"] == BOT
    assert "Reminders go to my task app" in row["diff"]
    mem.home.about_me.write_text(about(mem) + "I like tea.\n", encoding="utf-8")   # typed in Settings since
    ok(capsys, mem, "undo", "--home", row["id"])
    assert about(mem) == "I live in Pune.\nI like tea.\n"
    rows = home_rows(capsys, mem)
    assert rows[0]["how"] == "undo" and rows[0]["undoes"] == row["id"]
    assert rows[1]["how"] == "outside"          # the edit in Settings was recorded first, as its own row


def test_a_prefer_that_lifts_forgotten_words_puts_them_back_when_undone(capsys, mem):
    ok(capsys, mem, "remember", BOT, "Dentist on Friday")
    ok(capsys, mem, "forget", BOT, "dentist")
    assert learned(mem)["forgotten"]
    ok(capsys, mem, "prefer", BOT, "Dentist visits go in the family calendar")
    assert learned(mem)["forgotten"] == []
    row = home_rows(capsys, mem)[0]
    ok(capsys, mem, "undo", "--home", row["id"])
    assert "family calendar" not in about(mem)
    assert [f["words"] for f in learned(mem)["forgotten"]] == [["dentist"]]


def test_forget_in_about_me_is_journaled_and_undone_with_its_forgotten_words(capsys, mem):
    mem.home.about_me.write_text("- 2026-09-01 · learned by scout · Lives near the IST office\n- Likes tea\n",
                                 encoding="utf-8")
    ok(capsys, mem, "forget", BOT, "IST")
    assert "IST" not in about(mem)
    row = home_rows(capsys, mem)[0]
    assert row["file"] == "about-me.md" and row["learned"]["forgotten"]["added"][0]["words"] == ["IST"]
    ok(capsys, mem, "undo", "--home", row["id"])
    assert "Lives near the IST office" in about(mem)
    assert learned(mem)["forgotten"] == []            # the words may be learned again


def test_remove_in_the_panel_is_journaled_and_undone_the_fact_may_be_added_again(capsys, mem):
    from botmemory.core.notes.about_me import learned_lines, remove_learned

    ok(capsys, mem, "prefer", BOT, "Short answers")
    [line] = learned_lines(mem.home)
    remove_learned(mem.home, line.id, mem.today)
    assert "Short answers" not in about(mem) and learned(mem)["removed"]
    row = home_rows(capsys, mem)[0]
    assert row["learned"]["removed"]["added"][0]["text"] == "Short answers"
    ok(capsys, mem, "undo", "--home", row["id"])
    assert "Short answers" in about(mem) and learned(mem)["removed"] == []


def test_capture_learned_lines_are_rows_by_upkeep(capsys, mem):
    from botmemory.core.upkeep.capture import CaptureReport, _add_about_me
    from botmemory.core.upkeep.capture_checks import Fact

    report = CaptureReport(BOT)
    _add_about_me(mem, BOT, [Fact(text="The person is vegetarian", target="about-me", kind="person", quotes=["I am vegetarian"])], report)
    row = home_rows(capsys, mem)[0]
    assert (row["who"], row["how"], row["from_bot"]) == ("upkeep", "capture", BOT)
    ok(capsys, mem, "undo", "--home", row["id"])
    assert "vegetarian" not in about(mem)


def test_the_home_journal_is_its_own_file_beside_the_bots(capsys, mem):
    ok(capsys, mem, "prefer", BOT, "Short answers")
    names = sorted(p.name for p in (mem.home.root / "memory-journal").iterdir())
    assert names == ["@home.ndjson"]
    assert ok(capsys, mem, "journal", BOT, "--json") == []    # nothing in the bot's own journal
    assert json.loads((mem.home.root / "memory-journal" / "@home.ndjson").read_text().splitlines()[0])["bot"] \
        == "@home"


def test_undo_home_of_a_line_changed_since_is_a_conflict_with_both_texts(capsys, mem):
    ok(capsys, mem, "prefer", BOT, "Short answers")
    row = home_rows(capsys, mem)[0]
    text = about(mem)
    mem.home.about_me.write_text(text.replace("Short answers", "Very short answers"), encoding="utf-8")
    code, out, err = cli(capsys, mem, "undo", "--home", row["id"], "--json")
    assert code == 3
    got = json.loads(out)
    assert got["conflict"] and "Very short answers" in got["text"] and "Short answers" not in got["undone"]
    assert "Very short answers" in about(mem)


@pytest.mark.parametrize("args", [("journal", "--home", "scout"), ("undo", "--home")])
def test_home_commands_take_no_bot(capsys, mem, args):
    code, _, _ = cli(capsys, mem, *args)
    assert code == 2


def test_watch_once_records_an_edit_of_about_me_made_elsewhere(capsys, mem):
    ok(capsys, mem, "watch", "--once")                       # the baseline, silently
    assert home_rows(capsys, mem) == []
    mem.home.about_me.write_text("I live in Pune.\n", encoding="utf-8")
    ok(capsys, mem, "watch", "--once")
    [row] = home_rows(capsys, mem)
    assert (row["who"], row["how"], row["file"], row["before_hash"]) == ("person", "outside", "about-me.md", None)
    ok(capsys, mem, "undo", "--home", row["id"])
    assert not mem.home.about_me.exists()
