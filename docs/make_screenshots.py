"""Take the README's screenshots of the Memory panel on the demo home, and the looks of issue 29.

Run under a display, e.g. Xvfb:

    xvfb-run -a -s "-screen 0 1280x900x24" .venv/bin/python docs/make_screenshots.py
    .venv/bin/python docs/make_screenshots.py --looks      # starts its own X servers (Xvfb, openbox)

Writes docs/screenshot-amber.png, -red.png, -make-room.png, -journal.png, -conflict.png and
-first-run.png (a fresh, empty home).

``--looks`` takes the whole screen, window manager and all, for issue 29's person (three Claude Code
projects, one over its budget and one holding a token; Hermes near its limit; no OpenMausBot) on three
screens, each in an X server of its own: 1366×768 at 1× (screenshot-1366-*.png), 1280×800 at
QT_SCALE_FACTOR=2 (screenshot-2x-*.png) and 1366×768 with a dark palette (screenshot-dark-*.png): the
first run's welcome page with the offer, the panel on the project over its budget, Settings with its Agents,
the journal's rows (a redaction, an edit, an undo; Hermes' entries) and Forget everywhere.
Every state is reached through the app and the core, as a person would.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QItemSelectionModel

from botmemory.core.disk.safeio import atomic_write
from botmemory.core.notes import update
from botmemory.core.store.writer import Actor
from botmemory.desktop import app as appmod
from botmemory.desktop import demo

OUT = Path(__file__).resolve().parent
SIZE = (1120, 780)


def wait_until(cond, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        if cond():
            return
        time.sleep(0.01)
    raise TimeoutError("the app did not get there in time")


def settle(desk, ms: int = 300) -> None:
    wait_until(lambda: not desk.session.worker.busy)
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        time.sleep(0.01)


def start(root: Path, show: str | None = "scout"):
    started = appmod.launch(["--root", str(root), *(["--show", show] if show else []), "--no-tray"])
    desk = started.desk
    desk.panel.resize(*SIZE)
    settle(desk, 600)
    return started, desk


def stop(started) -> None:
    started.desk.shutdown()
    started.server.close()


def shoot(desk, name: str) -> None:
    path = OUT / f"screenshot-{name}.png"
    desk.panel.grab().save(str(path))
    print("wrote", path)


def main() -> int:
    # a home folder of its own, so the panel shows the path a person would see
    person = Path(tempfile.mkdtemp(prefix="botmemory-shots-")) / "priya"
    person.mkdir()
    os.environ["HOME"] = str(person)
    base = person / ".openmausbot"
    today = date.today()

    # 1. amber: the demo home as it opens
    root = base
    demo.build(root, today)
    started, desk = start(root)
    desk.panel.show_tab("loads")
    desk.panel.loads.message.setText("Which hotel for the Rotterdam workshop?")
    wait_until(lambda: "1. memory/" in desk.panel.loads.recall.toPlainText())
    settle(desk)
    shoot(desk, "amber")

    # 2. the journal: an edit made outside the app, selected with its diff
    desk.panel.show_tab("journal")
    settle(desk)
    table = desk.panel.journal.table
    model = desk.panel.journal.model
    row = next(i for i in range(model.rowCount()) if model.row_at(i).how == "outside")
    table.selectionModel().setCurrentIndex(model.index(row, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                                           | QItemSelectionModel.SelectionFlag.Rows)
    settle(desk)
    shoot(desk, "journal")

    # 3. a conflict: the person edits MEMORY.md while the bot writes to it
    desk.panel.show_tab("files")
    settle(desk)
    editor = desk.panel.editor
    editor.editor.moveCursor(editor.editor.textCursor().MoveOperation.End)
    editor.editor.insertPlainText(f"- {today.isoformat()} · from panel · Leela's first review is on Thursday\n")
    update.remember(desk.mem.store, "scout", "Leela starts on the Sahyadri research on Monday",
                    Actor.bot("Hiring"))
    editor.save()
    wait_until(lambda: editor.conflict_banner.isVisible())
    editor.editor.verticalScrollBar().setValue(editor.editor.verticalScrollBar().maximum())
    settle(desk)
    shoot(desk, "conflict")
    stop(started)

    # 4. red: the bot appended to MEMORY.md with its own file tools, past the budget
    person = person.parent / "priya-red" / "priya"
    person.mkdir(parents=True)
    os.environ["HOME"] = str(person)
    root = person / ".openmausbot"
    mem = demo.build(root, today)
    path = mem.home.file("scout", "MEMORY.md")
    extra = "".join(f"- {today.isoformat()} · from chat \"Research\" · Interview note {i}: drivers check the "
                    f"route at every stop\n" for i in range(1, 46))
    atomic_write(path, (path.read_text(encoding="utf-8") + "\n## Research notes\n" + extra).encode("utf-8"))
    started, desk = start(root)
    wait_until(lambda: desk.panel.gauge.gauge is not None and desk.panel.gauge.gauge.level.value == "red")
    desk.panel.show_tab("loads")
    settle(desk)
    block = desk.panel.loads.block
    block.verticalScrollBar().setValue(block.verticalScrollBar().maximum())
    settle(desk)
    shoot(desk, "red")

    # 5. Make room: the entries that would move, before they move
    desk.panel.room_button.click()
    wait_until(lambda: desk.panel.room_banner.isVisible())
    settle(desk)
    shoot(desk, "make-room")
    stop(started)

    # 6. the first run on a fresh, empty home
    person = person.parent.parent / "sam-fresh" / "sam"
    person.mkdir(parents=True)
    os.environ["HOME"] = str(person)
    root = person / ".openmausbot"
    root.mkdir()
    started, desk = start(root, None)
    wait_until(lambda: desk.panel.showing_welcome())
    settle(desk)
    shoot(desk, "first-run")
    stop(started)
    return 0


# ----- issue 29's looks: whole screens, in X servers of their own

LOOKS = {   # name: (screen, QT_SCALE_FACTOR, dark)
    "1366": ("1366x768", None, False),
    "2x": ("1280x800", "2", False),
    "dark": ("1366x768", None, True),
}


def dark_palette():
    """A dark palette as a dark desktop theme gives (Fusion's colours, inverted)."""
    from PySide6.QtGui import QColor, QPalette

    p = QPalette()
    role = QPalette.ColorRole
    for r, c in ((role.Window, "#2b2b2b"), (role.WindowText, "#e6e6e6"), (role.Base, "#1f1f1f"),
                 (role.AlternateBase, "#282828"), (role.ToolTipBase, "#3a3a3a"), (role.ToolTipText, "#e6e6e6"),
                 (role.Text, "#e6e6e6"), (role.Button, "#353535"), (role.ButtonText, "#e6e6e6"),
                 (role.BrightText, "#ff6b6b"), (role.Highlight, "#3d7bd9"), (role.HighlightedText, "#ffffff"),
                 (role.Link, "#6ea8ff"), (role.PlaceholderText, "#9a9a9a"), (role.Light, "#4a4a4a"),
                 (role.Midlight, "#3f3f3f"), (role.Mid, "#2f2f2f"), (role.Dark, "#1a1a1a"), (role.Shadow, "#000000")):
        p.setColor(r, QColor(c))
    p.setColor(QPalette.ColorGroup.Disabled, role.Text, QColor("#7a7a7a"))
    p.setColor(QPalette.ColorGroup.Disabled, role.ButtonText, QColor("#7a7a7a"))
    p.setColor(QPalette.ColorGroup.Disabled, role.WindowText, QColor("#7a7a7a"))
    return p


def whole_screen(name: str) -> None:
    """The whole screen as the person sees it (window manager included)."""
    from PySide6.QtGui import QGuiApplication

    settle_app(400)
    path = OUT / f"screenshot-{name}.png"
    QGuiApplication.primaryScreen().grabWindow(0).save(str(path))
    print("wrote", path)


def settle_app(ms: int) -> None:
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        time.sleep(0.01)


def looks_child(mode: str) -> int:
    """In an X server of its own: issue 29's person, the app as they meet it, the whole screen shot."""
    sys.path.insert(0, str(OUT.parent))
    from tests.desktop.scenario import build

    _screen, _scale, dark = LOOKS[mode]
    person = Path(tempfile.mkdtemp(prefix="botmemory-looks-")) / "priya"
    os.environ["HOME"] = str(person)
    for key in ("OPENMAUSBOT_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        os.environ.pop(key, None)
    who = build(person)
    from PySide6.QtWidgets import QApplication

    app = appmod.qt_app()
    if dark:
        QApplication.setStyle("Fusion")
        QApplication.setPalette(dark_palette())
    started = appmod.launch(["--no-tray"])
    desk = started.desk
    wait_until(lambda: desk.panel is not None and desk.panel.isVisible()
               and desk.panel.welcome.agents_list is not None, 20)
    whole_screen(f"{mode}-welcome")
    desk.panel.welcome.track_button.click()
    wait_until(lambda: desk.panel.bot is not None and len(desk.session.bots) == 4, 20)
    from botmemory.core.ops import Actor, redact, save, undo

    mem = desk.mem
    ids = {desk.session.names[b]: b for b in desk.session.bots}
    shop, blog = ids[str(who.shop_app)], ids[str(who.blog)]
    hermes = next(b for b in desk.session.bots if b.startswith("hermes"))
    # the journal's kinds of row: a redaction, an edit and its undo; Hermes' entries changed outside
    redact(mem, blog, "project_deploy.md", Actor.person("panel"))
    r = save(mem, blog, "project_deploy.md", "---\nname: project deploy\ndescription: how the blog is published\n"
             "type: project\n---\nThe blog deploys from GitHub Actions on every push to main.\n", Actor.person("panel"))
    undo(mem, blog, r.changes[0].id)
    desk.panel.set_bot(shop)
    wait_until(lambda: desk.panel.gauge.gauge is not None and desk.panel.applies is not None, 20)
    desk.panel.show_tab("loads")
    whole_screen(f"{mode}-panel")
    desk.panel.room_button.click()
    wait_until(lambda: desk.panel.room_banner.isVisible())
    whole_screen(f"{mode}-make-room")
    desk.panel.room_banner.hide()
    desk.panel.set_bot(blog)
    desk.panel.show_tab("journal")
    wait_until(lambda: desk.panel.journal.model.rowCount() >= 3)
    table, model = desk.panel.journal.table, desk.panel.journal.model
    row = next(i for i in range(model.rowCount()) if model.row_at(i).how == "redact")
    table.selectionModel().setCurrentIndex(model.index(row, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                                           | QItemSelectionModel.SelectionFlag.Rows)
    whole_screen(f"{mode}-journal")
    path = mem.home.workspace(hermes) / "MEMORY.md"
    path.write_text(path.read_text(encoding="utf-8") + "§\nOrders a flat white with oat milk on office days.\n",
                    encoding="utf-8")
    from botmemory.core.ops import scan

    scan(mem)
    desk.panel.set_bot(hermes)
    desk.panel.show_tab("journal")
    wait_until(lambda: desk.panel.journal.model.rowCount() >= 1)
    whole_screen(f"{mode}-journal-hermes")
    desk.panel.set_bot(shop)
    forget = desk.panel.open_forget()
    forget.words.setText("checkout timeout 4010")
    forget.preview_button.click()
    wait_until(lambda: forget.forget_button.isEnabled() or "nothing" in forget.message.text())
    whole_screen(f"{mode}-forget")
    forget.close()
    desk.open_settings()
    wait_until(lambda: desk._settings is not None and desk._settings.isVisible()
               and desk._settings.agents_page.state["claude-code"].text() != "…", 20)
    whole_screen(f"{mode}-settings")
    stop(started)
    del app
    return 0


def looks() -> int:
    """Each screen of :data:`LOOKS` in an X server of its own (Xvfb) with a window manager (openbox)."""
    import shutil
    import subprocess

    for tool in ("Xvfb", "openbox"):
        if shutil.which(tool) is None:
            print(f"{tool} is missing (Debian: apt-get install xvfb openbox)", file=sys.stderr)
            return 2
    failed = 0
    for n, (mode, (screen, scale, _dark)) in enumerate(LOOKS.items()):
        display = f":{140 + n}"
        xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{screen}x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
        env.pop("WAYLAND_DISPLAY", None)
        if scale:
            env["QT_SCALE_FACTOR"] = scale
        time.sleep(1.0)
        wm = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        try:
            p = subprocess.run([sys.executable, __file__, "--looks-child", mode], env=env, timeout=600)
            failed += p.returncode != 0
        finally:
            for proc in (wm, xvfb):
                proc.terminate()
                proc.wait(10)
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--looks"]:
        sys.exit(looks())
    if sys.argv[1:2] == ["--looks-child"]:
        sys.exit(looks_child(sys.argv[2]))
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    sys.exit(main())
