"""The live watcher: records outside changes as they happen, debounced.

:class:`Watcher` is the live ``watch``: watchdog events only mark paths dirty;
once the stream has been quiet for :data:`QUIET_S` (or :data:`CAP_S` after the
first event) the dirty files are compared with their shadows. Every save
pattern ends up as one comparison: in place, temp + rename, vim's
backup-rename, ``sed -i``. Editor droppings are ignored. It rescans at start,
when the inotify queue overflows, and every few minutes.

A tracked folder that goes away (deleted, moved) is said at once (*on_presence*: also whenever the folder
itself was touched, so a folder deleted and restored within one batch is looked at again by the caller), and
the nearest folder above it that is still there is watched until it comes back (restored from a backup, say):
then it is rescanned and watched again at once, not at the next safety rescan.
"""
from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from ..base.errors import BadInput, BotMemoryError
from ..disk.paths import LOG_DIR, check_bot_id
from ..disk.safeio import TEMP_SUFFIX, make_dirs
from ..store.journal import Row
from .turns import reconcile_outside

if TYPE_CHECKING:
    from ..store.memory import Memory

logger = logging.getLogger(__name__)

QUIET_S = 0.25
CAP_S = 2.0
HELD_RECHECK_S = 2.0
SAFETY_RESCAN_S = 300.0


_IGNORED = re.compile(r".*\.sw[a-p]|.*~|4913|.*\.tmp|\.#.*|.*" + re.escape(TEMP_SUFFIX) + r"|\..*")


def ignored(name: str) -> bool:
    """Editor droppings and temp files (vim swap/backup, ``4913``, ``*.tmp``, Emacs locks, ours)."""
    return bool(_IGNORED.fullmatch(name)) or not name.endswith(".md")


