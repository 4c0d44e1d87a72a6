"""Open in Obsidian, and Show in file manager.

Open in Obsidian builds ``obsidian://open?path=<percent-encoded path>`` when the
bot's folder is inside a vault listed in Obsidian's ``obsidian.json`` (read,
never edited) and something handles ``obsidian://`` links; otherwise it opens
the folder in the file manager and says how to make it a vault. The decision
(:func:`plan`) is pure and tested; finding vaults and the handler reads the
disk or runs ``xdg-mime`` and belongs on the worker. Launching goes through
``QDesktopServices``/``QProcess`` so tests can patch it.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

logger = logging.getLogger(__name__)

HOW_TO_MAKE_A_VAULT = (
    "To open it in Obsidian, choose “Open folder as vault” in Obsidian and pick {folder}; "
    "after that, Open in Obsidian takes you straight to the notes."
)
NO_HANDLER_SHORT = "Obsidian does not seem to be installed (nothing opens obsidian:// links)."
NO_HANDLER = NO_HANDLER_SHORT[:-1] + ", so the folder was opened instead."


def config_candidates(platform: str = sys.platform, env: dict[str, str] | None = None,
                      home: Path | None = None) -> list[Path]:
    """Where Obsidian keeps ``obsidian.json`` on this system (native, Flatpak and Snap on Linux)."""
    env = dict(os.environ) if env is None else env
    home = Path.home() if home is None else home
    if platform == "darwin":
        return [home / "Library" / "Application Support" / "obsidian" / "obsidian.json"]
    if platform.startswith("win"):
        appdata = env.get("APPDATA")
        base = Path(appdata) if appdata else home / "AppData" / "Roaming"
        return [base / "obsidian" / "obsidian.json"]
    xdg = env.get("XDG_CONFIG_HOME")
    config = Path(xdg) if xdg else home / ".config"
    return [
        config / "obsidian" / "obsidian.json",
        home / ".var" / "app" / "md.obsidian.Obsidian" / "config" / "obsidian" / "obsidian.json",
        home / "snap" / "obsidian" / "current" / ".config" / "obsidian" / "obsidian.json",
    ]


def read_vaults(files: list[Path] | None = None) -> list[Path]:
    """The vault folders listed in Obsidian's ``obsidian.json`` (read-only; a bad file lists none)."""
    out: list[Path] = []
    for f in config_candidates() if files is None else files:
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError, RecursionError) as e:
            logger.info("could not read %s: %s", f, e)
            continue
        vaults = data.get("vaults") if isinstance(data, dict) else None
        if not isinstance(vaults, dict):
            continue
        for v in vaults.values():
            if isinstance(v, dict) and isinstance(v.get("path"), str) and v["path"]:
                out.append(Path(v["path"]))
    return out


def vault_of(folder: Path, vaults: list[Path]) -> Path | None:
    """The vault *folder* is inside (the innermost when vaults nest), or None."""
    target = _norm(folder)
    best: Path | None = None
    for v in vaults:
        root = _norm(v)
        inside = target == root or root in target.parents
        if inside and (best is None or len(root.parts) > len(best.parts)):
            best = root
    return best


def _norm(p: Path) -> Path:
    try:
        return Path(os.path.realpath(p))
    except OSError:
        return Path(os.path.abspath(p))


def has_handler(platform: str = sys.platform, run: object = None) -> bool:
    """True when something opens ``obsidian://`` links on this computer.

    Linux asks ``xdg-mime query default x-scheme-handler/obsidian``; macOS and
    Windows look for the installed app (their installers register the scheme).
    *run* replaces :func:`subprocess.run` in tests.
    """
    runner = subprocess.run if run is None else run
    if platform.startswith("linux") or "bsd" in platform:
        if run is None and shutil.which("xdg-mime") is None:
            return False
        try:
            p = runner(["xdg-mime", "query", "default", "x-scheme-handler/obsidian"],  # type: ignore[operator]
                       capture_output=True, text=True, timeout=5)
        except (OSError, subprocess.SubprocessError) as e:
            logger.info("xdg-mime failed: %s", e)
            return False
        return p.returncode == 0 and bool(p.stdout.strip())
    if platform == "darwin":
        return any(Path(p).exists() for p in ("/Applications/Obsidian.app",
                                             str(Path.home() / "Applications" / "Obsidian.app")))
    if platform.startswith("win") and sys.platform == "win32":
        import winreg

        try:
            winreg.OpenKey(winreg.HKEY_CLASSES_ROOT, "obsidian")
            return True
        except OSError:
            return False
    return False


