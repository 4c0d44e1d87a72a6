"""The worker pool: work off the UI thread, callbacks on it, one writer at a time."""
from __future__ import annotations

import threading

import pytest

from botmemory.desktop.worker import Worker

from .conftest import delete


@pytest.fixture
def worker(qtbot):
    w = Worker()
    yield w
    w.shutdown()
    delete(w)


def test_read_runs_off_the_ui_thread_and_answers_on_it(qtbot, worker):
    ui = threading.get_ident()
    seen = {}

    def job():
        seen["job"] = threading.get_ident()
        return 42

    def done(value):
        seen["done"] = threading.get_ident()
        seen["value"] = value

    worker.read(job, done)
    qtbot.waitUntil(lambda: "value" in seen)
    assert seen["job"] != ui
    assert seen["done"] == ui
    assert seen["value"] == 42
    assert not worker.busy


def test_an_error_reaches_the_error_callback(qtbot, worker):
    got = []
    worker.write(lambda: 1 / 0, lambda _v: got.append("done"), lambda e: got.append(e))
    qtbot.waitUntil(lambda: bool(got))
    assert isinstance(got[0], ZeroDivisionError)


def test_an_error_without_callback_is_reported(qtbot, worker):
    with qtbot.waitSignal(worker.failed) as blocker:
        worker.read(lambda: (_ for _ in ()).throw(ValueError("bad thing")))
    assert blocker.args == ["bad thing"]


def test_writes_run_one_at_a_time_in_order(qtbot, worker):
    active = []
    peak = []
    order = []
    lock = threading.Lock()

    def job(i):
        with lock:
            active.append(i)
            peak.append(len(active))
        order.append(i)
        threading.Event().wait(0.005)
        with lock:
            active.remove(i)
        return i

    results = []
    for i in range(12):
        worker.write(lambda i=i: job(i), results.append)
    qtbot.waitUntil(lambda: len(results) == 12)
    assert max(peak) == 1
    assert order == list(range(12))
    assert results == list(range(12))


def test_busy_changes_are_signalled(qtbot, worker):
    states = []
    worker.busy_changed.connect(states.append)
    gate = threading.Event()
    worker.read(lambda: gate.wait(5))
    assert worker.busy
    gate.set()
    qtbot.waitUntil(lambda: not worker.busy)
    assert states == [True, False]


def test_after_shutdown_tasks_are_dropped(qtbot):
    w = Worker()
    w.shutdown()
    assert w.read(lambda: 1) == 0
    assert not w.busy


def test_the_date_moves_on_the_writer_thread_not_the_ui_thread(qtbot, mem, monkeypatch):
    import threading
    from datetime import date

    from botmemory.desktop import session as sessmod

    from .conftest import delete

    seen = []

    class Spy:
        def __init__(self, store):
            object.__setattr__(self, "_store", store)

        def __getattr__(self, name):
            return getattr(self._store, name)

        def __setattr__(self, name, value):
            if name == "today":
                seen.append(threading.current_thread() is threading.main_thread())
            setattr(self._store, name, value)

    monkeypatch.setattr(sessmod, "local_today", lambda: date(2026, 10, 16))
    monkeypatch.setattr(sessmod.corelink, "run_due", lambda m, now: {})
    s = sessmod.Session(mem, live=False, upkeep=False, today_fixed=False)
    try:
        mem.store = Spy(mem.store)
        s.check_upkeep()
        s.worker.wait()
        qtbot.waitUntil(lambda: not s.worker.busy, timeout=5000)
        assert seen == [False]
    finally:
        s.stop()
        delete(s)
