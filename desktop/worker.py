"""The worker pool: every piece of disk work runs here, never in a slot on the UI thread.

Reads run on a small pool; writes on a pool of one thread, so there is one
writer at a time (Anki's ``taskman.py``). A task's result, or its exception,
comes back to the UI thread by a queued signal and is handed to the callbacks
given with the task. Tasks submitted after :meth:`Worker.shutdown` are dropped.

Every Python object a task touches — the callable with what it captured, the
result, the exception — is let go on the UI thread, never on a pool thread:
a closure may hold the last reference to a widget, and a widget must not be
destroyed off the UI thread. The pool thread drops its own references before
it signals.
"""
from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal, Slot

logger = logging.getLogger(__name__)

Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]


@dataclass
class _Task:
    fn: Callable[[], Any]
    done: Done | None
    error: Failed | None
    ok: bool = False
    value: Any = None
    finished: bool = False


def _call(fn: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, result) or (False, exception) — in a frame of its own, so the traceback makes no cycle."""
    try:
        return True, fn()
    except BaseException as e:  # noqa: BLE001 - handed to the UI thread, never lost
        return False, e


class _Job(QRunnable):
    """What the pool runs: only the task's number; the task itself stays with the worker."""

    def __init__(self, worker: Worker, task_id: int) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self._worker = worker
        self._id = task_id

    def run(self) -> None:
        self._worker._execute(self._id)


class Worker(QObject):
    """Run callables off the UI thread; callbacks run back on the UI thread."""

    _finished = Signal(int)
    busy_changed = Signal(bool)
    failed = Signal(str)
    """A task without its own error callback failed: the message to show."""

    def __init__(self, parent: QObject | None = None, readers: int = 2) -> None:
        super().__init__(parent)
        self._readers = QThreadPool(self)
        self._readers.setMaxThreadCount(readers)
        self._writer = QThreadPool(self)
        self._writer.setMaxThreadCount(1)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._tasks: dict[int, _Task] = {}
        self._jobs: dict[int, _Job] = {}
        self._closed = False
        self._finished.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def read(self, fn: Callable[[], Any], done: Done | None = None, error: Failed | None = None) -> int:
        """Run *fn* on a reader thread (reads may run side by side)."""
        return self._submit(self._readers, fn, done, error)

    def write(self, fn: Callable[[], Any], done: Done | None = None, error: Failed | None = None) -> int:
        """Run *fn* on the writer thread: one write at a time, in the order submitted."""
        return self._submit(self._writer, fn, done, error)

    def _submit(self, pool: QThreadPool, fn: Callable[[], Any], done: Done | None, error: Failed | None) -> int:
        if self._closed:
            logger.debug("worker closed; task dropped")
            return 0
        task_id = next(self._ids)
        was_idle = not self._tasks
        with self._lock:
            self._tasks[task_id] = _Task(fn, done, error)
        self._jobs[task_id] = job = _Job(self, task_id)
        if was_idle:
            self.busy_changed.emit(True)
        pool.start(job)
        return task_id

    def _execute(self, task_id: int) -> None:
        """On a pool thread: run the task, store its outcome, drop every reference, then signal."""
        with self._lock:
            task = self._tasks.get(task_id)
            fn = task.fn if task is not None else None
        del task
        if fn is None:
            return
        ok, value = _call(fn)
        del fn
        with self._lock:
            task = self._tasks.get(task_id)
            if task is not None:
                task.ok, task.value, task.finished = ok, value, True
            del task
        del value
        self._finished.emit(task_id)

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    @Slot(int)
    def _deliver(self, task_id: int) -> None:
        with self._lock:
            task = self._tasks.pop(task_id, None)
        self._jobs.pop(task_id, None)
        try:
            if task is None or not task.finished:
                return
            if task.ok:
                if task.done is not None:
                    task.done(task.value)
            elif task.error is not None:
                task.error(task.value)
            else:
                logger.error("background task failed", exc_info=task.value)
                self.failed.emit(str(task.value) or type(task.value).__name__)
        except Exception:
            logger.exception("a task callback failed")
        finally:
            if not self._tasks:
                self.busy_changed.emit(False)

    def wait(self, msecs: int = -1) -> bool:
        """Block until every queued task has run (tests and shutdown only)."""
        ok = self._writer.waitForDone(msecs)
        return self._readers.waitForDone(msecs) and ok

    def shutdown(self) -> None:
        """Drop tasks not yet started, let running ones finish, refuse new ones."""
        self._closed = True
        self._readers.clear()
        self._writer.clear()
        self.wait()
        with self._lock:
            tasks, self._tasks = self._tasks, {}
        self._jobs.clear()
        del tasks