class _Overflow(logging.Handler):
    """watchdog says only in its log that the inotify queue overflowed: listen there."""

    def __init__(self, on_overflow: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self.on_overflow = on_overflow

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.on_overflow()


RowsCallback = Callable[[list[Row]], None]
PresenceCallback = Callable[[str, bool], None]


@dataclass
class _Pending:
    paths: dict[str, set[str]] = field(default_factory=dict)    # bot -> dirty paths
    rescan: set[str] = field(default_factory=set)                # bots to rescan whole
    gone: set[str] = field(default_factory=set)                  # watched folders that went away
    everything: bool = False
    first: float = 0.0
    last: float = 0.0

    def empty(self) -> bool:
        return not (self.paths or self.rescan or self.everything or self.gone)


class Watcher:
    """The live ``watch``: records outside changes as they happen, in a thread of its own.

    ``start()`` rescans every workspace first (waiting for it unless
    ``wait=False``), ``stop()`` ends it. *on_rows* is called from the
    watcher's thread with the rows each batch recorded; it must not block
    (the desktop posts a queued signal). Nothing here touches Qt.
    """

    def __init__(self, mem: Memory, on_rows: RowsCallback | None = None, *, quiet: float = QUIET_S,
                 cap: float = CAP_S, held_recheck: float = HELD_RECHECK_S,
                 safety_rescan: float | None = SAFETY_RESCAN_S,
                 on_presence: PresenceCallback | None = None) -> None:
        self.mem = mem
        self.on_rows = on_rows
        self.on_presence = on_presence
        """Called from the watcher's thread with (bot, present) when a folder went away or came back."""
        self.quiet = quiet
        self.cap = cap
        self.held_recheck = held_recheck
        self.safety_rescan = safety_rescan
        self._cond = threading.Condition()
        self._pending = _Pending()
        self._held: dict[str, set[str] | None] = {}  # bots with a turn open: paths (None: all) for after it
        self._busy = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._observer: Any = None
        self._watches: dict[str, Any] = {}
        self._present: dict[str, bool] = {}
        self._missing: dict[str, Path] = {}     # tracked folders that are gone: bot -> its path
        self._parents: dict[str, Any] = {}      # folders watched for a gone folder's return: path -> watch
        self._overflow = _Overflow(self.rescan)
        self._ready = threading.Event()
        self._held_due = 0.0
        self._next_safety = 0.0
        self.errors = 0

    # ----- control

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, wait: bool = True) -> None:
        from watchdog.observers import Observer

        if self._thread is not None:
            raise RuntimeError("the watcher is already running")
        make_dirs(self.mem.home.workspaces, self.mem.home.root)
        self._stopping = False
        self._next_safety = time.monotonic() + (self.safety_rescan or 0.0)
        self._observer = Observer()
        self._observer.schedule(_Handler(self), str(self.mem.home.workspaces), recursive=False)
        for bot in self.mem.home.bots():
            self._ensure_watches(bot)
        logging.getLogger("watchdog.observers").addHandler(self._overflow)
        self._observer.start()
        self.rescan()
        self._thread = threading.Thread(target=self._run, name="botmemory-watcher", daemon=True)
        self._thread.start()
        if wait:
            self._ready.wait()

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join()
            self._observer = None
        logging.getLogger("watchdog.observers").removeHandler(self._overflow)
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._watches.clear()
        self._parents.clear()
        self._missing.clear()
        self._ready.clear()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def rescan(self) -> None:
        """Compare every workspace with its shadows soon (at start, after an overflow)."""
        with self._cond:
            self._touch()
            self._pending.everything = True
            self._cond.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is pending or being recorded (held bots with a turn open aside)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and self._pending.empty(), timeout)

    # ----- events (watchdog's thread)

    def _touch(self) -> None:
        now = time.monotonic()
        if self._pending.empty():
            self._pending.first = now
        self._pending.last = now

    def _tracked_path(self, path: str) -> tuple[str, str] | None:
        """The tracked folder a path is in, and the path inside it."""
        for t in self.mem.home.folders().values():
            top = str(t.path)
            if path == top:
                return t.id, ""
            if path.startswith(top + os.sep):
                return t.id, path[len(top) + 1:].replace(os.sep, "/")
        return None

    def on_path(self, path: str, is_dir: bool, gone: bool) -> None:
        root = self.mem.home.workspaces
        try:
            parts = Path(path).relative_to(root).parts
        except ValueError:
            hit = self._tracked_path(path)
            if hit is None:
                return
            parts = (hit[0], *[p for p in hit[1].split("/") if p])
        if not parts:
            return
        bot = parts[0]
        try:
            check_bot_id(bot)
        except BadInput:
            return
        rest = "/".join(parts[1:])
        with self._cond:
            if not rest or is_dir or rest in ("memory", LOG_DIR):
                if not rest or rest in ("memory", LOG_DIR):
                    self._touch()
                    self._pending.rescan.add(bot)
                    if gone:
                        self._pending.gone.add(path)
                    self._cond.notify_all()
                return
            if ignored(parts[-1]):
                return
            try:
                self.mem.home.classify(bot, rest)
            except BadInput:
                return
            self._touch()
            self._pending.paths.setdefault(bot, set()).add(rest)
            self._cond.notify_all()

    # ----- the watcher's thread

    def _ensure_watches(self, bot: str) -> None:
        ws = self.mem.home.workspace(bot)
        linked = False
        layout = self.mem.home.layout(bot)
        if layout is not None:
            self._watch_return(bot, ws)
        for folder in (ws, ws / "memory", ws / LOG_DIR) if layout is None else layout.watched_dirs(ws):
            key = str(folder)
            linked = linked or folder.is_symlink()   # a link, or a folder reached through one
            if linked or not folder.is_dir():
                if linked and key in self._watches:
                    logger.warning("not watching %s: it is, or is reached through, a symbolic link", key)
                self._unwatch(key)
                continue
            if key not in self._watches:
                try:
                    self._watches[key] = self._observer.schedule(_Handler(self), key, recursive=False)
                except OSError as e:
                    logger.warning("cannot watch %s: %s", key, e)

    def _watch_return(self, bot: str, folder: Path) -> None:
        """A tracked folder that is gone: watch the nearest folder above it that is there, to see it come back
        (only events on the way down to it count); once it is back, that watch goes."""
        if folder.is_dir() and not folder.is_symlink():
            self._missing.pop(bot, None)
        else:
            self._missing[bot] = folder
        wanted = set()
        for path in self._missing.values():
            up = path.parent
            while not up.is_dir() and up != up.parent:
                up = up.parent
            wanted.add(str(up))
        for key in set(self._parents) - wanted:
            watch = self._parents.pop(key)
            if self._observer is not None:
                try:
                    self._observer.unschedule(watch)
                except (KeyError, ValueError):
                    pass
        for key in wanted - set(self._parents) - set(self._watches):
            try:
                self._parents[key] = self._observer.schedule(_ReturnHandler(self), key, recursive=False)
            except OSError as e:
                logger.warning("cannot watch %s for a folder's return: %s", key, e)

    def on_return_path(self, path: str) -> None:
        """An event in a folder watched for a gone folder's return: rescan the folders it is on the way to."""
        for bot, folder in list(self._missing.items()):
            top = str(folder)
            if top == path or top.startswith(path.rstrip(os.sep) + os.sep):
                with self._cond:
                    self._touch()
                    self._pending.rescan.add(bot)
                    self._cond.notify_all()

    def _unwatch(self, key: str) -> None:
        watch = self._watches.pop(key, None)
        if watch is not None and self._observer is not None:
            try:
                self._observer.unschedule(watch)
            except (KeyError, ValueError):
                pass

    def _take(self) -> _Pending | None:
        """Wait for a quiet batch (or the cap), then take it. None when stopping."""
        with self._cond:
            while True:
                if self._stopping:
                    return None
                now = time.monotonic()
                if self.safety_rescan and now >= self._next_safety:
                    self._touch()
                    self._pending.everything = True
                    self._next_safety = now + self.safety_rescan
                if self._held and now >= self._held_due:  # bots whose turn was open: look again
                    self._touch()
                    for bot, paths in self._held.items():
                        if paths is None:
                            self._pending.rescan.add(bot)
                        else:
                            self._pending.paths.setdefault(bot, set()).update(paths)
                    self._held.clear()
                    self._pending.first = now - self.cap   # due at once
                deadlines = []
                if not self._pending.empty():
                    due = min(self._pending.last + self.quiet, self._pending.first + self.cap)
                    if self._pending.everything and not self._ready.is_set():
                        due = now   # the first scan runs at once
                    if now >= due:
                        batch, self._pending = self._pending, _Pending()
                        self._busy = True
                        return batch
                    deadlines.append(due)
                if self._held:
                    deadlines.append(self._held_due)
                if self.safety_rescan:
                    deadlines.append(self._next_safety)
                self._cond.wait(max(0.0, min(deadlines) - now) if deadlines else None)

    def _run(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                return
            try:
                rows = self._record(batch)
                if rows and self.on_rows is not None:
                    try:
                        self.on_rows(rows)
                    except Exception:
                        logger.exception("the watcher's row callback failed")
            except Exception:  # the watcher never dies of one bad batch; the next rescan retries
                self.errors += 1
                logger.exception("the watcher could not record a batch")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
                self._ready.set()

    def _record(self, batch: _Pending) -> list[Row]:
        mem = self.mem
        for key in batch.gone:
            self._unwatch(key)
        bots = set(batch.paths) | batch.rescan
        if batch.everything:
            bots |= set(mem.home.bots())
        rows: list[Row] = []
        moved: list[tuple[str, bool, bool]] = []   # (bot, its folder is there, that changed)
        for bot in sorted(bots):
            whole = batch.everything or bot in batch.rescan
            try:
                if whole and self._observer is not None:
                    self._ensure_watches(bot)
                here = mem.home.workspace(bot).is_dir()
                changed = self._present.get(bot, here) != here
                if changed or (bot in batch.rescan and mem.home.is_tracked(bot)):
                    moved.append((bot, here, changed))   # the folder itself was touched: said even when back already
                self._present[bot] = here
                if not here:
                    continue
                got = reconcile_outside(mem, bot, None if whole else batch.paths.get(bot, set()))
                if got is not None:
                    rows += got
                    continue
                with self._cond:   # a turn is open: its changes are its own; look again once it has ended
                    if not self._held:
                        self._held_due = time.monotonic() + self.held_recheck
                    if whole or (bot in self._held and self._held[bot] is None):
                        self._held[bot] = None
                    else:
                        self._held[bot] = (self._held.get(bot) or set()) | batch.paths.get(bot, set())
            except BotMemoryError as e:
                logger.warning("could not reconcile %s: %s", bot, e)
        for bot, here, changed in moved:
            if changed:
                logger.info("the folder of %s %s", bot, "is back" if here else "is gone")
            if self.on_presence is not None:
                try:
                    self.on_presence(bot, here)
                except Exception:
                    logger.exception("the watcher's presence callback failed")
        return rows


class _Handler:
    """The watchdog event handler: it only marks paths dirty."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def dispatch(self, event: Any) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write", "attrib") or (kind == "modified" and event.is_directory):
            return
        gone = kind in ("deleted", "moved")
        for p in (event.src_path, getattr(event, "dest_path", "")):
            if p:
                self.watcher.on_path(os.fsdecode(p), event.is_directory, gone and p == event.src_path)


class _ReturnHandler:
    """The watchdog handler on a folder above a gone tracked folder: any event on the way down to it."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def dispatch(self, event: Any) -> None:
        for p in (event.src_path, getattr(event, "dest_path", "")):
            if p:
                self.watcher.on_return_path(os.fsdecode(p))


__all__ = ["CAP_S", "QUIET_S", "Watcher", "ignored"]
