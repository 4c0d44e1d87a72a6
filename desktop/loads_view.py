"""What loads: the exact block the next turn gets, and a recall preview for a typed message.

Both come from the core (``load`` and ``recall``, whose result says why nothing is
recalled), computed on the worker.
"""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import Memory, load, recall

from .editor import mono_font
from .session import Session

logger = logging.getLogger(__name__)

RECALL_DELAY_MS = 300
WORKSPACE_CAPTION = ("<b>What loads</b> — exactly the block the next turn gets: MEMORY.md as cut "
                     "to the budget, without expired entries, then the topic index.")


def recall_text(mem: Memory, bot: str, message: str) -> str:
    """Runs on the worker: the block recall would put in front of *message*, or why there is none (core's reason)."""
    result = recall(mem, bot, message)   # a tracked folder is recalled by its kind
    return result.text or f"({result.why})"


def block_text(mem: Memory, bot: str) -> str:
    """Runs on the worker: the block a workspace's next turn gets, or what a tracked agent loads (lost lines marked)."""
    if mem.home.is_tracked(bot):
        from .agents_view import loads_text

        return loads_text(mem, bot)
    return load(mem, bot).text


class LoadsView(QWidget):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bot: str | None = None
        self.block = QPlainTextEdit()
        self.block.setReadOnly(True)
        self.block.setFont(mono_font())
        self.block.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.message = QLineEdit()
        self.message.setPlaceholderText("Type a message to see what recall puts in front of it…")
        self.message.setClearButtonEnabled(True)
        self.recall = QPlainTextEdit()
        self.recall.setReadOnly(True)
        self.recall.setFont(mono_font())
        self.recall.setPlaceholderText("Recalled notes appear here.")
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RECALL_DELAY_MS)
        self._timer.timeout.connect(self.preview_recall)
        self.message.textChanged.connect(lambda _t: self._timer.start())
        self._asked = 0
        self._block_asked = 0

        top = QWidget()
        tb = QVBoxLayout(top)
        tb.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel(WORKSPACE_CAPTION)
        self.caption.setWordWrap(True)
        tb.addWidget(self.caption)
        tb.addWidget(self.block, 1)
        bottom = QWidget()
        bb = QVBoxLayout(bottom)
        bb.setContentsMargins(0, 0, 0, 0)
        bb.addWidget(QLabel("<b>Recall preview</b> — what would go in front of this message:"))
        bb.addWidget(self.message)
        bb.addWidget(self.recall, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(split)

    def set_bot(self, bot: str | None) -> None:
        self.bot = bot
        tracked = bot is not None and self.session.mem.home.is_tracked(bot)
        if tracked and bot is not None:
            from .agents_view import loads_caption

            self.caption.setText(loads_caption(self.session.mem, bot))
        else:
            self.caption.setText(WORKSPACE_CAPTION)
        self.block.setPlainText("")
        self.recall.setPlainText("")
        self.refresh()

    def refresh(self) -> None:
        """Compose the block again (a file changed) and, with a message typed, the recall preview too."""
        bot = self.bot
        if bot is None:
            return
        if self.message.text().strip():
            self.preview_recall()
        mem = self.session.mem
        self._block_asked += 1
        asked = self._block_asked
        self.session.submit_read(lambda: block_text(mem, bot),
                                 lambda text: self._show_block(asked, bot, text),
                                 lambda e: self.block.setPlainText(f"(Could not compose the block: {e})"))

    def _show_block(self, asked: int, bot: str, text: str) -> None:
        if bot != self.bot or asked != self._block_asked:   # a newer block is on its way
            return
        if not text:
            text = ""
            self.block.setPlaceholderText("Nothing loads: MEMORY.md is empty, or memory is off for this bot.")
        bar = self.block.verticalScrollBar()
        pos = bar.value()
        self.block.setPlainText(text)
        bar.setValue(pos)

    def preview_recall(self) -> None:
        bot = self.bot
        if bot is None:
            return
        message = self.message.text()
        self._asked += 1
        asked = self._asked
        mem = self.session.mem
        self.session.submit_read(lambda: recall_text(mem, bot, message),
                                 lambda text: self._show_recall(asked, text),
                                 lambda e: self._show_recall(asked, f"(Recall failed: {e})"))

    def _show_recall(self, asked: int, text: Any) -> None:
        if asked == self._asked:
            self.recall.setPlainText(str(text))