def obsidian_url(path: Path) -> str:
    """``obsidian://open?path=`` with the absolute path percent-encoded (spaces, non-ASCII, ``&``, ``#``…)."""
    return "obsidian://open?path=" + quote(str(path), safe="")


@dataclass(frozen=True)
class Plan:
    """What Open in Obsidian does: open ``url`` (an obsidian:// link or a file:// folder), and what to say."""

    url: str
    in_obsidian: bool
    message: str = ""


def plan(folder: Path, vaults: list[Path], handler: bool, file: Path | None = None) -> Plan:
    """Decide: an obsidian:// link when *folder* is in a vault and a handler exists, else the folder."""
    target = file if file is not None else folder
    if handler and vault_of(folder, vaults) is not None:
        return Plan(obsidian_url(target), True)
    msg = HOW_TO_MAKE_A_VAULT.format(folder=folder)
    if not handler:
        msg = NO_HANDLER + " " + msg
    return Plan(Path(folder).absolute().as_uri(), False, msg)


def decide(folder: Path, file: Path | None = None) -> Plan:
    """Read the vault list and look for a handler (slow: run on the worker), then :func:`plan`."""
    return plan(folder, read_vaults(), has_handler(), file)


# ----- Show in file manager


@dataclass(frozen=True)
class Reveal:
    """How to show a file selected in the file manager: a DBus ShowItems call, or a program to start."""

    dbus_uri: str | None = None
    program: str | None = None
    arguments: tuple[str, ...] = ()


def reveal(path: Path, platform: str = sys.platform) -> Reveal:
    """FileManager1 ShowItems on Linux, ``open -R`` on macOS, ``explorer /select,`` on Windows."""
    if platform == "darwin":
        return Reveal(program="open", arguments=("-R", str(path)))
    if platform.startswith("win"):
        return Reveal(program="explorer", arguments=(f"/select,{path}",))
    return Reveal(dbus_uri=Path(path).absolute().as_uri())


OPEN_WAIT_MS = 8000
"""How long xdg-open may take to answer; one still running then has opened something that stays in front."""
Opened = Callable[[bool], None]
_running: set[object] = set()


def open_url(url: str, done: Opened | None = None) -> bool:
    """Hand *url* to the desktop (patched in tests); *done* hears once, maybe later, whether something opened it.

    On Linux ``xdg-open`` runs and its exit status counts: ``QDesktopServices`` says yes as soon as xdg-open
    starts, even when nothing on the computer opens folders (xdg-open then exits 3 or 4). Elsewhere the
    desktop's own answer counts. False when it could not even be handed over (then *done* hears False too).
    """
    from PySide6.QtCore import QProcess, QTimer, QUrl
    from PySide6.QtGui import QDesktopServices

    def tell(ok: bool) -> None:
        if done is not None:
            done(ok)

    xdg = shutil.which("xdg-open") if sys.platform.startswith("linux") else None
    if xdg is None:
        ok = QDesktopServices.openUrl(QUrl(url))
        tell(ok)
        return ok
    proc = QProcess()
    proc.setProgram(xdg)
    proc.setArguments([url])
    proc.setStandardInputFile(QProcess.nullDevice())
    proc.setStandardOutputFile(QProcess.nullDevice())
    proc.setStandardErrorFile(QProcess.nullDevice())
    timer = QTimer(proc)
    timer.setSingleShot(True)
    told: list[bool] = []

    def once(ok: bool) -> None:
        if not told:
            told.append(ok)
            if not ok:
                logger.info("xdg-open could not open %s", url)
            tell(ok)

    def finished(code: int, status: QProcess.ExitStatus) -> None:
        once(status == QProcess.ExitStatus.NormalExit and code == 0)
        _running.discard(proc)
        proc.deleteLater()

    def error(e: QProcess.ProcessError) -> None:
        if e == QProcess.ProcessError.FailedToStart:
            once(False)
            _running.discard(proc)
            proc.deleteLater()

    proc.finished.connect(finished)
    proc.errorOccurred.connect(error)
    timer.timeout.connect(lambda: once(True))     # still running: it opened something that stays in front
    _running.add(proc)
    proc.start()
    timer.start(OPEN_WAIT_MS)
    return True


