"""Upkeep's schedule (a pure function), its stored last run, run_due, and the heavy-bot line."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.disk import config
from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.faces import cli
from botmemory.core.store.writer import Actor
from botmemory.core.upkeep import schedule as upkeep
from botmemory.core.upkeep.schedule import tidy_due
from tests.conftest import examples

from ..conftest import BOT, entry

PERSON = Actor.person()


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


# ----- tidy_due


def test_never_run_is_due():
    assert tidy_due(None, at("2026-10-15 14:00"), 3, False)


def test_due_after_the_hour_once_a_day():
    last = at("2026-10-14 03:00:05")
    assert not tidy_due(last, at("2026-10-15 02:59"), 3, False)
    assert tidy_due(last, at("2026-10-15 03:00"), 3, False)
    assert tidy_due(last, at("2026-10-15 03:01"), 3, False)
    ran = at("2026-10-15 03:01")
    assert not tidy_due(ran, at("2026-10-15 03:02"), 3, False)
    assert not tidy_due(ran, at("2026-10-15 23:59"), 3, False)
    assert not tidy_due(ran, at("2026-10-16 02:59"), 3, False)
    assert tidy_due(ran, at("2026-10-16 03:00"), 3, False)


def test_after_sleeping_through_the_hour_it_runs_at_the_next_check():
    last = at("2026-10-12 03:00")
    assert tidy_due(last, at("2026-10-15 08:42"), 3, False)        # asleep for days
    assert tidy_due(at("2026-10-14 03:10"), at("2026-10-15 09:00"), 3, False)  # asleep at 3 am
    assert not tidy_due(at("2026-10-15 08:42"), at("2026-10-15 09:00"), 3, False)  # and only once


def test_never_while_a_turn_is_open():
    assert not tidy_due(None, at("2026-10-15 14:00"), 3, True)
    assert not tidy_due(at("2026-10-14 03:00"), at("2026-10-15 03:30"), 3, True)
    assert tidy_due(at("2026-10-14 03:00"), at("2026-10-15 03:45"), 3, False)  # the turn ended


def test_a_manual_run_before_the_hour_does_not_replace_the_nightly_one():
    assert tidy_due(at("2026-10-15 01:00"), at("2026-10-15 03:00"), 3, False)
    assert not tidy_due(at("2026-10-15 10:00"), at("2026-10-16 02:00"), 3, False)


def test_across_midnight():
    assert not tidy_due(at("2026-10-14 23:10"), at("2026-10-15 00:30"), 23, False)
    assert not tidy_due(at("2026-10-14 23:10"), at("2026-10-15 22:59"), 23, False)
    assert tidy_due(at("2026-10-14 23:10"), at("2026-10-15 23:00"), 23, False)
    assert tidy_due(at("2026-10-14 00:10"), at("2026-10-15 00:00"), 0, False)
    assert not tidy_due(at("2026-10-14 23:59"), at("2026-10-15 00:00") - timedelta(microseconds=1), 0, False)
    assert tidy_due(at("2026-12-31 03:05"), at("2027-01-01 03:00"), 3, False)  # across a year


def test_clock_moved_back():
    ran = at("2026-10-15 03:05")
    assert not tidy_due(ran, at("2026-10-15 01:00"), 3, False)   # back two hours: already ran that night
    assert not tidy_due(ran, at("2026-10-15 03:01"), 3, False)   # back past the hour: not twice
    assert not tidy_due(ran, at("2026-10-14 04:00"), 3, False)   # back a day: still not twice
    assert tidy_due(ran, at("2025-10-15 04:00"), 3, False)       # back a year: the stored time is not trusted
    assert tidy_due(ran, at("2026-10-16 03:00"), 3, False)


def test_aware_times_across_a_time_zone_change():
    cest, cet = timezone(timedelta(hours=2)), timezone(timedelta(hours=1))
    ran = datetime(2026, 10, 25, 3, 5, tzinfo=cest)
    assert not tidy_due(ran, datetime(2026, 10, 25, 2, 30, tzinfo=cet), 3, False)  # same instant-ish, later
    assert tidy_due(ran, datetime(2026, 10, 26, 3, 0, tzinfo=cet), 3, False)


def test_aware_and_naive_mix():
    now = datetime.now()
    assert not tidy_due(now.astimezone(), now, 3, False)
    assert not tidy_due(now, now.astimezone(), 3, False)


def test_a_bad_hour_falls_back_to_three():
    assert tidy_due(at("2026-10-14 03:05"), at("2026-10-15 03:01"), 99, False)
    assert not tidy_due(at("2026-10-14 03:05"), at("2026-10-15 02:59"), -1, False)


moments = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1))


@settings(max_examples=examples(300), deadline=None)
@given(ran=moments, hour=st.integers(0, 23), later=st.timedeltas(timedelta(0), timedelta(days=3)))
def test_once_per_day_property(ran, hour, later):
    """After a run, the next one is due exactly from the next tidy hour on."""
    now = ran + later
    next_slot = upkeep.last_slot(ran, hour) + timedelta(days=1)
    assert tidy_due(ran, now, hour, False) == (now >= next_slot)
    assert not tidy_due(ran, now, hour, True)


# ----- run_due and the stored state


@pytest.fixture
def bots(mem):
    for b in ("alpha", "beta", "gamma", "delta"):
        mem.store.init(b)
        mem.store.write(b, MEMORY_FILE, entry("2026-09-01", "gone · until 2026-09-10") + "\n", PERSON)
    config.set_bot_setting(mem.home, "beta", "upkeep", False)
    config.set_bot_setting(mem.home, "gamma", "memory", False)
    return mem


def test_run_due_runs_each_bot_that_is_due(bots):
    mem = bots
    now = datetime(2026, 10, 15, 3, 30).astimezone()
    busy = {"delta"}
    out = upkeep.run_due(mem, now, lambda bot: bot in busy)
    assert set(out) == {"alpha", BOT}
    assert out["alpha"]["expired_moved"] == 1
    assert "gone" in mem.store.text("beta", MEMORY_FILE) and "gone" in mem.store.text("gamma", MEMORY_FILE)
    state = upkeep.read_state(mem.home, "alpha")
    assert state.last_run == now and state.report is not None and state.report["expired_moved"] == 1
    later = upkeep.run_due(mem, now + timedelta(minutes=5), lambda bot: False)  # delta's turn ended
    assert set(later) == {"delta"} and later["delta"]["expired_moved"] == 1
    assert upkeep.run_due(mem, now + timedelta(hours=12), lambda bot: False) == {}
    again = upkeep.run_due(mem, now + timedelta(days=1), lambda bot: False)
    assert set(again) == {"alpha", "delta", BOT} and again["alpha"]["expired_moved"] == 0


def test_config_tidy_hour_is_used(mem):
    config.write_config(mem.home, {"memory": {"tidyHour": 5}})
    upkeep.write_state(mem.home, BOT, upkeep.UpkeepState(datetime(2026, 10, 14, 5, 10).astimezone()))
    assert upkeep.run_due(mem, datetime(2026, 10, 15, 4, 0).astimezone(), lambda b: False) == {}
    assert BOT in upkeep.run_due(mem, datetime(2026, 10, 15, 5, 0).astimezone(), lambda b: False)


def test_a_failed_run_is_stored_and_not_retried_that_day(mem, monkeypatch):
    from botmemory.core.base.errors import BadInput

    def boom(*a, **k):
        raise BadInput("broken")

    from botmemory.core.upkeep import tidy

    monkeypatch.setattr(tidy, "tidy", boom)
    now = datetime(2026, 10, 15, 3, 30).astimezone()
    assert upkeep.run_due(mem, now, lambda b: False) == {BOT: {"error": "broken"}}
    assert upkeep.read_state(mem.home, BOT).error == "broken"
    assert upkeep.run_due(mem, now + timedelta(hours=1), lambda b: False) == {}


def test_an_unreadable_state_counts_as_never_run(mem):
    path = upkeep.state_file(mem.home, BOT)
    path.parent.mkdir(parents=True, exist_ok=True)
    for junk in ("{", "[]", '{"last_run": "yesterday"}', '{"last_run": 5}'):
        path.write_text(junk, encoding="utf-8")
        assert upkeep.read_state(mem.home, BOT).last_run is None


def test_tidy_now_is_remembered_as_the_last_run(mem, capsys):
    root = str(mem.home.root)
    assert cli.main(["--root", root, "--today", "2026-10-15", "tidy", BOT, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    state = upkeep.read_state(mem.home, BOT)
    assert state.last_run is not None and state.report == report
    assert not str(upkeep.state_file(mem.home, BOT)).startswith(str(mem.home.workspace(BOT)))


# ----- a heavy bot


def fill_memory(mem, kb: int) -> None:
    lines = [entry("2026-09-01", f"{i:04d} " + "x" * 80) for i in range(kb * 1024 // 110 + 1)]
    mem.store.write(BOT, MEMORY_FILE, "\n".join(lines) + "\n", PERSON)


def test_heavy_with_memory_and_about_me(mem):
    fill_memory(mem, 9)
    assert upkeep.heavy_line(mem, BOT) is None
    mem.home.about_me.write_text("a" * 16 * 1024, encoding="utf-8")
    assert upkeep.heavy_line(mem, BOT) == "This bot loads a lot every turn."


def test_not_heavy_with_little_memory(mem):
    fill_memory(mem, 7)
    mem.home.about_me.write_text("a" * 40 * 1024, encoding="utf-8")
    assert upkeep.heavy_line(mem, BOT) is None


def test_instructions_count(mem):
    fill_memory(mem, 9)
    path = mem.home.root / "bots" / BOT / "instructions.md"
    path.parent.mkdir(parents=True)
    path.write_text("i" * 16 * 1024, encoding="utf-8")
    assert upkeep.heavy_line(mem, BOT) is not None
    path.unlink()
    assert upkeep.heavy_line(mem, BOT) is None
    settings_file = mem.home.settings_file(BOT)
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(json.dumps({"instructions": "i" * 16 * 1024}), encoding="utf-8")
    assert upkeep.heavy_line(mem, BOT) is not None


def test_only_what_loads_counts(mem):
    lines = [entry("2026-09-01", f"{i:04d} " + "x" * 80 + " · until 2026-09-30") for i in range(120)]
    mem.store.write(BOT, MEMORY_FILE, "\n".join(lines) + "\n", PERSON)  # expired: does not load
    mem.home.about_me.write_text("a" * 20 * 1024, encoding="utf-8")
    assert upkeep.heavy_line(mem, BOT) is None
    assert upkeep.loaded_memory_bytes(mem, BOT) == 0
    fill_memory(mem, 60)  # far past the budget: only 24 KB of it loads
    assert upkeep.loaded_memory_bytes(mem, BOT) <= 24 * 1024


@pytest.mark.parametrize("switch", ["memory", "upkeep"])
def test_never_shown_with_memory_or_upkeep_off(mem, switch):
    fill_memory(mem, 20)
    mem.home.about_me.write_text("a" * 20 * 1024, encoding="utf-8")
    assert upkeep.heavy_line(mem, BOT) is not None
    config.set_bot_setting(mem.home, BOT, switch, False)
    assert upkeep.heavy_line(mem, BOT) is None


def test_gauge_adds_the_line(mem, capsys):
    fill_memory(mem, 20)
    mem.home.about_me.write_text("a" * 20 * 1024, encoding="utf-8")
    assert cli.main(["--root", str(mem.home.root), "gauge", BOT, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["heavy"] == "This bot loads a lot every turn."
