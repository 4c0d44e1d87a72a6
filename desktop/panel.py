"""The Memory panel: one window showing one bot's memory.

The gauge on top; then What loads (with the recall preview), Files (with the
editor), the Journal (with one-click undo) and Upkeep. It listens to the
session: a change from anywhere — this window, Obsidian, the bot — arrives as
journal rows, and every part refreshes from them.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QListView,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import (
    INDEX_TOPIC,
    MEMORY_FILE,
    ONLY_FIRST_LINES,
    TOPIC_NAME_RULE,
    BotMemoryError,
    Conflict,
    FolderActions,
    Home,
    RoomPreview,
    counted,
    folder_actions,
    make_room,
    room_preview,
    save,
    topic_name_rule,
    topic_path,
    undo_overflow,
)

from . import icons, obsidian, pathnotice
from .agents_view import SecretsBanner, display_name, topic_prefix
from .corelink import ABOUT_ME
from .editor import Banner, FileEditor, mono_font
from .forget_view import ForgetDialog
from .gauge import GaugeWidget
from .journal_view import JournalView
from .loads_view import LoadsView
from .look import ElidedLabel, fit_on_screen, secondary
from .models import FilesModel, list_files
from .session import PANEL, UNDO, Session
from .sync_view import SyncLine
from .team_view import TeamView
from .upkeep_view import UpkeepView
from .welcome import WelcomePage
from .wording import pretty_path

logger = logging.getLogger(__name__)

TABS = ("loads", "files", "journal", "upkeep", "team")
STATUS_MS = 8000
NEW_TOPIC = """---
title: {title}
description:
aliases: []
---
# {title}

"""


NO_BOT = "No bot is open: create one or choose the bot home first."
PANEL_SIZE = (1040, 760)
PANEL_MIN = (520, 340)
"""The panel fits a 1366×768 screen, and 1280×800 at twice the scale (640×400): what does not fit scrolls."""
ROOM_TIPS = {
    "archive": "Move the oldest dated entries to memory/archive.md until MEMORY.md loads whole",
    "index": f"Move the oldest index lines into {INDEX_TOPIC}, which the index points at, until MEMORY.md loads whole",
}


def topic_name_problem(name: str, home: Home | None = None, bot: str | None = None) -> str | None:
    """Why *name* cannot be a new topic's file name in *bot*'s folder, by its kind's rule (core's
    ``topic_path``); without a bot, a workspace's rule. None when it can."""
    if not name.strip():
        return "Type a name."
    try:
        topic_path(home or Home(Path(".")), bot or "bot", name)
    except BotMemoryError as e:
        return str(e)
    return None


class TopicDialog(QInputDialog):
    """New topic: the name is checked as it is typed; OK stays disabled, with the reason, until it is valid."""

    @staticmethod
    def prompt_for(rule: str) -> str:
        """The prompt, with the folder kind's rule as core words it (``topic_name_rule``)."""
        return f"Topic file name — {rule}:"

    def __init__(self, parent: QWidget | None = None, problem: Callable[[str], str | None] = topic_name_problem,
                 prompt: str | None = None) -> None:
        prompt = prompt if prompt is not None else self.prompt_for(TOPIC_NAME_RULE)
        super().__init__(parent)
        self.prompt = prompt
        self.problem = problem
        self.setWindowTitle("New topic")
        self.setLabelText(self.prompt)
        self.setInputMode(QInputDialog.InputMode.TextInput)
        for label in self.findChildren(QLabel):   # the rule is a sentence: wrapped, not one wide line
            label.setWordWrap(True)
        self.textValueChanged.connect(self._check)
        self._check("")

    def ok_button(self) -> QPushButton | None:
        box = self.findChild(QDialogButtonBox)
        return box.button(QDialogButtonBox.StandardButton.Ok) if box is not None else None

    def _check(self, text: str) -> None:
        problem = self.problem(text)
        shown = problem if text.strip() else None
        self.setLabelText(self.prompt + (f"\n\n{shown}" if shown else ""))
        ok = self.ok_button()
        if ok is not None:
            ok.setEnabled(problem is None)
            ok.setToolTip(problem or "")


