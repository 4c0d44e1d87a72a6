"""When sync runs in ``watch`` and the tray: after changes, and for what others pushed.

:class:`Scheduler` is a thread of its own. It learns of changes from the journal folder (one watchdog watch
on ``<home>/memory-journal/``: every write of every process ends as a row there, so no folder is polled and
a thousand synced folders cost nothing while idle). A change to a synced folder's journal starts a round
once the folder has been quiet for :data:`QUIET_S` (at most :data:`CAP_S` after the first change), and only
when one of its rows would go out (the rows a round itself writes, ``how: sync``, start nothing).

What others pushed is found by asking the remote for its branch's commit (one ``git ls-remote``, no fetch)
every :data:`ACTIVE_EVERY_S` while this computer was used in the last :data:`ACTIVE_FOR_S` (or sync just
started), else every :data:`IDLE_EVERY_S`; a round runs when it moved. A round that cannot reach the remote
is tried again after 10 s, 20 s, 40 s … (at most the idle interval); it never blocks a write, and the status
says why once (the log too, once per reason).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..base.errors import BotMemoryError, Busy
from ..base.log import get_logger

logger = get_logger(__name__)

QUIET_S = 2.0
CAP_S = 8.0
ACTIVE_EVERY_S = 4.0
IDLE_EVERY_S = 180.0
ACTIVE_FOR_S = 600.0
RETRY_FIRST_S = 10.0


@dataclass(frozen=True)
class Status:
    """What the tray's status line says: the last sync, what came in, conflicts, or why it waits."""

    last_sync: float | None = None      # time.time() of the last round that reached the remote
    came_in: int = 0                    # rows the last rounds wrote from the remote (since the panel last looked)
    went_out: int = 0
    conflicts: int = 0
    pushed_out: int = 0
    error: str | None = None
    running: bool = False
    notes: tuple[str, ...] = ()

    def line(self, now: float | None = None) -> str:
        from ..base.wording import counted

        if self.error:
            return f"Sync waits: {self.error}"
        if self.running and self.last_sync is None:
            return "Syncing…"
        if self.last_sync is None:
            return "Not synced yet"
        parts = [f"Synced {time.strftime('%H:%M', time.localtime(self.last_sync))}"]
        if self.came_in:
            parts.append(f"{counted(self.came_in, 'change')} came in")
        if self.conflicts:
            parts.append(f"{counted(self.conflicts, 'conflict')} to resolve")
        if self.pushed_out:
            parts.append(f"the merge pushed {counted(self.pushed_out, 'line')} past what loads")
        parts += list(self.notes)
        return " · ".join(parts)


@dataclass
class _Wants:
    dirty: dict[str, float] = field(default_factory=dict)   # folder id -> when it first changed
    last_event: float = 0.0
    now: bool = False


