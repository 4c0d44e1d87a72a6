"""Packaging: every folder of shipped files is listed, and a wheel builds without a single warning."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
WARNING = re.compile(r"Warning|[Dd]eprecat|!!")


def shipped_folders() -> set[str]:
    out = set()
    for base in ("resources", "demo_home"):
        for d in [ROOT / "desktop" / base, *(p for p in (ROOT / "desktop" / base).rglob("*") if p.is_dir())]:
            out.add("botmemory.desktop." + ".".join(d.relative_to(ROOT / "desktop").parts))
    return out


def test_every_folder_of_shipped_files_is_a_listed_package():
    packages = set(CONFIG["tool"]["setuptools"]["packages"])
    assert shipped_folders() <= packages
    assert set(CONFIG["tool"]["setuptools"]["package-data"]) == shipped_folders()


def test_the_license_is_an_spdx_string():
    assert CONFIG["project"]["license"] == "MIT"


@pytest.mark.slow
def test_a_wheel_builds_without_warnings_and_holds_every_file(tmp_path):
    import setuptools

    if tuple(int(x) for x in setuptools.__version__.split(".")[:2]) < (77, 0):
        pytest.skip(f"setuptools {setuptools.__version__} in this environment; the build needs 77 or newer")
    # built from a copy of the checkout: setuptools reuses a build/ folder it finds in the source, so a build
    # left from before a module moved would ship the old module too (and building in place writes build/)
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                                              "__pycache__", ".*_cache", ".hypothesis"))
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation",
                        "-v", "-w", str(tmp_path)], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    noise = [line for line in (p.stdout + p.stderr).splitlines() if WARNING.search(line)]
    assert noise == []
    (wheel,) = tmp_path.glob("botmemory-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in (ROOT / "desktop").rglob("*"):
        if f.is_file() and f.suffix in (".py", ".md", ".png", ".svg") and "__pycache__" not in f.parts:
            assert "botmemory/desktop/" + f.relative_to(ROOT / "desktop").as_posix() in names
    core = {"botmemory/core/" + f.relative_to(ROOT / "core").as_posix() for f in (ROOT / "core").rglob("*.py")
            if "__pycache__" not in f.parts}
    assert core <= names, f"core modules missing from the wheel (or shipped elsewhere): {sorted(core - names)[:5]}"
    assert {n for n in names if n.startswith("botmemory/core/") and n.endswith(".py")} == core
