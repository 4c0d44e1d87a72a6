"""The app as a whole: no-tray fallback, notifications, one instance per home, and the real app live."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from PySide6.QtWidgets import QApplication

from botmemory.core.store.writer import Actor
from botmemory.desktop import app as appmod
from botmemory.desktop.app import App
from botmemory.desktop.instance import ask_running

from .conftest import BOT, OTHER, delete, entry, idle, memory_text, open_home


@pytest.fixture
def make_app(qtbot, mem):
    made = []

    def make(**kw):
        kw.setdefault("live", False)
        kw.setdefault("upkeep", False)
        a = App(mem, today_fixed=True, **kw)
        made.append(a)
        return a

    yield make
    for a in made:
        a.shutdown()
        if a.panel is not None:
            delete(a.panel)
        delete(a)



def close(started) -> None:
    """Shut a launched app down the way Quit does, and free its Qt objects on this thread."""
    desk = started.desk
    desk.shutdown()
    started.server.close()
    if desk._settings is not None:
        delete(desk._settings)
    delete(desk.panel)
    delete(desk)
    delete(started.server)

def test_without_a_tray_the_panel_is_the_window_and_the_app_keeps_running(qtbot, make_app, mem):
    appmod.qt_app()
    assert QApplication.quitOnLastWindowClosed() is False
    a = make_app(tray=False)
    a.start()
    assert a.tray is None
    assert a.panel is not None and a.panel.isVisible()
    idle(qtbot, a.session)
    quitting = []
    QApplication.instance().aboutToQuit.connect(lambda: quitting.append(1))
    a.panel.close()
    qtbot.wait(50)
    assert not quitting                                   # closing the window does not end the app
    a.show_panel(OTHER)
    assert a.panel.isVisible() and a.panel.bot == OTHER


def test_with_a_tray_nothing_opens_until_asked(qtbot, make_app, mem):
    mem.store.write(OTHER, "MEMORY.md", memory_text(170), Actor.person())
    a = make_app(tray=True)
    a.start()
    assert a.tray is not None and a.panel is None
    idle(qtbot, a.session)
    qtbot.waitUntil(lambda: a.tray.level.value == "amber")
    assert "ledger is nearly full" in a.tray.icon.toolTip()
    a.tray.open_panel.emit("")                            # a left click: the worst bot's panel
    assert a.panel.isVisible() and a.panel.bot == OTHER


def test_notices_reach_the_notifier_and_open_or_undo(qtbot, make_app, mem):
    a = make_app(tray=False)
    a.start()
    idle(qtbot, a.session)
    shown = []
    a.notifier.shown.connect(shown.append)
    # a bot's write that had to archive entries
    mem.store.write(BOT, "MEMORY.md", memory_text(200), Actor.person())
    from botmemory.core.notes import update

    update.remember(mem.store, BOT, "one more fact", Actor.bot("Plans"))
    qtbot.waitUntil(lambda: any(n.kind == "archived" for n in shown), timeout=5000)
    notice = next(n for n in shown if n.kind == "archived")
    assert notice.title == "scout: 1 older entry moved to the archive"
    # a gauge turning red
    before_red = mem.store.text(BOT, "MEMORY.md")
    mem.store.write(BOT, "MEMORY.md", memory_text(230), Actor.bot("Plans"))
    qtbot.waitUntil(lambda: any(n.kind == "red" for n in shown), timeout=5000)
    red = next(n for n in shown if n.kind == "red")
    a.notifier.activated.emit(red, "open")
    assert a.panel.tabs.currentIndex() == 1 and a.panel.bot == BOT     # the file, to trim it
    # Open on another notice shows the journal; Undo undoes its row
    rows = mem.journal.list(BOT, limit=1)
    from botmemory.desktop.session import Notice

    n = Notice("outside", BOT, "t", "x", rows[0].id, "MEMORY.md")
    a.notifier.activated.emit(n, "open")
    assert a.panel.tabs.currentIndex() == 2
    a.notifier.activated.emit(n, "undo")
    idle(qtbot, a.session)
    assert mem.store.text(BOT, "MEMORY.md") == before_red


def test_tray_actions_do_what_they_say(qtbot, make_app, mem, monkeypatch):
    from botmemory.desktop import obsidian

    calls = []
    monkeypatch.setattr(obsidian, "decide", lambda folder, file=None: obsidian.plan(folder, [folder], True))
    monkeypatch.setattr(obsidian, "open_url", lambda url, done=None: calls.append(url) or opens(done, True))
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, failed=None: calls.append(uri) or True)
    mem.store.write(BOT, "MEMORY.md", entry("2026-09-01", "Old") + " · until 2026-09-30\n", Actor.person())
    a = make_app(tray=True)
    a.start()
    idle(qtbot, a.session)
    a.tray.open_obsidian.emit(BOT)
    idle(qtbot, a.session)
    assert calls[-1].startswith("obsidian://open?path=") and calls[-1].endswith("scout")
    a.tray.reveal.emit(BOT)
    assert calls[-1].endswith("/workspaces/scout/MEMORY.md")
    with qtbot.waitSignal(a.session.upkeep_ran, timeout=5000):
        a.tray.tidy.emit(BOT)
    assert "Old" in mem.store.text(BOT, "memory/archive.md")
    row = mem.journal.list(BOT, limit=1)[0]
    a.tray.undo.emit(BOT, row.id)
    idle(qtbot, a.session)
    assert "Old" in mem.store.text(BOT, "MEMORY.md")


def test_the_real_app_sees_an_outside_change_in_the_journal_view(qtbot, tmp_path):
    """Start the app as ``botmemory-tray`` starts it, edit a file behind its back, watch the row arrive."""
    root = tmp_path / "home"
    mem = open_home(root)
    mem.store.write(BOT, "MEMORY.md", entry("2026-10-01", "Priya is vegetarian") + "\n", Actor.person("cli"))
    started = appmod.launch(["--root", str(root), "--show", BOT, "--no-tray"])
    desk = started.desk
    try:
        assert desk is not None and desk.panel is not None and desk.panel.isVisible()
        panel = desk.panel
        panel.show_tab("journal")
        qtbot.waitUntil(lambda: panel.journal.model.rowCount() == 1, timeout=10_000)
        qtbot.waitUntil(lambda: desk.session._watcher is not None, timeout=10_000)
        # an edit made in another editor, the way Obsidian saves: write a temp file, rename it over
        path = root / "workspaces" / BOT / "MEMORY.md"
        tmp = path.with_name(".MEMORY.md.obsidian-tmp")
        tmp.write_text(path.read_text(encoding="utf-8") + entry("2026-10-15", "Aisle seats", "Travel") + "\n",
                       encoding="utf-8")
        os.replace(tmp, path)
        qtbot.waitUntil(lambda: panel.journal.model.rowCount() == 2, timeout=10_000)
        top = panel.journal.model.row_at(0)
        assert (top.who, top.how, top.file) == ("person", "outside", "MEMORY.md")
        assert panel.journal.model.data(panel.journal.model.index(0, 2)) == "changed outside the app"
        assert "Aisle seats" in top.diff and top.undoable
        qtbot.waitUntil(lambda: "Aisle seats" in panel.editor.editor.toPlainText(), timeout=5000)
    finally:
        close(started)


def test_a_demo_start_opens_scouts_panel(qtbot, tmp_path):
    started = appmod.launch(["--demo", "--root", str(tmp_path / "demo"), "--no-tray"])
    desk = started.desk
    try:
        assert desk.panel.bot == "scout"
        qtbot.waitUntil(lambda: desk.panel.gauge.gauge is not None and desk.panel.gauge.gauge.level.value == "amber",
                        timeout=10_000)
    finally:
        close(started)


def _env(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_RUNTIME_DIR=str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700, exist_ok=True)
    return env


def test_one_app_per_home_between_real_processes(qtbot, tmp_path):
    root = tmp_path / "home"
    open_home(root).store.init(BOT)
    env = _env(tmp_path)
    cmd = [sys.executable, "-m", "botmemory.desktop.app", "--root", str(root), "--no-tray"]
    first = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    try:
        qtbot.waitUntil(lambda: first.poll() is not None or ask_running(root, None), timeout=20_000)
        assert first.poll() is None, first.stderr.read()
        second = subprocess.run([*cmd, "--show", BOT], env=env, capture_output=True, text=True, timeout=30,
                                check=False)
        assert second.returncode == 0
        assert first.poll() is None                      # the first one goes on
    finally:
        first.send_signal(signal.SIGTERM)
        code = first.wait(20)
        first.stderr.close()
    assert code == 0                                     # SIGTERM quits cleanly


def test_relaunch_arguments():
    assert appmod.relaunch_arguments(["--root", "/a", "--verbose", "--demo"], "/b") == ["--verbose", "--root", "/b"]
    assert appmod.relaunch_arguments(["--root=/a", "--show", "scout"], "/b") == ["--show", "scout", "--root", "/b"]


def test_settings_open_from_the_tray(qtbot, make_app, monkeypatch, tmp_path):
    opened = []
    kw_seen = []

    class FakeDialog:
        def __init__(self, home, **kw):
            opened.append(home)
            kw_seen.append(kw)

        def isVisible(self):
            return False

        def show(self):
            pass

    monkeypatch.setattr(appmod, "settings_dialog_class", lambda: FakeDialog)
    a = make_app(tray=True)
    a.tray.settings.emit()
    assert opened == [a.mem.home]
    assert kw_seen == [{"worker": a.session.worker, "demo": False}]   # one writer thread for the app


def test_the_demo_never_writes_the_apps_settings_and_is_removed_on_quit(qtbot, tmp_path, monkeypatch):
    from botmemory.desktop import settings_dialog as sd

    ui_path = tmp_path / "config" / "settings.json"
    monkeypatch.setattr(sd, "ui_settings_path", lambda: ui_path)
    monkeypatch.setattr(appmod.demo_mod.tempfile, "tempdir", str(tmp_path))
    started = appmod.launch(["--demo", "--no-tray"])
    desk = started.desk
    where = desk.mem.home.root
    try:
        assert where.parent == tmp_path and where.name.startswith("botmemory-demo-")
        assert desk.demo and desk.temporary == where
        desk.open_settings()
        dlg = desk._settings
        qtbot.waitUntil(lambda: dlg.save_button.isEnabled(), timeout=10_000)
        assert not dlg.home_edit.isEnabled() and not dlg.login_check.isEnabled()
        assert "demo" in dlg.home_edit.toolTip()
        dlg.tidy_spin.setValue(5)
        with qtbot.waitSignal(dlg.saved, timeout=10_000):
            dlg.save_button.click()
        assert not ui_path.exists()                      # the app's own settings are untouched
        assert sd.app_home(None, ui_path).root != where
    finally:
        close(started)
    assert not where.exists()                            # quitting removed the temporary demo home


def test_a_demo_in_a_given_folder_stays(qtbot, tmp_path):
    started = appmod.launch(["--demo", "--root", str(tmp_path / "demo"), "--no-tray"])
    close(started)
    assert (tmp_path / "demo" / "workspaces").is_dir()


def test_when_nothing_opens_the_log_or_folder_the_app_says_so_with_copy(qtbot, make_app, mem, monkeypatch):
    from botmemory.desktop import logs, obsidian, pathnotice

    monkeypatch.setattr(logs, "show_log", lambda: False)
    monkeypatch.setattr(obsidian, "open_url", lambda url, done=None: opens(done, False))
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, failed=None: False)
    a = make_app(tray=True)
    a.start()
    idle(qtbot, a.session)
    a.tray.show_log.emit()
    notice = pathnotice._open[-1]
    assert "log file" in notice.label.text() and notice.path_edit.text() == str(logs.log_path())
    notice.copy_button.click()
    assert QApplication.clipboard().text() == str(logs.log_path())
    notice.close()
    a.tray.reveal.emit(BOT)
    notice = pathnotice._open[-1]
    assert notice.path_edit.text().endswith("/workspaces/scout/MEMORY.md")
    assert obsidian.NOTHING_OPENS_FOLDERS in notice.label.text()
    notice.close()


def test_tray_undo_names_the_file(qtbot, make_app, mem, monkeypatch):
    mem.store.write(BOT, "memory/plans.md", "# Plans\n", Actor.person())
    a = make_app(tray=True)
    said = []
    monkeypatch.setattr(a, "_say", said.append)
    a.start()
    idle(qtbot, a.session)
    row = mem.journal.list(BOT, limit=1)[0]
    a.tray.undo.emit(BOT, row.id)
    idle(qtbot, a.session)
    assert said == ["Undone: memory/plans.md of scout is back as it was. The undo can itself be undone."]


def test_settings_switch_the_routes_on_and_quit_stops_them(qtbot, make_app, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QCheckBox

    from botmemory.desktop import serve
    from botmemory.desktop import settings_dialog as sd

    ui_path = tmp_path / "config" / "settings.json"
    monkeypatch.setattr(sd, "ui_settings_path", lambda: ui_path)
    from botmemory.desktop import autostart

    monkeypatch.setattr(autostart, "for_platform", lambda: autostart.XdgAutostart(tmp_path / "autostart"))
    a = make_app(tray=False)
    a.routes.port = 0
    a.open_settings()
    dlg = a._settings
    qtbot.waitUntil(lambda: dlg.save_button.isEnabled(), timeout=10_000)
    box = dlg.findChild(QCheckBox, "serve_check")
    qtbot.waitUntil(box.isEnabled, timeout=10_000)
    assert not box.isChecked()
    box.setChecked(True)
    with qtbot.waitSignal(a.routes.started, timeout=10_000):
        dlg.save_button.click()
    assert serve.enabled(ui_path) and a.routes.running
    server = a.routes.server
    a.shutdown()
    assert not a.routes.running and not any(t.is_alive() for t in server._threads)


def opens(done, ok: bool) -> bool:
    """What a fake ``open_url`` answers: *ok*, told to *done* too (as the real one does, maybe later)."""
    if done is not None:
        done(ok)
    return ok


SHOP = "claude-tmp-b-home-work-shop-app"


def shop_app(user, lines: int = 260):
    """A Claude Code project over its budget, whose transcript names its path /tmp/b/home/work/shop-app."""
    import json as _json

    project = user / ".claude" / "projects" / "-tmp-b-home-work-shop-app"
    (project / "memory").mkdir(parents=True)
    (project / "memory" / "MEMORY.md").write_text(
        "".join(f"- [Note {i}](note_{i}.md) — the shop's checkout, part {i}\n" for i in range(lines)))
    (project / "s1.jsonl").write_text(_json.dumps({"type": "user", "cwd": "/tmp/b/home/work/shop-app"}) + "\n")
    return project / "memory"


def test_people_see_the_projects_path_never_its_internal_id(qtbot, make_app, mem, no_real_agent_folders):
    """Issue 29, Misleading 9: the tray menu, its tooltip, notices, the forget preview and errors name the project."""
    from botmemory.core.ops import track
    from botmemory.desktop.session import Notice

    shop_app(no_real_agent_folders)
    track(mem, SHOP)
    a = make_app(tray=True)
    notices: list[Notice] = []
    a.session.notice.connect(notices.append)
    a.start()
    idle(qtbot, a.session)
    titles = [m.title() for m in a.tray.bot_menus.values()]
    assert "/tmp/b/home/work/shop-app" in titles and SHOP not in " ".join(titles)
    assert "/tmp/b/home/work/shop-app is over the budget" in a.tray.icon.toolTip()
    assert SHOP not in a.tray.icon.toolTip()
    a.show_panel(SHOP)
    idle(qtbot, a.session)
    dialog = a.panel.open_forget()
    dialog.words.setText("checkout part")
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: dialog.forget_button.isEnabled() or "nothing" in dialog.message.text(), timeout=5000)
    shown = " ".join(w.text() for w in dialog.findChildren(type(dialog.message)))
    assert SHOP not in shown
    dialog.close()
    a.panel.say(f"the folder of {SHOP} is gone or not readable; `botmemory untrack {SHOP}` stops tracking it")
    assert SHOP not in a.panel.status_label.text() and "/tmp/b/home/work/shop-app" in a.panel.status_label.text()
    from botmemory.core.ops import scan

    scan(mem)                                  # the baseline of the folder
    with open(mem.home.workspace(SHOP) / "MEMORY.md", "a") as f:
        f.write("- [Late](late.md)\n")
    assert scan(mem)                           # its rows reach the app through the journal's row listener
    qtbot.waitUntil(lambda: any(n.kind == "outside" for n in notices), timeout=5000)
    assert all(SHOP not in n.title + n.text for n in notices)


def test_the_forget_dialog_is_wide_enough_to_read_its_preview(qtbot, make_app, mem):
    """Issue 29, Misleading 7: it opened ~290 px wide, its title cut and the preview over the buttons."""
    mem.store.write(BOT, "memory/home.md", "".join(
        f"- 2026-10-0{i} · from chat \"Moving\" · Lived at {i} Elm Street, the flat above the bakery on the corner\n"
        for i in range(1, 9)), Actor.person("cli"))
    a = make_app(tray=False)
    a.start()
    idle(qtbot, a.session)
    dialog = a.panel.open_forget()
    qtbot.waitExposed(dialog)
    dialog.words.setText("Elm Street")
    dialog.preview_button.click()
    qtbot.waitUntil(dialog.forget_button.isEnabled, timeout=5000)
    assert dialog.width() >= 600
    assert dialog.fontMetrics().horizontalAdvance(dialog.windowTitle()) < dialog.width() - 120
    scroll = dialog.rows_scroll
    top_of_button = dialog.forget_button.mapTo(dialog, dialog.forget_button.rect().topLeft()).y()
    bottom_of_preview = scroll.mapTo(dialog, scroll.rect().bottomLeft()).y()
    assert bottom_of_preview < top_of_button                   # the preview never runs under the buttons
    dialog.close()


def test_window_titles_do_not_repeat_the_apps_name(qtbot, make_app, mem):
    """Issue 29, Looks: "Agent memory folders — botmemory — Bot Memory" — the platform adds " — Bot Memory" itself."""
    from botmemory.desktop.agents_view import AgentsDialog
    from botmemory.desktop.settings_dialog import SettingsDialog

    a = make_app(tray=False)
    a.start()
    idle(qtbot, a.session)
    dialogs = [AgentsDialog(mem, [], []), SettingsDialog(mem.home, worker=a.session.worker)]
    titles = [a.panel.windowTitle(), a.panel.open_forget().windowTitle(), *(d.windowTitle() for d in dialogs)]
    for d in dialogs:
        qtbot.addWidget(d)
    assert all("botmemory" not in t.lower() and "bot memory" not in t.lower() for t in titles), titles
    idle(qtbot, a.session)
