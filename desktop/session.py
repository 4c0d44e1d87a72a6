"""One open home as the desktop sees it: the core's Memory, the worker, and what changes.

The session is the hub the tray and the panel listen to. It never reads or
writes a file on the UI thread: every call here submits work to the
:class:`~botmemory.desktop.worker.Worker` and answers by callback or signal.

**Operations** (Anki's ``CollectionOp``): a UI action is one call,
``session.run_op(lambda mem: ops.save(mem, …), on_done, on_error)``. The
operation runs on the writer thread; the journal rows it recorded come back
with its result and go straight to the views (:attr:`rows_added`), then
*on_done* gets the result. The gauges of the bots it changed are read again —
those bots only.

**Rows this process records** any other way — the core's live watcher noting an
edit made in another editor, the routes, the nightly tidy-up — reach the views
the same way, from the journal's row listener (called on the writing thread, it
only posts a queued signal; the watcher's thread never touches a widget).

**The journal is read only for other processes** (a bot's ``botmemory`` call,
another app): the session watches the journal folder (inotify through
``QFileSystemWatcher``: no polling, no wake-ups while idle), and for the bot
whose journal file changed reads the rows after its mark — nothing at all when
the file is as the last look left it — and drops the ones it already showed.
The bot list is read again only when the home's workspaces or tracked folders
change.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QFileSystemWatcher, QObject, Qt, QTimer, Signal, Slot

from botmemory.core.ops import (
    MEMORY_FILE,
    ONLY_FIRST_LINES,
    Actor,
    Catchup,
    FolderGauge,
    JournalMark,
    Level,
    Memory,
    Row,
    bot_names,
    catch_up,
    counted,
    folders_present,
    gauge,
    local_today,
)

from . import corelink
from .corelink import ABOUT_ME, JournalQuery
from .index_keeper import IndexKeeper
from .wording import shown_name
from .worker import Worker

logger = logging.getLogger(__name__)

T = TypeVar("T")

PANEL = Actor.person("panel")
UNDO = Actor.person("undo")
COALESCE_MS = 60
"""Journal events within this many ms are read as one batch (a write touches the archive and MEMORY.md)."""
UPKEEP_CHECK_MS = 10 * 60 * 1000
"""How often the nightly tidy-up's schedule function is asked whether a run is due."""
CAPTURE_CHECK_MS = 30 * 1000
"""How often the pending turns are asked whether a chat is due for capture (quiet two minutes, or six turns)."""
RECENT_ROWS = 10
SHOWN_IDS = 5000
"""How many delivered row ids are remembered, so a row read back from the journal is never shown twice."""


@dataclass(frozen=True)
class Notice:
    """Something worth a notification: what happened, and the row Undo would undo."""

    kind: str           # "archived" | "outside" | "red" | "gone"
    bot: str
    title: str
    text: str
    row_id: str | None = None
    file: str | None = None


@dataclass(frozen=True)
class HomeState:
    """What one look at the home read (on the worker): the bots, their names, which folders are there, gauges,
    and where each journal ends."""

    bots: list[str]
    names: dict[str, str]
    present: dict[str, bool]
    gauges: dict[str, FolderGauge]
    caught: dict[str, Catchup]
    paths: list[str]


def read_gauges(mem: Memory, bots: Iterable[str]) -> dict[str, FolderGauge]:
    """Runs on the worker: the gauge of each bot by its kind's budget (a folder that is gone has none)."""
    out = {}
    for bot in bots:
        try:
            out[bot] = gauge(mem, bot, secrets=False)
        except Exception as e:  # noqa: BLE001 - an unreadable MEMORY.md or a folder gone must not stop the rest
            logger.info("gauge of %s unavailable: %s", bot, e)
    return out


def read_home(mem: Memory, marks: dict[str, JournalMark], known: list[str] | None) -> HomeState:
    """Runs on the worker: the bots, their names and presence; for bots new to the app (*known* None: all) their
    gauge and where their journal ends (no row of theirs is new)."""
    bots = mem.home.bots()
    fresh = set(bots) - set(known or [])
    caught = {b: catch_up(mem, b, marks.get(b), recent=RECENT_ROWS) for b in bots if b in fresh}
    if ABOUT_ME not in marks:   # About me's journal is followed like a bot's: where it ends, at the first look
        caught[ABOUT_ME] = catch_up(mem, ABOUT_ME, None, recent=RECENT_ROWS)
    return HomeState(bots, bot_names(mem, bots), folders_present(mem, bots), read_gauges(mem, fresh), caught,
                     watched_paths(mem))


