"""Save a PNG of the whole X screen: ``DISPLAY=:99 python packaging/screenshot.py OUT.png``.

Used by smoke_test.sh under Xvfb; needs only PySide6 (Qt's xcb platform).
"""
from __future__ import annotations

import os
import sys

os.environ["QT_QPA_PLATFORM"] = "xcb"

from PySide6.QtGui import QGuiApplication


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: screenshot.py OUT.png", file=sys.stderr)
        return 2
    app = QGuiApplication(sys.argv[:1])
    screen = app.primaryScreen()
    if screen is None or not screen.grabWindow(0).save(sys.argv[1], "PNG"):
        print("screenshot.py: could not grab the screen", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
