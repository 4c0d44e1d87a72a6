"""When sync runs by itself: after changes (debounced), when the remote moved, retried when it cannot reach it."""
from __future__ import annotations

import shutil
import time

import pytest

from botmemory.core.ops import sync
from botmemory.core.sync import schedule
from botmemory.core.sync.schedule import Status

from .conftest import Computer

FAST = {"quiet": 0.2, "cap": 1.0, "active_every": 0.3, "idle_every": 5.0, "active_for": 60.0}


def wait_for(check, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def running(two):
    started = []

    def start(c: Computer, **timing: float) -> schedule.Scheduler:
        s = sync.scheduler(c.mem, **{**FAST, **timing})
        assert s is not None
        s.start()
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def test_a_change_on_one_computer_reaches_the_other_by_itself(two, running):
    a, b = two
    sa, sb = running(a), running(b)
    assert wait_for(lambda: sa.rounds >= 1 and sb.rounds >= 1)
    a.remember("Written on the laptop, synced by itself")
    assert wait_for(lambda: "Written on the laptop, synced by itself" in b.text())
    assert wait_for(lambda: sb.status.came_in >= 1)
    assert sb.status.line().startswith("Synced ") and "1 change came in" in sb.status.line()


def test_the_rows_a_round_writes_start_no_round_of_their_own(two, running):
    a, b = two
    a.remember("x")
    a.sync()
    sb = running(b)
    assert wait_for(lambda: "x" in b.text())
    time.sleep(1.5)
    settled = sb.rounds
    time.sleep(2.0)                       # several checks of the remote later: it did not move
    assert sb.rounds == settled


def test_a_remote_that_cannot_be_reached_never_blocks_a_write_and_is_retried(two, running, remote, monkeypatch):
    monkeypatch.setattr(schedule, "RETRY_FIRST_S", 0.3)
    a, b = two
    sa = running(a)
    assert wait_for(lambda: sa.rounds >= 1)
    shutil.move(str(remote), str(remote) + ".away")
    a.remember("Written while offline")
    assert "Written while offline" in a.text()
    assert wait_for(lambda: sa.status.error is not None)
    assert sa.status.line().startswith("Sync waits: cannot sync with")
    shutil.move(str(remote) + ".away", str(remote))
    assert wait_for(lambda: sa.status.error is None, timeout=30)
    b.sync()
    assert "Written while offline" in b.text()


def test_a_home_without_sync_has_no_schedule(tmp_path):
    c = Computer(tmp_path / "c", "c")
    assert sync.scheduler(c.mem) is None


def test_the_status_line():
    assert Status().line() == "Not synced yet"
    s = Status(last_sync=time.time(), came_in=3, conflicts=1, pushed_out=2)
    line = s.line()
    assert line.startswith("Synced ") and "3 changes came in" in line and "1 conflict to resolve" in line
    assert "pushed 2 lines past what loads" in line
    assert Status(error="cannot sync with x").line() == "Sync waits: cannot sync with x"


def test_reading_a_journal_is_no_change_writing_one_is(tmp_path):
    from watchdog.events import FileClosedNoWriteEvent, FileModifiedEvent, FileOpenedEvent

    s = schedule.Scheduler(tmp_path, lambda: {"scout"}, lambda ids: (0, 0, 0, 0, ()), lambda: False, set)
    handler = schedule._JournalEvents(s)
    for event in (FileOpenedEvent(str(tmp_path / "scout.ndjson")), FileClosedNoWriteEvent(str(tmp_path / "scout.ndjson")),
                  FileModifiedEvent(str(tmp_path / "other.ndjson"))):
        handler.dispatch(event)
    assert s._wants.dirty == {}
    handler.dispatch(FileModifiedEvent(str(tmp_path / "scout.ndjson")))
    assert set(s._wants.dirty) == {"scout"}
