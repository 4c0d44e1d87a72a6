"""Colours that follow the palette, so the app reads as well on a dark desktop theme as on a light one.

Secondary text takes the palette's placeholder colour (a fixed ``#666`` is near-invisible on a dark window);
the diff's greens and reds and the gauge's track are picked for the window's lightness.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


def is_dark(palette: QPalette | None = None) -> bool:
    p = palette if palette is not None else QGuiApplication.palette()
    return p.color(QPalette.ColorRole.Window).lightness() < 128


def secondary(*widgets: QWidget) -> None:
    """Show *widgets*' text in the palette's secondary (placeholder) colour."""
    for w in widgets:
        w.setForegroundRole(QPalette.ColorRole.PlaceholderText)


def secondary_colour() -> QColor:
    return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)


def added_colour() -> QColor:
    return QColor("#5fd37a" if is_dark() else "#1b7f37")


def removed_colour() -> QColor:
    return QColor("#ff7b72" if is_dark() else "#b3261e")


def track_colour(palette: QPalette) -> QColor:
    """A gauge bar's empty track: the text colour, faint — visible on a light and on a dark window."""
    c = QColor(palette.color(QPalette.ColorRole.WindowText))
    c.setAlpha(70 if is_dark(palette) else 45)
    return c


class ElidedLabel(QLabel):
    """One line of text that never widens its window: cut in the middle with … when narrow (a long path), whole
    in its tooltip."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(40)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.setToolTip(text)

    def paintEvent(self, _event: object) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideMiddle, self.width())
        painter.drawText(self.rect(), int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), shown)
        painter.end()


def fit_on_screen(window: QWidget, width: int, height: int) -> None:
    """Size *window* to *width* × *height*, or to what its screen has room for (its title bar and frame counted,
    which a window manager adds only once the window is shown), and keep it on the screen."""
    area = window.screen().availableGeometry()
    frame_w = max(window.frameGeometry().width() - window.width(), 0) or FRAME_GUESS[0]
    frame_h = max(window.frameGeometry().height() - window.height(), 0) or FRAME_GUESS[1]
    w = min(width, area.width() - frame_w)
    h = min(height, area.height() - frame_h)
    window.resize(max(w, window.minimumWidth()), max(h, window.minimumHeight()))
    geo = window.frameGeometry()
    x = min(max(geo.x(), area.left()), area.right() - geo.width() + 1)
    y = min(max(geo.y(), area.top()), area.bottom() - geo.height() + 1)
    if (x, y) != (geo.x(), geo.y()):
        window.move(max(x, area.left()), max(y, area.top()))


FRAME_GUESS = (12, 40)
"""A window manager's frame (sides, title bar and bottom) before the window is shown and its real frame known."""
