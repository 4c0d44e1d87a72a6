#!/usr/bin/env bash
# Build the onedir bundle dist/botmemory/ with PyInstaller.
#   packaging/build_linux.sh            uses .venv/bin/python (PyInstaller installed there)
#   PYTHON=/path/to/python packaging/build_linux.sh
# PyInstaller is a build tool, not a runtime dependency: `pip install pyinstaller` into the
# same environment as PySide6-Essentials and botmemory's dependencies first.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
BUILD="$ROOT/build/pyinstaller"
SRC="$BUILD/src"

"$PY" -c "import PyInstaller, PySide6" 2>/dev/null || {
  echo "build_linux.sh: $PY needs PyInstaller and PySide6-Essentials: $PY -m pip install pyinstaller PySide6-Essentials" >&2
  exit 2
}

# Lay the package out as the wheel installs it (package-dir: core -> botmemory/core, desktop -> botmemory/desktop).
rm -rf "$SRC"
mkdir -p "$SRC/botmemory"
for part in core desktop; do
  cp -r "$ROOT/$part" "$SRC/botmemory/$part"
done
find "$SRC" -name __pycache__ -type d -prune -exec rm -rf {} +

export BOTMEMORY_SRC="$SRC"
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$ROOT/dist" --workpath "$BUILD/work" "$HERE/botmemory.spec"

# What install.sh needs to put the app in the menu: the .desktop file, the metainfo, the icons.
DIST="$ROOT/dist/botmemory"
mkdir -p "$DIST/share/icons"
cp "$ROOT/resources/io.botmemory.Botmemory.desktop" "$ROOT/resources/io.botmemory.Botmemory.metainfo.xml" "$DIST/share/"
cp -r "$ROOT/resources/icons/hicolor" "$DIST/share/icons/"
cp "$HERE/install_linux.sh" "$DIST/install.sh"

VERSION="$("$PY" -c "import tomllib; print(tomllib.load(open('$ROOT/pyproject.toml', 'rb'))['project']['version'])")"
TARBALL="$ROOT/dist/botmemory-$VERSION-linux-$(uname -m).tar.gz"
tar -C "$ROOT/dist" -czf "$TARBALL" botmemory
echo "built $DIST ($(du -sh "$DIST" | cut -f1)) and $TARBALL ($(du -sh "$TARBALL" | cut -f1))"
