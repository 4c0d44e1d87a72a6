"""Forget everywhere…: take a fact out of every tracked folder and every bot at once, each file's change undoable.

The dialog asks for words, shows what would go (core's ``forget_everywhere``
with ``dry_run``: nothing is written), then forgets — the same call for real,
on the writer thread — and lists one row per file changed, each with **Undo**
(core's undo of that journal row). Before anything goes, the preview also says
what those rows could not bring back (a line holding a credential, a file past
the journal's limit). About me is not touched here (``botmemory forget BOT
WORD…`` forgets there too, as a row of About me's own journal).
"""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import BotMemoryError, counted, forget_everywhere
from botmemory.core.ops import undo as undo_row

from .look import FRAME_GUESS, fit_on_screen
from .session import PANEL, Session

logger = logging.getLogger(__name__)


MIN_WIDTH = 600
"""The preview is the safety check before deleting: wide enough that its notes read whole (once ~290 px)."""


def preview_lines(results: list[Any], name: Any = None) -> list[str]:
    """What would go, one line a note: ``the bot's name: the note`` (*name*: a bot's name as people read it)."""
    out = []
    for r in results:
        who = name(r.bot) if name is not None else r.bot
        for text in r.removed:
            out.append(f"{who}: {text}")
    return out


class ForgetDialog(QDialog):
    """Words → what would go → Forget everywhere → one row per file, each with Undo."""

    finished_forgetting = Signal(object)     # the results once forgotten (tests wait on it)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Forget everywhere")
        self.setMinimumWidth(min(MIN_WIDTH, self.screen().availableGeometry().width() - FRAME_GUESS[0]))
        fit_on_screen(self, MIN_WIDTH + 80, 460)     # a small screen (640 wide at twice the scale) gets all it has
        self.words = QLineEdit()
        self.words.setPlaceholderText("words every note to forget mentions, e.g. old address")
        self.preview_button = QPushButton("Show what would go")
        self.forget_button = QPushButton("Forget everywhere")
        self.forget_button.setEnabled(False)
        self.message = QLabel("Every note that mentions all the words goes, in every bot and tracked folder.")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rows = QWidget()
        self.rows_box = QVBoxLayout(rows)
        self.rows_box.setContentsMargins(0, 0, 0, 0)
        self.rows_box.addStretch(1)
        self.rows_scroll = QScrollArea()     # a long preview scrolls; it never overlaps the buttons
        self.rows_scroll.setWidget(rows)
        self.rows_scroll.setWidgetResizable(True)
        self.rows_scroll.setFrameShape(QFrame.Shape.StyledPanel)
        self.rows_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.undo_buttons: dict[str, QPushButton] = {}     # journal row id -> its Undo
        self._previewed: list[str] = []
        self.warning: QLabel | None = None      # what the rows of this forget could not bring back
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        top = QHBoxLayout()
        top.addWidget(self.words, 1)
        top.addWidget(self.preview_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(self.rows_scroll, 1)
        layout.addWidget(self.forget_button)
        layout.addWidget(buttons)
        self.preview_button.clicked.connect(self.preview)
        self.words.returnPressed.connect(self.preview)
        self.words.textChanged.connect(self._words_changed)
        self.forget_button.clicked.connect(self.forget)

    def _words(self) -> list[str]:
        return self.words.text().split()

    def _words_changed(self, _text: str) -> None:
        self.forget_button.setEnabled(False)     # forget only what was previewed

    def _clear_rows(self) -> None:
        self.warning = None
        while self.rows_box.count() > 1:          # the stretch at the end stays
            item = self.rows_box.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None:
                w.deleteLater()
        self.undo_buttons.clear()

    def _add(self, widget: QWidget) -> None:
        self.rows_box.insertWidget(self.rows_box.count() - 1, widget)

    def preview(self) -> None:
        words = self._words()
        if not words:
            self.message.setText("Type the words a note must mention to go.")
            return
        mem = self.session.mem
        self.preview_button.setEnabled(False)

        def shown(results: list[Any]) -> None:
            self.preview_button.setEnabled(True)
            self._clear_rows()
            lines = preview_lines(results, self.session.name)
            self._previewed = words
            if not lines:
                self.message.setText(f"No note mentions {' and '.join(words)}: nothing would go.")
                return
            files = sum(len(r.files) for r in results)
            self.message.setText(f"{counted(len(lines), 'note')} in {counted(files, 'file')} would go:")
            for line in lines:
                label = QLabel(line)
                label.setWordWrap(True)
                label.setTextFormat(Qt.TextFormat.PlainText)
                label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self._add(label)
            warnings = [f"{r.bot}: {w}" for r in results for w in getattr(r, "warnings", [])]
            if warnings:      # told before: what Undo could not bring back afterwards
                self.warning = QLabel("Undo cannot bring everything back:\n" + "\n".join(warnings))
                self.warning.setWordWrap(True)
                self.warning.setTextFormat(Qt.TextFormat.PlainText)
                self.warning.setStyleSheet("color: #b3261e;")
                self._add(self.warning)
            self.forget_button.setEnabled(True)

        self.session.submit_read(lambda: forget_everywhere(mem, words, PANEL, dry_run=True, workspaces=True),
                                 shown, self._failed)

    def forget(self) -> None:
        words = self._previewed
        if not words:
            return
        self.forget_button.setEnabled(False)
        self.preview_button.setEnabled(False)

        def forgotten(results: list[Any]) -> None:
            self.preview_button.setEnabled(True)
            self._clear_rows()
            changes = [(r.bot, c) for r in results for c in r.changes]
            self.message.setText(f"Forgot {sum(len(r.removed) for r in results)} notes: one change per file, "
                                 "each undoable." if changes else "Nothing was left to forget.")
            for bot, change in changes:
                self._add_row(bot, change)
            self.finished_forgetting.emit(results)

        self.session.run_op(lambda mem: forget_everywhere(mem, words, PANEL, workspaces=True), forgotten,
                            self._failed)

    def _add_row(self, bot: str, change: Any) -> None:
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        label = QLabel(f"{self.session.name(bot)}: {change.file}")
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        undo = QPushButton("Undo")
        h.addWidget(label, 1)
        h.addWidget(undo)
        self._add(row)
        self.undo_buttons[change.id] = undo

        def undone(_c: Any) -> None:
            undo.setEnabled(False)
            undo.setText("Undone")

        def failed(e: BaseException) -> None:
            undo.setEnabled(True)
            undo.setToolTip(str(e))
            self.message.setText(f"Could not undo {change.file}: {e}")

        def clicked() -> None:
            undo.setEnabled(False)
            self.session.run_op(lambda mem: undo_row(mem, bot, change.id), undone, failed)

        undo.clicked.connect(clicked)

    def _failed(self, e: BaseException) -> None:
        self.preview_button.setEnabled(True)
        self.forget_button.setEnabled(bool(self._previewed))
        self.message.setText(self.session.named(str(e) if isinstance(e, BotMemoryError) else f"Could not forget: {e}"))
        logger.info("forget everywhere failed: %s", e)
