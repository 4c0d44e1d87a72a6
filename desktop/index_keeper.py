"""Each bot's recall index kept current in the background, so that a turn's recall finds it ready.

A bot's harness runs ``botmemory recall`` before every turn. When the index is
behind the topic files, that recall pays for the difference (or, with a lot to
index, answers from what is indexed so far). The tray app keeps it current: a
few seconds after a bot's files change, and once at start, it asks the core
whether each of those bots' index matches its topics (on the worker: one
``stat`` a topic) and, for each that does not, runs the core's index builder as
a separate process, one at a time. A build is CPU work; in a process of its own
it never holds the interpreter the UI runs in. A frozen bundle, which cannot
start the builder, builds on the worker instead.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable

from PySide6.QtCore import QObject, QProcess, QTimer, Signal, Slot

from botmemory.core.ops import BotMemoryError, Memory, recall_index_builder, recall_index_current, refresh_index

from .worker import Worker

logger = logging.getLogger(__name__)

INDEX_DELAY_MS = 5000
"""How long after the last change to a bot's files its index is checked (a burst of writes is one check)."""


class IndexKeeper(QObject):
    built = Signal(str)
    """A bot whose recall index was just brought up to date."""

    def __init__(self, mem: Memory, worker: Worker, parent: QObject | None = None, *,
                 delay_ms: int = INDEX_DELAY_MS) -> None:
        super().__init__(parent)
        self.mem = mem
        self.worker = worker
        self._pending: set[str] = set()
        self._queue: list[tuple[str, list[str] | None]] = []
        self._proc: QProcess | None = None
        self._busy = False          # a check or a build is running
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._check)

    def touch(self, bots: Iterable[str]) -> None:
        """These bots' files changed (or the app just started): check their indexes after a quiet moment."""
        if self._stopped:
            return
        self._pending.update(bots)
        if self._pending:
            self._timer.start()

    def stop(self) -> None:
        """No more checks; a running build is stopped (what it committed stays, the next build goes on)."""
        self._stopped = True
        self._timer.stop()
        self._queue.clear()
        self._pending.clear()
        self._busy = False
        proc, self._proc = self._proc, None
        if proc is not None and proc.state() != QProcess.ProcessState.NotRunning:
            proc.kill()
            proc.waitForFinished(2000)

    @property
    def idle(self) -> bool:
        """Nothing waiting, checking or building."""
        return not (self._pending or self._queue or self._busy or self._timer.isActive())

    # ----- the steps

    @Slot()
    def _check(self) -> None:
        if self._stopped:
            return
        if self._busy:              # checked again when the running build ends
            return
        bots, self._pending = sorted(self._pending), set()
        home = self.mem.home
        self._busy = True

        def stale() -> list[tuple[str, list[str] | None]]:
            out: list[tuple[str, list[str] | None]] = []
            for bot in bots:
                try:
                    if not recall_index_current(home, bot):
                        out.append((bot, recall_index_builder(home, bot)))
                except (BotMemoryError, OSError) as e:  # a bot removed meanwhile, a folder gone: nothing to keep
                    logger.info("recall index of %s not checked: %s", bot, e)
            return out

        self.worker.read(stale, self._queue_up, self._failed)

    def _queue_up(self, stale: list[tuple[str, list[str] | None]]) -> None:
        if self._stopped:
            return
        queued = {b for b, _ in self._queue}
        self._queue.extend(s for s in stale if s[0] not in queued)
        self._busy = False
        self._next()

    def _failed(self, e: BaseException) -> None:
        logger.warning("keeping the recall index current failed: %s", e)
        self._busy = False
        self._next()

    def _next(self) -> None:
        if self._stopped or self._busy:
            return
        if not self._queue:
            if self._pending:
                self._timer.start()
            return
        bot, command = self._queue.pop(0)
        self._busy = True
        if command is None:
            home = self.mem.home
            self.worker.read(lambda: refresh_index(home, bot), lambda _r: self._done(bot, True), self._failed)
            return
        proc = QProcess(self)
        proc.setProgram(command[0])
        proc.setArguments(command[1:])
        proc.setProcessChannelMode(QProcess.ProcessChannelMode.ForwardedErrorChannel)
        proc.setStandardOutputFile(QProcess.nullDevice())
        proc.finished.connect(lambda code, status: self._finished(proc, bot, code, status))
        proc.errorOccurred.connect(lambda err: self._error(proc, bot, err))
        self._proc = proc
        logger.info("building the recall index of %s in the background", bot)
        proc.start()

    def _finished(self, proc: QProcess, bot: str, code: int, status: QProcess.ExitStatus) -> None:
        if proc is not self._proc:      # stopped meanwhile
            return
        self._proc = None
        proc.deleteLater()
        ok = status == QProcess.ExitStatus.NormalExit and code == 0
        if not ok:
            logger.warning("the recall index build of %s ended with exit code %s", bot, code)
        self._done(bot, ok)

    def _error(self, proc: QProcess, bot: str, err: QProcess.ProcessError) -> None:
        if err != QProcess.ProcessError.FailedToStart or proc is not self._proc:
            return                      # a crash ends in finished too
        self._proc = None
        proc.deleteLater()
        logger.warning("the recall index builder of %s did not start: %s", bot, proc.errorString())
        self._done(bot, False)

    def _done(self, bot: str, ok: bool) -> None:
        self._busy = False
        if ok and not self._stopped:
            self.built.emit(bot)
        self._next()
