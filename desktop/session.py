"""One open home as the desktop sees it: the core's Memory, the worker, and what changes.

The session is the hub the tray and the panel listen to. It never reads or
writes a file on the UI thread: every call here submits work to the
:class:`~botmemory.desktop.worker.Worker` and answers by callback or signal.

How changes reach the UI: every change, whoever makes it — this app's editor,
the core's watcher recording an outside edit, a bot's CLI call in another
process — ends as a row in ``<home>/memory-journal/``. The session watches that
folder (inotify through ``QFileSystemWatcher``: no polling, no wake-ups while
idle), reads the rows newer than the newest it has seen on the worker, and
emits :attr:`rows_added`. The core's watcher runs in its own thread and only
posts a queued signal; it never touches a widget.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from botmemory.core.ops import (MEMORY_FILE, ONLY_FIRST_LINES, Actor, Change, FolderGauge, Level, Memory,
                                check_bot_id, counted, init, local_today, move_overflow, rm, save, settings,
                                undo_overflow)
from PySide6.QtCore import QFileSystemWatcher, QObject, Qt, QTimer, Signal, Slot

from . import corelink
from .corelink import JournalQuery
from .index_keeper import IndexKeeper
from .worker import Worker

logger = logging.getLogger(__name__)

PANEL = Actor.person("panel")
UNDO = Actor.person("undo")
COALESCE_MS = 60
"""Journal events within this many ms are read as one batch (a write touches the archive and MEMORY.md)."""
UPKEEP_CHECK_MS = 10 * 60 * 1000
"""How often the nightly tidy-up's schedule function is asked whether a run is due."""
CAPTURE_CHECK_MS = 30 * 1000
"""How often the pending turns are asked whether a chat is due for capture (quiet two minutes, or six turns)."""
RECENT_ROWS = 10


@dataclass(frozen=True)
class Notice:
    """Something worth a notification: what happened, and the row Undo would undo."""

    kind: str           # "archived" | "outside" | "red"
    bot: str
    title: str
    text: str
    row_id: str | None = None
    file: str | None = None


