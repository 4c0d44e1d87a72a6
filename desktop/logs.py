"""Logging for the desktop app: a rotating file, an in-memory tail, and ``--verbose``.

- The file is ``botmemory.log`` in ``platformdirs.user_log_dir("botmemory")``
  (``~/.local/state/botmemory/log`` on Linux, ``~/Library/Logs/botmemory`` on
  macOS, ``%LOCALAPPDATA%\\botmemory\\Logs`` on Windows), rotated at 1 MB with
  three old files kept.
- The tail keeps the last :data:`TAIL_LINES` formatted lines in memory (like
  Picard's ``TailLogger``) so the app can show them without reading the file.
- ``--verbose`` logs DEBUG to the file and also writes to stderr.

Every module logs through its own ``logging.getLogger(__name__)``; only
:func:`setup_logging` touches the root logger. Qt is imported only by
:func:`show_log`.
"""
from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import platformdirs

APP_NAME = "botmemory"
LOG_FILE_NAME = "botmemory.log"
MAX_BYTES = 1024 * 1024
BACKUP_COUNT = 3
TAIL_LINES = 500
FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"

logger = logging.getLogger(__name__)


class TailHandler(logging.Handler):
    """Keeps the last *capacity* formatted records in memory (thread-safe)."""

    def __init__(self, capacity: int = TAIL_LINES) -> None:
        super().__init__(logging.DEBUG)
        self._lines: deque[str] = deque(maxlen=capacity)
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # noqa: BLE001 - a broken record must not break the app
            self.handleError(record)
            return
        with self._guard:
            self._lines.append(line)

    def lines(self) -> list[str]:
        with self._guard:
            return list(self._lines)

    def clear(self) -> None:
        with self._guard:
            self._lines.clear()


_tail = TailHandler()
_tail.setFormatter(logging.Formatter(FORMAT))
_installed: list[logging.Handler] = []
_current_path: Path | None = None


def log_dir() -> Path:
    return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def log_path() -> Path:
    """The log file in use (after :func:`setup_logging`), else where it would go."""
    return _current_path if _current_path is not None else log_dir() / LOG_FILE_NAME


def setup_logging(verbose: bool = False, *, directory: Path | None = None,
                  stream: TextIO | None = None) -> Path:
    """Send logging to the rotating file, the tail, and (verbose) stderr; return the file's path.

    Calling it again replaces what an earlier call installed, so it is safe to
    call once per start and again from tests. A log folder that cannot be made
    or written leaves the tail and stderr working and says so once.
    """
    global _current_path
    shutdown_logging()
    root = logging.getLogger()
    level = logging.DEBUG if verbose else logging.INFO
    root.setLevel(level)
    # watchdog logs every inotify event at DEBUG: --verbose is about botmemory, not them
    logging.getLogger("watchdog").setLevel(logging.INFO)
    formatter = logging.Formatter(FORMAT)
    folder = directory if directory is not None else log_dir()
    path = folder / LOG_FILE_NAME
    problem = None
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        file_handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8", delay=True)
        file_handler.setLevel(level)
        file_handler.setFormatter(formatter)
        _installed.append(file_handler)
    except OSError as e:
        problem = e

    _tail.setLevel(level)
    _installed.append(_tail)
    if verbose:
        console = logging.StreamHandler(stream if stream is not None else sys.stderr)
        console.setLevel(logging.DEBUG)
        console.setFormatter(formatter)
        _installed.append(console)
    for handler in _installed:
        root.addHandler(handler)
    _current_path = path
    if problem is not None:
        logger.warning("cannot write the log file in %s (%s); logging to memory only", folder, problem)
    else:
        logger.debug("logging to %s (verbose=%s)", path, verbose)
    return path


def shutdown_logging() -> None:
    """Remove and close what :func:`setup_logging` installed (at quit, and between tests)."""
    global _current_path
    root = logging.getLogger()
    for handler in _installed:
        root.removeHandler(handler)
        if handler is not _tail:
            handler.close()
    _installed.clear()
    _current_path = None


def tail(limit: int | None = None) -> list[str]:
    """The newest logged lines, oldest first (at most *limit*)."""
    lines = _tail.lines()
    return lines[-limit:] if limit is not None and limit >= 0 else lines


def install_qt_message_handler() -> None:
    """Route Qt's own warnings into logging (logger ``qt``), so they reach the file and the tail."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    qt_logger = logging.getLogger("qt")
    levels = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        qt_logger.log(levels.get(kind, logging.WARNING), "%s", message)

    qInstallMessageHandler(handler)


def show_log(open_url: Callable[[object], bool] | None = None) -> bool:
    """Open the log file in the person's viewer (QDesktopServices); False when that failed.

    The file is created first if nothing was logged yet, so the viewer always
    has something to open. *open_url* replaces ``QDesktopServices.openUrl`` in tests.
    """
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.close(fd)
    except OSError as e:
        logger.warning("cannot create the log file %s: %s", path, e)
        return False
    opener = open_url if open_url is not None else QDesktopServices.openUrl
    ok = bool(opener(QUrl.fromLocalFile(str(path))))
    if not ok:
        logger.warning("no application opened the log file %s", path)
    return ok
