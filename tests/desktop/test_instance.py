"""One app per home: a second start asks the first to show its panel."""
from __future__ import annotations

import subprocess
import sys

from PySide6.QtNetwork import QLocalServer

from botmemory.desktop.instance import InstanceServer, ask_running, server_name

ASK = "import sys; from botmemory.desktop.instance import ask_running; " \
      "print(ask_running(sys.argv[1], sys.argv[2] or None))"


def _second_start(root, bot):
    """Another process, as a second start of the app is."""
    return subprocess.Popen([sys.executable, "-c", ASK, str(root), bot or ""], stdout=subprocess.PIPE, text=True)


def test_names_differ_per_home_and_are_stable(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert server_name(a) == server_name(a)
    assert server_name(a) != server_name(b)
    assert len(server_name(a)) < 64


def test_nobody_running_means_start(tmp_path):
    assert ask_running(tmp_path / "home", "scout") is False


def test_a_second_start_asks_the_first_to_show_the_panel(qtbot, tmp_path):
    root = tmp_path / "home"
    server = InstanceServer(root)
    assert server.listen()
    try:
        with qtbot.waitSignal(server.show_requested, timeout=10_000) as blocker:
            p = _second_start(root, "scout")
        qtbot.waitUntil(lambda: p.poll() is not None, timeout=10_000)
        assert blocker.args == ["scout"]
        assert p.stdout.read().strip() == "True"
        with qtbot.waitSignal(server.show_requested, timeout=10_000) as blocker:
            p = _second_start(root, None)
        qtbot.waitUntil(lambda: p.poll() is not None, timeout=10_000)
        p.stdout.close()
        assert blocker.args == [""]
    finally:
        server.close()


def test_a_stale_socket_is_taken_over(qtbot, tmp_path):
    root = tmp_path / "home"
    name = server_name(root)
    first = QLocalServer()
    assert first.listen(name)
    # simulate a crash: the socket file stays but nobody accepts on it
    first.close()
    server = InstanceServer(root)
    try:
        assert server.listen()
    finally:
        server.close()


def test_garbage_on_the_socket_is_ignored(qtbot, tmp_path):
    from PySide6.QtNetwork import QLocalSocket

    root = tmp_path / "home"
    server = InstanceServer(root)
    assert server.listen()
    try:
        with qtbot.waitSignal(server.show_requested, timeout=5000) as blocker:
            sock = QLocalSocket()
            sock.connectToServer(server.name)
            sock.write(b"not json\n")
            sock.flush()
        assert blocker.args == [""]
        sock.abort()
        sock.deleteLater()
        qtbot.waitUntil(lambda: not server._buffers)
    finally:
        server.close()