@dataclass(frozen=True)
class JournalsRead:
    """What one look at the journals read (on the worker)."""

    caught: dict[str, Catchup]
    gauges: dict[str, FolderGauge]
    paths: list[str]


def read_journals(mem: Memory, marks: dict[str, JournalMark], shown: frozenset[str]) -> JournalsRead:
    """Runs on the worker: each bot's rows after its mark (nothing is read from a journal file that has not
    changed), and the gauges of the bots that gained rows the app has not shown."""
    caught = {b: catch_up(mem, b, m, recent=RECENT_ROWS) for b, m in marks.items()}
    changed = {b for b, c in caught.items() if b != ABOUT_ME and any(r.id not in shown for r in c.rows)}
    return JournalsRead(caught, read_gauges(mem, changed), watched_paths(mem))


class Session(QObject):
    rows_added = Signal(object)
    """list of journal rows recorded since the last batch, newest first, across bots."""
    files_changed = Signal(str, object)
    """(bot, set of relative paths) that changed on disk, from any source."""
    gauges_changed = Signal(object)
    """dict bot -> FolderGauge for every bot."""
    bots_changed = Signal(object)
    presence_changed = Signal(str, bool)
    """(bot, present): a tracked folder went away (deleted, moved) or came back."""
    notice = Signal(object)
    """A :class:`Notice` for the notifier."""
    recent_changed = Signal(object)
    """The newest rows across bots (for the tray's Recent changes)."""
    upkeep_ran = Signal(str, object)
    """(bot, report dict) after a tidy-up, nightly or asked for."""
    error = Signal(str)

    _rows_here = Signal(object)
    _watcher_event = Signal()

    def __init__(self, mem: Memory, worker: Worker | None = None, parent: QObject | None = None, *,
                 today_fixed: bool = False, live: bool = True, upkeep: bool = True) -> None:
        super().__init__(parent)
        self.mem = mem
        self.worker = worker or Worker(self)
        self.worker.failed.connect(lambda text: self.error.emit(self.named(text)))
        self.today_fixed = today_fixed
        self.bots: list[str] = []
        self.names: dict[str, str] = {}
        self.present: dict[str, bool] = {}
        self.gauges: dict[str, FolderGauge] = {}
        self.recent: list[Row] = []
        self._marks: dict[str, JournalMark] = {}
        self._shown: OrderedDict[str, None] = OrderedDict()
        self._primed = False
        self._live = live
        self._upkeep = upkeep
        self._watcher: Any = None
        self._watch_lock = threading.Lock()
        self._fs = QFileSystemWatcher(self)
        self._fs.directoryChanged.connect(self._dir_touched)
        self._fs.fileChanged.connect(self._file_touched)
        self._coalesce = QTimer(self)
        self._coalesce.setSingleShot(True)
        self._coalesce.setInterval(COALESCE_MS)
        self._coalesce.timeout.connect(self._look)
        self._bots_dirty = False
        self._journals_dirty: set[str] = set()
        self._reading_home = False
        self._reading_journals = False
        self._gauge_wanted: set[str] = set()
        self._gauging = False
        self._here: list[Row] = []
        self._upkeep_timer = QTimer(self)
        self._upkeep_timer.setInterval(UPKEEP_CHECK_MS)
        self._upkeep_timer.setTimerType(Qt.TimerType.VeryCoarseTimer)
        self._upkeep_timer.timeout.connect(self.check_upkeep)
        self._capture_timer = QTimer(self)
        self._capture_timer.setInterval(CAPTURE_CHECK_MS)
        self._capture_timer.timeout.connect(self.check_capture)
        self._rows_here.connect(self._row_here, Qt.ConnectionType.QueuedConnection)
        self._watcher_event.connect(self.refresh_bots, Qt.ConnectionType.QueuedConnection)
        self.index_keeper = IndexKeeper(mem, self.worker, self)
        """Keeps each bot's recall index current (with the other background work: only with *upkeep*)."""
        self.row_listener = self._on_row
        mem.row_listeners.append(self.row_listener)
        self._started = False

    # ----- life

    def start(self) -> None:
        """Read the bots and gauges, mark where each journal ends, start the watcher and the upkeep check."""
        if self._started:
            return
        self._started = True
        self.refresh_bots()
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
            self._watcher = corelink.start_watcher(self.mem, None, self._from_watcher_thread)
            return self._watcher is not None

    def rescan(self) -> None:
        """Look at every folder again soon (a folder was tracked or untracked): the watcher watches it too."""
        watcher = self._watcher
        if watcher is not None:
            watcher.rescan()
        self.refresh_bots()

    def _watcher_started(self, ok: bool) -> None:
        if ok:
            logger.info("watching %s for changes made outside the app", self.mem.home.workspaces)

    def _from_watcher_thread(self, *_args: Any) -> None:
        """Called on the watchdog thread when a folder went away or came back: only post a queued signal."""
        self._watcher_event.emit()

    def name(self, bot: str) -> str:
        """*bot* as people name it (a Claude Code project's path, ``~`` for the home folder; never an internal
        id like ``claude-tmp-b-home-work-shop-app``)."""
        if bot == ABOUT_ME:
            return "About me"
        return shown_name(self.names.get(bot) or bot)

    def named(self, text: str) -> str:
        """*text* (an error, a notice) with every tracked folder's id replaced by its name."""
        for bot in sorted(self.names, key=len, reverse=True):
            if bot in text and self.names[bot] and self.names[bot] != bot:
                text = text.replace(bot, self.name(bot))
        return text

    # ----- operations

    def run_op(self, fn: Callable[[Memory], T], on_done: Callable[[T], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None) -> None:
        """Run one operation of the core on the writer thread (one at a time, in order): *fn* gets the opened
        home. The rows it recorded go straight to the views, then *on_done* gets its result; an error goes to
        *on_error* (without one, to :attr:`error`, which the panel shows)."""
        mem = self.mem

        def run() -> tuple[T, list[Row]]:
            with mem.capture_rows() as rows:
                result = fn(mem)
            return result, list(rows)

        def done(out: tuple[T, list[Row]]) -> None:
            result, rows = out
            self.deliver(rows)
            if on_done is not None:
                on_done(result)

        self.worker.write(run, done, on_error)

    # ----- rows: straight to the views

    def _on_row(self, row: Row) -> None:
        """A row this process recorded: runs on whatever thread wrote it; only posts a queued signal."""
        self._rows_here.emit(row)

    @Slot(object)
    def _row_here(self, row: Row) -> None:
        if not self._here:
            QTimer.singleShot(0, self._deliver_here)    # the rows of one write arrive together
        self._here.append(row)

    def _deliver_here(self) -> None:
        rows, self._here = self._here, []
        self.deliver(rows)

    def deliver(self, rows: Iterable[Row], gauges: dict[str, FolderGauge] | None = None) -> None:
        """Rows to show now (those already shown are dropped): every view gets them, the tray its recent list,
        and the gauges of their bots are read again (*gauges*: already read)."""
        fresh = [r for r in rows if r.id not in self._shown]
        if not fresh:
            return
        fresh = sorted({r.id: r for r in fresh}.values(), key=lambda r: r.id, reverse=True)
        for r in fresh:
            self._shown[r.id] = None
        while len(self._shown) > SHOWN_IDS:
            self._shown.popitem(last=False)
        by_bot: dict[str, set[str]] = {}
        for r in fresh:
            if r.bot != ABOUT_ME:   # About me's rows reach the journal view; no bot's files changed
                by_bot.setdefault(r.bot, set()).add(r.file)
        self.rows_added.emit(fresh)
        for bot, files in by_bot.items():
            self.files_changed.emit(bot, files)
        recent = sorted({r.id: r for r in [*fresh, *self.recent]}.values(), key=lambda r: r.id, reverse=True)
        if [r.id for r in recent[:RECENT_ROWS]] != [r.id for r in self.recent]:
            self.recent = recent[:RECENT_ROWS]
            self.recent_changed.emit(list(self.recent))
        if self._upkeep:
            self.index_keeper.touch(by_bot)
        self._row_notices(fresh)
        if gauges is not None:
            self._apply_gauges(gauges)
        self.refresh_gauges(set(by_bot) - set(gauges or {}))

    # ----- gauges: only the bots that changed

    def refresh_gauges(self, bots: Iterable[str]) -> None:
        """Read these bots' gauges again (on the worker, coalesced)."""
        self._gauge_wanted.update(b for b in bots if b in self.bots)
        if self._gauge_wanted and not self._gauging:
            self._gauging = True
            wanted, self._gauge_wanted = set(self._gauge_wanted), set()
            mem = self.mem
            self.worker.read(lambda: read_gauges(mem, wanted), self._gauges_read, self._gauges_failed)

    def _gauges_read(self, gauges: dict[str, FolderGauge]) -> None:
        self._gauging = False
        self._apply_gauges(gauges)
        if self._gauge_wanted:
            self.refresh_gauges(())

    def _gauges_failed(self, e: BaseException) -> None:
        self._gauging = False
        logger.warning("reading gauges failed: %s", e)

    def _apply_gauges(self, gauges: dict[str, FolderGauge]) -> None:
        if not gauges:
            return
        old = dict(self.gauges)
        self.gauges.update({b: g for b, g in gauges.items() if b in self.bots})
        self.gauges_changed.emit(dict(self.gauges))
        if self._primed:
            self._red_notices(gauges, old)

    # ----- the home: bots, names, folders there or gone

    @Slot()
    def refresh_bots(self) -> None:
        """Read the bot list, names and which folders are there (on the worker); bots new to the app get their
        gauge and a journal mark, and every journal is looked at once for what other processes wrote."""
        if self._reading_home:
            self._bots_dirty = True
            return
        self._reading_home = True
        mem, marks, known = self.mem, dict(self._marks), (list(self.bots) if self._primed else None)
        self.worker.read(lambda: read_home(mem, marks, known), self._home_read, self._home_failed)

    def poll(self) -> None:
        """Look at the home and every journal again now (kept for callers that want everything re-read)."""
        self.refresh_bots()

    def _home_failed(self, e: BaseException) -> None:
        self._reading_home = False
        logger.warning("reading the home failed: %s", e)

    def _home_read(self, state: HomeState) -> None:
        self._reading_home = False
        primed = self._primed
        self._primed = True
        for bot, c in state.caught.items():
            self._marks[bot] = c.mark
            for r in c.rows:
                self._shown.setdefault(r.id, None)
        for gone in set(self._marks) - set(state.bots) - {ABOUT_ME}:
            self._marks.pop(gone, None)
            self.gauges.pop(gone, None)
        new_bots = set(state.bots) - set(self.bots)
        self.names = dict(state.names)
        was_present = dict(self.present)
        self.present = dict(state.present)
        if state.bots != self.bots or not primed:   # the first read says so even for a home with no bots
            if self._upkeep:    # a bot new to the app (or every bot, at start): its recall index checked
                self.index_keeper.touch(new_bots if primed else set(state.bots))
            self.bots = list(state.bots)
            self.bots_changed.emit(list(self.bots))
        recent = [r for c in state.caught.values() for r in c.newest]
        if recent:
            merged = sorted({r.id: r for r in [*recent, *self.recent]}.values(), key=lambda r: r.id, reverse=True)
            if [r.id for r in merged[:RECENT_ROWS]] != [r.id for r in self.recent]:
                self.recent = merged[:RECENT_ROWS]
                self.recent_changed.emit(list(self.recent))
        changed = [b for b in state.bots if primed and was_present.get(b, True) != state.present.get(b, True)]
        for bot in changed:
            here = state.present.get(bot, True)
            if not here:
                self.gauges.pop(bot, None)
            self.presence_changed.emit(bot, here)
            if not here:
                self.notice.emit(Notice("gone", bot, f"{self.name(bot)}: the folder is gone",
                                        "It was deleted or moved. Its journal is kept; when the folder comes "
                                        "back, botmemory picks it up again."))
        if state.gauges or not primed or changed:
            gauges = dict(state.gauges)
            self.gauges = {b: g for b, g in self.gauges.items() if b in self.bots and self.present.get(b, True)}
            self.gauges.update(gauges)
            self.gauges_changed.emit(dict(self.gauges))
        self.refresh_gauges(b for b in changed if state.present.get(b, True))
        self._watch(state.paths)
        if self._bots_dirty:
            self._bots_dirty = False
            self.refresh_bots()
        elif primed:
            self._journals_dirty.update([*self.bots, ABOUT_ME])   # About me's journal is followed like a bot's
            self._look_journals()

    # ----- other processes: the journal folder watched

    def _watch(self, paths: list[str]) -> None:
        current = set(self._fs.files()) | set(self._fs.directories())
        new = [p for p in paths if p not in current]
        if new:
            self._fs.addPaths(new)

    @Slot(str)
    def _dir_touched(self, path: str) -> None:
        home = self.mem.home
        if Path(path) == home.journal_dir:
            self._journals_dirty.update(self.bots)       # a bot's first row, a segment closed
        else:                                            # workspaces/, botmemory/ (tracked.json), the home
            self._bots_dirty = True
        self._coalesce.start()

    @Slot(str)
    def _file_touched(self, path: str) -> None:
        p = Path(path)
        if p.parent == self.mem.home.journal_dir and p.name.endswith(".ndjson"):
            self._journals_dirty.add(p.name[: -len(".ndjson")])
        else:
            self._bots_dirty = True
        self._coalesce.start()

    @Slot()
    def _look(self) -> None:
        if self._bots_dirty:
            self._bots_dirty = False
            self.refresh_bots()
            return
        self._look_journals()

    def _look_journals(self) -> None:
        if self._reading_journals or not self._journals_dirty:
            return
        bots = {b for b in self._journals_dirty if b in self.bots or b == ABOUT_ME}
        self._journals_dirty = set()
        if not bots:
            return
        self._reading_journals = True
        mem = self.mem
        marks = {b: self._marks.get(b, JournalMark(b)) for b in bots}
        shown = frozenset(self._shown)
        self.worker.read(lambda: read_journals(mem, marks, shown), self._journals_read, self._journals_failed)

    def _journals_failed(self, e: BaseException) -> None:
        self._reading_journals = False
        logger.warning("reading the journal failed: %s", e)

    def _journals_read(self, result: JournalsRead) -> None:
        self._reading_journals = False
        rows: list[Row] = []
        for bot, c in result.caught.items():
            if bot in self.bots or bot == ABOUT_ME:   # About me's own journal too
                self._marks[bot] = c.mark
                rows += c.rows
        self.deliver(rows, result.gauges)
        self._watch(result.paths)
        if self._journals_dirty:
            self._look_journals()

    # ----- notices

    def _row_notices(self, fresh: list[Row]) -> None:
        for r in fresh:
            if r.bot == ABOUT_ME:
                continue
            name = self.name(r.bot)
            if r.how == "outside":
                self.notice.emit(Notice("outside", r.bot, f"{name}: {r.file} changed outside the app",
                                        "The change is in the journal and can be undone.", r.id, r.file))
            elif r.how not in ("tidy-up", "panel"):   # the tidy-up has its report, Make room its banner
                moved = r.archived()
                if moved:
                    self.notice.emit(Notice(
                        "archived", r.bot,
                        f"{name}: {counted(moved, 'older entry', 'older entries')} moved to the archive",
                        "MEMORY.md was kept within the budget; the entries are in memory/archive.md.",
                        r.id, r.file))

    def _red_notices(self, gauges: dict[str, FolderGauge], old: dict[str, FolderGauge]) -> None:
        for bot, g in gauges.items():
            before = old.get(bot)
            if g.level is Level.RED and (before is None or before.level is not Level.RED):
                self.notice.emit(Notice("red", bot, f"{self.name(bot)}: MEMORY.md is over the budget",
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

    # ----- the nightly tidy-up

    @Slot()
    def check_upkeep(self) -> None:
        now = datetime.now().astimezone()
        follow_the_date = not self.today_fixed

        def run(mem: Memory) -> dict[str, Any]:
            # the date moves on the writer thread, between writes — never on the UI thread under a running task
            if follow_the_date:
                mem.store.today = local_today()
            return corelink.run_due(mem, now)

        def ran(reports: dict[str, Any]) -> None:
            for bot, report in reports.items():
                self.upkeep_ran.emit(bot, report)

        self.run_op(run, ran, lambda e: logger.warning("the nightly tidy-up check failed: %s", e))

    @Slot()
    def check_capture(self) -> None:
        """Noticing facts: capture the chats quiet for memory.captureQuietMs, or with six turns waiting."""

        def ran(reports: dict[str, Any]) -> None:
            for bot, report in reports.items():
                self.upkeep_ran.emit(bot, {"capture": report})

        self.run_op(corelink.capture_due, ran, lambda e: logger.warning("the capture check failed: %s", e))


def watched_paths(mem: Memory) -> list[str]:
    """Runs on the worker: what the session watches: the journal folder and its bots' files (other processes'
    rows), the workspaces folder and botmemory's own (a bot created, a folder tracked); the home while none of
    them exists."""
    home = mem.home
    out = [str(d) for d in (home.journal_dir, home.workspaces, home.state_dir) if d.is_dir()]
    if home.journal_dir.is_dir():
        out += [str(p) for p in home.journal_dir.iterdir() if p.is_file() and p.name.endswith(".ndjson")]
    if home.state_dir.is_dir() and (home.state_dir / "tracked.json").is_file():
        out.append(str(home.state_dir / "tracked.json"))
    if not out and home.root.is_dir():
        out.append(str(home.root))
    return out
