"""``botmemory-tray``: the desktop app.

``botmemory-tray [--root DIR] [--demo] [--show BOT] [--verbose]``. One app per
home: a second start asks the first to show its panel and exits. With a system
tray the app lives there; without one (GNOME without AppIndicator) the panel
opens as a normal window and the app keeps running until Quit.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from botmemory.core.ops import MEMORY_FILE, BotMemoryError, Memory, tidy, undo

from . import demo as demo_mod
from . import icons, logs, obsidian, pathnotice, serve
from .instance import InstanceServer, ask_running
from .notify import Notifier
from .panel import MemoryPanel
from .session import Notice, Session
from .settings_dialog import SettingsDialog, app_home
from .sync_view import service_for
from .tray import Tray

logger = logging.getLogger("botmemory.desktop")

APP_NAME = "botmemory"
DESKTOP_ID = "io.botmemory.Botmemory"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="botmemory-tray", description="The botmemory tray app.")
    p.add_argument("--root", help="the home folder (default: the one chosen in Settings, else $OPENMAUSBOT_HOME, "
                                             "else ~/.openmausbot)")
    p.add_argument("--demo", action="store_true",
                   help="open an embedded demo home (built into --root when it is empty, else into a temporary folder "
                        "deleted on quit); the demo never changes the app's own settings")
    p.add_argument("--show", metavar="BOT", help="open the Memory panel of this bot at start")
    p.add_argument("--verbose", action="store_true", help="log debug messages")
    p.add_argument("--today", help=argparse.SUPPRESS)
    p.add_argument("--no-tray", action="store_true", help=argparse.SUPPRESS)
    return p.parse_known_args(argv)[0]


def setup_logging(verbose: bool) -> None:
    """The rotating log file and the in-memory tail (``logs``), Qt's messages routed into it."""
    logs.setup_logging(verbose)
    logs.install_qt_message_handler()


def relaunch_arguments(argv: list[str], root: str) -> list[str]:
    """The arguments to start again on *root*: the same ones without --root/--demo, then --root ROOT."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--root",):
            skip = True
            continue
        if a.startswith("--root=") or a == "--demo":
            continue
        out.append(a)
    return [*out, "--root", root]


def settings_dialog_class() -> Any:
    """The Settings window's class (a function so tests can put a stand-in there)."""
    return SettingsDialog


