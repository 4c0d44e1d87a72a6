"""The tray app serves the memory routes when switched on in Settings."""
from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QVBoxLayout, QWidget

from botmemory.core import token_path
from botmemory.desktop import serve

from .conftest import BOT, idle


def get(url: str, path: str, token: str) -> tuple[int, Any]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        c.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        r = c.getresponse()
        return r.status, json.loads(r.read())
    finally:
        c.close()


def test_the_switch_is_kept_with_the_other_settings(tmp_path: Path) -> None:
    ui = tmp_path / "settings.json"
    ui.write_text('{"home": "/somewhere"}')
    assert serve.enabled(ui) is False
    serve.set_enabled(True, ui)
    assert serve.enabled(ui) is True and json.loads(ui.read_text()) == {"home": "/somewhere", "serveRoutes": True}
    serve.set_enabled(False, ui)
    assert serve.enabled(ui) is False


def test_switched_on_it_serves_the_session_and_switched_off_it_stops(qtbot, session, tmp_path: Path) -> None:
    ui = tmp_path / "settings.json"
    service = serve.RoutesService(session, port=0, ui_path=ui)
    rows: list[Any] = []
    session.mem.row_listeners.append(rows.append)
    with qtbot.waitSignal(service.started, timeout=10_000) as started:
        service.apply(True)
    url = started.args[0]
    assert serve.enabled(ui) and service.running
    token = token_path(session.mem.home).read_text().strip()
    status, body = get(url, f"/api/bots/{BOT}/memory", token)
    assert status == 200 and body["bot"] == BOT
    assert get(url, f"/api/bots/{BOT}/memory", "wrong")[0] == 401
    c = http.client.HTTPConnection("127.0.0.1", int(url.rsplit(":", 1)[1]), timeout=30)
    c.request("PUT", f"/api/bots/{BOT}/memory/file", body=json.dumps({"path": "memory/x.md", "text": "hi\n"}),
              headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    assert c.getresponse().status == 200
    c.close()
    assert [r.how for r in rows] == ["api"]   # the session's listeners see a route's change
    with qtbot.waitSignal(service.stopped, timeout=10_000):
        service.apply(False)
    assert not serve.enabled(ui) and not service.running
    service.stop()


def test_start_if_enabled_and_a_port_in_use_says_so(qtbot, session, tmp_path: Path) -> None:
    ui = tmp_path / "settings.json"
    serve.set_enabled(True, ui)
    first = serve.RoutesService(session, port=0, ui_path=ui)
    with qtbot.waitSignal(first.started, timeout=10_000):
        first.start_if_enabled()
    assert first.server is not None
    second = serve.RoutesService(session, port=first.server.port, ui_path=ui)
    with qtbot.waitSignal(second.failed, timeout=10_000) as failed:
        second.apply(True)
    assert "could not start" in failed.args[0] and "cannot listen" in failed.args[0]
    idle(qtbot, session)
    first.stop()
    assert not first.running


def test_the_settings_checkbox_shows_the_switch_and_applies_it_on_save(qtbot, session, tmp_path: Path) -> None:
    from PySide6.QtCore import Signal

    class Dialog(QWidget):
        saved = Signal(object)

    ui = tmp_path / "settings.json"
    serve.set_enabled(True, ui)
    dlg = Dialog()
    qtbot.addWidget(dlg)
    layout = QVBoxLayout(dlg)
    layout.addWidget(QWidget())
    layout.addWidget(QWidget())
    service = serve.RoutesService(session, port=0, ui_path=ui)
    box = serve.add_checkbox(dlg, service)
    qtbot.waitUntil(box.isEnabled, timeout=10_000)
    assert box.isChecked() and layout.indexOf(box) == 0
    box.setChecked(False)
    dlg.saved.emit(object())
    idle(qtbot, session)
    assert serve.enabled(ui) is False and not service.running
    box.setChecked(True)
    with qtbot.waitSignal(service.started, timeout=10_000):
        dlg.saved.emit(object())
    assert serve.enabled(ui) is True
    service.stop()


def test_on_the_demo_the_checkbox_is_locked(qtbot, session, tmp_path: Path) -> None:
    dlg = QWidget()
    qtbot.addWidget(dlg)
    QVBoxLayout(dlg)
    service = serve.RoutesService(session, port=0, ui_path=tmp_path / "settings.json", persist=False)
    box = serve.add_checkbox(dlg, service, demo=True)
    idle(qtbot, session)
    assert not box.isEnabled() and "demo" in box.toolTip()