def start_detached(program: str, arguments: list[str]) -> bool:
    """Start a program without waiting for it (patched in tests)."""
    from PySide6.QtCore import QProcess

    ok, _pid = QProcess.startDetached(program, arguments)
    return bool(ok)


_pending_reveals: set[object] = set()


Failed = Callable[[str, Path], None]
"""Told what could not be opened: (the sentence to show, the path the person can go to by hand)."""

NOTHING_OPENS_FOLDERS = "Nothing on this computer opened the folder (no file manager answered)."


def show_items(uri: str, fallback: str, failed: Callable[[], None] | None = None) -> bool:
    """Ask the file manager over DBus (org.freedesktop.FileManager1.ShowItems) to select *uri*.

    The call is asynchronous; when it fails (no file manager offers the
    service), *fallback* — the folder — is opened instead, and *failed* is
    called when that fails too. False when there is no session bus at all.
    """
    from PySide6.QtDBus import QDBusConnection, QDBusMessage, QDBusPendingCallWatcher

    bus = QDBusConnection.sessionBus()
    if not bus.isConnected():
        return False
    msg = QDBusMessage.createMethodCall("org.freedesktop.FileManager1", "/org/freedesktop/FileManager1",
                                        "org.freedesktop.FileManager1", "ShowItems")
    msg.setArguments([[uri], ""])
    watcher = QDBusPendingCallWatcher(bus.asyncCall(msg, 5000))
    _pending_reveals.add(watcher)

    def finished(w: QDBusPendingCallWatcher) -> None:
        _pending_reveals.discard(w)
        if w.isError():
            logger.info("FileManager1.ShowItems failed (%s); opening the folder", w.error().message())
            open_url(fallback, lambda ok: None if ok or failed is None else failed())
        w.deleteLater()

    watcher.finished.connect(finished)
    return True


def show_in_file_manager(path: Path, platform: str = sys.platform, failed: Failed | None = None) -> bool:
    """Show *path* selected in the file manager; falls back to opening its folder.

    When nothing opens it (now, or later when the DBus call fails), *failed*
    is told what failed and the path, so the person can go there by hand.
    """
    how = reveal(path, platform)

    def fail() -> None:
        logger.warning("nothing opened %s", path)
        if failed is not None:
            failed(NOTHING_OPENS_FOLDERS, Path(path))

    if how.dbus_uri is not None:
        folder = Path(path).parent.absolute().as_uri()
        if show_items(how.dbus_uri, folder, fail):
            return True
        logger.info("no session bus; opening the folder instead")
        return open_url(folder, lambda ok: None if ok else fail())
    ok = start_detached(how.program or "", list(how.arguments))
    if not ok:
        fail()
    return ok


def open_plan(p: Plan, done: Opened | None = None) -> bool:
    return open_url(p.url, done)


def open_in_obsidian(worker: Any, folder: Path, say: Callable[[str], None], failed: Failed | None = None) -> None:
    """Decide on the worker (reads obsidian.json, runs xdg-mime), then open on the UI thread and say why.

    When nothing opens the link or the folder, *failed* (else *say*) gets what
    failed, the plan's explanation and the folder.
    """

    def outcome(p: Plan, ok: bool) -> None:
        if not ok:
            what = ("Obsidian did not open." if p.in_obsidian else NOTHING_OPENS_FOLDERS)
            # the folder did not open either: the plan's "so the folder was opened instead" is not true now
            text = f"{what} {p.message.replace(NO_HANDLER, NO_HANDLER_SHORT)}".strip()
            logger.warning("nothing opened %s", p.url)
            if failed is not None:
                failed(text, folder)
            else:
                say(f"{text} The folder is {folder}")
        elif p.message:         # said once the folder did open
            say(p.message)

    worker.read(lambda: decide(folder), lambda p: open_plan(p, lambda ok: outcome(p, ok)),
                lambda e: say(f"Could not open the folder: {e}"))
