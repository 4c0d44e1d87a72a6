"""The memory routes served from the tray app, when switched on in Settings.

The same server as ``botmemory serve`` (the core's :class:`ApiServer`: loopback
only, the bearer token in ``<home>/botmemory/api-token``), over the session's
:class:`Memory`, so a change made through a route is journaled by the same
store and reaches the panel like any other. Starting (which may create the
token file) and stopping run on the session's worker, never on the UI thread;
the server answers on its own threads.

The switch is the app's own setting ``serveRoutes`` in ``settings.json`` (next
to the chosen home), off by default. :func:`add_checkbox` puts it into the
Settings window and applies it when Settings are saved; the demo never
changes it.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox, QVBoxLayout, QWidget

from botmemory.core import SERVE_PORT, ApiServer
from botmemory.core.ops import atomic_write

from .session import Session

logger = logging.getLogger(__name__)

SETTING = "serveRoutes"
LABEL = "Serve the memory routes on this computer"
DETAIL = "127.0.0.1 only, with the token in botmemory/api-token"


def _ui_path(path: Path | None) -> Path:
    from .settings_dialog import ui_settings_path

    return path if path is not None else ui_settings_path()


def enabled(path: Path | None = None) -> bool:
    """Is serving switched on in the app's settings? (Off unless set.)"""
    from .settings_dialog import read_ui_settings

    return read_ui_settings(_ui_path(path)).get(SETTING) is True


def set_enabled(on: bool, path: Path | None = None) -> None:
    """Keep the switch in ``settings.json``, every other key as it was."""
    from .settings_dialog import read_ui_settings

    target = _ui_path(path)
    data = read_ui_settings(target)
    if data.get(SETTING) is on:
        return
    data[SETTING] = on
    atomic_write(target, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


class RoutesService(QObject):
    """Starts and stops the routes for one session; says what happened by signal."""

    started = Signal(str)       # the URL
    stopped = Signal()
    failed = Signal(str)

    def __init__(self, session: Session, *, port: int | None = None, ui_path: Path | None = None,
                 persist: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.port = SERVE_PORT if port is None else port
        self.ui_path = ui_path
        self.persist = persist
        self.server: ApiServer | None = None

    @property
    def running(self) -> bool:
        return self.server is not None

    def start_if_enabled(self) -> None:
        """At the app's start: serve when Settings say so."""
        ui_path = self.ui_path
        self.session.worker.read(lambda: enabled(ui_path), lambda on: self.apply(bool(on), save=False),
                                 lambda e: logger.warning("cannot read the serve switch: %s", e))

    def apply(self, on: bool, *, save: bool = True) -> None:
        """Switch serving on or off (and keep the choice unless *save* is False or this is the demo)."""
        ui_path, keep = self.ui_path, save and self.persist
        mem, port = self.session.mem, self.port

        def run() -> str:
            # on the writer thread, one task at a time: self.server is only set and cleared here (and in stop())
            if keep:
                set_enabled(on, ui_path)
            if on and self.server is None:
                self.server = ApiServer(mem, port).start()
                return "started"
            if not on and self.server is not None:
                server, self.server = self.server, None
                server.stop()
                return "stopped"
            return ""

        def done(what: Any) -> None:
            server = self.server
            if what == "started" and server is not None:
                logger.info("serving the memory routes on %s", ", ".join(server.addresses))
                self.started.emit(server.url)
            elif what == "stopped":
                self.stopped.emit()

        def error(e: BaseException) -> None:
            logger.warning("the memory routes could not start: %s", e)
            self.failed.emit(f"The memory routes could not start: {e}")

        self.session.worker.write(run, done, error)

    def stop(self) -> None:
        """On quit, after the session's worker stopped: stop now, on this thread (it waits for requests in flight)."""
        server, self.server = self.server, None
        if server is not None:
            server.stop()


def add_checkbox(dialog: QWidget, service: RoutesService, *, demo: bool = False) -> QCheckBox:
    """Put the serve switch into the Settings window, read its state off the UI thread, apply it on save."""
    box = QCheckBox(LABEL, dialog)
    box.setToolTip(DETAIL)              # the whole sentence would widen Settings past a small screen
    box.setObjectName("serve_check")
    box.setEnabled(False)
    layout = dialog.layout()
    if isinstance(layout, QVBoxLayout):
        layout.insertWidget(max(0, layout.count() - 2), box)   # above the error line and the buttons
    ui_path = service.ui_path

    def loaded(on: Any) -> None:
        box.setChecked(service.running or bool(on))
        box.setEnabled(not demo)

    if demo:
        box.setToolTip("The demo never changes the app's own settings.")
    service.session.worker.read(lambda: enabled(ui_path), loaded,
                                lambda e: logger.warning("cannot read the serve switch: %s", e))
    saved = getattr(dialog, "saved", None)
    if saved is not None and not demo:
        saved.connect(lambda _settings: service.apply(box.isChecked()))
    return box
