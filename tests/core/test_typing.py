"""core/ stays typed: mypy --strict over it is part of the test suite."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_core_passes_mypy_strict():
    pytest.importorskip("mypy")
    p = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", "/dev/null" if sys.platform != "win32" else "nul"],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
