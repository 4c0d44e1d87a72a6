"""Write botmemory's icons: the SVG sources and the PNG sizes desktops ask for.

    .venv/bin/python packaging/render_icons.py [--app-copy]

The SVGs are written from the templates below (the single source of truth), then
every PNG is rendered from its SVG with Qt's own QSvgRenderer, so no other tool
is needed. Output, all committed:

    resources/icons/hicolor/scalable/apps/io.botmemory.Botmemory.svg
    resources/icons/hicolor/<N>x<N>/apps/io.botmemory.Botmemory.png
    resources/icons/tray/tray-<state>-<theme>.svg        state: ok, amber, red
    resources/icons/tray/tray-<state>-<theme>-<N>.png    theme: light, dark
    packaging/botmemory.icns, packaging/botmemory.ico    the bundle icons for macOS and Windows

``light`` and ``dark`` name the panel the icon is for: a dark glyph for a light
panel, a light glyph for a dark one. ``--app-copy`` also copies the tray and app
icons the app loads into ``desktop/resources/`` (flat, as package data).
"""
from __future__ import annotations

import argparse
import os
import shutil
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons"
APP_ID = "io.botmemory.Botmemory"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)
STATES = ("ok", "amber", "red")
THEMES = {"light": "#31363b", "dark": "#eff0f1"}
BADGES = {"amber": "#f5a000", "red": "#e0312b"}

APP_SVG = """\
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">
  <title>Bot Memory</title>
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#6366f1"/>
      <stop offset="1" stop-color="#3730a3"/>
    </linearGradient>
  </defs>
  <rect x="8" y="8" width="112" height="112" rx="26" fill="url(#bg)"/>
  <path d="M42 22h34l20 20v58a6 6 0 0 1-6 6H42a6 6 0 0 1-6-6V28a6 6 0 0 1 6-6z" fill="#ffffff"/>
  <path d="M76 22v14a6 6 0 0 0 6 6h14z" fill="#c7d2fe"/>
  <path d="M46 22h12v26l-6-5-6 5z" fill="#f5a000"/>
  <rect x="46" y="58" width="40" height="6" rx="3" fill="#6366f1"/>
  <rect x="46" y="72" width="40" height="6" rx="3" fill="#a5b4fc"/>
  <rect x="46" y="86" width="26" height="6" rx="3" fill="#a5b4fc"/>
</svg>
"""

# A page with a folded corner and three lines of notes, outlined; a status badge
# sits in a notch cut out of the bottom-right corner (none when all is well).
TRAY_OK = """\
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
  <title>Bot Memory: {title}</title>
  <g fill="none" stroke="{ink}" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round">
    <path d="M26 10V27a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h11z"/>
    <path d="M19 3v5.5a1.5 1.5 0 0 0 1.5 1.5H26"/>
    <path d="M10.5 14h11M10.5 19h11M10.5 24h6.5"/>
  </g>
</svg>
"""

TRAY_BADGE = """\
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
  <title>Bot Memory: {title}</title>
  <g fill="none" stroke="{ink}" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round">
    <path d="M26 14V10l-7-7H8a2 2 0 0 0-2 2V27a2 2 0 0 0 2 2h7"/>
    <path d="M19 3v5.5a1.5 1.5 0 0 0 1.5 1.5H26"/>
    <path d="M10.5 14h8M10.5 19h4.5M10.5 24h2.5"/>
  </g>
  <circle cx="24" cy="24" r="7" fill="{badge}"/>
{mark}</svg>
"""

MARKS = {
    # amber: a dot that says "nearly full"; red: a bar that says "something is cut off".
    "amber": '  <circle cx="24" cy="24" r="2.4" fill="#ffffff"/>\n',
    "red": '  <rect x="20" y="22.6" width="8" height="2.8" rx="1.4" fill="#ffffff"/>\n',
}
TITLES = {"ok": "all notes load", "amber": "memory nearly full", "red": "some notes do not load"}


def tray_svg(state: str, theme: str) -> str:
    ink = THEMES[theme]
    if state == "ok":
        return TRAY_OK.format(ink=ink, title=TITLES[state])
    return TRAY_BADGE.format(ink=ink, badge=BADGES[state], mark=MARKS[state], title=TITLES[state])


def render(svg: bytes, size: int) -> QImage:
    renderer = QSvgRenderer(QByteArray(svg))
    if not renderer.isValid():
        raise SystemExit("an SVG did not parse")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image.convertToFormat(QImage.Format.Format_ARGB32)


def write_png(svg: bytes, size: int, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not render(svg, size).save(str(path), "PNG"):
        raise SystemExit(f"could not write {path}")


def png_bytes(svg: bytes, size: int) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    render(svg, size).save(buffer, "PNG")
    return bytes(buffer.data().data())


# Apple's icns element types that hold PNG data, by pixel size.
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256),
              (b"ic09", 512), (b"ic10", 1024))
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def icns(svg: bytes) -> bytes:
    """A macOS .icns holding PNGs of every size (the format PyInstaller's BUNDLE wants)."""
    body = b"".join(kind + struct.pack(">I", 8 + len(data)) + data
                    for kind, size in ICNS_TYPES for data in [png_bytes(svg, size)])
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def ico(svg: bytes) -> bytes:
    """A Windows .ico with PNG-compressed images of every size (Windows Vista and later read these)."""
    images = [png_bytes(svg, size) for size in ICO_SIZES]
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = 6 + 16 * len(images)
    entries = b""
    for size, data in zip(ICO_SIZES, images):
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
    return header + entries + b"".join(images)


def build() -> list[Path]:
    written: list[Path] = []
    app_svg = ICONS / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    app_svg.parent.mkdir(parents=True, exist_ok=True)
    app_svg.write_text(APP_SVG, encoding="utf-8")
    written.append(app_svg)
    for size in SIZES:
        png = ICONS / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        write_png(APP_SVG.encode(), size, png)
        written.append(png)
    for name, data in (("botmemory.icns", icns(APP_SVG.encode())), ("botmemory.ico", ico(APP_SVG.encode()))):
        path = ROOT / "packaging" / name
        path.write_bytes(data)
        written.append(path)
    tray = ICONS / "tray"
    tray.mkdir(parents=True, exist_ok=True)
    for state in STATES:
        for theme in THEMES:
            svg = tray_svg(state, theme)
            path = tray / f"tray-{state}-{theme}.svg"
            path.write_text(svg, encoding="utf-8")
            written.append(path)
            for size in SIZES:
                png = tray / f"tray-{state}-{theme}-{size}.png"
                write_png(svg.encode(), size, png)
                written.append(png)
    return written


def app_copy(target: Path) -> list[Path]:
    """The icons the app loads, flat in *target*: botmemory.svg, botmemory-<N>.png, tray-*.svg, tray-*-<N>.png."""
    target.mkdir(parents=True, exist_ok=True)
    out = [target / "botmemory.svg"]
    shutil.copyfile(ICONS / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg", out[0])
    for size in SIZES:
        dest = target / f"botmemory-{size}.png"
        shutil.copyfile(ICONS / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png", dest)
        out.append(dest)
    for src in sorted((ICONS / "tray").iterdir()):
        dest = target / src.name
        shutil.copyfile(src, dest)
        out.append(dest)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app-copy", action="store_true",
                        help="also copy the icons the app loads into desktop/resources/")
    args = parser.parse_args(argv)
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    written = build()
    print(f"wrote {len(written)} files under {ICONS.relative_to(ROOT)} and packaging/")
    if args.app_copy:
        copied = app_copy(ROOT / "desktop" / "resources")
        print(f"copied {len(copied)} files to desktop/resources")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
