"""Notifications: after a write archived entries, an outside change arrived, or a gauge turned red.

With a system tray they are tray messages (a click opens the panel on the
row; Undo is one click away in the tray's Recent changes). Without one they go
to the desktop's notification server over DBus (``org.freedesktop.Notifications``)
with **Undo** and **Open** actions. Nothing is shown when neither exists; the
journal has the row either way.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QSystemTrayIcon

from .session import Notice

logger = logging.getLogger(__name__)

Submit = Callable[[Callable[[], Any], Callable[[Any], None], Callable[[BaseException], None]], Any]


def _run_now(fn: Callable[[], Any], done: Callable[[Any], None], error: Callable[[BaseException], None]) -> None:
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001
        error(e)
    else:
        done(value)

SHOW_MS = 8000
CALL_TIMEOUT_S = 3.0
SERVICE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
IFACE = "org.freedesktop.Notifications"


class Notifier(QObject):
    """Shows a :class:`Notice`; :attr:`activated` says what the person chose ("open" or "undo")."""

    activated = Signal(object, str)
    shown = Signal(object)
    """Every notice handed to the desktop (for tests and the log)."""

    def __init__(self, tray: QSystemTrayIcon | None = None, parent: QObject | None = None, *,
                 submit: Submit | None = None, bus: Any = None, address: str | None = None) -> None:
        super().__init__(parent)
        self.tray = tray
        self.last: Notice | None = None
        self._by_id: dict[int, Notice] = {}
        self._submit: Submit = submit or _run_now
        self._bus = bus              # the QtDBus connection actions arrive on (the session bus)
        self._address = address      # the bus Notify is sent on (None: the session bus)
        self._listening = False
        if tray is not None:
            tray.messageClicked.connect(self._tray_clicked)

    # ----- choosing the channel

    def _tray_ok(self) -> bool:
        return self.tray is not None and self.tray.isVisible() and QSystemTrayIcon.supportsMessages()

    def notify(self, notice: Notice) -> None:
        self.last = notice
        self.shown.emit(notice)
        if self._tray_ok():
            assert self.tray is not None
            body = notice.text
            if notice.row_id:
                body += " Click to open it; Undo is under Recent changes in the tray menu."
            icon = QSystemTrayIcon.MessageIcon.Warning if notice.kind == "red" else \
                QSystemTrayIcon.MessageIcon.Information
            self.tray.showMessage(notice.title, body, icon, SHOW_MS)
            return
        if not self._dbus_notify(notice):
            logger.info("notification not shown (no tray, no notification server): %s", notice.title)

    @Slot()
    def _tray_clicked(self) -> None:
        if self.last is not None:
            self.activated.emit(self.last, "open")

    # ----- freedesktop notifications over DBus

    def _session_bus(self) -> Any:
        if self._bus is not None:
            return self._bus
        from PySide6.QtDBus import QDBusConnection

        return QDBusConnection.sessionBus()

    def _dbus_notify(self, notice: Notice) -> bool:
        bus = self._session_bus()
        if not bus.isConnected():
            return False
        self._listen(bus)
        actions = ["undo", "Undo", "default", "Open"] if notice.row_id else ["default", "Open"]
        address = self._address

        def sent(nid: Any) -> None:
            if isinstance(nid, int):
                self._by_id[nid] = notice
                while len(self._by_id) > 50:
                    self._by_id.pop(next(iter(self._by_id)))

        self._submit(lambda: send_notify(address, notice.title, notice.text, actions), sent,
                     lambda e: logger.info("no notification server answered: %s", e))
        return True

    def _listen(self, bus: Any) -> None:
        if self._listening:
            return
        from PySide6.QtCore import SLOT

        self._listening = bus.connect(SERVICE, PATH, IFACE, "ActionInvoked", self,
                                      SLOT("_action_invoked(uint,QString)"))

    @Slot("uint", str)
    def _action_invoked(self, nid: int, key: str) -> None:
        notice = self._by_id.pop(int(nid), None)
        if notice is None:
            return
        self.activated.emit(notice, "undo" if key == "undo" else "open")


def send_notify(address: str | None, title: str, body: str, actions: list[str]) -> int:
    """Call ``org.freedesktop.Notifications.Notify``; its id. Blocking (a few ms): run it on the worker.

    Sent with jeepney (installed with keyring on Linux) because PySide cannot
    marshal the ``uint32`` the call's signature ``susssasa{sv}i`` needs.
    """
    from jeepney import DBusAddress, new_method_call  # type: ignore[import-untyped]
    from jeepney.io.blocking import open_dbus_connection  # type: ignore[import-untyped]
    from jeepney.wrappers import unwrap_msg  # type: ignore[import-untyped]

    target = DBusAddress(PATH, bus_name=SERVICE, interface=IFACE)
    msg = new_method_call(target, "Notify", "susssasa{sv}i",
                          ("botmemory", 0, "io.botmemory.Botmemory", title, body, actions, {}, SHOW_MS))
    with open_dbus_connection(bus=address or "SESSION") as conn:
        reply = conn.send_and_get_reply(msg, timeout=CALL_TIMEOUT_S)
    return int(unwrap_msg(reply)[0])