class App(QObject):
    """Wires the session, the tray, the panel and the notifier together."""

    def __init__(self, mem: Memory, *, tray: bool | None = None, today_fixed: bool = False,
                 live: bool = True, upkeep: bool = True, demo: bool = False,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.mem = mem
        self.demo = demo
        """True on the demo home: Settings never write the app's own settings there."""
        self.session = Session(mem, parent=self, today_fixed=today_fixed, live=live, upkeep=upkeep)
        self.panel: MemoryPanel | None = None
        self.temporary: Path | None = None
        """A demo home made in the temporary folder, removed on quit."""
        self.has_tray = QSystemTrayIcon.isSystemTrayAvailable() if tray is None else tray
        self.tray: Tray | None = None
        self._settings: Any = None
        self._agents: Any = None
        if self.has_tray:
            # bots join the menu as the session first reads the home (no disk work here)
            self.tray = Tray([], self, settings_available=True)
            self.tray.open_panel.connect(self.show_panel)
            self.tray.open_obsidian.connect(self.open_in_obsidian)
            self.tray.reveal.connect(self.reveal)
            self.tray.tidy.connect(self.tidy)
            self.tray.undo.connect(self.undo)
            self.tray.settings.connect(self.open_settings)
            self.tray.agents.connect(self.open_agents)
            self.tray.show_log.connect(self.show_log)
            self.tray.quit.connect(self.quit)
            self.session.gauges_changed.connect(self._tray_state)
            self.session.bots_changed.connect(self._tray_bots)
            self.session.recent_changed.connect(self.tray.set_recent)
        self.routes = serve.RoutesService(self.session, persist=not demo, parent=self)
        self.routes.failed.connect(self._say)
        self.notifier = Notifier(self.tray.icon if self.tray else None, self, submit=self.session.worker.read)
        self.notifier.activated.connect(self._notice_chosen)
        self.session.notice.connect(self.notifier.notify)

    def _tray_bots(self, bots: list[str]) -> None:
        if self.tray is not None:
            self.tray.set_bots(bots, self.session.names)

    def _tray_state(self, gauges: dict[str, Any]) -> None:
        if self.tray is not None:
            self.tray.gone = [b for b, here in self.session.present.items() if not here]
            self.tray.update_state(gauges)

    def start(self, show: str | None = None) -> None:
        self.session.start()
        if not self.demo:
            self.routes.start_if_enabled()
            service_for(self.session)          # sync, when it is set up on this home
        self.offer_agents()
        if self.tray is not None:
            self.tray.show()
        if show is not None or self.tray is None:
            # without a tray the panel is the app's window
            self.show_panel(show or "")

    # ----- the panel

    def ensure_panel(self) -> MemoryPanel:
        if self.panel is None:
            self.panel = MemoryPanel(self.session, demo=self.demo)
            self.panel.setWindowIcon(icons.app_icon())
            self.panel.choose_home.connect(self.open_settings)
            self.panel.settings_requested.connect(self.open_settings)
        return self.panel

    @Slot(str)
    def show_panel(self, bot: str = "") -> None:
        panel = self.ensure_panel()
        target = bot or self._default_bot()
        if target:
            panel.set_bot(target)
        panel.bring_up()

    def _default_bot(self) -> str:
        if self.panel is not None and self.panel.bot:
            return self.panel.bot
        if self.tray is not None and self.session.gauges:
            return self.tray.worst_bot(self.session.gauges)
        return self.session.bots[0] if self.session.bots else ""

    # ----- tray actions

    @Slot(str)
    def open_in_obsidian(self, bot: str) -> None:
        obsidian.open_in_obsidian(self.session.worker, self.mem.home.workspace(bot), self._say, self.cannot_open)

    @Slot(str)
    def reveal(self, bot: str) -> None:
        obsidian.show_in_file_manager(self.mem.home.workspace(bot) / MEMORY_FILE, failed=self.cannot_open)

    def cannot_open(self, text: str, path: Path) -> None:
        """Nothing opened a folder or a file: say so, with the path and Copy."""
        pathnotice.show(text, path, self.panel if self.panel is not None and self.panel.isVisible() else None)

    @Slot(str)
    def tidy(self, bot: str) -> None:
        name = self.session.name(bot)

        def done(report: dict[str, Any]) -> None:
            self.session.upkeep_ran.emit(bot, report)
            self._say(f"Tidy-up of {name} done; every change is in the journal.")

        self.session.run_op(lambda mem: tidy(mem, bot).as_dict(), done,
                            lambda e: self._say(f"The tidy-up of {name} did not run: {e}"))

    @Slot(str, str)
    def undo(self, bot: str, row_id: str) -> None:
        name = self.session.name(bot)
        self.session.run_op(lambda mem: undo(mem, bot, row_id),
                            lambda r: self._say(undone_text(name, r.changes[0] if r.changes else None)),
                            lambda e: self._say(f"Undo failed: {e}"))

    @Slot()
    def open_settings(self) -> None:
        """The Settings window (``settings_dialog``), one at a time."""
        cls = settings_dialog_class()
        if self._settings is not None and self._settings.isVisible():
            self._settings.raise_()
            self._settings.activateWindow()
            return
        # the session's worker: one writer thread for the whole app
        dialog = cls(self.mem.home, worker=self.session.worker, demo=self.demo)
        if hasattr(dialog, "home_changed"):
            dialog.home_changed.connect(self.home_changed)
            serve.add_checkbox(dialog, self.routes, demo=self.demo)
        if hasattr(dialog, "agents_requested"):
            dialog.agents_requested.connect(self.open_agents)
        self._settings = dialog
        dialog.show()

    # ----- agent folders

    def offer_agents(self) -> None:
        """First run: offer the Claude Code, OpenClaw and Hermes folders found here, once. On a home with no bots
        the offer is the welcome page's (the panel opens on it, then on the folders tracked); else a dialog."""
        from . import agents_view

        mem = self.mem

        def look() -> Any:
            if agents_view.offered(mem):
                return None
            return tracked_discover(mem), bool(mem.home.bots())

        def found(result: Any) -> None:
            if result is None:
                return
            (folders, unread), has_bots = result
            agents_view.mark_offered(mem)
            if not agents_view.offer_text(folders):
                return
            if has_bots:
                self._show_agents((folders, unread))
            else:
                self.show_panel()          # the welcome page, with the offer in it

        self.session.submit_read(look, found, lambda e: logger.info("finding agent folders failed: %s", e))

    @Slot()
    def open_agents(self) -> None:
        """Agent folders… (tray, Settings): tick the folders to track."""
        mem = self.mem
        self.session.submit_read(lambda: tracked_discover(mem), self._show_agents,
                                 lambda e: self._say(f"Could not look for agent folders: {e}"))

    def _show_agents(self, result: Any) -> None:
        from .agents_view import AgentsDialog

        if self._agents is not None and self._agents.isVisible():
            self._agents.raise_()
            return
        found, unread = result
        dialog = AgentsDialog(self.mem, found, unread)
        dialog.changed.connect(self.session.rescan)
        self._agents = dialog
        dialog.show()

    @Slot(object)
    def home_changed(self, root: object) -> None:
        """Another home was chosen in Settings: start again on it (one app per home)."""
        from PySide6.QtCore import QProcess

        args = relaunch_arguments(sys.argv[1:], str(root))
        if not getattr(sys, "frozen", False):
            args = ["-m", "botmemory.desktop.app", *args]
        logger.info("the home is now %s; restarting on it", root)
        ok, _pid = QProcess.startDetached(sys.executable, args)
        if ok:
            self.quit()
        else:
            self._say(f"botmemory will open {root} the next time it starts.")

    @Slot()
    def show_log(self) -> None:
        if not logs.show_log():
            self.cannot_open("Nothing on this computer opened the log file (no text viewer answered).",
                             logs.log_path())

    def _say(self, text: str) -> None:
        text = self.session.named(text)
        logger.info("%s", text)
        if self.panel is not None and self.panel.isVisible():
            self.panel.say(text)
        elif self.tray is not None and QSystemTrayIcon.supportsMessages():
            self.tray.icon.showMessage("botmemory", text, QSystemTrayIcon.MessageIcon.Information, 6000)

    def _notice_chosen(self, notice: Notice, what: str) -> None:
        if what == "undo" and notice.row_id:
            self.undo(notice.bot, notice.row_id)
            return
        self.show_panel(notice.bot)
        assert self.panel is not None
        if notice.kind == "red":
            self.panel.open_file(MEMORY_FILE)
        else:
            self.panel.show_tab("journal")

    @Slot()
    def quit(self) -> None:
        self.shutdown()
        QApplication.quit()

    def shutdown(self) -> None:
        """Stop the watcher and the worker, hide the tray, close the panel, remove a temporary demo home
        (safe to call twice)."""
        self.session.stop()
        self.routes.stop()      # after the worker: a start still queued has run or was dropped
        if self.tray is not None:
            self.tray.hide()
        if self.panel is not None:
            self.panel.close()
        if self.temporary is not None:
            demo_mod.remove(self.temporary)
            self.temporary = None


def undone_text(bot: str, change: Any) -> str:
    """What an undo from the tray did, naming the file."""
    file = getattr(change, "file", None)
    if not file:
        return f"Undone ({bot}): the file was already as it was. The undo can itself be undone."
    return f"Undone: {file} of {bot} is back as it was. The undo can itself be undone."


@dataclass
class Started:
    """What :func:`launch` set up: the app object, or the exit code when there is nothing to run."""

    desk: App | None
    server: InstanceServer | None
    code: int = 0


def tracked_discover(mem: Memory) -> Any:
    """Runs on the worker: the agent folders found here, and the settings files that could not be read."""
    from botmemory.core.ops import discover

    found = discover(mem)
    return found.folders, found.unread


def qt_app() -> QApplication:
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "botmemory-tray"])
    assert isinstance(app, QApplication)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName("Bot Memory")
    app.setDesktopFileName(DESKTOP_ID)
    app.setQuitOnLastWindowClosed(False)
    app.setWindowIcon(icons.app_icon())
    return app


