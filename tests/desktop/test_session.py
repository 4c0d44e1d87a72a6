"""The session: operations hand their rows straight to the views; the journal is read only for other processes;
a tracked folder that goes away is said at once and picked up again when it comes back."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from botmemory.core.ops import Actor, Memory, save, track
from botmemory.desktop import session as session_mod
from botmemory.desktop.session import PANEL, Session

from .conftest import BOT, OTHER, delete, idle


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``botmemory --root ROOT ARGS`` in a process of its own (another process than the app)."""
    return subprocess.run([sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(root), *args],
                          capture_output=True, text=True, timeout=60, check=True)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[object]]:
    """Every journal catch-up and every gauge the session asks for, by bot."""
    seen: dict[str, list[object]] = {"tails": [], "gauges": []}
    real_catch_up, real_gauge = session_mod.catch_up, session_mod.gauge

    def catch_up(mem: Memory, bot: str, mark: object = None, **kw: object) -> object:
        c = real_catch_up(mem, bot, mark, **kw)  # type: ignore[arg-type]
        if c.read:
            seen["tails"].append(bot)
        return c

    def gauge(mem: Memory, bot: str, **kw: object) -> object:
        seen["gauges"].append(bot)
        return real_gauge(mem, bot, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(session_mod, "catch_up", catch_up)
    monkeypatch.setattr(session_mod, "gauge", gauge)
    return seen


def started(qtbot, session: Session) -> Session:
    session.start()
    qtbot.waitUntil(lambda: session._primed and not session.worker.busy, timeout=10_000)
    return session


def test_an_operation_hands_its_rows_to_the_views_before_its_result(qtbot, session, counted):
    started(qtbot, session)
    counted["tails"].clear()
    counted["gauges"].clear()
    order: list[object] = []
    session.rows_added.connect(lambda rows: order.append(("rows", [r.id for r in rows])))
    session.run_op(lambda mem: save(mem, BOT, "memory/plans.md", "# Plans\n\nLisbon in May.\n", PANEL),
                   lambda r: order.append(("done", [c.id for c in r.changes])))
    qtbot.waitUntil(lambda: len(order) == 2, timeout=10_000)
    (kind, shown), (kind2, done) = order
    assert (kind, kind2) == ("rows", "done") and shown == done and len(done) == 1
    idle(qtbot, session)
    assert counted["gauges"] == [BOT]                 # the bot it changed, no other
    assert set(counted["tails"]) <= {BOT}              # at most its own journal file looked at, once


def test_an_error_goes_to_on_error(qtbot, session):
    errors: list[BaseException] = []
    session.run_op(lambda mem: save(mem, "nobody", "MEMORY.md", "x\n", PANEL, create=False), None, errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=10_000)
    assert "unknown bot" in str(errors[0])


def test_a_row_another_process_writes_is_read_from_the_journal_once(qtbot, session, mem, counted):
    started(qtbot, session)
    counted["tails"].clear()
    counted["gauges"].clear()
    rows: list[object] = []
    session.rows_added.connect(rows.extend)
    cli(mem.home.root, "remember", OTHER, "The standup moved to 9:30")
    qtbot.waitUntil(lambda: bool(rows), timeout=10_000)
    idle(qtbot, session)
    assert [(r.bot, r.file) for r in rows] == [(OTHER, "MEMORY.md")]
    assert counted["tails"] == [OTHER] and counted["gauges"] == [OTHER]
    assert "9:30" in session.recent[0].diff


def test_a_write_of_this_process_outside_an_operation_is_shown_once(qtbot, session, mem):
    """A row the app records without run_op (the watcher, the routes) comes through the journal's row listener,
    and the journal file's change does not show it a second time."""
    started(qtbot, session)
    rows: list[object] = []
    session.rows_added.connect(rows.extend)
    mem.store.write(BOT, "memory/notes.md", "# Notes\n", Actor.person("cli"))
    qtbot.waitUntil(lambda: bool(rows), timeout=10_000)
    qtbot.wait(300)          # the journal file's change arrives too, and is read: nothing new in it
    idle(qtbot, session)
    assert [r.file for r in rows] == ["memory/notes.md"]


def test_a_bot_created_by_another_process_joins_the_list(qtbot, session, mem):
    started(qtbot, session)
    with qtbot.waitSignal(session.bots_changed, timeout=10_000):
        cli(mem.home.root, "init", "quill")
    assert "quill" in session.bots and "quill" in session.gauges


def claude_project(user: Path, name: str, lines: int) -> Path:
    d = user / ".claude" / "projects" / name / "memory"
    d.mkdir(parents=True)
    (d / "MEMORY.md").write_text("".join(f"- [note {i}](note_{i}.md)\n" for i in range(lines)))
    return d


def test_a_tracked_folder_deleted_while_shown_is_gone_at_once_and_back_when_restored(
        qtbot, mem, no_real_agent_folders, tmp_path):
    folder = claude_project(no_real_agent_folders, "-tmp-b-home-work-shop-app", 10)
    bot = track(mem, "claude-tmp-b-home-work-shop-app").id
    backup = tmp_path / "backup"
    shutil.copytree(folder, backup)
    s = Session(mem, live=True, upkeep=False, today_fixed=True)
    try:
        started(qtbot, s)
        qtbot.waitUntil(lambda: s._watcher is not None, timeout=10_000)
        assert bot in s.gauges and s.present[bot]
        with qtbot.waitSignal(s.presence_changed, timeout=5000) as gone:
            shutil.rmtree(folder)
        assert gone.args == [bot, False]
        qtbot.waitUntil(lambda: bot not in s.gauges, timeout=5000)
        with qtbot.waitSignal(s.presence_changed, timeout=5000) as back:
            shutil.copytree(backup, folder)                  # restored from the backup
        assert back.args == [bot, True]
        qtbot.waitUntil(lambda: bot in s.gauges, timeout=5000)
        rows: list[object] = []
        s.rows_added.connect(rows.extend)
        with (folder / "MEMORY.md").open("a") as f:          # an edit after the return is journaled at once
            f.write("- [late](late.md)\n")
        qtbot.waitUntil(lambda: any(r.bot == bot for r in rows), timeout=5000)
    finally:
        s.stop()
        delete(s)


def test_the_gone_notice_names_the_project_not_its_id(qtbot, mem, no_real_agent_folders):
    folder = claude_project(no_real_agent_folders, "-tmp-b-home-work-shop-app", 3)
    bot = track(mem, "claude-tmp-b-home-work-shop-app").id
    s = Session(mem, live=False, upkeep=False, today_fixed=True)
    try:
        started(qtbot, s)
        notices: list[object] = []
        s.notice.connect(notices.append)
        shutil.rmtree(folder)
        with qtbot.waitSignal(s.presence_changed, timeout=5000):
            s.refresh_bots()
        (n,) = notices
        assert n.kind == "gone" and bot not in n.title and "shop-app" in n.title
    finally:
        s.stop()
        delete(s)