class Session(QObject):
    rows_added = Signal(object)
    """list of journal rows recorded since the last batch, newest first, across bots."""
    files_changed = Signal(str, object)
    """(bot, set of relative paths) that changed on disk, from any source."""
    gauges_changed = Signal(object)
    """dict bot -> FolderGauge for every bot."""
    bots_changed = Signal(object)
    notice = Signal(object)
    """A :class:`Notice` for the notifier."""
    recent_changed = Signal(object)
    """The newest rows across bots (for the tray's Recent changes)."""
    upkeep_ran = Signal(str, object)
    """(bot, report dict) after a tidy-up, nightly or asked for."""
    error = Signal(str)

    _watcher_event = Signal()

    def __init__(self, mem: Memory, worker: Worker | None = None, parent: QObject | None = None, *,
                 today_fixed: bool = False, live: bool = True, upkeep: bool = True) -> None:
        super().__init__(parent)
        self.mem = mem
        self.worker = worker or Worker(self)
        self.worker.failed.connect(self.error)
        self.today_fixed = today_fixed
        self.bots: list[str] = []
        self.gauges: dict[str, FolderGauge] = {}
        self.recent: list[Any] = []
        self._newest: dict[str, str] = {}
        self._primed = False
        self._live = live
        self._upkeep = upkeep
        self._watcher: Any = None
        self._watch_lock = threading.Lock()
        self._fs = QFileSystemWatcher(self)
        self._fs.directoryChanged.connect(self._journal_touched)
        self._fs.fileChanged.connect(self._journal_touched)
        self._coalesce = QTimer(self)
        self._coalesce.setSingleShot(True)
        self._coalesce.setInterval(COALESCE_MS)
        self._coalesce.timeout.connect(self.poll)
        self._polling = False
        self._poll_again = False
        self._upkeep_timer = QTimer(self)
        self._upkeep_timer.setInterval(UPKEEP_CHECK_MS)
        self._upkeep_timer.setTimerType(Qt.TimerType.VeryCoarseTimer)
        self._upkeep_timer.timeout.connect(self.check_upkeep)
        self._capture_timer = QTimer(self)
        self._capture_timer.setInterval(CAPTURE_CHECK_MS)
        self._capture_timer.timeout.connect(self.check_capture)
        self._watcher_event.connect(self._journal_touched, Qt.ConnectionType.QueuedConnection)
        self.index_keeper = IndexKeeper(mem, self.worker, self)
        """Keeps each bot's recall index current (with the other background work: only with *upkeep*)."""
        self.row_listener = self._on_row
        mem.row_listeners.append(self.row_listener)
        self._started = False

    # ----- life

    def start(self) -> None:
        """Read the bots and gauges, prime the journal position, start the watcher and the upkeep check."""
        if self._started:
            return
        self._started = True
        self.poll()
        if self._live:
            self.worker.write(self._start_watcher, self._watcher_started,
                              lambda e: logger.warning("the live watcher did not start: %s", e))
        if self._upkeep:
            self._upkeep_timer.start()
            self._capture_timer.start()
            QTimer.singleShot(0, self.check_upkeep)

    def stop(self) -> None:
        """Stop the checks, let running work finish, stop the watcher. Safe to call twice."""
        with self._watch_lock:
            self._started = False
        self._upkeep_timer.stop()
        self._capture_timer.stop()
        self._coalesce.stop()
        self.index_keeper.stop()
        self.worker.shutdown()
        with self._watch_lock:
            watch, self._watcher = self._watcher, None
        if watch is not None:
            try:
                corelink.stop_watcher(watch)
            except Exception:
                logger.exception("stopping the watcher failed")
        try:
            self.mem.row_listeners.remove(self.row_listener)
        except ValueError:
            pass

    def _start_watcher(self) -> bool:
        """Runs on the worker: the core's watcher scans once, then watches in its own thread."""
        with self._watch_lock:
            if not self._started:
                return False
            self._watcher = corelink.start_watcher(self.mem, self._from_watcher_thread)
            return self._watcher is not None

    def rescan(self) -> None:
        """Look at every folder again soon (a folder was tracked or untracked): the watcher watches it too."""
        watcher = self._watcher
        if watcher is not None:
            watcher.rescan()
        self.poll()

    def _watcher_started(self, ok: bool) -> None:
        if ok:
            logger.info("watching %s for changes made outside the app", self.mem.home.workspaces)
            self._journal_touched()

    def _from_watcher_thread(self, *_args: Any) -> None:
        """Called on the watchdog thread: only post a queued signal."""
        self._watcher_event.emit()

    def _on_row(self, _row: Any) -> None:
        """A row this process recorded: runs on whatever thread wrote it; only posts a queued signal."""
        self._watcher_event.emit()

    # ----- the journal folder

    def _watch(self, paths: list[str]) -> None:
        current = set(self._fs.files()) | set(self._fs.directories())
        new = [p for p in paths if p not in current]
        if new:
            self._fs.addPaths(new)

    @Slot()
    def _journal_touched(self, *_args: Any) -> None:
        if not self._coalesce.isActive():
            self._coalesce.start()

    @Slot()
    def poll(self) -> None:
        """Read what is new in the journal (on the worker) and tell everyone."""
        if self._polling:
            self._poll_again = True
            return
        self._polling = True
        newest = dict(self._newest)
        mem = self.mem
        self.worker.read(lambda: read_state(mem, newest), self._on_state, self._on_poll_error)

    def _on_poll_error(self, e: BaseException) -> None:
        self._polling = False
        logger.warning("reading the journal failed: %s", e)
        self._finish_poll()

    def _on_state(self, state: dict[str, Any]) -> None:
        self._polling = False
        primed = self._primed
        self._primed = True
        self._newest.update(state["marks"])
        if state["bots"] != self.bots or not primed:   # the first read says so even for a home with no bots
            if self._upkeep:    # a bot new to the app (or every bot, at start): its recall index checked
                self.index_keeper.touch(set(state["bots"]) - (set(self.bots) if primed else set()))
            self.bots = state["bots"]
            self.bots_changed.emit(list(self.bots))
        old = self.gauges
        self.gauges = state["gauges"]
        self.gauges_changed.emit(dict(self.gauges))
        if [r.id for r in state["recent"]] != [r.id for r in self.recent]:
            self.recent = state["recent"]
            self.recent_changed.emit(list(self.recent))
        fresh = state["fresh"]
        if fresh:
            by_bot: dict[str, set[str]] = {}
            for r in fresh:
                if r.bot != corelink.ABOUT_ME:
                    by_bot.setdefault(r.bot, set()).add(r.file)
            self.rows_added.emit(fresh)
            for bot, files in by_bot.items():
                self.files_changed.emit(bot, files)
            if self._upkeep:
                self.index_keeper.touch(by_bot)
        if primed:
            self._notices(fresh, old)
        self._watch(state["paths"])
        self._finish_poll()

    def _finish_poll(self) -> None:
        if self._poll_again:
            self._poll_again = False
            self.poll()

    def _notices(self, fresh: list[Any], old: dict[str, FolderGauge]) -> None:
        for r in fresh:
            if r.bot == corelink.ABOUT_ME:
                continue
            if r.how == "outside":
                self.notice.emit(Notice("outside", r.bot, f"{r.bot}: {r.file} changed outside the app",
                                        "The change is in the journal and can be undone.", r.id, r.file))
            elif r.how not in ("tidy-up", "panel"):   # the tidy-up has its report, Make room its banner
                moved = r.archived()
                if moved:
                    self.notice.emit(Notice(
                        "archived", r.bot,
                        f"{r.bot}: {counted(moved, 'older entry', 'older entries')} moved to the archive",
                        "MEMORY.md was kept within the budget; the entries are in memory/archive.md.",
                        r.id, r.file))
        for bot, g in self.gauges.items():
            before = old.get(bot)
            if g.level is Level.RED and (before is None or before.level is not Level.RED):
                self.notice.emit(Notice("red", bot, f"{bot}: MEMORY.md is over the budget",
                                        f"{counted(g.unloaded_lines, 'line is', 'lines are')} not being loaded; "
                                        f"{ONLY_FIRST_LINES}.", None, MEMORY_FILE))

    # ----- reads

    def read_file(self, bot: str, rel: str, done: Callable[[Any], None],
                  error: Callable[[BaseException], None] | None = None) -> None:
        mem = self.mem
        self.worker.read(lambda: mem.store.read(bot, rel), done, error)

    def journal_cursor(self, query: JournalQuery) -> corelink.Cursor:
        """A cursor over the journal for the view (no I/O until its first page, on the worker)."""
        return corelink.Cursor(self.mem, query)

    def submit_read(self, fn: Callable[[], Any], done: Callable[[Any], None],
                    error: Callable[[BaseException], None]) -> None:
        self.worker.read(fn, done, error)

    # ----- writes (one at a time, on the writer thread)

    def save(self, bot: str, rel: str, text: str, expected_hash: str | None,
             done: Callable[[Any], None], error: Callable[[BaseException], None]) -> None:
        """Save with the hash the editor opened (None: the file must not exist yet)."""
        mem = self.mem

        def run() -> Change | None:
            r = save(mem, bot, rel, text, PANEL, expected_hash=expected_hash, checked=True, create=False)
            return r.changes[0] if r.changes else None

        self.worker.write(run, done, error)

    def delete(self, bot: str, rel: str, expected_hash: str | None,
               done: Callable[[Any], None], error: Callable[[BaseException], None]) -> None:
        mem = self.mem
        self.worker.write(lambda: rm(mem, bot, rel, PANEL, expected_hash=expected_hash), done, error)

    def undo(self, bot: str, row_id: str, done: Callable[[Any], None] | None = None,
             error: Callable[[BaseException], None] | None = None) -> None:
        mem = self.mem
        self.worker.write(lambda: corelink.undo(mem, bot, row_id), done, error)

    def undo_lines(self, bot: str, row_id: str, done: Callable[[Any], None], error: Callable[[BaseException], None],
                   *, force: bool = False, expected_hash: str | None = None) -> None:
        """Undo a row by its own lines (About me's too); *done* gets the core's ``UndoResult``, *error* an
        ``UndoConflict`` to show side by side (then *force* with the hash the person saw)."""
        mem = self.mem
        self.worker.write(lambda: corelink.undo_lines(mem, bot, row_id, force, expected_hash), done, error)

    def tidy(self, bot: str, done: Callable[[Any], None] | None = None,
             error: Callable[[BaseException], None] | None = None) -> None:
        mem = self.mem

        def finished(report: dict[str, Any]) -> None:
            self.upkeep_ran.emit(bot, report)
            if done is not None:
                done(report)

        self.worker.write(lambda: corelink.tidy_now(mem, bot), finished, error)

    def make_room(self, bot: str, expected_hash: str | None, done: Callable[[Any], None],
                  error: Callable[[BaseException], None]) -> None:
        """Move the overflow preview's entries to the archive now (the core's ``move_overflow``)."""
        mem = self.mem
        self.worker.write(lambda: move_overflow(mem, bot, PANEL, expected_hash=expected_hash),
                          done, error)

    def undo_room(self, bot: str, room: Any, done: Callable[[Any], None],
                  error: Callable[[BaseException], None]) -> None:
        """Undo a Make room as one change (both files back), while neither file changed since."""
        mem = self.mem
        self.worker.write(lambda: undo_overflow(mem, bot, room, UNDO), done, error)

    def create_bot(self, bot: str, done: Callable[[Any], None], error: Callable[[BaseException], None]) -> None:
        """Create a bot's workspace (``botmemory init``), then read the home again."""
        mem = self.mem

        def finished(created: Any) -> None:
            self.poll()
            done(created)

        self.worker.write(lambda: init(mem, check_bot_id(bot)).created, finished, error)

    def set_switch(self, bot: str, key: str, value: bool, done: Callable[[Any], None] | None = None,
                   error: Callable[[BaseException], None] | None = None) -> None:
        mem = self.mem
        self.worker.write(lambda: settings(mem, bot, key, value), done, error)

    # ----- the nightly tidy-up

    @Slot()
    def check_upkeep(self) -> None:
        mem = self.mem
        now = datetime.now().astimezone()
        follow_the_date = not self.today_fixed

        def run() -> dict[str, Any]:
            # the date moves on the writer thread, between writes — never on the UI thread under a running task
            if follow_the_date:
                mem.store.today = local_today()
            return corelink.run_due(mem, now)

        def ran(reports: dict[str, Any]) -> None:
            for bot, report in reports.items():
                self.upkeep_ran.emit(bot, report)

        self.worker.write(run, ran, lambda e: logger.warning("the nightly tidy-up check failed: %s", e))

    @Slot()
    def check_capture(self) -> None:
        """Noticing facts: capture the chats quiet for memory.captureQuietMs, or with six turns waiting."""
        mem = self.mem

        def ran(reports: dict[str, Any]) -> None:
            for bot, report in reports.items():
                self.upkeep_ran.emit(bot, {"capture": report})

        self.worker.write(lambda: corelink.capture_due(mem), ran,
                          lambda e: logger.warning("the capture check failed: %s", e))


