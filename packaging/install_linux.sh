#!/usr/bin/env bash
# Put Bot Memory in the desktop's app menu (or take it out again), for the current user.
#
#   install.sh                    inside an unpacked bundle: install that bundle
#   packaging/install_linux.sh    in a checkout, after `pipx install .[desktop]`: menu entry for botmemory-tray on PATH
#   ... --uninstall               remove everything this script installed, and the start-at-login entry
#
# Installs, under ${XDG_DATA_HOME:-~/.local/share}:
#   applications/io.botmemory.Botmemory.desktop
#   icons/hicolor/<size>/apps/io.botmemory.Botmemory.{png,svg}
#   metainfo/io.botmemory.Botmemory.metainfo.xml
# and for a bundle: the bundle itself in ~/.local/lib/botmemory, with botmemory and
# botmemory-tray linked into ~/.local/bin. Your notes, the journal and config.json
# (in the OpenMausBot home) are never touched.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
APP_ID=io.botmemory.Botmemory
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
CONFIG="${XDG_CONFIG_HOME:-$HOME/.config}"
LIB="$HOME/.local/lib/botmemory"
BIN="$HOME/.local/bin"

if [ -x "$HERE/botmemory-tray" ] && [ -d "$HERE/share" ]; then
  MODE=bundle SHARE="$HERE/share"
else
  MODE=path SHARE="$(dirname "$HERE")/resources"
fi

refresh() {
  command -v update-desktop-database >/dev/null && update-desktop-database -q "$DATA/applications" 2>/dev/null || true
  command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" 2>/dev/null || true
}

if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$DATA/applications/$APP_ID.desktop" "$DATA/metainfo/$APP_ID.metainfo.xml" \
        "$CONFIG/autostart/botmemory.desktop"
  find "$DATA/icons/hicolor" -path "*/apps/$APP_ID.*" -delete 2>/dev/null || true
  for exe in botmemory botmemory-tray; do
    [ -L "$BIN/$exe" ] && [ "$(readlink "$BIN/$exe")" = "$LIB/$exe" ] && rm -f "$BIN/$exe"
  done
  rm -rf "$LIB"
  refresh
  echo "Bot Memory is removed (your notes, the journal and config.json are untouched)."
  exit 0
fi

EXEC=botmemory-tray
if [ "$MODE" = bundle ]; then
  if [ "$HERE" != "$LIB" ]; then
    rm -rf "$LIB"
    mkdir -p "$(dirname "$LIB")"
    cp -a "$HERE" "$LIB"
  fi
  mkdir -p "$BIN"
  ln -sfn "$LIB/botmemory" "$BIN/botmemory"
  ln -sfn "$LIB/botmemory-tray" "$BIN/botmemory-tray"
  EXEC="$LIB/botmemory-tray"
elif ! command -v botmemory-tray >/dev/null; then
  echo "install_linux.sh: botmemory-tray is not on PATH; install it first: pipx install '.[desktop]'" >&2
  exit 2
fi

mkdir -p "$DATA/applications" "$DATA/metainfo"
sed -e "s|^Exec=.*|Exec=$EXEC|" -e "s|^TryExec=.*|TryExec=$EXEC|" \
  "$SHARE/$APP_ID.desktop" > "$DATA/applications/$APP_ID.desktop"
cp "$SHARE/$APP_ID.metainfo.xml" "$DATA/metainfo/"
(cd "$SHARE/icons" && find hicolor -path "*/apps/$APP_ID.*" -exec install -D -m 644 {} "$DATA/icons/{}" \;)
refresh
echo "Bot Memory is in the app menu (starts $EXEC)."