def launch(argv: list[str], *, tray: bool | None = None) -> Started:
    """Everything ``main`` does before the event loop: the home, one instance per home, the app."""
    args = parse_args(argv)
    app = qt_app()
    root: str | None = args.root
    temporary: Path | None = None
    if args.demo:
        given = Path(root).expanduser() if root else None
        where = demo_mod.prepare(given)
        if where != given:
            temporary = where      # made in the temporary folder: removed on quit
        root = str(where)
        logger.info("demo home: %s", where)
    try:
        mem = Memory.open(str(home_root(root)), args.today)
    except BotMemoryError as e:
        print(f"botmemory-tray: {e}", file=sys.stderr)
        if temporary is not None:
            demo_mod.remove(temporary)
        return Started(None, None, 2)

    if ask_running(mem.home.root, args.show):
        logger.info("botmemory is already running on %s; asked it to show its panel", mem.home.root)
        return Started(None, None, 0)
    server = InstanceServer(mem.home.root, app)
    server.listen()

    if args.no_tray:
        tray = False
    # parented to the application: Qt, not Python's garbage collector, decides when it goes
    desk = App(mem, tray=tray, today_fixed=bool(args.today or os.environ.get("BOTMEMORY_TODAY")),
               demo=bool(args.demo), parent=app)
    desk.temporary = temporary
    server.show_requested.connect(desk.show_panel)
    app.aboutToQuit.connect(desk.shutdown)
    app.aboutToQuit.connect(server.close)
    show = args.show
    if args.demo and show is None:
        show = "scout"
    desk.start(show)
    return Started(desk, server)


