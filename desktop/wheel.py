"""The mouse wheel scrolls a form; it never changes a setting the pointer happens to pass over.

Qt's spin boxes and combo boxes take wheel events whenever the pointer is over them, so scrolling the
Settings window turned the tidy hour from 3:00 to 0:00 on its way down. :func:`no_wheel_unless_focused` makes a
field take the wheel only once it has the focus (clicked or tabbed into); otherwise the wheel scrolls the scroll
area the field is in.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QWidget


class _WheelGuard(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget) or watched.hasFocus():
            return False
        area = watched.parentWidget()
        while area is not None and not isinstance(area, QAbstractScrollArea):
            area = area.parentWidget()
        if area is not None:      # the form scrolls, as it would over a label
            QCoreApplication.sendEvent(area.verticalScrollBar(), event)
        return True


_guard: _WheelGuard | None = None


def no_wheel_unless_focused(*widgets: QWidget) -> None:
    """Let *widgets* take the mouse wheel only while they have the focus."""
    global _guard
    if _guard is None:
        _guard = _WheelGuard()
    for w in widgets:
        w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        w.installEventFilter(_guard)
