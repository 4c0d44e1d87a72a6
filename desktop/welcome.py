"""The first run: what botmemory is for, and the next step, on a home with no bots yet.

Shown by the Memory panel instead of the gauge and tabs while the home has no
bot. It offers the next steps: the agents' memory folders found on this
computer (filled only when core offers a finder — see the HOOK in
:mod:`botmemory.desktop.corelink`), choosing another home (Settings), or
creating a bot here.
"""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import BotMemoryError, check_bot_id, init, kind_label, track

from . import corelink
from .agents_view import offer_text
from .look import secondary
from .session import Session
from .wording import pretty_path, shown_name

logger = logging.getLogger(__name__)

ABOUT = (
    "Bot Memory looks after an AI bot's long-term memory: plain markdown files the bot writes "
    "(<b>MEMORY.md</b>, topic notes, daily logs) and you can edit in any editor. It shows how much of "
    "MEMORY.md really loads into every turn, keeps passwords and keys out of the files, and records every "
    "change — the bot's, yours, other programs' — so each one can be undone."
)


def bot_id_problem(name: str) -> str | None:
    """Why *name* cannot be a bot id, or None."""
    if not name.strip():
        return "Type a name for the bot."
    try:
        check_bot_id(name.strip())
    except BotMemoryError as e:
        return str(e)
    return None


