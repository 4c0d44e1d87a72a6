"""Start at login, one way per system. Qt-free.

- Linux and other XDG desktops: ``$XDG_CONFIG_HOME/autostart/botmemory.desktop``
  (``~/.config/autostart`` when the variable is unset), removed when switched off.
- macOS: a LaunchAgent, ``~/Library/LaunchAgents/io.botmemory.Botmemory.plist``,
  written with :mod:`plistlib`; launchd reads it at the next login.
- Windows: the ``botmemory`` value under
  ``HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run``, through a small
  :class:`RunKey` interface so it can be tested on any system.

Every target (folder, file, registry key) can be passed in, so tests write into
a temporary folder and a dict, never into the real places.
"""
from __future__ import annotations

import importlib
import logging
import os
import plistlib
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from botmemory.core.ops import atomic_write

logger = logging.getLogger(__name__)

APP_ID = "io.botmemory.Botmemory"
APP_NAME = "Bot Memory"
XDG_FILE_NAME = "botmemory.desktop"
LAUNCH_AGENT_LABEL = APP_ID
RUN_KEY_PATH = r"Software\Microsoft\Windows\CurrentVersion\Run"
RUN_VALUE_NAME = "botmemory"
GUI_SCRIPT = "botmemory-tray"


def launch_command() -> list[str]:
    """The command that starts the tray app the way it is installed now.

    A built bundle starts its own executable; a pipx or pip install starts the
    ``botmemory-tray`` script on PATH; a checkout starts this Python with
    ``-m botmemory.desktop.app``.
    """
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).absolute())]
    script = shutil.which(GUI_SCRIPT)
    if script:
        return [str(Path(script).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "botmemory.desktop.app"]


class Autostart(Protocol):
    """One system's start-at-login switch."""

    def is_enabled(self) -> bool: ...

    def enable(self, command: Sequence[str]) -> None: ...

    def disable(self) -> None: ...

    def describe(self) -> str:
        """Where the switch lives, for the Settings window."""
        ...


# --- Linux: XDG autostart -------------------------------------------------------------

_EXEC_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def _exec_arg(arg: str) -> str:
    """Quote one argument for a desktop entry's ``Exec`` key (Desktop Entry spec, "The Exec key")."""
    if not arg:
        return '""'
    arg = arg.replace("%", "%%")
    if not any(c in _EXEC_RESERVED for c in arg):
        return arg
    inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return f'"{inner}"'


def desktop_exec(command: Sequence[str]) -> str:
    """The ``Exec=`` value for *command*, escaped for the string type of a ``.desktop`` file."""
    quoted = " ".join(_exec_arg(a) for a in command)
    # The key's value is itself a "string": a backslash is written as two.
    return quoted.replace("\\", "\\\\")


def xdg_autostart_dir(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "autostart"


class _LoginFile:
    """Start at login kept as one file: switching it off removes the file."""

    @property
    def path(self) -> Path:
        raise NotImplementedError

    def disable(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            return
        logger.info("start at login off: removed %s", self.path)

    def describe(self) -> str:
        return str(self.path)


class XdgAutostart(_LoginFile):
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else xdg_autostart_dir()

    @property
    def path(self) -> Path:
        return self.folder / XDG_FILE_NAME

    def is_enabled(self) -> bool:
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return False
        lines = {line.strip().replace(" ", "") for line in text.splitlines()}
        return "Hidden=true" not in lines and "X-GNOME-Autostart-enabled=false" not in lines

    def enable(self, command: Sequence[str]) -> None:
        text = "\n".join([
            "[Desktop Entry]",
            "Type=Application",
            f"Name={APP_NAME}",
            "Comment=Shows what your bot remembers, from the tray",
            f"Exec={desktop_exec(command)}",
            f"Icon={APP_ID}",
            "Terminal=false",
            "X-GNOME-Autostart-enabled=true",
            "",
        ])
        atomic_write(self.path, text.encode("utf-8"))
        logger.info("start at login on: wrote %s", self.path)



# --- macOS: LaunchAgent ---------------------------------------------------------------

def launch_agents_dir() -> Path:
    return Path.home() / "Library" / "LaunchAgents"


class LaunchAgent(_LoginFile):
    def __init__(self, folder: Path | None = None, label: str = LAUNCH_AGENT_LABEL) -> None:
        self.folder = folder if folder is not None else launch_agents_dir()
        self.label = label

    @property
    def path(self) -> Path:
        return self.folder / f"{self.label}.plist"

    def plist(self, command: Sequence[str]) -> dict[str, object]:
        return {
            "Label": self.label,
            "ProgramArguments": list(command),
            "RunAtLoad": True,
            "KeepAlive": False,
            "ProcessType": "Interactive",
            "LimitLoadToSessionType": "Aqua",
        }

    def is_enabled(self) -> bool:
        try:
            data = plistlib.loads(self.path.read_bytes())
        except FileNotFoundError:
            return False
        except (plistlib.InvalidFileException, ValueError) as e:
            logger.warning("%s is not a readable plist (%s): treating start at login as off", self.path, e)
            return False
        return isinstance(data, dict) and data.get("RunAtLoad") is True and data.get("Disabled") is not True

    def enable(self, command: Sequence[str]) -> None:
        atomic_write(self.path, plistlib.dumps(self.plist(command), fmt=plistlib.FMT_XML))
        # LaunchAgents are 0644 by convention; launchd refuses group/other-writable ones.
        os.chmod(self.path, 0o644)
        logger.info("start at login on: wrote %s", self.path)



# --- Windows: the Run key -------------------------------------------------------------

class RunKey(Protocol):
    """The values of ``HKCU\\...\\Run``: what :class:`WindowsRun` needs of the registry."""

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...


def _winreg() -> Any:
    """The ``winreg`` module (Windows only), typed loosely so this file checks on every system."""
    return importlib.import_module("winreg")


class WinregRunKey:
    """The real ``HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run`` key (Windows only)."""

    def __init__(self, key_path: str = RUN_KEY_PATH) -> None:
        self.key_path = key_path

    def get(self, name: str) -> str | None:
        winreg = _winreg()

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.key_path) as key:
                value, _kind = winreg.QueryValueEx(key, name)
        except FileNotFoundError:
            return None
        return value if isinstance(value, str) else None

    def set(self, name: str, value: str) -> None:
        winreg = _winreg()

        with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, self.key_path, 0, winreg.KEY_SET_VALUE) as key:
            winreg.SetValueEx(key, name, 0, winreg.REG_SZ, value)

    def delete(self, name: str) -> None:
        winreg = _winreg()

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.key_path, 0, winreg.KEY_SET_VALUE) as key:
                winreg.DeleteValue(key, name)
        except FileNotFoundError:
            pass


