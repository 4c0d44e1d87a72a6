"""The icons, the .desktop file and the AppStream metainfo in resources/."""
from __future__ import annotations

import configparser
import filecmp
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from botmemory.desktop import autostart

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"
ICONS = RESOURCES / "icons"
APP_ID = "io.botmemory.Botmemory"
DESKTOP_FILE = RESOURCES / f"{APP_ID}.desktop"
METAINFO = RESOURCES / f"{APP_ID}.metainfo.xml"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)
TRAY = [f"tray-{state}-{theme}" for state in ("ok", "amber", "red") for theme in ("light", "dark")]


def icon_files() -> list[tuple[Path, int | None]]:
    files: list[tuple[Path, int | None]] = [(ICONS / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg", None)]
    files += [(ICONS / "hicolor" / f"{s}x{s}" / "apps" / f"{APP_ID}.png", s) for s in SIZES]
    for name in TRAY:
        files.append((ICONS / "tray" / f"{name}.svg", None))
        files += [(ICONS / "tray" / f"{name}-{s}.png", s) for s in SIZES]
    return files


@pytest.mark.parametrize("path, size", icon_files(), ids=lambda v: v.name if isinstance(v, Path) else str(v))
def test_icon_is_there_and_draws(qapp: Any, path: Path, size: int | None) -> None:
    from PySide6.QtGui import QImage
    from PySide6.QtSvg import QSvgRenderer

    assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run packaging/render_icons.py"
    if size is None:
        renderer = QSvgRenderer(str(path))
        assert renderer.isValid()
        return
    image = QImage(str(path))
    assert not image.isNull()
    assert (image.width(), image.height()) == (size, size)
    assert image.hasAlphaChannel()
    alphas = {image.pixelColor(x, y).alpha() for x in range(size) for y in range(size)}
    assert 0 in alphas and 255 in alphas  # transparent around, something solid drawn


def test_dark_and_light_tray_icons_differ(qapp: Any) -> None:
    from PySide6.QtGui import QImage

    for state in ("ok", "amber", "red"):
        light = QImage(str(ICONS / "tray" / f"tray-{state}-light-22.png"))
        dark = QImage(str(ICONS / "tray" / f"tray-{state}-dark-22.png"))
        assert light != dark


def test_the_app_ships_the_same_icons() -> None:
    packaged = ROOT / "desktop" / "resources"
    assert filecmp.cmp(packaged / "botmemory.svg", ICONS / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg",
                       shallow=False)
    for size in SIZES:
        assert filecmp.cmp(packaged / f"botmemory-{size}.png",
                           ICONS / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png", shallow=False)
    for src in (ICONS / "tray").iterdir():
        assert filecmp.cmp(packaged / src.name, src, shallow=False), src.name


def test_desktop_entry_names_the_app_and_icon() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(DESKTOP_FILE, encoding="utf-8")
    group = entry["Desktop Entry"]
    assert group["Icon"] == APP_ID == autostart.APP_ID
    assert group["Exec"] == "botmemory-tray" == autostart.GUI_SCRIPT
    assert group["Name"] == autostart.APP_NAME


def test_metainfo_points_at_the_desktop_entry() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP_FILE.name
    assert {b.text for b in root.iter("binary")} == {"botmemory", "botmemory-tray"}


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is not installed (Debian: apt-get install desktop-file-utils)")
def test_desktop_file_validate_passes() -> None:
    result = subprocess.run(["desktop-file-validate", str(DESKTOP_FILE)], check=False, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "", result.stdout


@pytest.mark.skipif(shutil.which("appstreamcli") is None,
                    reason="appstreamcli is not installed (Debian: apt-get install appstream)")
def test_appstreamcli_validate_passes() -> None:
    result = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)],
                            check=False, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    # No warnings or errors either; infos and pedantic notes are allowed.
    issues = [line for line in result.stdout.splitlines() if line[:2] in ("W:", "E:")]
    assert issues == [], result.stdout
