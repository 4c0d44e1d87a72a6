#!/usr/bin/env bash
# Build the onedir bundle, start it headless with --demo, check that it reaches its event loop
# and shows its panel (and tray icon, when a tray is there), then SIGTERM it and check it quits
# cleanly (exit status 0, no traceback).
#
#   packaging/smoke_test.sh                 build, then test
#   SKIP_BUILD=1 packaging/smoke_test.sh    test the bundle already in dist/botmemory
#
# Under Xvfb (Debian: xvfb) it runs on a virtual X screen, with `trayer` (a light panel) as the system tray
# when installed, checks the windows with xwininfo (x11-utils) and saves a screenshot to
# $SMOKE_SCREENSHOT (default /tmp/botmemory-smoke.png). Without Xvfb it falls back to
# QT_QPA_PLATFORM=offscreen and checks only that the app stays up and quits cleanly.
# Nothing outside a temporary folder is touched: HOME and the XDG folders point into it.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
APP="$ROOT/dist/botmemory/botmemory-tray"
SECONDS_UP="${SMOKE_SECONDS:-5}"
SHOT="${SMOKE_SCREENSHOT:-/tmp/botmemory-smoke.png}"

fail() { echo "smoke test FAILED: $*" >&2; [ -f "${OUT:-}" ] && { echo "--- app output ---" >&2; cat "$OUT" >&2; }; exit 1; }

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  "$HERE/build_linux.sh" || fail "the build failed"
fi
[ -x "$APP" ] || fail "$APP is missing: build first"
echo "bundle: $ROOT/dist/botmemory ($(du -sh "$ROOT/dist/botmemory" | cut -f1))"

TMP="$(mktemp -d)"
OUT="$TMP/app.log"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT

export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" XDG_STATE_HOME="$TMP/home/.local/state" \
       XDG_DATA_HOME="$TMP/home/.local/share" XDG_CACHE_HOME="$TMP/home/.cache" XDG_RUNTIME_DIR="$TMP/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
unset OPENMAUSBOT_HOME WAYLAND_DISPLAY

X=0
if command -v Xvfb >/dev/null; then
  for n in $(seq 90 130); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { DISPLAY_NUM=$n; break; }; done
  Xvfb ":$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp >"$TMP/xvfb.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$DISPLAY_NUM" ] && break; sleep 0.1; done
  [ -e "/tmp/.X11-unix/X$DISPLAY_NUM" ] || fail "Xvfb did not start: $(cat "$TMP/xvfb.log")"
  export DISPLAY=":$DISPLAY_NUM" QT_QPA_PLATFORM=xcb
  X=1
  command -v xsetroot >/dev/null && xsetroot -solid '#5b6270'
  if command -v trayer >/dev/null; then
    trayer --edge top --align right --widthtype pixel --width 160 --height 28 --transparent true \
           --alpha 0 --tint 0xe3e6ea >"$TMP/trayer.log" 2>&1 &
    PIDS+=($!)
    sleep 1
  fi
  echo "display: Xvfb $DISPLAY$(command -v trayer >/dev/null && echo ', tray: trayer')"
else
  export QT_QPA_PLATFORM=offscreen
  echo "display: none (Xvfb not installed), QT_QPA_PLATFORM=offscreen"
fi

# The command line in the same bundle: make a workspace, write a note, read the gauge.
CLI="$ROOT/dist/botmemory/botmemory"
"$CLI" --root "$TMP/omb" init smoke >/dev/null || fail "botmemory init failed"
"$CLI" --root "$TMP/omb" remember smoke "the smoke test ran" >/dev/null || fail "botmemory remember failed"
"$CLI" --root "$TMP/omb" gauge smoke --json | grep -q '"level": "ok"' || fail "botmemory gauge failed"
echo "cli: init, remember and gauge work"

"$APP" --demo --verbose >"$OUT" 2>&1 &
APP_PID=$!
sleep "$SECONDS_UP"
kill -0 "$APP_PID" 2>/dev/null || { wait "$APP_PID"; fail "the app exited within ${SECONDS_UP}s (status $?)"; }
echo "up after ${SECONDS_UP}s: pid $APP_PID"

if [ "$X" = 1 ]; then
  if command -v xwininfo >/dev/null; then
    TREE="$(xwininfo -root -tree)"
    SHOWN=0
    # A top-level window whose title names Bot Memory and that is bigger than Qt's 1x1 leader window.
    WINDOW="$(echo "$TREE" | grep -E '^     0x[0-9a-f]+ ".*Bot Memory.*\)  [0-9]{2,}x[0-9]{2,}\+' | head -1 | sed 's/^ *//')"
    if [ -n "$WINDOW" ]; then
      echo "window: $WINDOW"; SHOWN=1
    fi
    # An embedded tray icon is a window of the app's nested under trayer's "panel" window.
    if echo "$TREE" | awk '/"panel": \("panel" "trayer"\)/{p=1;next} p && /^     0x/{p=0} p && /botmemory/{f=1} END{exit !f}'; then
      echo "tray: icon embedded in the system tray"; SHOWN=1
    fi
    [ "$SHOWN" = 1 ] || fail "neither a Bot Memory window nor a tray icon is shown:
$TREE"
  fi
  if "$PY" -c "import PySide6" 2>/dev/null; then
    "$PY" "$HERE/screenshot.py" "$SHOT" && echo "screenshot: $SHOT"
  fi
fi

kill -TERM "$APP_PID"
for _ in $(seq 100); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$APP_PID" 2>/dev/null; then
  kill -KILL "$APP_PID"
  fail "the app did not quit within 10s of SIGTERM"
fi
wait "$APP_PID"; STATUS=$?
[ "$STATUS" = 0 ] || fail "the app quit on SIGTERM with status $STATUS (expected 0: a clean quit)"
grep -q "Traceback" "$OUT" && fail "the app printed a traceback"
echo "--- last log lines ---"; tail -5 "$OUT"
echo "smoke test passed: started with --demo, showed its window, quit cleanly on SIGTERM"
