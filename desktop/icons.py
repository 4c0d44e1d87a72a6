"""Icons: the app icon and the tray icon for each gauge level.

Themed icons first, then the package's bundled files (``desktop/resources/``,
found with ``importlib.resources``; the tray's in a light and a dark variant,
picked from the palette), then a drawn fallback — a coloured disc with a white
"M" — so the tray always has an icon.
"""
from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

from botmemory.core.ops import Level

logger = logging.getLogger(__name__)

COLOURS = {Level.OK: "#2e9d5b", Level.AMBER: "#d99a00", Level.RED: "#d0392b"}
APP_COLOUR = "#3b5bdb"
_cache: dict[str, QIcon] = {}


SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def _folders() -> list[Path]:
    out: list[Path] = []
    try:
        out.append(Path(str(resources.files("botmemory.desktop") / "resources")))
    except (ModuleNotFoundError, TypeError):
        pass
    out.append(Path(__file__).resolve().parent / "resources")
    return out


def _bundled(name: str) -> QIcon:
    """Every bundled size of ``resources/<name>-<N>.png`` (and ``<name>.svg``) as one icon."""
    icon = QIcon()
    for folder in _folders():
        if not folder.is_dir():
            continue
        for n in SIZES:
            p = folder / f"{name}-{n}.png"
            if p.is_file():
                icon.addFile(str(p))
        svg = folder / f"{name}.svg"
        if icon.isNull() and svg.is_file():
            icon.addFile(str(svg))
        if not icon.isNull():
            break
    return icon


def panel_theme() -> str:
    """``dark`` when the desktop's palette is dark (a light glyph is needed), else ``light``."""
    from PySide6.QtGui import QGuiApplication, QPalette

    app = QGuiApplication.instance()
    if app is None:
        return "light"
    window = QGuiApplication.palette().color(QPalette.ColorRole.Window)
    return "dark" if window.lightness() < 128 else "light"


def drawn(colour: str, size: int = 64) -> QIcon:
    icon = QIcon()
    for s in (16, 22, 24, 32, 48, size):
        pm = QPixmap(s, s)
        pm.fill(Qt.GlobalColor.transparent)
        p = QPainter(pm)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(colour))
        p.drawEllipse(QRectF(1, 1, s - 2, s - 2))
        p.setPen(QColor("white"))
        f = QFont()
        f.setBold(True)
        f.setPixelSize(max(8, int(s * 0.58)))
        p.setFont(f)
        p.drawText(QRectF(0, 0, s, s), Qt.AlignmentFlag.AlignCenter, "M")
        p.end()
        icon.addPixmap(pm)
    return icon


def _icon(key: str, themed: str, bundled: str, colour: str) -> QIcon:
    if key in _cache:
        return _cache[key]
    icon = QIcon.fromTheme(themed) if QIcon.hasThemeIcon(themed) else QIcon()
    if icon.isNull():
        icon = _bundled(bundled)
    if icon.isNull():
        icon = drawn(colour)
    _cache[key] = icon
    return icon


def tray_icon(level: Level) -> QIcon:
    theme = panel_theme()
    return _icon(f"tray-{level.value}-{theme}", f"botmemory-tray-{level.value}", f"tray-{level.value}-{theme}",
                 COLOURS[level])


def app_icon() -> QIcon:
    return _icon("app", "io.botmemory.Botmemory", "botmemory", APP_COLOUR)
