"""Start at login on all three systems, each written into tmp_path (or a dict for the registry)."""
from __future__ import annotations

import os
import plistlib
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from botmemory.desktop import autostart
from botmemory.desktop.autostart import LaunchAgent, WindowsRun, XdgAutostart

COMMAND = ["/opt/Bot Memory/botmemory-tray", "--minimized"]


class DictRunKey:
    """A stand-in for HKCU\\...\\Run: the values as a dict."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def set(self, name: str, value: str) -> None:
        self.values[name] = value

    def delete(self, name: str) -> None:
        self.values.pop(name, None)


def desktop_entry(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if line)


# --- Linux -------------------------------------------------------------------------------

def test_xdg_file_written_and_removed(tmp_path: Path) -> None:
    folder = tmp_path / "config" / "autostart"
    start = XdgAutostart(folder)
    assert start.path == folder / "botmemory.desktop"
    assert not start.is_enabled()

    start.enable(COMMAND)
    assert start.is_enabled()
    entry = desktop_entry(start.path)
    assert entry["Type"] == "Application"
    assert entry["Exec"] == '"/opt/Bot Memory/botmemory-tray" --minimized'
    assert entry["Icon"] == "io.botmemory.Botmemory"
    assert entry["X-GNOME-Autostart-enabled"] == "true"
    assert stat.S_IMODE(os.stat(start.path).st_mode) == 0o600

    start.disable()
    assert not start.path.exists()
    assert not start.is_enabled()
    start.disable()  # switching off twice is fine


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is not installed (Debian: desktop-file-utils)")
def test_xdg_file_passes_desktop_file_validate(tmp_path: Path) -> None:
    start = XdgAutostart(tmp_path)
    start.enable(["/home/me/.local/bin/botmemory-tray", "--root", "/home/me/bot $home", "50%"])
    result = subprocess.run(["desktop-file-validate", str(start.path)], check=False, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""


def test_exec_quoting_follows_the_desktop_entry_spec() -> None:
    assert autostart.desktop_exec(["/usr/bin/botmemory-tray"]) == "/usr/bin/botmemory-tray"
    assert autostart.desktop_exec(["/a b/x", "plain"]) == '"/a b/x" plain'
    # Inside quotes, " ` $ \ take a backslash; the string type then doubles every backslash.
    assert autostart.desktop_exec(["/x", "cost $5"]) == '/x "cost \\\\$5"'
    assert autostart.desktop_exec(["/x", 'say "hi"']) == '/x "say \\\\"hi\\\\""'
    assert autostart.desktop_exec(["/x", "100%"]) == "/x 100%%"
    assert autostart.desktop_exec(["/x", ""]) == '/x ""'


def test_a_hidden_entry_counts_as_off(tmp_path: Path) -> None:
    start = XdgAutostart(tmp_path)
    start.enable(COMMAND)
    start.path.write_text(start.path.read_text() + "Hidden=true\n")
    assert not start.is_enabled()


def test_xdg_folder_follows_xdg_config_home(tmp_path: Path) -> None:
    assert autostart.xdg_autostart_dir({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "autostart"
    # A relative value is invalid per the Base Directory spec and is ignored.
    assert autostart.xdg_autostart_dir({"XDG_CONFIG_HOME": "rel"}) == Path.home() / ".config" / "autostart"
    assert autostart.xdg_autostart_dir({}) == Path.home() / ".config" / "autostart"


# --- macOS -------------------------------------------------------------------------------

def test_launch_agent_plist_written_and_removed(tmp_path: Path) -> None:
    agent = LaunchAgent(tmp_path / "Library" / "LaunchAgents")
    assert agent.path.name == "io.botmemory.Botmemory.plist"
    assert not agent.is_enabled()

    agent.enable(COMMAND)
    data = plistlib.loads(agent.path.read_bytes())
    assert data["Label"] == "io.botmemory.Botmemory"
    assert data["ProgramArguments"] == COMMAND
    assert data["RunAtLoad"] is True
    assert data["KeepAlive"] is False
    assert stat.S_IMODE(os.stat(agent.path).st_mode) == 0o644
    assert agent.is_enabled()

    agent.disable()
    assert not agent.path.exists()
    assert not agent.is_enabled()


def test_unreadable_plist_counts_as_off(tmp_path: Path) -> None:
    agent = LaunchAgent(tmp_path)
    agent.path.write_bytes(b"not a plist")
    assert not agent.is_enabled()
    agent.enable(COMMAND)  # and switching on replaces it
    assert agent.is_enabled()


# --- Windows -----------------------------------------------------------------------------

def test_run_value_written_and_removed() -> None:
    key = DictRunKey()
    run = WindowsRun(key)
    assert not run.is_enabled()

    run.enable([r"C:\Program Files\botmemory\botmemory-tray.exe", "--minimized"])
    assert key.values == {"botmemory": r'"C:\Program Files\botmemory\botmemory-tray.exe" --minimized'}
    assert run.is_enabled()
    assert run.describe() == r"HKCU\Software\Microsoft\Windows\CurrentVersion\Run\botmemory"

    run.disable()
    assert key.values == {}
    assert not run.is_enabled()
    run.disable()


def test_run_value_leaves_other_programs_alone() -> None:
    key = DictRunKey()
    key.set("OneDrive", r'"C:\OneDrive.exe" /background')
    run = WindowsRun(key)
    run.enable([r"C:\bm\botmemory-tray.exe"])
    run.disable()
    assert key.values == {"OneDrive": r'"C:\OneDrive.exe" /background'}


# --- choosing and the command ------------------------------------------------------------

def test_for_platform_picks_each_system() -> None:
    assert isinstance(autostart.for_platform("linux"), XdgAutostart)
    assert isinstance(autostart.for_platform("freebsd14"), XdgAutostart)
    assert isinstance(autostart.for_platform("darwin"), LaunchAgent)
    run = autostart.for_platform("win32")
    assert isinstance(run, WindowsRun)
    assert isinstance(run.key, autostart.WinregRunKey)


def test_launch_command_of_a_built_bundle_is_its_executable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    exe = tmp_path / "botmemory" / "botmemory-tray"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    assert autostart.launch_command() == [str(exe)]


def test_launch_command_prefers_the_installed_script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = tmp_path / "bin" / "botmemory-tray"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(script.parent))
    assert autostart.launch_command() == [str(script)]
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert autostart.launch_command() == [str(Path(sys.executable).absolute()), "-m", "botmemory.desktop.app"]


def test_set_enabled_switches_both_ways(tmp_path: Path) -> None:
    start = XdgAutostart(tmp_path)
    autostart.set_enabled(start, True, ["/bin/botmemory-tray"])
    assert desktop_entry(start.path)["Exec"] == "/bin/botmemory-tray"
    autostart.set_enabled(start, False)
    assert not start.path.exists()


class FakeWinreg:
    """Just enough of the winreg module for WinregRunKey, over a dict of key path -> values."""

    HKEY_CURRENT_USER = "HKCU"
    KEY_SET_VALUE = 2
    REG_SZ = 1

    def __init__(self) -> None:
        self.keys: dict[str, dict[str, tuple[object, int]]] = {}

    class _Key:
        def __init__(self, values: dict[str, tuple[object, int]]) -> None:
            self.values = values

        def __enter__(self) -> FakeWinreg._Key:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

    def OpenKey(self, root: str, path: str, reserved: int = 0, access: int = 1) -> FakeWinreg._Key:
        if f"{root}\\{path}" not in self.keys:
            raise FileNotFoundError(path)
        return self._Key(self.keys[f"{root}\\{path}"])

    def CreateKeyEx(self, root: str, path: str, reserved: int, access: int) -> FakeWinreg._Key:
        return self._Key(self.keys.setdefault(f"{root}\\{path}", {}))

    def QueryValueEx(self, key: FakeWinreg._Key, name: str) -> tuple[object, int]:
        if name not in key.values:
            raise FileNotFoundError(name)
        return key.values[name]

    def SetValueEx(self, key: FakeWinreg._Key, name: str, reserved: int, kind: int, value: str) -> None:
        key.values[name] = (value, kind)

    def DeleteValue(self, key: FakeWinreg._Key, name: str) -> None:
        if name not in key.values:
            raise FileNotFoundError(name)
        del key.values[name]


def test_winreg_adapter_reads_writes_and_deletes_the_run_value(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeWinreg()
    monkeypatch.setattr(autostart, "_winreg", lambda: fake)
    run = WindowsRun()  # the real WinregRunKey, over the fake module
    assert not run.is_enabled()  # no Run key at all yet
    run.enable([r"C:\bm\botmemory-tray.exe"])
    assert fake.keys == {r"HKCU\Software\Microsoft\Windows\CurrentVersion\Run":
                         {"botmemory": (r"C:\bm\botmemory-tray.exe", FakeWinreg.REG_SZ)}}
    assert run.is_enabled()
    run.disable()
    assert fake.keys[r"HKCU\Software\Microsoft\Windows\CurrentVersion\Run"] == {}
    run.disable()  # a missing value is fine
    assert not run.is_enabled()