def _note(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


class WelcomePage(QWidget):
    """What a new user sees on a home without bots."""

    choose_home = Signal()
    """The person wants another home folder (the app opens Settings)."""
    bot_created = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None, *, can_choose_home: bool = True,
                 choose_home_reason: str = "") -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("welcome")

        title = QLabel("<h2>Welcome to Bot Memory</h2>")
        about = _note(ABOUT)
        self.home_label = _note()

        # the agents' memory folders found here (corelink.find_agents): the first-run offer, in the page
        self.agents_box = QGroupBox("Memory folders found on this computer")
        self.agents_layout = QVBoxLayout(self.agents_box)
        self.agents_box.hide()
        self.found: list[corelink.FoundFolder] = []
        self.agents_list: QListWidget | None = None
        self.track_button: QPushButton | None = None

        self.home_button = QPushButton("Choose the bot home…")
        self.home_button.clicked.connect(self.choose_home)
        home_box = QGroupBox("Your bot already has a home folder?")
        hb = QVBoxLayout(home_box)
        hb.addWidget(_note("OpenMausBot keeps its bots in a home folder (normally <tt>~/.openmausbot</tt>, with "
                           "a <tt>workspaces</tt> folder inside). Choose it, and Bot Memory opens there from "
                           "now on."))
        row = QHBoxLayout()
        row.addWidget(self.home_button)
        row.addStretch(1)
        hb.addLayout(row)
        if not can_choose_home:
            self.home_button.setEnabled(False)
            self.home_button.setToolTip(choose_home_reason)

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("a name, such as scout")
        self.name_edit.setMaxLength(64)
        self.create_button = QPushButton("Create the bot")
        self.create_button.setEnabled(False)
        self.create_button.setToolTip("Type a name first.")
        self.create_error = QLabel()
        self.create_error.setWordWrap(True)
        self.create_error.setStyleSheet("color: #c62828;")
        self.create_error.hide()
        self.name_edit.textChanged.connect(self._name_changed)
        self.name_edit.returnPressed.connect(self.create_bot)
        self.create_button.clicked.connect(self.create_bot)
        create_box = QGroupBox("Start a new bot here")
        cb = QVBoxLayout(create_box)
        cb.addWidget(_note("Creates <tt>workspaces/&lt;name&gt;/MEMORY.md</tt> and its <tt>memory/</tt> folder "
                           "in this home — what <tt>botmemory init NAME</tt> does. A bot harness then writes its "
                           "notes there through the <tt>botmemory</tt> command."))
        crow = QHBoxLayout()
        crow.addWidget(self.name_edit, 1)
        crow.addWidget(self.create_button)
        cb.addLayout(crow)
        cb.addWidget(self.create_error)

        demo = _note("Just looking? <tt>botmemory-tray --demo</tt> opens a demo home with two bots; it is deleted "
                     "when you quit.")
        secondary(demo)

        box = QVBoxLayout(self)
        box.setContentsMargins(24, 16, 24, 16)
        box.addWidget(title)
        box.addWidget(about)
        box.addWidget(self.home_label)
        box.addSpacing(6)
        box.addWidget(self.agents_box)
        box.addWidget(home_box)
        box.addWidget(create_box)
        box.addWidget(demo)
        box.addStretch(1)
        self.set_home_text()

    def set_home_text(self) -> None:
        self.home_label.setText(f"This home, <tt>{pretty_path(self.session.mem.home.root)}</tt>, has no bots yet. "
                                "Next step — one of these:")

    # ----- found folders (the agents HOOK)

    def look_for_agents(self) -> None:
        """Ask core's finder (on the worker) for agent memory folders; the section stays hidden without one."""
        mem = self.session.mem
        self.session.submit_read(lambda: corelink.find_agents(mem), self._agents_found,
                                 lambda e: logger.info("looking for agent folders failed: %s", e))

    def _agents_found(self, found: list[corelink.FoundFolder] | None) -> None:
        """The offer, in the page: what was found, ticked, and one button to track them (then the panel opens)."""
        while self.agents_layout.count():
            item = self.agents_layout.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None:
                w.deleteLater()
        self.found = list(found or [])
        self.agents_list = None
        self.track_button = None
        if found is None:            # core offers no finder
            self.agents_box.hide()
            return
        if not found:
            self.agents_layout.addWidget(_note("No Claude Code, OpenClaw or Hermes memory folders were found."))
            self.agents_box.show()
            return
        question = offer_text(found)
        self.agents_layout.addWidget(_note(f"<b>{question}</b>" if question
                                           else "Every agent memory folder found here is tracked."))
        self.agents_layout.addWidget(_note("botmemory shows what each agent loads, journals every change with undo, "
                                           "and never writes into a folder unless you ask."))
        self.agents_list = QListWidget()
        self.agents_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.agents_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        for f in found:
            entry = QListWidgetItem(f"{shown_name(f.name or f.id)} · {kind_label(f.agent)}")
            entry.setData(Qt.ItemDataRole.UserRole, f.id)
            entry.setToolTip(f"Its memory folder: {pretty_path(f.path)}")
            flags = entry.flags() | Qt.ItemFlag.ItemIsUserCheckable
            entry.setFlags(flags & ~Qt.ItemFlag.ItemIsEnabled if f.tracked else flags)
            entry.setCheckState(Qt.CheckState.Checked)
            self.agents_list.addItem(entry)
        rows = min(len(found), 6)
        self.agents_list.setFixedHeight(self.agents_list.sizeHintForRow(0) * rows + 2 * self.agents_list.frameWidth()
                                        + 4)
        self.agents_layout.addWidget(self.agents_list)
        self.track_button = QPushButton("&Track the ticked folders")
        self.track_button.setEnabled(any(not f.tracked for f in found))
        self.track_button.clicked.connect(self.track_ticked)
        row = QHBoxLayout()
        row.addWidget(self.track_button)
        row.addStretch(1)
        holder = QWidget()
        holder.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        self.agents_layout.addWidget(holder)
        self.agents_box.show()

    def ticked(self) -> list[str]:
        if self.agents_list is None:
            return []
        out = []
        for i in range(self.agents_list.count()):
            item = self.agents_list.item(i)
            if item.checkState() == Qt.CheckState.Checked and item.flags() & Qt.ItemFlag.ItemIsEnabled:
                out.append(str(item.data(Qt.ItemDataRole.UserRole)))
        return out

    def track_ticked(self) -> None:
        """Track every ticked folder (one operation); the panel then opens on the first."""
        ids = self.ticked()
        if not ids:
            return
        if self.track_button is not None:
            self.track_button.setEnabled(False)
        self.session.run_op(lambda mem: [track(mem, i) for i in ids], lambda _r: self.session.rescan(),
                            lambda e: self._show_error(f"Could not track them: {e}"))

    def _track(self, folder_id: str) -> None:
        self.session.run_op(lambda mem: track(mem, folder_id), lambda _r: self.session.rescan(),
                            lambda e: self._show_error(f"Could not track it: {e}"))

    # ----- create a bot

    def _name_changed(self, text: str) -> None:
        problem = bot_id_problem(text) if text else None
        self.create_button.setEnabled(bool(text) and problem is None)
        self.create_button.setToolTip(problem or ("" if text else "Type a name first."))
        if problem:
            self._show_error(problem)
        else:
            self.create_error.hide()

    def _show_error(self, text: str) -> None:
        self.create_error.setText(text)
        self.create_error.show()

    def create_bot(self) -> None:
        name = self.name_edit.text().strip()
        problem = bot_id_problem(name)
        if problem:
            self._show_error(problem)
            return
        self.create_button.setEnabled(False)
        def failed(e: BaseException) -> None:
            self._show_error(f"Could not create {name}: {e}")
            self.create_button.setEnabled(True)

        self.session.run_op(lambda mem: init(mem, check_bot_id(name)), lambda _r: self._created(name), failed)

    def _created(self, name: str) -> None:
        self.session.refresh_bots()
        self.name_edit.clear()
        self.bot_created.emit(name)

    def found_folders(self) -> list[Any]:
        return list(self.found)
