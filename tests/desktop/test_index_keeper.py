"""The tray app keeps each bot's recall index current: a builder process after files change, none when current."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from botmemory.core import Memory, recall_index_current

from .conftest import BOT, OTHER, delete, idle


def topics(mem: Memory, bot: str, n: int = 3) -> None:
    folder = mem.home.workspace(bot) / "memory"
    for i in range(n):
        (folder / f"trip-{i}.md").write_text(f"# Trip {i}\n\nThe ferry to Zanzibar leaves at 07:4{i}.\n",
                                              encoding="utf-8")
    time.sleep(0.1)     # older than a timestamp tick: an index built now is not "racy" (it is current at once)


@pytest.fixture
def keeper(qtbot, session):
    from botmemory.desktop.index_keeper import IndexKeeper

    k = IndexKeeper(session.mem, session.worker, delay_ms=10)
    yield k
    k.stop()
    delete(k)


def test_a_stale_index_is_built_by_a_process_and_a_current_one_is_left_alone(qtbot, session, keeper) -> None:
    topics(session.mem, BOT)
    home = session.mem.home
    assert not recall_index_current(home, BOT)
    assert recall_index_current(home, OTHER)       # no topics: nothing to index
    with qtbot.waitSignal(keeper.built, timeout=60_000) as got:
        keeper.touch([BOT, OTHER])
    assert got.args == [BOT]
    qtbot.waitUntil(lambda: keeper.idle, timeout=10_000)
    assert recall_index_current(home, BOT)
    assert keeper._proc is None

    built: list[str] = []
    keeper.built.connect(built.append)
    keeper.touch([BOT, OTHER])                     # nothing changed: checked, nothing built
    qtbot.waitUntil(lambda: keeper.idle, timeout=10_000)
    idle(qtbot, session)
    assert built == []

    (home.workspace(BOT) / "memory" / "trip-1.md").write_text("# Trip 1\n\nThe ferry is late.\n", encoding="utf-8")
    time.sleep(0.1)
    assert not recall_index_current(home, BOT)
    with qtbot.waitSignal(keeper.built, timeout=60_000):
        keeper.touch([BOT])
    assert recall_index_current(home, BOT)


def test_a_frozen_bundle_builds_on_the_worker(qtbot, session, keeper, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    topics(session.mem, OTHER)
    with qtbot.waitSignal(keeper.built, timeout=30_000) as got:
        keeper.touch([OTHER])
    assert got.args == [OTHER]
    assert keeper._proc is None                    # no process was started
    assert recall_index_current(session.mem.home, OTHER)


def test_a_builder_that_fails_is_logged_and_the_next_bot_still_built(qtbot, session, keeper, caplog,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from botmemory.desktop import index_keeper

    topics(session.mem, BOT)
    topics(session.mem, OTHER)
    real = index_keeper.recall_index_builder

    def builder(home, bot):
        return [str(Path(sys.executable).parent / "no-such-program")] if bot == OTHER else real(home, bot)

    monkeypatch.setattr(index_keeper, "recall_index_builder", builder)
    with qtbot.waitSignal(keeper.built, timeout=60_000) as got:
        keeper.touch([BOT, OTHER])
    assert sorted([OTHER, BOT])[0] == OTHER       # the failing one came first
    assert got.args == [BOT]
    assert "the recall index builder of ledger did not start" in caplog.text
    assert not recall_index_current(session.mem.home, OTHER)


def test_stop_ends_a_running_build_and_later_touches_do_nothing(qtbot, session, keeper,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from botmemory.desktop import index_keeper

    topics(session.mem, BOT)
    monkeypatch.setattr(index_keeper, "recall_index_builder",
                        lambda home, bot: [sys.executable, "-c", "import time; time.sleep(60)"])
    keeper.touch([BOT])
    qtbot.waitUntil(lambda: keeper._proc is not None, timeout=10_000)
    proc = keeper._proc
    keeper.stop()
    assert proc.state() == proc.ProcessState.NotRunning
    keeper.touch([BOT])
    assert keeper.idle


def test_the_session_checks_every_bot_at_start_and_changed_bots_later(qtbot, mem: Memory) -> None:
    from botmemory.core.ops import save
    from botmemory.desktop.session import PANEL, Session

    s = Session(mem, live=False, upkeep=True, today_fixed=True)
    touched: list[set[str]] = []
    s.index_keeper.touch = lambda bots: touched.append(set(bots))   # type: ignore[method-assign]
    try:
        s.start()
        qtbot.waitUntil(lambda: bool(touched), timeout=10_000)
        assert touched[0] == {BOT, OTHER}
        touched.clear()
        errors: list[BaseException] = []
        s.run_op(lambda m: save(m, BOT, "memory/plans.md", "# Plans\n\nLisbon in May.\n", PANEL), None, errors.append)
        qtbot.waitUntil(lambda: {BOT} in touched or bool(errors), timeout=10_000)
        assert errors == []
    finally:
        s.stop()
        delete(s)
