"""Notifications: a tray message with a tray, freedesktop notifications over DBus without one."""
from __future__ import annotations

import shutil
import subprocess
import threading
import time

import pytest
from PySide6.QtCore import QObject

from botmemory.desktop.notify import Notifier
from botmemory.desktop.session import Notice
from botmemory.desktop.worker import Worker

from .conftest import delete

NOTICE = Notice("outside", "scout", "scout: MEMORY.md changed outside the app", "It is in the journal.",
                "01a2-abc", "MEMORY.md")


class _FakeTray(QObject):
    """Just what the notifier uses of QSystemTrayIcon."""

    from PySide6.QtCore import Signal

    messageClicked = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.messages = []

    def isVisible(self) -> bool:
        return True

    def showMessage(self, title, body, icon, ms) -> None:
        self.messages.append((title, body))


def test_with_a_tray_it_is_a_tray_message_and_a_click_opens(qtbot, monkeypatch):
    from PySide6.QtWidgets import QSystemTrayIcon

    monkeypatch.setattr(QSystemTrayIcon, "supportsMessages", staticmethod(lambda: True))
    tray = _FakeTray()
    n = Notifier(tray)  # type: ignore[arg-type]
    with qtbot.waitSignal(n.shown):
        n.notify(NOTICE)
    assert tray.messages[0][0] == NOTICE.title
    assert "Undo is under Recent changes" in tray.messages[0][1]
    with qtbot.waitSignal(n.activated) as blocker:
        tray.messageClicked.emit()
    assert blocker.args == [NOTICE, "open"]
    delete(n)
    delete(tray)


def test_without_a_tray_or_a_bus_nothing_breaks(qtbot):
    class NoBus:
        def isConnected(self) -> bool:
            return False

    n = Notifier(None, bus=NoBus())
    with qtbot.waitSignal(n.shown):
        n.notify(NOTICE)
    delete(n)


@pytest.fixture
def private_bus(qtbot):
    """A private session bus (its own dbus-daemon): its address, and the app's QtDBus connection to it."""
    if shutil.which("dbus-daemon") is None:
        pytest.skip("dbus-daemon is not installed")
    p = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    address = p.stdout.readline().strip()
    from PySide6.QtDBus import QDBusConnection

    client = QDBusConnection.connectToBus(address, "botmemory-test-client")
    yield address, client
    QDBusConnection.disconnectFromBus("botmemory-test-client")
    p.terminate()
    p.wait(5)
    p.stdout.close()


class FakeNotificationServer:
    """org.freedesktop.Notifications on the private bus: answers one Notify, later broadcasts ActionInvoked.

    Written with jeepney so it speaks exactly what a real server speaks (a uint32
    id, the signature ``susssasa{sv}i``); it serves from a thread that ends after the call.
    """

    def __init__(self, address: str) -> None:
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection

        self.conn = open_dbus_connection(bus=address)
        self.conn.send_and_get_reply(message_bus.RequestName("org.freedesktop.Notifications"))
        self.calls: list[tuple] = []
        self.thread = threading.Thread(target=self._serve_one, name="fake-notifications")
        self.thread.start()

    def _serve_one(self) -> None:
        from jeepney import HeaderFields, MessageType, new_error, new_method_return

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                msg = self.conn.receive(timeout=deadline - time.monotonic())
            except TimeoutError:
                return
            h = msg.header
            if h.message_type is not MessageType.method_call:
                continue
            if (h.fields.get(HeaderFields.member) == "Notify"
                    and h.fields.get(HeaderFields.signature) == "susssasa{sv}i"):
                self.calls.append(msg.body)
                self.conn.send(new_method_return(msg, "u", (7,)))
                return
            self.conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod"))

    def action_invoked(self, nid: int, key: str) -> None:
        from jeepney import new_signal
        from jeepney.wrappers import DBusAddress

        self.thread.join(10)
        self.conn.send(new_signal(DBusAddress("/org/freedesktop/Notifications",
                                              interface="org.freedesktop.Notifications"),
                                  "ActionInvoked", "us", (nid, key)))

    def close(self) -> None:
        self.thread.join(10)
        self.conn.close()


def test_without_a_tray_it_goes_to_the_notification_server_with_undo_and_open(qtbot, private_bus):
    address, client_bus = private_bus
    server = FakeNotificationServer(address)
    worker = Worker()
    n = Notifier(None, submit=worker.read, bus=client_bus, address=address)
    try:
        n.notify(NOTICE)
        qtbot.waitUntil(lambda: 7 in n._by_id, timeout=5000)
        app, replaces, _icon, summary, _body, actions, hints, timeout = server.calls[0]
        assert (app, replaces, summary) == ("botmemory", 0, NOTICE.title)
        assert actions == ["undo", "Undo", "default", "Open"]
        assert hints == {} and timeout > 0
        # the person clicks Undo on the notification: the server broadcasts it
        with qtbot.waitSignal(n.activated, timeout=5000) as blocker:
            server.action_invoked(7, "undo")
        assert blocker.args == [NOTICE, "undo"]
        # another app's notification id is not ours
        with qtbot.assertNotEmitted(n.activated, wait=200):
            server.action_invoked(99, "default")
    finally:
        server.close()
        worker.shutdown()
        delete(worker)
        delete(n)
