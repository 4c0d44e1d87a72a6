"""core/ and desktop/ stay typed: mypy --strict over both is part of the test suite."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_core_and_desktop_pass_mypy_strict():
    pytest.importorskip("mypy")
    # the cache `./dev check` keeps too (beside the interpreter's environment): a second run takes seconds
    cache = Path(sys.prefix) / ".mypy_cache"
    p = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(cache)],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_checks_the_desktop_too():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert set(config["packages"]) == {"botmemory.core", "botmemory.desktop"}
    for name in ("core", "desktop"):
        link = ROOT / config["mypy_path"] / "botmemory" / name
        assert link.resolve() == (ROOT / name).resolve()