def windows_command_line(command: Sequence[str]) -> str:
    """*command* as one Windows command line, each argument quoted the way the C runtime reads it."""
    return subprocess.list2cmdline(list(command))


class WindowsRun:
    def __init__(self, key: RunKey | None = None, name: str = RUN_VALUE_NAME) -> None:
        self.key: RunKey = key if key is not None else WinregRunKey()
        self.name = name

    def is_enabled(self) -> bool:
        return bool(self.key.get(self.name))

    def enable(self, command: Sequence[str]) -> None:
        self.key.set(self.name, windows_command_line(command))
        logger.info("start at login on: set HKCU\\%s\\%s", RUN_KEY_PATH, self.name)

    def disable(self) -> None:
        self.key.delete(self.name)
        logger.info("start at login off: removed HKCU\\%s\\%s", RUN_KEY_PATH, self.name)

    def describe(self) -> str:
        return f"HKCU\\{RUN_KEY_PATH}\\{self.name}"


def for_platform(platform: str | None = None) -> Autostart:
    """The start-at-login switch for this system (or the one *platform* names, as ``sys.platform`` does)."""
    name = platform or sys.platform
    if name.startswith("win"):
        return WindowsRun()
    if name == "darwin":
        return LaunchAgent()
    return XdgAutostart()


def set_enabled(autostart: Autostart, on: bool, command: Sequence[str] | None = None) -> None:
    """Switch start at login on (with *command*, default :func:`launch_command`) or off."""
    if on:
        autostart.enable(list(command) if command is not None else launch_command())
    else:
        autostart.disable()
