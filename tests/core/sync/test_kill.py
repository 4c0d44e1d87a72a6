"""A sync killed (SIGKILL) at every step loses nothing: the next rounds converge with every line there."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import Computer, bare, copy_world

DRIVER = Path(__file__).with_name("kill_driver.py")
LINES = ("From the laptop", "From the desktop", "- laptop's topic line", "- desktop's topic line",
         "Shared before both")


def world(root: Path) -> None:
    """Two computers with changes on both sides since their last sync: the desktop's next round pulls,
    merges, writes, commits and pushes."""
    remote = bare(root / "memory.git")
    a, b = Computer(root / "laptop", "laptop"), Computer(root / "desktop", "desktop")
    for c in (a, b):
        c.setup(remote.as_uri())
    a.remember("Shared before both")
    a.save("memory/trips.md", "# Trips\n")
    a.sync()
    b.sync()
    a.remember("From the laptop")
    a.save("memory/trips.md", "# Trips\n- laptop's topic line\n")
    a.sync()
    b.remember("From the desktop")
    b.save("memory/trips.md", "# Trips\n- desktop's topic line\n")


def drive(root: Path, k: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(DRIVER), str(root / "desktop" / "home"), str(k)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_sync_killed_at_every_step_loses_nothing_and_converges(tmp_path):
    template = tmp_path / "template"
    world(template)
    probe = tmp_path / "probe"
    copy_world(template, probe)
    done = drive(probe, 10 ** 6)
    assert done.returncode == 0, done.stderr
    points = done.stderr.strip().splitlines()
    assert int(done.stdout) == len(points) > 20
    assert {"step fetch", "step written", "step push", "step saved", "before write", "during git push"} <= set(points)
    for k in range(1, len(points) + 1):
        here = tmp_path / f"k{k}"
        copy_world(template, here)
        r = drive(here, k)
        assert r.returncode == -9, f"point {k} ({points[k - 1]}) did not kill: {r.stderr[-500:]}"
        time.sleep(0.02)
        a, b = Computer(here / "laptop", "laptop"), Computer(here / "desktop", "desktop")
        for c in (b, a, b):
            c.sync()
        for line in LINES:
            assert line in a.text() + a.text("memory/trips.md"), f"killed at {points[k - 1]}: {line!r} lost"
        assert a.files() == b.files(), f"killed at {points[k - 1]}: the computers differ"
        assert a.text().count("From the desktop") == 1, f"killed at {points[k - 1]}: a line doubled"
