"""The journal view of the Memory panel: every change, newest first, with one-click Undo.

Whose journal (the bot's files, or About me's own), filters by file and by
who, a search over the diffs, the selected row's diff below with what Undo
will do (the lines that come back, those it takes out, those that cannot come
back), and an Undo cell on every row (a row that cannot be undone says why).
An undo takes out only that change's own lines, whatever else changed since;
when those lines changed too, :class:`UndoConflictDialog` shows the file now
and the file with the undo side by side, and nothing is written until the
person picks one. The rows come from
:class:`~botmemory.desktop.models.JournalModel`, loaded a page at a time as the list scrolls.
"""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QMouseEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionButton,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import BotMemoryError, UndoConflict, counted

from . import corelink
from .corelink import ABOUT_ME, ABOUT_ME_FILES, JournalQuery
from .editor import mono_font
from .look import added_colour, removed_colour, secondary, secondary_colour
from .models import (
    UNDOABLE_ROLE,
    JournalModel,
    diff_text,
    how_text,
    row_time,
    who_text,
)
from .session import Session

logger = logging.getLogger(__name__)

Index = QModelIndex | QPersistentModelIndex
SEARCH_DELAY_MS = 250
WHO_CHOICES = (("Anyone", None), ("The bot", "bot"), ("You", "person"), ("Memory upkeep", "upkeep"),
               ("Import", "import"))


class DiffHighlighter(QSyntaxHighlighter):
    """Green for added lines, red for removed ones, grey for hunk headers."""

    def __init__(self, doc: QTextDocument) -> None:
        super().__init__(doc)
        self.added = QTextCharFormat()
        self.added.setForeground(added_colour())
        self.removed = QTextCharFormat()
        self.removed.setForeground(removed_colour())
        self.meta = QTextCharFormat()
        self.meta.setForeground(secondary_colour())

    def highlightBlock(self, text: str) -> None:
        if text.startswith(("+++", "---", "@@")):
            self.setFormat(0, len(text), self.meta)
        elif text.startswith("+"):
            self.setFormat(0, len(text), self.added)
        elif text.startswith("-"):
            self.setFormat(0, len(text), self.removed)