def gauge_of(mem: Memory, bot: str) -> FolderGauge:
    from .agents_view import gauge_of as of

    return of(mem, bot)


def read_state(mem: Memory, newest: dict[str, str]) -> dict[str, Any]:
    """Runs on the worker: bots, gauges, rows since the last look, the newest rows, the folders to watch."""
    bots = mem.home.bots()
    gauges = {}
    for bot in bots:
        try:
            gauges[bot] = gauge_of(mem, bot)   # a tracked agent folder: its kind's budget
        except Exception as e:  # noqa: BLE001 - an unreadable MEMORY.md must not stop the rest
            logger.info("gauge of %s unavailable: %s", bot, e)
    fresh: list[Any] = []
    recent: list[Any] = []
    marks: dict[str, str] = {}
    for bot in bots:
        new, rows, marks[bot] = corelink.catch_up(mem, bot, newest.get(bot), RECENT_ROWS)
        recent.extend(rows)
        fresh.extend(new)
    new, _, marks[corelink.ABOUT_ME] = corelink.catch_up(mem, corelink.ABOUT_ME, newest.get(corelink.ABOUT_ME), 1)
    fresh.extend(new)   # About me's own journal: its rows reach the journal view (no bot's files changed)
    recent.sort(key=lambda r: r.id, reverse=True)
    fresh.sort(key=lambda r: r.id, reverse=True)
    return {"bots": bots, "gauges": gauges, "fresh": fresh, "recent": recent[:RECENT_ROWS], "marks": marks,
            "paths": journal_paths(mem)}


def journal_paths(mem: Memory) -> list[str]:
    """The journal folder and its files (runs on the worker); the home when there is no journal yet."""
    d = mem.home.journal_dir
    if not d.is_dir():
        return [str(mem.home.root)] if mem.home.root.is_dir() else []
    return [str(d)] + [str(p) for p in d.iterdir() if p.is_file()]
