"""Issue 29's person, under a real X server: the app as they meet it, Claude Code connected from it, a prompt answered.

Xvfb at 1366×768 with a window manager (openbox), the real ``botmemory-tray`` in a process of its own, and a
person's keys sent with xdotool — nothing of the app is called from the test:

1. three Claude Code projects (one over its budget, one holding a token) and Hermes near its limit, no OpenMausBot;
2. the first run opens the welcome page with the offer: Alt+T tracks the ticked folders, the panel opens on one;
3. Alt+E opens Settings; Alt+L connects Claude Code (its hooks go into ~/.claude/settings.json, the person's
   own keys kept); Escape closes Settings;
4. the real ``claude -p`` (offline, against a loopback fake of the API) in ~/src/shop-app asks about the payment
   client: the hook's answer — the note of the project's memory — reaches the model.

Skipped where Xvfb or xdotool is missing (Debian: apt-get install xvfb xdotool openbox).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests import claude_code
from tests.claude_code import FakeModel

from .scenario import Person, build

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not all(shutil.which(t) for t in ("Xvfb", "xdotool")), reason="needs Xvfb and xdotool (apt-get install xvfb xdotool)")]

BIN = Path(sys.executable).parent
DISPLAY = ":171"


def until(what: str, cond: Callable[[], object], seconds: float = 60) -> None:
    """Wait for something a person would wait for (a window, a file); the bound is only against a hang."""
    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > end:
            shown = list(windows({"DISPLAY": DISPLAY}).values())
            raise AssertionError(f"waited {seconds:.0f} s for {what} (windows on the screen: {shown})")
        time.sleep(0.2)


@pytest.fixture
def screen(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An X server of 1366×768 with a window manager; the environment a program on it gets."""
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "DISPLAY": DISPLAY, "LANG": "C.UTF-8"}
    xvfb = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = [xvfb]
    try:
        until("the X server", lambda: subprocess.run(["xdotool", "getdisplaygeometry"], env=env,
                                                      capture_output=True).returncode == 0, 30)
        if shutil.which("openbox"):
            procs.append(subprocess.Popen(["openbox", "--sm-disable"], env={**env, "HOME": str(tmp_path)},
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(1)
        yield env
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(10)


def windows(env: dict[str, str]) -> dict[str, str]:
    """The visible windows on the screen: id -> title (matched here, not by xdotool's regex, which a title's
    '·' and '—' defeat in some locales)."""
    ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "."], env=env, capture_output=True,
                         text=True).stdout.split()
    out = {}
    for wid in ids:
        title = subprocess.run(["xdotool", "getwindowname", wid], env=env, capture_output=True,
                               text=True).stdout.strip()
        if title:
            out[wid] = title
    return out


def window(env: dict[str, str], title: str) -> str | None:
    """A visible window whose title starts with *title* ("^…") or holds it."""
    for wid, name in windows(env).items():
        if name.startswith(title[1:]) if title.startswith("^") else title in name:
            return wid
    return None


def keys(env: dict[str, str], wid: str, *combo: str) -> None:
    """The person brings the window forward and presses the keys."""
    subprocess.run(["xdotool", "windowactivate", "--sync", wid], env=env, capture_output=True, timeout=30)
    subprocess.run(["xdotool", "windowfocus", "--sync", wid], env=env, capture_output=True, timeout=30)
    for k in combo:
        subprocess.run(["xdotool", "key", "--clearmodifiers", k], env=env, check=True, timeout=30)   # XTEST: real keys
        time.sleep(0.3)


def test_a_person_connects_claude_code_from_the_app_and_a_prompt_gets_the_hooks_answer(screen, tmp_path):
    try:
        claude = claude_code.claude()
    except claude_code.Unavailable as e:
        pytest.skip(str(e))
    who: Person = build(tmp_path / "priya")
    env = {**screen, "HOME": str(who.home)}
    log = (tmp_path / "app.log").open("w")
    app = subprocess.Popen([str(BIN / "botmemory-tray")], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        # the first run: the welcome page, the found folders ticked in it
        until("the welcome page", lambda: window(env, "^Welcome") is not None)
        registry = who.home / ".local/share/botmemory/botmemory/tracked.json"

        def track() -> bool:        # the offer is filled in once the folders are found: the person presses again
            if not registry.exists():
                keys(env, window(env, "^Welcome") or "", "alt+t")
            return registry.exists()

        until("the folders tracked", track)
        until("the panel on a tracked folder",
              lambda: window(env, "^Welcome") is None and window(env, "Bot Memory") is not None)
        assert len(json.loads(registry.read_text())["folders"]) == 4
        panel = window(env, "— Bot Memory") or ""
        keys(env, panel, "alt+e")
        until("Settings", lambda: window(env, "^Settings"))
        settings_file = who.claude / "settings.json"

        def connect() -> bool:      # Connect is enabled once Settings has read the agents' settings
            if "UserPromptSubmit" not in settings_file.read_text():
                keys(env, window(env, "^Settings") or "", "alt+l")
                time.sleep(1)
            return "UserPromptSubmit" in settings_file.read_text()

        until("Claude Code's hooks in ~/.claude/settings.json", connect)
        keys(env, window(env, "^Settings") or "", "Escape")
    finally:
        app.terminate()
        app.wait(30)
        log.close()
    settings = json.loads(settings_file.read_text())
    assert settings["model"] == "sonnet" and settings["permissions"] == {"allow": ["Bash(npm test:*)"]}
    command = settings["hooks"]["UserPromptSubmit"][-1]["hooks"][0]["command"]
    assert Path(command.split()[0]) == BIN / "botmemory", command        # the CLI, never botmemory-tray
    # the person asks Claude Code, in the project over its budget, about the payment client
    with FakeModel().running() as fake:
        p = claude_code.run(claude, "How does the payment client retry a failed charge?", cwd=who.shop_app,
                            home=who.home, port=fake.port, path="/usr/bin:/bin")
        assert p.returncode == 0, p.stdout + p.stderr
        sent = "\n".join(fake.texts())
    assert "UserPromptSubmit hook additional context" in sent
    assert "retries a failed charge 3 times with a 2 second budget" in sent
    assert "SessionStart hook additional context" in sent and "do not load" in sent     # 260 lines: 60 do not
