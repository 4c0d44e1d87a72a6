"""The panel and Settings fit a 1366×768 laptop at 1×, and 1280×800 at twice the scale (issue 29, Looks).

Each screen is Qt's offscreen platform given that screen (its ``configfile``), in a process of its own, since the
scale is read when the application starts. What a person must reach is checked on the screen: the panel's
window and its status line, Settings' Save and Cancel. (docs/make_screenshots.py --looks shows the same screens
under a real X server and window manager.)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = r'''
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from tests.desktop.scenario import build
who = build(Path(os.environ["HOME"]))
from botmemory.core.ops import Memory, discover, track
from botmemory.desktop import app as appmod
from PySide6.QtCore import QCoreApplication

def wait(cond, s=20):
    end = time.monotonic() + s
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        if cond():
            return
        time.sleep(0.01)
    raise SystemExit("timed out")

root = Path(os.environ["HOME"]) / ".local" / "share" / "botmemory"
mem = Memory.open(str(root))
for c in discover(mem).folders:
    track(mem, c.id)
(mem.home.state_dir / "agents-offered.json").write_text("{}")
started = appmod.launch(["--no-tray"])
desk = started.desk
wait(lambda: desk.panel is not None and desk.panel.isVisible() and desk.panel.gauge.gauge is not None)
p = desk.panel
screen = p.screen().availableGeometry()
out = {"screen": [screen.width(), screen.height()]}
def rect(w):
    top = w.mapToGlobal(w.rect().topLeft())
    return [top.x(), top.y(), w.width(), w.height()]
p.say("Moved 61 index lines of ~/src/shop-app into older_memories.md.")
QCoreApplication.processEvents()
out["panel"] = rect(p)
out["status"] = rect(p.status_label)
out["status_text"] = p.status_label.text()
out["body_scrolls"] = p.body.verticalScrollBar().isVisible()
forget = p.open_forget()
wait(lambda: forget.isVisible())
out["forget"] = rect(forget)
out["forget_button"] = rect(forget.preview_button)
forget.close()
desk.open_settings()
wait(lambda: desk._settings is not None and desk._settings.isVisible())
time.sleep(0.3)
wait(lambda: True, 0.5)
s = desk._settings
out["settings"] = rect(s)
out["save"] = rect(s.save_button)
cancel = s.buttons.button(s.buttons.StandardButton.Cancel)
out["cancel"] = rect(cancel)
print(json.dumps(out))
desk.shutdown(); started.server.close()
'''


def inside(screen: list[int], r: list[int]) -> bool:
    x, y, w, h = r
    return x >= 0 and y >= 0 and x + w <= screen[0] and y + h <= screen[1]


@pytest.mark.parametrize("width, height, scale", [(1366, 768, "1"), (1280, 800, "2")])
def test_the_panel_and_settings_fit_the_screen(tmp_path: Path, width: int, height: int, scale: str) -> None:
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": width, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "QT_SCALE_FACTOR": scale,
           "HOME": str(tmp_path / "priya")}
    for key in ("OPENMAUSBOT_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR"):
        env.pop(key, None)
    p = subprocess.run([sys.executable, "-c", CHILD, str(ROOT)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    screen = got["screen"]
    assert screen == [width // int(scale), height // int(scale)]
    for part in ("panel", "status", "settings", "save", "cancel", "forget", "forget_button"):
        assert inside(screen, got[part]), (part, got[part], screen)
    assert got["status"][3] >= 10 and "older_memories.md" in got["status_text"]     # the status line is shown
    if scale == "1":
        assert not got["body_scrolls"]           # a 1366×768 screen holds the panel whole: no scroll bar
