"""When nothing on the computer opens a folder or a file: say what failed, show the path, offer Copy.

Show in file manager, Show log and Open in Obsidian end here when no file
manager, viewer or Obsidian answered, so a click never does nothing visible.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget


class PathNotice(QDialog):
    """A small non-modal window: the sentence, the path (selectable) and Copy path / Close."""

    def __init__(self, text: str, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Could not open")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.path = path
        self.label = QLabel(text)
        self.label.setWordWrap(True)
        self.path_edit = QLineEdit(str(path))
        self.path_edit.setReadOnly(True)
        self.path_edit.setMinimumWidth(420)
        self.copy_button = QPushButton("Copy path")
        self.copy_button.clicked.connect(self.copy)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.close)
        self.close_button.setDefault(True)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.copy_button)
        row.addWidget(self.close_button)
        box = QVBoxLayout(self)
        box.addWidget(self.label)
        box.addWidget(self.path_edit)
        box.addLayout(row)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(str(self.path))
        self.copy_button.setText("Copied")


_open: list[PathNotice] = []


def show(text: str, path: Path, parent: QWidget | None = None) -> PathNotice:
    """Show a :class:`PathNotice` (kept alive until closed) and return it."""
    notice = PathNotice(text, path, parent)
    _open.append(notice)
    notice.destroyed.connect(lambda *_: _open.remove(notice) if notice in _open else None)
    notice.show()
    notice.raise_()
    return notice