class Scheduler:
    """Runs sync rounds in a thread: after changes (debounced) and when the remote moved.

    *run_round(ids)* runs one round (None: every folder) and returns ``(came_in, went_out, conflicts,
    pushed_out, notes)``; *remote_moved()* says whether the remote's branch is not where this computer last
    synced; *pending(ids)* says which of *ids* have rows that would go out; *synced_ids()* the folders synced.
    *on_status* is called from the thread with every new :class:`Status` (it must not block).
    """

    def __init__(self, journal_dir: Path, synced_ids: Callable[[], set[str]],
                 run_round: Callable[[set[str] | None], tuple[int, int, int, int, tuple[str, ...]]],
                 remote_moved: Callable[[], bool], pending: Callable[[Iterable[str]], set[str]],
                 on_status: Callable[[Status], None] | None = None, *, quiet: float = QUIET_S, cap: float = CAP_S,
                 active_every: float = ACTIVE_EVERY_S, idle_every: float = IDLE_EVERY_S,
                 active_for: float = ACTIVE_FOR_S, last_sync: float | None = None) -> None:
        self.journal_dir = journal_dir
        self.synced_ids = synced_ids
        self.run_round = run_round
        self.remote_moved = remote_moved
        self.pending = pending
        self.on_status = on_status
        self.quiet, self.cap = quiet, cap
        self.active_every, self.idle_every, self.active_for = active_every, idle_every, active_for
        self.status = Status(last_sync=last_sync)
        self._cond = threading.Condition()
        self._wants = _Wants(now=True)
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._observer: Any = None
        self._active_until = time.monotonic() + active_for
        self._next_check = time.monotonic()
        self._failures = 0
        self._said: str | None = None
        self.rounds = 0

    # ----- control

    def start(self) -> None:
        from watchdog.observers import Observer

        if self._thread is not None:
            raise RuntimeError("the sync scheduler is already running")
        self._stopping = False
        self.journal_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        observer: Any = Observer()
        observer.schedule(_JournalEvents(self), str(self.journal_dir), recursive=False)
        observer.daemon = True
        observer.start()
        self._observer = observer
        self._thread = threading.Thread(target=self._loop, name="botmemory-sync", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
            self._observer = None
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def sync_now(self) -> None:
        """Run a round for every folder as soon as possible."""
        with self._cond:
            self._wants.now = True
            self._cond.notify_all()

    def changed(self, folder_id: str) -> None:
        """A synced folder's journal changed (a row was written)."""
        now = time.monotonic()
        with self._cond:
            self._wants.dirty.setdefault(folder_id, now)
            self._wants.last_event = now
            self._cond.notify_all()

    # ----- the thread

    def _due(self, now: float) -> tuple[str, float]:
        """What is due now ("now", "changes", "check" or ""), and how long to wait otherwise."""
        w = self._wants
        if w.now:
            return "now", 0.0
        waits = [max(0.0, self._next_check - now)]
        if w.dirty:
            due = min(w.last_event + self.quiet, min(w.dirty.values()) + self.cap)
            if now >= due:
                return "changes", 0.0
            waits.append(due - now)
        if now >= self._next_check:
            return "check", 0.0
        return "", min(waits)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._stopping:
                    what, wait = self._due(time.monotonic())
                    if what:
                        break
                    self._cond.wait(wait)
                if self._stopping:
                    return
                ids: set[str] | None = None
                if what == "now":
                    self._wants = _Wants()
                elif what == "changes":
                    ids = set(self._wants.dirty)
                    self._wants.dirty.clear()
            try:
                self._step(what, ids)
            except Exception:   # a round never ends the thread
                logger.exception("a sync round failed")

    def _step(self, what: str, ids: set[str] | None) -> None:
        now = time.monotonic()
        if what == "changes":
            assert ids is not None
            ids &= self.synced_ids()
            ids = self.pending(ids)
            if not ids:
                return
            self._active_until = now + self.active_for
        elif what == "check":
            self._next_check = now + (self.active_every if now < self._active_until else self.idle_every)
            try:
                if not self.remote_moved():
                    if self.status.error is not None and self._failures:
                        self._round(None)      # the remote answers again: a round says so and catches up
                    return
            except BotMemoryError as e:
                self._failed(str(e))
                return
            self._active_until = now + self.active_for
        self._round(ids)

    def _round(self, ids: set[str] | None) -> None:
        self._set(replace(self.status, running=True))
        try:
            came_in, went_out, conflicts, pushed_out, notes = self.run_round(ids)
        except Busy:
            self._set(replace(self.status, running=False))
            with self._cond:         # another botmemory is syncing this home: try again soon
                for i in ids or self.synced_ids():
                    self._wants.dirty.setdefault(i, time.monotonic())
                self._wants.last_event = time.monotonic()
            return
        except BotMemoryError as e:
            self._failed(str(e))
            return
        self.rounds += 1
        self._failures = 0
        if self._said is not None:
            logger.warning("sync works again")
            self._said = None
        if came_in:
            self._active_until = time.monotonic() + self.active_for
        self._next_check = time.monotonic() + (self.active_every if time.monotonic() < self._active_until
                                               else self.idle_every)
        self._set(Status(time.time(), self.status.came_in + came_in, self.status.went_out + went_out, conflicts,
                         pushed_out, None, False, notes))

    def _failed(self, line: str) -> None:
        self._failures += 1
        delay = min(self.idle_every, RETRY_FIRST_S * 2 ** (self._failures - 1))
        self._next_check = time.monotonic() + delay
        if line != self._said:
            logger.warning("%s", line)
            self._said = line
        self._set(replace(self.status, error=line, running=False))

    def _set(self, status: Status) -> None:
        self.status = status
        if self.on_status is not None:
            try:
                self.on_status(status)
            except Exception:
                logger.exception("the sync status listener failed")

    def seen(self) -> None:
        """The person looked: what came in is counted from now."""
        self.status = replace(self.status, came_in=0, went_out=0)


class _JournalEvents:
    """watchdog's handler for the journal folder: ``<id>.ndjson`` written -> that folder changed. Reading a
    journal (watchdog says "opened", "closed_no_write") is no change: a round reads them."""

    WRITES = frozenset({"modified", "created", "moved", "closed"})

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler

    def dispatch(self, event: Any) -> None:
        if getattr(event, "event_type", "") not in self.WRITES or getattr(event, "is_directory", False):
            return
        for p in (getattr(event, "src_path", ""), getattr(event, "dest_path", "")):
            name = Path(str(p)).name if p else ""
            if name.endswith(".ndjson"):
                folder_id = name[: -len(".ndjson")]
                if folder_id in self.scheduler.synced_ids():
                    self.scheduler.changed(folder_id)


__all__ = ["ACTIVE_EVERY_S", "ACTIVE_FOR_S", "CAP_S", "IDLE_EVERY_S", "QUIET_S", "Scheduler", "Status"]