def home_root(root: str | None) -> Path:
    """``--root``, else the folder chosen in Settings, else ``$OPENMAUSBOT_HOME`` or ``~/.openmausbot``."""
    return app_home(root).root


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    setup_logging(args.verbose)
    started = launch(sys.argv[1:] if argv is None else argv)
    if started.desk is None:
        return started.code
    _quit_on_signals(started.desk)
    return qt_app().exec()


def _quit_on_signals(desk: App) -> None:
    """Ctrl+C and SIGTERM quit cleanly, without a polling timer: the signal wakes a socket notifier."""
    import socket

    from PySide6.QtCore import QSocketNotifier

    if not hasattr(signal, "set_wakeup_fd"):
        return
    r, w = socket.socketpair()
    r.setblocking(False)
    w.setblocking(False)
    try:
        signal.set_wakeup_fd(w.fileno())
    except ValueError:  # not the main thread
        return
    notifier = QSocketNotifier(r.fileno(), QSocketNotifier.Type.Read, desk)

    def woke() -> None:
        try:
            r.recv(64)
        except OSError:
            pass

    notifier.activated.connect(woke)
    desk._signal_sockets = (r, w, notifier)  # type: ignore[attr-defined]
    signal.signal(signal.SIGINT, lambda *_: desk.quit())
    signal.signal(signal.SIGTERM, lambda *_: desk.quit())


if __name__ == "__main__":
    sys.exit(main())
