"""Take the README's screenshots of the Memory panel on the demo home.

Run under a display, e.g. Xvfb:

    xvfb-run -a -s "-screen 0 1280x900x24" .venv/bin/python docs/make_screenshots.py

Writes docs/screenshot-amber.png, -red.png, -make-room.png, -journal.png, -conflict.png and
-first-run.png (a fresh, empty home).
Every state is reached through the app and the core, as a person would.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from botmemory.core.notes import update
from botmemory.core.disk.safeio import atomic_write
from botmemory.core.store.writer import Actor
from botmemory.desktop import app as appmod
from botmemory.desktop import demo
from PySide6.QtCore import QCoreApplication, QItemSelectionModel

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


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    sys.exit(main())
