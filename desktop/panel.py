"""The Memory panel: one window showing one bot's memory (the spec's "Bot Settings → Memory").

The gauge on top; then What loads (with the recall preview), Files (with the
editor), the Journal (with one-click undo) and Upkeep. It listens to the
session: a change from anywhere — this window, Obsidian, the bot — arrives as
journal rows, and every part refreshes from them.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from botmemory.core import MEMORY_FILE, BotMemoryError, Conflict, classify
from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from . import icons, obsidian
from .editor import FileEditor
from .gauge import GaugeWidget
from .journal_view import JournalView
from .loads_view import LoadsView
from .models import FilesModel, list_files
from .session import Session
from .upkeep_view import UpkeepView

logger = logging.getLogger(__name__)

TABS = ("loads", "files", "journal", "upkeep")
STATUS_MS = 8000
NEW_TOPIC = """---
title: {title}
description:
aliases: []
---
# {title}

"""


def pretty_path(path: Path) -> str:
    """A folder as a person reads it: ``~/.openmausbot/workspaces/scout``."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


class MemoryPanel(QWidget):
    """The window. ``set_bot`` switches which bot it shows."""

    bot_changed = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bot: str | None = None
        self._files_asked = 0
        self.setWindowTitle("Memory — botmemory")
        self.resize(1040, 760)
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setWindowIcon(icons.app_icon())

        self.bot_box = QComboBox()
        self.bot_box.setMinimumContentsLength(12)
        self.bot_box.currentTextChanged.connect(lambda b: self.set_bot(b) if b and b != self.bot else None)
        self.obsidian_button = QPushButton("Open in Obsidian")
        self.reveal_button = QPushButton("Show in file manager")
        self.obsidian_button.clicked.connect(self.open_in_obsidian)
        self.reveal_button.clicked.connect(self.show_in_file_manager)
        self.path_label = QLabel()
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path_label.setStyleSheet("color: #666;")
        head = QHBoxLayout()
        head.addWidget(QLabel("Bot"))
        head.addWidget(self.bot_box)
        head.addWidget(self.path_label, 1)
        head.addWidget(self.obsidian_button)
        head.addWidget(self.reveal_button)

        self.gauge = GaugeWidget()

        self.loads = LoadsView(session)
        self.files_model = FilesModel(self)
        self.files_view = QTableView()
        self.files_view.setModel(self.files_model)
        self.files_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.files_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.files_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.files_view.verticalHeader().hide()
        self.files_view.setShowGrid(False)
        self.files_view.setWordWrap(False)
        fh = self.files_view.horizontalHeader()
        fh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        fh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        fh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.files_view.selectionModel().currentRowChanged.connect(lambda cur, _p: self._file_selected(cur.row()))
        self.new_topic_button = QPushButton("New topic…")
        self.new_topic_button.clicked.connect(self.new_topic)
        self.editor = FileEditor(session)
        self.editor.status.connect(self.say)
        self.editor.deleted.connect(lambda _r: self.refresh_files())
        left = QWidget()
        lb = QVBoxLayout(left)
        lb.setContentsMargins(0, 0, 0, 0)
        lb.addWidget(self.files_view, 1)
        lb.addWidget(self.new_topic_button)
        files = QSplitter(Qt.Orientation.Horizontal)
        files.addWidget(left)
        files.addWidget(self.editor)
        files.setStretchFactor(0, 2)
        files.setStretchFactor(1, 3)
        files.setSizes([380, 620])

        self.journal = JournalView(session)
        self.journal.status.connect(self.say)
        self.upkeep = UpkeepView(session)
        self.upkeep.status.connect(self.say)

        self.tabs = QTabWidget()
        self.tabs.addTab(self.loads, "What loads")
        self.tabs.addTab(files, "Files")
        self.tabs.addTab(self.journal, "Journal")
        self.tabs.addTab(self.upkeep, "Upkeep")

        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self._status_timer = QTimer(self)
        self._status_timer.setSingleShot(True)
        self._status_timer.setInterval(STATUS_MS)
        self._status_timer.timeout.connect(lambda: self.status_label.setText(""))

        box = QVBoxLayout(self)
        box.addLayout(head)
        box.addWidget(self.gauge)
        box.addWidget(self.tabs, 1)
        box.addWidget(self.status_label)

        QShortcut(QKeySequence.StandardKey.Close, self, activated=self.close)
        session.gauges_changed.connect(self._gauges)
        session.rows_added.connect(self._rows_added)
        session.bots_changed.connect(self._bots)
        session.error.connect(self.say)
        self._bots(session.bots)

    # ----- bots

    def _bots(self, bots: list[str]) -> None:
        self.bot_box.blockSignals(True)
        self.bot_box.clear()
        self.bot_box.addItems(bots)
        if self.bot:
            self.bot_box.setCurrentText(self.bot)
        self.bot_box.blockSignals(False)
        if self.bot is None and bots:
            self.set_bot(bots[0])

    def set_bot(self, bot: str) -> None:
        if bot == self.bot:
            return
        if self.editor.dirty:
            self.say(f"Unsaved changes to {self.editor.rel} of {self.bot} were left in the editor of that bot; "
                     "they are not saved.")
        self.bot = bot
        self.bot_box.blockSignals(True)
        if self.bot_box.findText(bot) < 0:
            self.bot_box.addItem(bot)
        self.bot_box.setCurrentText(bot)
        self.bot_box.blockSignals(False)
        self.setWindowTitle(f"{bot} — Memory")
        try:
            self.path_label.setText(pretty_path(self.session.mem.home.workspace(bot)))
        except BotMemoryError:
            self.path_label.setText("")
        self.gauge.set_gauge(self.session.gauges.get(bot))
        self.editor.clear()
        self.loads.set_bot(bot)
        self.journal.set_bot(bot)
        self.upkeep.set_bot(bot)
        self.refresh_files(select=MEMORY_FILE)
        self.bot_changed.emit(bot)

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    # ----- refreshing from the session

    def _gauges(self, gauges: dict[str, Any]) -> None:
        if self.bot is not None:
            self.gauge.set_gauge(gauges.get(self.bot))

    def _rows_added(self, rows: list[Any]) -> None:
        mine = [r for r in rows if r.bot == self.bot]
        if not mine:
            return
        files = {r.file for r in mine}
        self.refresh_files()
        if self.editor.rel in files:
            self.editor.file_changed_on_disk()
        self.loads.refresh()
        self.upkeep.refresh()

    def refresh_files(self, select: str | None = None) -> None:
        bot = self.bot
        if bot is None:
            return
        mem = self.session.mem
        self._files_asked += 1
        asked = self._files_asked
        self.session.submit_read(lambda: list_files(mem, bot), lambda files: self._files(asked, bot, files, select),
                                 lambda e: self.say(f"Could not list the files: {e}"))

    def _files(self, asked: int, bot: str, files: list[Any], select: str | None) -> None:
        if bot != self.bot or asked != self._files_asked:   # a newer listing is on its way
            return
        keep = select or self.editor.rel
        self.files_view.selectionModel().blockSignals(True)
        self.files_model.set_files(files)
        self.files_view.selectionModel().blockSignals(False)
        self.journal.set_files([f.rel for f in files])
        row = self.files_model.row_of(keep) if keep else -1
        if row >= 0:
            idx = self.files_model.index(row, 0)
            self.files_view.selectionModel().blockSignals(True)
            self.files_view.selectionModel().setCurrentIndex(
                idx, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            self.files_view.selectionModel().blockSignals(False)
            if keep != self.editor.rel:
                self.editor.open_file(bot, keep)

    def _file_selected(self, row: int) -> None:
        f = self.files_model.file_at(row)
        if f is None or self.bot is None or f.rel == self.editor.rel:
            return
        if self.editor.dirty:
            self.say(f"Your unsaved changes to {self.editor.rel} were kept in the editor's draft box.")
            draft = self.editor.editor.toPlainText()
            self.editor.open_file(self.bot, f.rel)
            self.editor.draft.setPlainText(draft)
            self.editor.draft_box.show()
            return
        self.editor.open_file(self.bot, f.rel)

    def open_file(self, rel: str) -> None:
        self.show_tab("files")
        self.refresh_files(select=rel)

    # ----- actions

    def new_topic(self) -> None:
        if self.bot is None:
            return
        name, ok = QInputDialog.getText(self, "New topic", "Topic file name (letters, numbers, spaces, dots, dashes):")
        if ok and name.strip():
            self.create_topic(name.strip())

    def create_topic(self, name: str) -> None:
        bot = self.bot
        if bot is None:
            return
        if "/" in name or "\\" in name:
            self.say("A topic name is one file name under memory/: letters, numbers, spaces, dots and dashes, "
                     "nothing nested.")
            return
        if not name.endswith(".md"):
            name += ".md"
        rel = f"memory/{name}"
        try:
            classify(rel)
        except BotMemoryError as e:
            self.say(str(e))
            return
        title = name[:-3].replace("-", " ").strip().capitalize()
        self.session.save(bot, rel, NEW_TOPIC.format(title=title), None,
                          lambda _c: (self.refresh_files(select=rel), self.say(f"Created {rel}.")),
                          lambda e: self.say(f"{rel} already exists." if isinstance(e, Conflict)
                                             else f"Could not create {rel}: {e}"))

    def open_in_obsidian(self) -> None:
        if self.bot is None:
            return
        obsidian.open_in_obsidian(self.session.worker, self.session.mem.home.workspace(self.bot), self.say)

    def show_in_file_manager(self) -> None:
        if self.bot is None:
            return
        rel = self.editor.rel or MEMORY_FILE
        obsidian.show_in_file_manager(self.session.mem.home.workspace(self.bot) / rel)

    def say(self, text: str) -> None:
        self.status_label.setText(text)
        self._status_timer.start()

    def bring_up(self) -> None:
        self.show()
        self.setWindowState((self.windowState() & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
        self.raise_()
        self.activateWindow()

    def closeEvent(self, event: QCloseEvent) -> None:
        # the app keeps running in the tray (or until Quit); closing only hides the window
        event.accept()
