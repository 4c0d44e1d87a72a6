"""Sync in the tray: one status line in the Memory panel — the last sync, what came in, conflicts — with Sync
now and Mark resolved (a team's conflicts are conflict cards: Resolve… opens its Team tab).

The schedule is the core's (``sync_scheduler``): a thread of its own that syncs after changes (debounced) and
when the remote moved, and never blocks a write. It reports here by a queued signal; everything that reads
or writes the disk runs on the session's worker. One :class:`SyncService` a session (:func:`service_for`),
started by the app and by the first panel, stopped when the application quits. A home without sync shows
nothing.
"""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QPushButton, QToolButton, QWidget

from botmemory.core.ops import SyncStatus, counted, sync_resolve, sync_scheduler, sync_status, team_list

from .session import Session

logger = logging.getLogger(__name__)

STOP_WAIT_S = 5.0
TIMING: dict[str, float] = {}
"""The schedule's timing (``quiet``, ``cap``, ``active_every``, …) when not the core's defaults (tests)."""


class SyncService(QObject):
    """The core's sync schedule for one session, and what the status line shows."""

    changed = Signal()
    """The line or the conflicts changed (on the UI thread)."""
    _posted = Signal(object)

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self.session = session
        self.scheduler: Any = None
        self.line: str | None = None            # None: sync is not set up here
        self.conflicts: list[tuple[str, str]] = []   # (folder id, path) of a bot's or tracked folder's file
        self.team_conflicts: list[tuple[str, str, str]] = []   # (team key, its name, the computer) per conflict card
        self._stopped = False
        self._posted.connect(self._on_status, Qt.ConnectionType.QueuedConnection)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)

    def start(self) -> None:
        """Read the settings on the worker; start the schedule when sync is set up."""
        self.session.worker.read(lambda: sync_scheduler(self.session.mem, self._posted.emit, **TIMING), self._made,
                                 lambda e: logger.warning("sync did not start: %s", e))

    def _made(self, scheduler: Any) -> None:
        if scheduler is None or self._stopped:
            return
        self.scheduler = scheduler
        self._show(scheduler.status)
        scheduler.start()

    def stop(self) -> None:
        self._stopped = True
        scheduler, self.scheduler = self.scheduler, None
        if scheduler is not None:
            scheduler.stop(STOP_WAIT_S)

    def sync_now(self) -> None:
        if self.scheduler is not None:
            self.scheduler.sync_now()

    def resolve(self, bot: str, path: str) -> None:
        """Mark a conflict resolved with the file as it is now (a journal row; the other computers are told)."""
        self.session.worker.write(lambda: sync_resolve(self.session.mem, bot, path), lambda _r: self._refresh(),
                                  lambda e: self.session.error.emit(f"Could not mark {bot}/{path} resolved: {e}"))

    def _on_status(self, status: SyncStatus) -> None:   # from the schedule's thread, queued
        self._show(status)

    def _show(self, status: SyncStatus) -> None:
        self.line = status.line()
        self.changed.emit()
        if not status.running:
            self._refresh()

    def _refresh(self) -> None:
        mem = self.session.mem

        def read() -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
            files, cards = [], []
            names: dict[str, str] | None = None
            for f in sync_status(mem).folders:
                if f.kind == "team":
                    key = f.id.removeprefix("team-")
                    if names is None and f.conflicts:
                        names = {t.team: t.name for t in team_list(mem, retired=True)}
                    cards += [(key, (names or {}).get(key, key), str(c.get("host") or "another computer"))
                              for c in f.conflicts]
                else:
                    files += [(f.id, str(c["path"])) for c in f.conflicts]
            return files, cards

        def got(conflicts: tuple[list[tuple[str, str]], list[tuple[str, str, str]]]) -> None:
            self.conflicts, self.team_conflicts = conflicts
            self.changed.emit()

        self.session.worker.read(read, got, lambda e: logger.info("could not read the sync status: %s", e))


_services: dict[int, SyncService] = {}


def service_for(session: Session) -> SyncService:
    """The session's sync service, started on first use."""
    service = _services.get(id(session))
    if service is None or service.session is not session:
        service = _services[id(session)] = SyncService(session)
        service.destroyed.connect(lambda *_: _services.pop(id(session), None))
        service.start()
    return service


class SyncLine(QWidget):
    """The panel's sync line: *Synced 14:02 · 2 changes came in · 1 conflict to resolve*, Sync now, Resolve."""

    open_team = Signal(str)
    """Resolve… on a team's conflict card: show that team's Team tab (the key)."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service_for(session)
        self.label = QLabel()
        self.label.setStyleSheet("color: #555;")
        self.now_button = QPushButton("Sync now")
        self.now_button.setToolTip("Pull, merge and push now (it also runs by itself after changes)")
        self.now_button.clicked.connect(self.service.sync_now)
        self.resolve_button = QToolButton()
        self.resolve_button.setText("Resolve…")
        self.resolve_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.resolve_menu = QMenu(self)
        self.resolve_button.setMenu(self.resolve_menu)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.resolve_button)
        row.addWidget(self.now_button)
        self.service.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        s = self.service
        self.setVisible(s.line is not None)
        self.label.setText(f"Sync: {s.line}" if s.line else "")
        self.resolve_menu.clear()
        for bot, path in s.conflicts:
            action = self.resolve_menu.addAction(f"Mark {bot}/{path} resolved (edit it first: both versions are in it)")
            action.triggered.connect(lambda _=False, b=bot, p=path: s.resolve(b, p))
        teams: dict[tuple[str, str], list[str]] = {}
        for key, name, host in s.team_conflicts:
            teams.setdefault((key, name), []).append(host)
        for (key, name), hosts in teams.items():
            action = self.resolve_menu.addAction(
                f"Team {name}: {counted(len(hosts), 'conflict card')} (the text of {', '.join(sorted(set(hosts)))}) — "
                "accept or reject in the Team tab")
            action.triggered.connect(lambda _=False, k=key: self.open_team.emit(k))
        self.resolve_button.setVisible(bool(s.conflicts or s.team_conflicts))
        self.resolve_button.setToolTip(f"{counted(len(s.conflicts), 'conflict')}: each file holds both versions, "
                                       "the newer first; edit it in Files, then mark it resolved"
                                       + (f"; {counted(len(s.team_conflicts), 'conflict card')} of a team: the other "
                                          "computer's text of a note changed on both, for you to accept or reject"
                                          if s.team_conflicts else ""))


__all__ = ["SyncLine", "SyncService", "service_for"]
