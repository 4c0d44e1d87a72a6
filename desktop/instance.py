"""One app per home: a second start asks the first to show its panel, then exits (QLocalServer).

The server name is derived from the user and the home's real path, so two homes
can each have their own app. A stale socket left by a crash is removed when
nothing answers on it.
"""
from __future__ import annotations

import getpass
import hashlib
import json
import logging
import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

logger = logging.getLogger(__name__)

CONNECT_MS = 1000


def server_name(root: Path) -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    key = f"{user}\0{os.path.realpath(root)}".encode("utf-8", "surrogateescape")
    return "botmemory-" + hashlib.sha256(key).hexdigest()[:20]


def ask_running(root: Path, bot: str | None) -> bool:
    """Tell the app already running on *root* to show its panel; False when none answers."""
    sock = QLocalSocket()
    sock.connectToServer(server_name(root))
    if not sock.waitForConnected(CONNECT_MS):
        return False
    sock.write((json.dumps({"show": bot}) + "\n").encode("utf-8"))
    sock.flush()
    sock.waitForBytesWritten(CONNECT_MS)
    # wait for the reply so the message is not lost when we exit at once
    sock.waitForReadyRead(CONNECT_MS)
    sock.disconnectFromServer()
    return True


class InstanceServer(QObject):
    """Listens for later starts of the app on the same home."""

    show_requested = Signal(str)
    """A second start asked to show the panel of this bot ("" for the default)."""

    def __init__(self, root: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = server_name(root)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._on_connection)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        if self._server.listen(self.name):
            return True
        # a stale socket from a crash: nobody answered ask_running, so take it over
        QLocalServer.removeServer(self.name)
        ok = self._server.listen(self.name)
        if not ok:
            logger.warning("single-instance server could not listen: %s", self._server.errorString())
        return ok

    def close(self) -> None:
        for sock in list(self._buffers):
            sock.abort()
        self._buffers.clear()
        self._server.close()

    @Slot()
    def _on_connection(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            self._buffers[sock] = b""
            sock.readyRead.connect(lambda s=sock: self._on_ready(s))
            sock.disconnected.connect(lambda s=sock: self._drop(s))

    def _drop(self, sock: QLocalSocket) -> None:
        self._buffers.pop(sock, None)
        sock.deleteLater()

    def _on_ready(self, sock: QLocalSocket) -> None:
        data = self._buffers.get(sock, b"") + bytes(sock.readAll().data())
        if len(data) > 4096:
            self._drop(sock)
            return
        self._buffers[sock] = data
        if b"\n" not in data:
            return
        line = data.split(b"\n", 1)[0]
        try:
            msg = json.loads(line)
        except ValueError:
            msg = {}
        bot = msg.get("show") if isinstance(msg, dict) else None
        sock.write(b"ok\n")
        sock.flush()
        self.show_requested.emit(bot if isinstance(bot, str) else "")
