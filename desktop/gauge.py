"""The gauge at the top of the Memory panel: the load rule made visible.

Lines and size of MEMORY.md against the budget (200 lines, 24 KB), amber from
80 %, red once anything stops loading, the count of lines that are not loaded,
and always the plain sentence "only the first 200 lines load each turn". The
numbers come from :func:`botmemory.core.text.budget.gauge`; this module only draws.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from botmemory.core.ops import AMBER_AT, ONLY_FIRST_LINES, FolderGauge, Level, counted

from .look import track_colour

COLOURS = {Level.OK: QColor("#2e9d5b"), Level.AMBER: QColor("#d99a00"), Level.RED: QColor("#d0392b")}
WORDS = {Level.OK: "within the budget", Level.AMBER: "nearly full", Level.RED: "over the budget"}


def kb(n: int) -> str:
    value = n / 1024
    return f"{value:.0f}" if value >= 100 or value == int(value) else f"{value:.1f}"


def _chars(g: FolderGauge) -> tuple[int, float, int] | None:
    """A character budget (a Hermes or OpenClaw folder): chars, max_chars, unloaded chars."""
    return (g.chars, g.max_chars, g.unloaded_chars) if g.max_chars else None


def lines_text(g: FolderGauge) -> str:
    c = _chars(g)
    if c is not None:
        return f"{c[0]:,} of {c[1]:,} characters"
    return f"{g.lines} of {g.max_lines or 0} lines"


def size_text(g: FolderGauge) -> str:
    if _chars(g) is not None:
        return ""
    if g.bytes < 1024:     # "0.0 of 24 KB" would hide 48 bytes
        return f"{counted(g.bytes, 'byte')} of {kb(g.max_bytes or 0)} KB"
    return f"{kb(g.bytes)} of {kb(g.max_bytes or 0)} KB"


def bar_level(value: int, limit: int) -> Level:
    """One measure's own level: red past its limit, amber from 80 % of it."""
    if value > limit:
        return Level.RED
    if value >= limit * AMBER_AT:
        return Level.AMBER
    return Level.OK


def unloaded_text(g: FolderGauge) -> str:
    c = _chars(g)
    if c is not None:
        return f"{counted(c[2], 'character is', 'characters are')} not being loaded" if c[2] > 0 else ""
    if g.unloaded_lines <= 0:
        return ""
    n = g.unloaded_lines
    return f"{counted(n, 'line is', 'lines are')} not being loaded"


def summary(bot: str, g: FolderGauge) -> str:
    """One line for a tooltip: ``scout: 162 of 200 lines, 13 of 24 KB — nearly full``."""
    size = size_text(g)
    text = f"{bot}: {lines_text(g)}{', ' + size if size else ''} — {WORDS[g.level]}"
    if g.unloaded_lines:
        text += f"; {unloaded_text(g)}"
    return text