class UndoDelegate(QStyledItemDelegate):
    """Paints an Undo button in undoable rows (the reason text in the others); a click emits :attr:`clicked`."""

    clicked = Signal(int)
    """The row whose Undo button was clicked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pressed: QPersistentModelIndex | None = None

    def button_rect(self, option_rect: QRect) -> QRect:
        w = min(option_rect.width() - 8, 72)
        return QRect(option_rect.left() + 4, option_rect.top() + 2, w, option_rect.height() - 4)

    def paint(self, painter: Any, option: QStyleOptionViewItem, index: Index) -> None:
        if not index.data(UNDOABLE_ROLE):
            opt = QStyleOptionViewItem(option)
            self.initStyleOption(opt, index)
            opt.palette.setColor(opt.palette.ColorRole.Text, secondary_colour())
            style = opt.widget.style() if opt.widget else QApplication.style()
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
            return
        cell = QStyleOptionViewItem(option)     # the row's background and selection, and no text at all
        self.initStyleOption(cell, index)
        cell.text = ""
        style = cell.widget.style() if cell.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, cell, painter, cell.widget)
        button = QStyleOptionButton()
        button.rect = self.button_rect(option.rect)
        button.text = "Undo"
        button.state = QStyle.StateFlag.State_Enabled
        if self._pressed is not None and self._pressed == index:
            button.state |= QStyle.StateFlag.State_Sunken
        else:
            button.state |= QStyle.StateFlag.State_Raised
        style = option.widget.style() if option.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_PushButton, button, painter, option.widget)

    def editorEvent(self, event: QEvent, model: Any, option: QStyleOptionViewItem, index: Index) -> bool:
        if not index.data(UNDOABLE_ROLE):
            return False
        if event.type() not in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease):
            return False
        assert isinstance(event, QMouseEvent)
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        inside = self.button_rect(option.rect).contains(event.position().toPoint())
        if event.type() == QEvent.Type.MouseButtonPress:
            self._pressed = QPersistentModelIndex(index) if inside else None
            return inside
        was = self._pressed
        self._pressed = None
        if inside and was is not None and was == index:
            self.clicked.emit(index.row())
            return True
        return False


def diff_header(row: Any) -> str:
    t = row_time(row)
    when = f"{t:%Y-%m-%d %H:%M:%S}" if t else str(row.at)
    return f"{row.file} · {who_text(row)} · {how_text(row)} · {when}"


def undo_message(row: Any, result: Any) -> str:
    """What an undo did, in one sentence for the status line: the lines that came back and went, and those that
    could not come back (they held a credential)."""
    file = result.file or row.file
    if not result.changed:
        text = f"Nothing to undo: {file} already holds what this change replaced."
    elif result.removed:
        text = f"Undone: {file} was removed again (this change created it)."
    else:
        parts = [f"brought back {counted(len(result.back), 'line')}" if result.back else "",
                 f"took out {counted(len(result.gone), 'line')}" if result.gone else ""]
        done = " and ".join(p for p in parts if p) or "put it back"
        text = f"Undone in {file}: {done}."
    if result.withheld:
        text += (f" {counted(len(result.withheld), 'line')} held a credential, which the journal keeps only "
                 f"redacted, and did not come back: {'; '.join(result.withheld[:3])}.")
    if result.changed:
        text += " The undo is itself a row and can be undone."
    return text


class UndoConflictDialog(QDialog):
    """A real conflict: the lines a change touched changed since. The file now and the file with the undo,
    side by side; nothing is written until the person picks (:attr:`picked`: True for the undone text)."""

    picked = Signal(bool)

    def __init__(self, row: Any, conflict: UndoConflict, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Undo: those lines changed since")
        self.conflict = conflict
        self._answered = False
        clashes = conflict.plan.clashes
        self.label = QLabel(
            f"The lines this change touched in <b>{row.file}</b> changed since it was made "
            f"({counted(len(clashes), 'place')}). <b>Nothing was written.</b> On the left, the file now; on "
            "the right, the file with this change undone, its lines put back where they changed. Pick one.")
        self.label.setWordWrap(True)
        self.now = QPlainTextEdit(conflict.text)
        self.undone = QPlainTextEdit(conflict.undone)
        for edit in (self.now, self.undone):
            edit.setReadOnly(True)
            edit.setFont(mono_font())
            edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        sides = QSplitter(Qt.Orientation.Horizontal)
        for title, edit in (("Now", self.now), ("With the undo", self.undone)):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(QLabel(f"<b>{title}</b>"))
            lay.addWidget(edit, 1)
            sides.addWidget(box)
        self.keep_button = QPushButton("Keep it as it is")
        self.use_button = QPushButton("Use the undone text")
        self.keep_button.clicked.connect(lambda: self._pick(False))
        self.use_button.clicked.connect(lambda: self._pick(True))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.keep_button)
        buttons.addWidget(self.use_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.label)
        lay.addWidget(sides, 1)
        lay.addLayout(buttons)
        self.rejected.connect(lambda: self._pick(False))
        self.resize(900, 520)

    def _pick(self, use: bool) -> None:
        if self._answered:
            return
        self._answered = True
        self.picked.emit(use)
        if use:
            self.accept()
        else:
            self.reject()


class JournalView(QWidget):
    """Rows, filters, the diff of the selected row, and Undo."""

    undone = Signal(str)
    """A row was undone: its id."""
    status = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bot: str | None = None
        self._journal_files: set[str] = set()
        self._disk_files: list[str] = []
        self.model = JournalModel(session.journal_cursor, session.submit_read, self)
        self.model.loading_changed.connect(self._loading)
        self.count_label = QLabel()
        secondary(self.count_label)
        self.model.load_failed.connect(self._load_failed)

        self.whose = QComboBox()
        self.whose.addItem("This bot's files", None)
        self.whose.addItem("About me", ABOUT_ME)
        self.whose.setToolTip("About me has its own journal: prefer, learned lines, forget and Remove")
        self.conflict_dialog: UndoConflictDialog | None = None
        self._preview_asked = 0
        self.file_box = QComboBox()
        self.file_box.addItem("All files", None)
        self.file_box.setMinimumContentsLength(18)
        self.who_box = QComboBox()
        for text, value in WHO_CHOICES:
            self.who_box.addItem(text, value)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search the changes (words in the diff)…")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.apply_filters)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.file_box.currentIndexChanged.connect(lambda _i: self.apply_filters())
        self.who_box.currentIndexChanged.connect(lambda _i: self.apply_filters())
        self.whose.currentIndexChanged.connect(lambda _i: self._whose_changed())

        bar = QHBoxLayout()
        bar.addWidget(self.whose)
        bar.addWidget(QLabel("File"))
        bar.addWidget(self.file_box)
        bar.addWidget(QLabel("Who"))
        bar.addWidget(self.who_box)
        bar.addWidget(self.search, 1)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        h.setStretchLastSection(False)
        for col, width in enumerate((112, 122, 190, 150, 330, 84)):
            self.table.setColumnWidth(col, width)
        h.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.delegate = UndoDelegate(self.table)
        self.table.setItemDelegateForColumn(JournalModel.UNDO_COLUMN, self.delegate)
        self.delegate.clicked.connect(self.undo_row)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._show_row(cur.row()))

        self.diff_title = QLabel()
        self.diff_title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.diff = QPlainTextEdit()
        self.diff.setReadOnly(True)
        self.diff.setFont(mono_font())
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.highlighter = DiffHighlighter(self.diff.document())
        self.undo_button = QPushButton("Undo this change")
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(lambda: self.undo_row(self.table.currentIndex().row()))
        self.undo_reason = QLabel()
        secondary(self.undo_reason)
        # a long reason wraps inside the row; it never widens the window
        self.undo_reason.setWordWrap(True)
        self.undo_reason.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.preview = QLabel()     # what Undo will do, before it does it
        self.preview.setWordWrap(True)
        self.preview.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.diff_title.setWordWrap(True)
        self.diff_title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        lower = QWidget()
        lb = QVBoxLayout(lower)
        lb.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.diff_title, 3)
        head.addWidget(self.undo_reason, 2)
        head.addWidget(self.undo_button)
        lb.addLayout(head)
        lb.addWidget(self.preview)
        lb.addWidget(self.diff, 1)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(lower)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(bar)
        box.addWidget(split, 1)
        box.addWidget(self.count_label)

        self.model.rowsInserted.connect(lambda *_: self._count())
        self.model.modelReset.connect(self._count)
        session.rows_added.connect(self.add_rows)

    # ----- bot and filters

    def set_bot(self, bot: str | None, files: list[str] | None = None) -> None:
        self.bot = bot
        self._journal_files = set()
        self.set_files(files or [])
        self.apply_filters()
        if bot is not None:
            self._read_journal_files(bot)

    def _read_journal_files(self, bot: str) -> None:
        """Every file the bot's journal names (on the worker): deleted ones stay in the file filter."""
        mem = self.session.mem
        self.session.submit_read(lambda: corelink.journal_files(mem, bot),
                                 lambda files: self._journal_files_read(bot, files),
                                 lambda e: logger.info("journal files of %s: %s", bot, e))

    def _journal_files_read(self, bot: str, files: set[str]) -> None:
        if bot != self.bot:
            return
        self._journal_files |= set(files)
        self.set_files(self._disk_files)

    @property
    def about_me(self) -> bool:
        """True while the view shows About me's own journal."""
        return bool(self.whose.currentData() == ABOUT_ME)

    def show_about_me(self, on: bool = True) -> None:
        self.whose.setCurrentIndex(1 if on else 0)

    def _whose_changed(self) -> None:
        self.set_files(self._disk_files)
        self.apply_filters()

    def set_files(self, files: list[str]) -> None:
        """The files on disk, then those only the journal knows (deleted since), for the file filter."""
        self._disk_files = list(files)
        gone = sorted(self._journal_files - set(files))
        wanted = [(f, f) for f in files] + [(f"{f} (deleted)", f) for f in gone]
        if self.about_me:
            wanted = [(f, f) for f in ABOUT_ME_FILES]
        have = [(self.file_box.itemText(i), self.file_box.itemData(i)) for i in range(1, self.file_box.count())]
        if wanted == have:
            return
        current = self.file_box.currentData()
        self.file_box.blockSignals(True)
        self.file_box.clear()
        self.file_box.addItem("All files", None)
        for text, f in wanted:
            self.file_box.addItem(text, f)
        i = self.file_box.findData(current)
        self.file_box.setCurrentIndex(max(i, 0))
        self.file_box.blockSignals(False)

    def query(self) -> JournalQuery | None:
        whose = ABOUT_ME if self.about_me else self.bot
        if whose is None:
            return None
        words = self.search.text().strip()
        return JournalQuery(whose, self.file_box.currentData(), self.who_box.currentData(), words or None)

    def apply_filters(self) -> None:
        q = self.query()
        if q != self.model.query:
            self.model.set_query(q)
            self._show_row(-1)

    def add_rows(self, rows: list[Any]) -> None:
        """New rows from the session: those of this bot (or About me) matching the filters go on top."""
        named = {r.file for r in rows if r.bot == self.bot} - self._journal_files
        if named:
            self._journal_files |= named
            self.set_files(self._disk_files)
        selected = self.model.row_at(self.table.currentIndex().row())
        current_id = selected.id if selected is not None else None
        added = self.model.add_new(rows)
        if added and current_id is not None:
            r = self.model.row_of(current_id)
            if r >= 0:
                self.table.selectRow(r)

    # ----- rows

    def _load_failed(self, message: str) -> None:
        self.count_label.setText(f"Could not read the journal: {message}")

    def _loading(self, on: bool) -> None:
        if on:
            self.count_label.setText("Reading the journal…")
            return
        self._count()
        if not self.table.currentIndex().isValid() and self.model.rowCount() > 0:
            self.table.selectRow(0)

    def _count(self) -> None:
        n = self.model.rowCount()
        more = "" if self.model.exhausted else " (scroll for older)"
        self.count_label.setText(f"{counted(n, 'change')} shown{more}")

    def _show_row(self, row: int) -> None:
        r = self.model.row_at(row)
        self._preview_asked += 1
        self.preview.setText("")
        if r is None:
            self.diff_title.setText("Select a change to see its diff.")
            self.diff.setPlainText("")
            self.undo_button.setEnabled(False)
            self.undo_reason.setText("")
            return
        self.diff_title.setText(diff_header(r))
        self.diff.setPlainText(diff_text(r))
        self.undo_button.setEnabled(bool(r.undoable))
        self.undo_reason.setText("" if r.undoable else f"Can't undo: {r.reason}" if r.reason else "Can't undo")
        if r.undoable:
            self._ask_preview(r)

    def _ask_preview(self, r: Any) -> None:
        """What Undo will do to the file as it is now (on the worker): said before it is pressed."""
        asked = self._preview_asked
        mem = self.session.mem
        bot, row_id = r.bot, r.id
        self.preview.setText("Working out what Undo would do…")
        self.session.submit_read(lambda: corelink.undo_preview(mem, bot, row_id),
                                 lambda plan: self._previewed(asked, plan),
                                 lambda e: self._previewed(asked, e))

    def _previewed(self, asked: int, plan: Any) -> None:
        if asked != self._preview_asked:   # another row was selected meanwhile
            return
        if isinstance(plan, BaseException):
            msg = str(plan) if isinstance(plan, BotMemoryError) else f"{type(plan).__name__}: {plan}"
            self.preview.setText(f"Undo: {msg}")
        elif plan is None:
            self.preview.setText("Undo takes this change's entries back out of profile-learned.json "
                                 "(the forgotten words, the removed facts).")
        else:
            self.preview.setText(plan.describe())

    def undo_row(self, row: int) -> None:
        """One click: take this row's own lines back out and bring back what it replaced."""
        r = self.model.row_at(row)
        if r is None:
            return
        if not r.undoable:
            self.status.emit(f"Can't undo this change: {r.reason}" if r.reason else "Can't undo this change")
            return
        self._undo(r)

    def _undo(self, r: Any, force: bool = False, expected_hash: str | None = None) -> None:
        bot, row_id = r.bot, r.id
        self.session.run_op(lambda mem: corelink.undo_lines(mem, bot, row_id, force, expected_hash),
                            lambda result: self._undone(r, result), lambda e: self._undo_failed(r, e))

    def _undone(self, r: Any, result: Any) -> None:
        self.status.emit(undo_message(r, result))
        self.undone.emit(r.id)
        if r.bot == ABOUT_ME:   # About me's journal is not a bot's: its rows are read again
            self.session.poll()

    def _undo_failed(self, r: Any, e: BaseException) -> None:
        if isinstance(e, UndoConflict):
            self.show_conflict(r, e)
            return
        msg = str(e) if isinstance(e, BotMemoryError) else f"{type(e).__name__}: {e}"
        self.status.emit(f"Undo failed: {msg}")

    def show_conflict(self, r: Any, e: UndoConflict) -> None:
        """Both texts side by side; nothing is written until the person picks one."""
        dialog = UndoConflictDialog(r, e, self)
        dialog.picked.connect(lambda use: self._conflict_picked(r, e, use))
        self.conflict_dialog = dialog
        dialog.open()

    def _conflict_picked(self, r: Any, e: UndoConflict, use: bool) -> None:
        self.conflict_dialog = None
        if use:   # checked against the text the person saw: changed again meanwhile, it is a conflict again
            self._undo(r, force=True, expected_hash=e.hash or None)
        else:
            self.status.emit(f"Not undone: {r.file} is as it was; nothing was written.")
