"""The upkeep section: switches, the last tidy-up and its report, Tidy up now, the heavy-bot line."""
from __future__ import annotations

import pytest

from botmemory.core.disk import config
from botmemory.core.store.writer import Actor
from botmemory.desktop.upkeep_view import UpkeepView, report_text

from .conftest import BOT, entry, idle


@pytest.fixture
def view(qtbot, session, mem):
    v = UpkeepView(session)
    qtbot.addWidget(v)
    v.show()
    v.set_bot(BOT)
    idle(qtbot, session)
    return v


def test_switches_follow_and_set_the_bot_settings(qtbot, view, session, mem):
    assert view.memory_switch.isChecked() and view.upkeep_switch.isChecked()
    assert view.last_label.text() == "Last tidy-up: never"
    view.upkeep_switch.click()
    idle(qtbot, session)
    assert config.bot_settings(mem.home, BOT).upkeep is False
    assert not view.tidy_button.isEnabled()
    assert "Upkeep is off" in view.report_label.text()
    view.memory_switch.click()
    idle(qtbot, session)
    assert config.bot_settings(mem.home, BOT).memory is False
    assert not view.upkeep_switch.isEnabled()


def test_tidy_up_now_runs_and_shows_its_report(qtbot, view, session, mem):
    mem.store.write(BOT, "MEMORY.md", entry("2026-09-01", "Dentist on Thursday") + " · until 2026-09-30\n"
                    + entry("2026-10-01", "Priya is vegetarian") + "\n"
                    + entry("2026-10-02", "Priya is vegetarian.") + "\n", Actor.person())
    with qtbot.waitSignal(session.upkeep_ran, timeout=10_000):
        view.tidy_button.click()
    idle(qtbot, session)
    assert view.last_label.text().startswith("Last tidy-up: today at")
    text = view.report_label.text()
    assert "moved 1 expired entry to the archive" in text
    assert "removed 1 exact duplicate" in text
    assert "Dentist" in mem.store.text(BOT, "memory/archive.md")
    rows = mem.journal.list(BOT, limit=5)
    assert rows[0].who == "upkeep" and rows[0].how == "tidy-up" and rows[0].undoable


def test_the_heavy_bot_line_shows_with_tidy_memory(qtbot, view, session, mem):
    lines = "".join(entry("2026-10-01", f"note {i} " + "x" * 90) + "\n" for i in range(150))
    mem.store.write(BOT, "MEMORY.md", lines, Actor.person())
    mem.home.about_me.write_text("about me " * 1200, encoding="utf-8")
    view.refresh()
    idle(qtbot, session)
    assert view.heavy_frame.isVisible()
    assert view.heavy_label.text() == "<b>This bot loads a lot every turn.</b>"
    with qtbot.waitSignal(session.upkeep_ran, timeout=10_000):
        view.heavy_button.click()
    config.set_bot_setting(mem.home, BOT, "upkeep", False)
    view.refresh()
    idle(qtbot, session)
    assert not view.heavy_frame.isVisible()                       # never with upkeep off


def test_report_texts():
    assert report_text(None) == ""
    nothing = report_text({"expired_moved": 0, "duplicates_removed": 0, "superseded": 0, "rows": []})
    assert nothing == "Nothing needed tidying: no expired entries, no exact duplicates, no contradictions."
    assert "moved 0" not in nothing
    skipped = report_text({"rows": [], "skipped": [{"file": None, "step": "contradictions",
                                                    "reason": "no helper model is set"}]})
    assert skipped == ("Nothing needed tidying: no expired entries, no exact duplicates."
                       "\nSkipped contradictions: no helper model is set")
    r = report_text({"expired_moved": 2, "duplicates_removed": 1, "superseded": 1, "kept_parts": 1,
                     "rows": ["a", "b"], "skipped": [{"file": None, "step": "contradictions",
                                                      "reason": "no helper model is set"}]})
    assert "moved 2 expired entries" in r and "struck 1 contradicted entry" in r and "kept 1 still-true part" in r
    assert "Skipped contradictions: no helper model is set" in r
    assert report_text(None, "disk full") == "It failed: disk full"


def test_switches_wait_for_the_bot_and_a_red_gauge_points_to_make_room(qtbot, session, mem):
    from .conftest import memory_text

    v = UpkeepView(session)
    qtbot.addWidget(v)
    assert not v.memory_switch.isEnabled() and not v.tidy_button.isEnabled()   # nothing read yet
    assert v.tidy_button.toolTip()
    mem.store.write(BOT, "MEMORY.md", memory_text(230), Actor.person())
    session.poll()
    idle(qtbot, session)
    v.set_bot(BOT)
    idle(qtbot, session)
    assert v.memory_switch.isEnabled() and v.tidy_button.isEnabled()
    with qtbot.waitSignal(session.upkeep_ran, timeout=10_000):
        v.tidy_button.click()
    idle(qtbot, session)
    text = v.report_label.text()
    assert text.startswith("Nothing needed tidying")
    assert "30 lines of MEMORY.md still do not load" in text and "Make room" in text


def test_the_last_capture_and_the_lines_added_by_bots_with_remove(qtbot, view, session, mem, tmp_path):
    import json as _json

    from botmemory.core.outside.turns import turn_begin, turn_end
    from botmemory.core.upkeep import capture as C
    from botmemory.desktop.upkeep_view import capture_text

    assert view.capture_label.text() == "Last capture: never"
    line = f"- 2026-10-15 · learned by {BOT} · Is a night owl"
    mem.home.about_me.write_text("I live in Pune\n" + line + "\n", encoding="utf-8")
    path = tmp_path / "t.jsonl"
    path.write_text(_json.dumps({"role": "person", "text": "hello there"}) + "\n", encoding="utf-8")
    turn_id = turn_begin(mem, BOT, "Plans")
    turn_end(mem, BOT, turn_id)
    C.note_turn(mem, BOT, turn_id, "Plans", path, now=0.0)      # long quiet: due at the next check
    with qtbot.waitSignal(session.upkeep_ran, timeout=10_000):
        session.check_capture()
    idle(qtbot, session)
    assert "Last capture: today at" in view.capture_label.text()
    assert "no helper model is set" in view.capture_label.text()       # what it skipped, and why
    assert [ln for ln, _ in view.learned_rows] == [line]
    view.learned_rows[0][1].click()
    idle(qtbot, session)
    view.refresh()
    idle(qtbot, session)
    assert view.learned_rows == [] and mem.home.about_me.read_text() == "I live in Pune\n"
    from botmemory.core.notes.update import is_removed

    assert is_removed(mem.home, "Is a night owl")                           # never added again
    text = capture_text({"at": "2026-10-15T10:00:00+00:00", "report": {
        "filed": [{"fact": "The person is vegetarian", "file": "MEMORY.md"}],
        "skipped": [{"what": "Lives in Mumbai", "reason": "the quote is not in the person's words"}]}})
    assert "Filed 1 fact:\n• The person is vegetarian → MEMORY.md" in text
    assert "Skipped: Lives in Mumbai: the quote is not in the person's words" in text