class Bar(QWidget):
    """One bar: a fraction of the budget, with a tick at the amber mark."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fraction = 0.0
        self.colour = COLOURS[Level.OK]
        self.setMinimumHeight(12)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(240, 12)

    def set_value(self, fraction: float, colour: QColor) -> None:
        self.fraction = fraction
        self.colour = colour
        self.update()

    def paintEvent(self, _event: object) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        radius = r.height() / 2
        track = track_colour(self.palette())        # follows the palette: visible on a dark theme too
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(track)
        p.drawRoundedRect(r, radius, radius)
        fill = r.adjusted(0, 0, -(r.width() * (1 - min(self.fraction, 1.0))), 0)
        if fill.width() > 0:
            p.setBrush(self.colour)
            p.drawRoundedRect(fill, radius, radius)
        tick = self.palette().color(QPalette.ColorRole.WindowText)
        tick.setAlpha(110)
        p.setPen(tick)
        x = r.left() + r.width() * AMBER_AT
        p.drawLine(int(x), int(r.top()) + 1, int(x), int(r.bottom()) - 1)
        p.end()


class GaugeWidget(QWidget):
    """The whole gauge: two bars (lines, size), the numbers, the unloaded count and the rule."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gauge: FolderGauge | None = None
        self.title = QLabel("<b>MEMORY.md</b> — what loads into every turn")
        self.state_label = QLabel()
        self.lines_bar = Bar()
        self.size_bar = Bar()
        self.lines_label = QLabel()
        self.size_label = QLabel()
        self.unloaded_label = QLabel()
        self.unloaded_label.setStyleSheet(f"color: {COLOURS[Level.RED].name()}; font-weight: bold;")
        self.rule_label = QLabel(ONLY_FIRST_LINES[0].upper() + ONLY_FIRST_LINES[1:] + ".")
        self.rule_label.setObjectName("rule")
        self.rule_label.setWordWrap(True)       # a kind's rule is a sentence: it wraps rather than widen the panel
        rule_font = self.rule_label.font()
        rule_font.setItalic(True)
        self.rule_label.setFont(rule_font)

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        self.lines_name = QLabel("Lines")
        self.size_name = QLabel("Size")
        grid.addWidget(self.lines_name, 0, 0)
        grid.addWidget(self.lines_bar, 0, 1)
        grid.addWidget(self.lines_label, 0, 2)
        grid.addWidget(self.size_name, 1, 0)
        grid.addWidget(self.size_bar, 1, 1)
        grid.addWidget(self.size_label, 1, 2)
        grid.setColumnStretch(1, 1)

        head = QGridLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title, 0, 0)
        head.addWidget(self.state_label, 0, 1, Qt.AlignmentFlag.AlignRight)

        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        box.addLayout(head)
        box.addLayout(grid)
        box.addWidget(self.unloaded_label)
        box.addWidget(self.rule_label)
        self.set_gauge(None)

    def set_gauge(self, g: FolderGauge | None, *, gone: bool = False) -> None:
        """Show *g*; None while it is being read (*gone*: the folder is gone, so there is nothing to gauge)."""
        self.gauge = g
        if g is None:
            self.lines_label.setText("—" if gone else "…")
            self.size_label.setText("—" if gone else "…")
            self.state_label.setText("<b>folder gone</b>" if gone else "")
            self.unloaded_label.hide()
            self.lines_bar.set_value(0, COLOURS[Level.OK])
            self.size_bar.set_value(0, COLOURS[Level.OK])
            return
        colour = COLOURS[g.level]
        chars = _chars(g)
        label = g.label if g.tracked else ""
        self.title.setText(f"<b>MEMORY.md{' · ' + label if label else ''}</b> — what loads into every turn")
        self.rule_label.setText(g.rule)
        self.lines_name.setText("Characters" if chars else "Lines")
        for w in (self.size_name, self.size_bar, self.size_label):
            w.setVisible(chars is None)
        # each bar in its own measure's colour: a red size never paints the lines bar, nor the reverse
        # (one character budget: its bar has the gauge's colour, red at the limit for Hermes)
        if chars is not None:
            self.lines_bar.set_value(chars[0] / chars[1], colour)
        else:
            max_lines, max_bytes = g.max_lines or 1, g.max_bytes or 1
            self.lines_bar.set_value(g.lines / max_lines, COLOURS[bar_level(g.lines, max_lines)])
            self.size_bar.set_value(g.bytes / max_bytes, COLOURS[bar_level(g.bytes, max_bytes)])
        self.lines_label.setText(lines_text(g))
        self.size_label.setText(size_text(g))
        self.state_label.setText(f"<span style='color:{colour.name()}; font-weight:bold'>"
                                 f"{WORDS[g.level]}</span>")
        self.unloaded_label.setText(unloaded_text(g))
        self.unloaded_label.setVisible(bool(unloaded_text(g)))
        self.setToolTip(f"{lines_text(g)}, {size_text(g)}. Amber from 80 %, red once a line stops loading.")
        self.setAccessibleDescription(f"{lines_text(g)}, {size_text(g)}, {WORDS[g.level]}. "
                                      f"{unloaded_text(g)}")