class _BodyLayout(QVBoxLayout):
    """The bot's page scrolls only below its minimum size: a scroll area asks a layout with wrapped text for the
    height it would like at a width, which for the bot's page is far more than it needs (its editors could use
    any height), and would show a scroll bar on a screen the panel fits. The welcome page, text from top to
    bottom, does need that height (else its sentences overlap): *wrapped* says which page is shown."""

    def __init__(self, parent: QWidget, wrapped: Callable[[], bool]) -> None:
        super().__init__(parent)
        self._wrapped = wrapped

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return self._wrapped() and super().hasHeightForWidth()


class MemoryPanel(QWidget):
    """The window. ``set_bot`` switches which bot it shows."""

    bot_changed = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None, *, demo: bool = False) -> None:
        super().__init__(parent)
        self.session = session
        self.bot: str | None = None
        self._pending_bot: str | None = None
        self._files_asked = 0
        self.setWindowTitle("Bot Memory")
        self.resize(*PANEL_SIZE)
        self.setMinimumSize(*PANEL_MIN)
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setWindowIcon(icons.app_icon())

        self.bot_box = QComboBox()
        self.bot_box.setMinimumContentsLength(12)
        # a tracked folder's name ("/home/priya/src/checkout-api · Claude Code") shows whole, up to a limit
        self.bot_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.bot_box.setMaximumWidth(480)
        self.bot_box.currentIndexChanged.connect(self._bot_chosen)
        self.obsidian_button = QPushButton("Open in Obsidian")
        self.reveal_button = QPushButton("Show in file manager")
        self.obsidian_button.clicked.connect(self.open_in_obsidian)
        self.reveal_button.clicked.connect(self.show_in_file_manager)
        self.path_label = ElidedLabel()           # a long path is cut in the middle, never widening the window
        secondary(self.path_label)
        head = QHBoxLayout()
        head.addWidget(QLabel("Bot"))
        head.addWidget(self.bot_box)
        head.addWidget(self.path_label, 1)
        head.addWidget(self.obsidian_button)
        head.addWidget(self.reveal_button)
        self.settings_button = QPushButton("S&ettings…")
        self.settings_button.setToolTip("The home folder, start at login, the helper model, and connecting "
                                        "Claude Code, Claude Desktop and Cursor")
        self.settings_button.clicked.connect(self.settings_requested)
        head.addWidget(self.settings_button)

        self.gauge = GaugeWidget()
        self.room_button = QPushButton("Make room…")
        self.room_button.clicked.connect(self.preview_room)
        self.room_button.hide()
        self.room_banner = Banner("#fde2c8")
        self.room_model = QStringListModel(self)
        self.room_view = QListView()
        self.room_view.setModel(self.room_model)
        self.room_view.setMaximumHeight(130)
        self.room_view.setFont(mono_font())
        room_layout = self.room_banner.layout()
        assert isinstance(room_layout, QVBoxLayout)
        room_layout.insertWidget(1, self.room_view)
        self.room_move_button = self.room_banner.add_button("Move them to the archive")
        self.room_cancel_button = self.room_banner.add_button("Cancel")
        self.room_undo_button = self.room_banner.add_button("Undo")
        self.room_move_button.clicked.connect(self.make_room)
        self.room_cancel_button.clicked.connect(self.room_banner.hide)
        self.room_undo_button.clicked.connect(self.undo_room)
        self.room_undo_button.hide()
        self._room_hash: str | None = None
        self._room_done: Any = None
        self.applies: FolderActions | None = None
        """What applies to the open folder (core's ``folder_actions``): Make room's kind, a tidy-up, new topics."""

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
        self.forget_button = QPushButton("Forget everywhere…")
        self.forget_button.setToolTip("Take a fact out of every bot and tracked folder at once; each file's change "
                                      "can be undone")
        self.forget_button.clicked.connect(self.open_forget)
        self._forget: ForgetDialog | None = None
        self.editor = FileEditor(session)
        self.editor.status.connect(self.say)
        self.editor.deleted.connect(lambda _r: self.refresh_files())
        left = QWidget()
        lb = QVBoxLayout(left)
        lb.setContentsMargins(0, 0, 0, 0)
        lb.addWidget(self.files_view, 1)
        lb.addWidget(self.new_topic_button)
        lb.addWidget(self.forget_button)
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
        self.team = TeamView(session)
        self.team.status.connect(self.say)
        self.tabs.addTab(self.team, "Team")

        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self._status_timer = QTimer(self)
        self._status_timer.setSingleShot(True)
        self._status_timer.setInterval(STATUS_MS)
        self._status_timer.timeout.connect(self._clear_status)
        self.status_label.hide()          # it takes room only while it says something (a small screen has little)

        self.welcome = WelcomePage(session, can_choose_home=not demo,
                                   choose_home_reason="This is the demo home; run Bot Memory without --demo "
                                                      "to choose your own.")
        self.welcome.choose_home.connect(self.choose_home)
        self.welcome.bot_created.connect(self._bot_created)
        bot_page = QWidget()
        bp = QVBoxLayout(bot_page)
        bp.setContentsMargins(0, 0, 0, 0)
        gauge_row = QHBoxLayout()
        gauge_row.addWidget(self.gauge, 1)
        gauge_row.addWidget(self.room_button, 0, Qt.AlignmentFlag.AlignBottom)
        bp.addLayout(gauge_row)
        bp.addWidget(self.room_banner)
        self.gone_banner = Banner("#fde2c8")
        self.gone_banner.setObjectName("gone")
        self.untrack_hint = self.gone_banner.add_button("Copy its path")
        self.untrack_hint.clicked.connect(self._copy_gone_path)
        bp.addWidget(self.gone_banner)
        self.secrets = SecretsBanner(session)
        self.secrets.status.connect(lambda t: self.say(t))
        bp.addWidget(self.secrets)
        bp.addWidget(self.tabs, 1)
        self.pages = QStackedWidget()
        self.pages.addWidget(bot_page)
        self.pages.addWidget(self.welcome)
        self.pages.currentChanged.connect(self._page_shown)
        self._page_shown(0)

        body = QWidget()
        bb = _BodyLayout(body, lambda: self.showing_welcome())
        bb.setContentsMargins(0, 0, 0, 0)
        bb.addLayout(head)
        bb.addWidget(self.pages, 1)
        # on a small screen (1280×800 at twice the scale is 640×400) the panel scrolls rather than outgrow it
        self.body = QScrollArea()
        self.body.setWidget(body)
        self.body.setWidgetResizable(True)
        self.body.setFrameShape(QFrame.Shape.NoFrame)
        box = QVBoxLayout(self)
        box.addWidget(self.body, 1)
        self.sync_line = SyncLine(session)
        self.sync_line.open_team.connect(self._open_team)
        box.addWidget(self.sync_line)
        box.addWidget(self.status_label)
        self._no_bot(NO_BOT)

        close = QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self)
        close.activated.connect(self.close)
        session.gauges_changed.connect(self._gauges)
        session.presence_changed.connect(self._presence)
        session.rows_added.connect(self._rows_added)
        session.bots_changed.connect(self._bots)
        session.error.connect(self.say)
        self._bots(session.bots)

    # ----- bots

    choose_home = Signal()
    """The welcome page's "Choose the bot home…" (the app opens Settings)."""
    settings_requested = Signal()
    """Settings… (also the way there without a system tray)."""

    def _no_bot(self, reason: str) -> None:
        """Nothing to act on: every control that needs a bot is disabled and says why."""
        for w in (self.bot_box, self.obsidian_button, self.reveal_button, self.new_topic_button, self.room_button):
            w.setEnabled(False)
            w.setToolTip(reason)

    def _has_bot(self) -> None:
        for w in (self.bot_box, self.obsidian_button, self.reveal_button, self.new_topic_button, self.room_button):
            w.setEnabled(True)
        self.bot_box.setToolTip("Which bot's memory this window shows")
        self.obsidian_button.setToolTip("Open this bot's folder in Obsidian")
        self.reveal_button.setToolTip("Show the open file in the file manager")
        self.new_topic_button.setToolTip("A new topic file")

    def _page_shown(self, index: int) -> None:
        """Only the page shown counts for the panel's size (the long welcome page never makes the bot's page
        scroll)."""
        for i in range(self.pages.count()):
            page = self.pages.widget(i)
            if page is not None:
                policy = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
                page.setSizePolicy(policy, policy)
                page.adjustSize()

    def showing_welcome(self) -> bool:
        return self.pages.currentWidget() is self.welcome

    def _bot_created(self, bot: str) -> None:
        self.say(f"Created {bot}: its MEMORY.md is empty and ready.")
        self._pending_bot = bot

    def _bot_chosen(self, index: int) -> None:
        bot = self.bot_box.itemData(index)
        if bot and bot != self.bot:
            self.set_bot(str(bot))

    def _add_bot_item(self, bot: str) -> None:
        try:
            name = display_name(self.session.mem, bot)   # a tracked folder: "/src/blog · Claude Code"
        except BotMemoryError:
            name = bot
        self.bot_box.addItem(name, bot)

    def _bots(self, bots: list[str]) -> None:
        if not bots:
            if self.bot is None:
                self.pages.setCurrentWidget(self.welcome)
                self.setWindowTitle("Welcome")          # the platform adds " — Bot Memory"
                self._no_bot("This home has no bots yet: create one, or choose the bot home.")
                self.welcome.look_for_agents()
            return
        if self.showing_welcome():
            self.pages.setCurrentIndex(0)
        self._has_bot()
        pending = self._pending_bot
        if pending is not None and pending in bots and self.bot is None:
            self._pending_bot = None
            self.set_bot(pending)
        self.bot_box.blockSignals(True)
        self.bot_box.clear()
        for b in bots:
            self._add_bot_item(b)
        if self.bot:
            self.bot_box.setCurrentIndex(self.bot_box.findData(self.bot))
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
        if self.bot_box.findData(bot) < 0:
            self._add_bot_item(bot)
        self.bot_box.setCurrentIndex(self.bot_box.findData(bot))
        self.bot_box.blockSignals(False)
        self.setWindowTitle(self.bot_box.currentText() or bot)   # the platform adds " — Bot Memory"
        if self.showing_welcome():
            self.pages.setCurrentIndex(0)
        self._has_bot()
        self.applies = None
        mem = self.session.mem
        self.session.submit_read(lambda: folder_actions(mem, bot), lambda a: self._actions_read(bot, a),
                                 lambda e: logger.info("what applies to %s: %s", bot, e))
        self._room_done = None
        self.room_banner.hide()
        self._show_presence(bot, self.session.present.get(bot, True))
        try:
            self.path_label.setText(pretty_path(self.session.mem.home.workspace(bot)))
        except BotMemoryError:
            self.path_label.setText("")
        self.gauge.set_gauge(self.session.gauges.get(bot))
        self._room_visible()
        self.editor.clear()
        self.loads.set_bot(bot)
        self.secrets.set_bot(bot)
        self.journal.set_bot(bot)
        self.upkeep.set_bot(bot)
        self.team.set_bot(bot)
        self.refresh_files(select=MEMORY_FILE)
        self.bot_changed.emit(bot)

    # ----- a tracked folder that went away, and came back

    def _presence(self, bot: str, here: bool) -> None:
        if bot != self.bot:
            return
        self._show_presence(bot, here)
        if here:                                  # back: everything is read again
            self.gauge.set_gauge(self.session.gauges.get(bot))
            self.loads.refresh()
            self.secrets.refresh()
            self.journal.set_bot(bot)
            self.upkeep.refresh()
            self.refresh_files(select=self.editor.rel or MEMORY_FILE)

    def _show_presence(self, bot: str, here: bool) -> None:
        if here:
            self.gone_banner.hide()
            return
        try:
            path = pretty_path(self.session.mem.home.workspace(bot))
        except BotMemoryError:
            path = self.session.name(bot)
        self.gone_banner.label.setText(
            f"<b>The folder {path} is gone</b> — deleted or moved away. Its journal is kept (Journal); when the "
            "folder comes back, restored from a backup say, botmemory picks it up again at once.")
        self.gone_banner.show()
        self.gauge.set_gauge(None, gone=True)
        self.room_button.hide()
        self.room_banner.hide()
        if not self.editor.dirty:
            self.editor.clear()
        self.files_model.set_files([])
        self.loads.block.setPlainText("")

    def _copy_gone_path(self) -> None:
        from PySide6.QtGui import QGuiApplication

        if self.bot is not None:
            QGuiApplication.clipboard().setText(str(self.session.mem.home.workspace(self.bot)))

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    def _open_team(self, key: str) -> None:
        self.show_tab("team")
        self.team.show_team(key)

    # ----- refreshing from the session

    def _gauges(self, gauges: dict[str, Any]) -> None:
        if self.bot is not None:
            if not self.session.present.get(self.bot, True):
                return                             # the banner says the folder is gone
            self.gauge.set_gauge(gauges.get(self.bot))
            self._room_visible()

    def _room_visible(self) -> None:
        g = self.gauge.gauge
        # Make room by the folder's kind: a workspace's entries to its archive, a Claude Code index's oldest lines
        # into a topic it points at; nothing for an agent with no index to move
        kind = self.applies.room if self.applies is not None else None
        over = g is not None and g.unloaded_lines > 0 and kind is not None
        self.room_button.setVisible(over)
        self.room_button.setToolTip(ROOM_TIPS.get(kind or "", ""))
        if not over and self._room_done is None:   # after Make room the banner stays for its Undo
            self.room_banner.hide()

    def _actions_read(self, bot: str, actions: FolderActions) -> None:
        if bot != self.bot:
            return
        self.applies = actions
        self.new_topic_button.setVisible(actions.topics)
        self.upkeep.set_applies(actions)
        self._room_visible()

    # ----- make room: by the folder's kind, what would move first, then one change you can undo

    def preview_room(self) -> None:
        """Ask core (on the worker) what Make room would move now, and show it."""
        bot = self.bot
        if bot is None:
            return
        mem = self.session.mem
        self.session.submit_read(lambda: room_preview(mem, bot), lambda p: self._show_room(bot, p),
                                 lambda e: self.say(f"Could not read MEMORY.md: {e}"))

    def _show_room(self, bot: str, p: RoomPreview | None) -> None:
        if bot != self.bot or p is None:
            return
        self._room_hash = p.hash
        n = len(p.moved)
        rule = ONLY_FIRST_LINES if p.kind == "archive" else "Claude Code reads the first 200 lines or 25,000 bytes"
        head = (f"<b>{counted(p.unloaded_lines, 'line')} of MEMORY.md "
                f"{'do' if p.unloaded_lines != 1 else 'does'} not load</b> ({rule}).")
        if n and p.kind == "index":
            text = (f"{head} Make room moves {'this index line' if n == 1 else f'these {n} index lines'} — the "
                    f"oldest — into {p.target}, with one line in their place pointing there, so Claude Code still "
                    "finds every memory; one change you can undo:")
        elif n:
            text = (f"{head} Make room moves {'this entry' if n == 1 else f'these {n} entries'} — the oldest dated "
                    "ones, struck and expired first — to memory/archive.md, in one change you can undo in the "
                    "journal:")
        elif p.kind == "index":
            text = f"{head} There is no index line to move: trim MEMORY.md in Files to make it fit."
        else:
            text = (f"{head} Nothing here can move to the archive: hand-written lines and health facts never "
                    "move. Trim MEMORY.md in Files to make it fit.")
        if n and not p.fits_after:
            text += (" (it still would not all fit: hand-written lines and health facts never move)"
                     if p.kind == "archive" else " (it still would not all fit: only index lines move)")
        self.room_banner.label.setText(text)
        self.room_model.setStringList(p.moved)
        self.room_view.setVisible(bool(n))
        self.room_move_button.setVisible(bool(n))
        where = "to the archive" if p.kind == "archive" else f"into {p.target}"
        self.room_move_button.setText(f"Move {'it' if n == 1 else f'these {n}'} {where}")
        self.room_move_button.setEnabled(True)
        self.room_undo_button.hide()
        self.room_cancel_button.setText("Cancel" if n else "Close")
        self.room_banner.show()

    def make_room(self) -> None:
        bot = self.bot
        if bot is None:
            return
        self.room_move_button.setEnabled(False)
        expected = self._room_hash
        self.session.run_op(lambda mem: make_room(mem, bot, PANEL, expected_hash=expected),
                            lambda r: self._room_made(bot, r), lambda e: self._room_failed(bot, e))

    def _room_made(self, bot: str, result: Any) -> None:
        n = len(result.moved)
        index = self.applies is not None and self.applies.room == "index"
        what = counted(n, "index line") if index else counted(n, "entry", "entries")
        text = (f"Moved {what} of {self.session.name(bot)} {'into ' + INDEX_TOPIC if index else 'to memory/archive.md'}"
                + ("" if result.fits else "; MEMORY.md is still over the budget") + ".")
        self.say(text)
        if bot != self.bot or not n:
            self.room_banner.hide()
            return
        # the banner stays with Undo: both files back in one change, while neither changed since
        self._room_done = result
        self.room_banner.label.setText(f"<b>{text}</b> Undo puts both files back as they were.")
        self.room_model.setStringList([])
        self.room_view.hide()
        self.room_move_button.hide()
        self.room_undo_button.show()
        self.room_undo_button.setEnabled(True)
        self.room_cancel_button.setText("Close")
        self.room_banner.show()

    def undo_room(self) -> None:
        bot, room = self.bot, self._room_done
        if bot is None or room is None:
            return
        self.room_undo_button.setEnabled(False)
        self.session.run_op(lambda mem: undo_overflow(mem, bot, room, UNDO),
                            lambda _c: self._room_undone(bot), self._room_undo_failed)

    def _room_undone(self, bot: str) -> None:
        self._room_done = None
        self.room_banner.hide()
        self.say(f"Make room undone: MEMORY.md of {self.session.name(bot)} and the file the lines went to are back "
                 "as they were.")

    def _room_undo_failed(self, e: BaseException) -> None:
        self._room_done = None
        self.room_banner.hide()
        if isinstance(e, Conflict):
            self.say("Not undone: MEMORY.md or the archive changed since. Each file's row in the journal "
                     "can still be undone.")
        else:
            self.say(f"Could not undo: {e}")

    def _room_failed(self, bot: str, e: BaseException) -> None:
        if isinstance(e, Conflict):
            self.say("MEMORY.md changed meanwhile; here is what would move now.")
            self.preview_room()
            return
        self.room_move_button.setEnabled(True)
        self.say(f"Could not make room: {e}")

    def _rows_added(self, rows: list[Any]) -> None:
        if any(r.bot == ABOUT_ME for r in rows):   # About me changed (or an undo put a learned line back)
            self.upkeep.refresh()
        mine = [r for r in rows if r.bot == self.bot]
        if not mine:
            return
        files = {r.file for r in mine}
        self.refresh_files()
        if self.editor.rel in files:
            self.editor.file_changed_on_disk()
        self.loads.refresh()
        self.secrets.refresh()
        self.upkeep.refresh()

    def refresh_files(self, select: str | None = None) -> None:
        bot = self.bot
        if bot is None or not self.session.present.get(bot, True):
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
            if keep is not None and keep != self.editor.rel:
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

    def topic_dialog(self) -> TopicDialog:
        """The New topic dialog (its own method so tests can drive it)."""
        bot, home = self.bot, self.session.mem.home
        if bot is None:
            return TopicDialog(self)
        return TopicDialog(self, lambda name: topic_name_problem(name, home, bot),
                           TopicDialog.prompt_for(topic_name_rule(home, bot)))

    def open_forget(self) -> ForgetDialog:
        """Forget everywhere… (one dialog at a time; returned so tests can drive it)."""
        if self._forget is None or not self._forget.isVisible():
            self._forget = ForgetDialog(self.session, self)
        self._forget.show()
        self._forget.raise_()
        return self._forget

    def new_topic(self) -> None:
        if self.bot is None:
            return
        dialog = self.topic_dialog()
        try:
            if dialog.exec() and not dialog.problem(dialog.textValue()):
                self.create_topic(dialog.textValue().strip())
        finally:
            dialog.deleteLater()

    def create_topic(self, name: str) -> None:
        bot = self.bot
        if bot is None:
            return
        if topic_prefix(self.session.mem, bot) is None:
            self.say("This agent keeps no topic files.")
            return
        try:
            rel = topic_path(self.session.mem.home, bot, name)     # the folder's kind's rule
        except BotMemoryError as e:
            self.say(str(e))
            return
        title = rel.rsplit("/", 1)[-1][:-3].replace("-", " ").strip().capitalize()

        def created(_change: Any) -> None:
            self.refresh_files(select=rel)
            self.say(f"Created {rel}.")

        text = NEW_TOPIC.format(title=title)
        self.session.run_op(lambda mem: save(mem, bot, rel, text, PANEL, checked=True, create=False), created,
                            lambda e: self.say(f"{rel} already exists." if isinstance(e, Conflict)
                                               else f"Could not create {rel}: {e}"))

    def open_in_obsidian(self) -> None:
        if self.bot is None:
            return
        obsidian.open_in_obsidian(self.session.worker, self.session.mem.home.workspace(self.bot), self.say,
                                  self.cannot_open)

    def show_in_file_manager(self) -> None:
        if self.bot is None:
            return
        rel = self.editor.rel or MEMORY_FILE
        obsidian.show_in_file_manager(self.session.mem.home.workspace(self.bot) / rel, failed=self.cannot_open)

    def cannot_open(self, text: str, path: Path) -> None:
        """Nothing opened the folder: say what failed, show the path, offer Copy."""
        self.say(f"Nothing on this computer opened {path.name}; its path is in the window that opened.")
        pathnotice.show(text, path, self)

    def say(self, text: str) -> None:
        """A message in the status line under the tabs (cleared after a while); a tracked folder by its name."""
        self.status_label.setText(self.session.named(text))
        self.status_label.setVisible(bool(text))
        self._status_timer.start()

    def _clear_status(self) -> None:
        self.status_label.setText("")
        self.status_label.hide()

    def bring_up(self) -> None:
        if not self.isVisible():
            fit_on_screen(self, *PANEL_SIZE)
        self.show()
        self.setWindowState((self.windowState() & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
        self.raise_()
        self.activateWindow()

    def closeEvent(self, event: QCloseEvent) -> None:
        # the app keeps running in the tray (or until Quit); closing only hides the window
        event.accept()
