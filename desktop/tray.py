"""The tray icon: colour from the worst gauge, a tooltip naming the bot over budget, the menu built once.

Menu: per bot — Memory panel, Open in Obsidian, Show in file manager, Tidy up
now —; Recent changes (the newest rows across bots, each undone in one click);
Settings; Show log; Quit. Left click opens the panel. One slot (:meth:`Tray.update_state`)
sets icon and tooltip from the gauges (Syncthing Tray's habit). The Recent
changes entries are a fixed set of actions whose text is updated, not rebuilt.
"""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from botmemory.core.ops import FolderGauge, Level

from . import gauge as gauge_text
from . import icons
from .models import change_text, when_text, who_text
from .wording import shown_name

logger = logging.getLogger(__name__)

RECENT_SLOTS = 8
_RANK = {Level.OK: 0, Level.AMBER: 1, Level.RED: 2}


def worst(gauges: dict[str, FolderGauge]) -> Level:
    levels = [g.level for g in gauges.values()]
    return max(levels, key=lambda lv: _RANK[lv]) if levels else Level.OK


def tooltip(gauges: dict[str, FolderGauge], names: dict[str, str] | None = None,
            gone: list[str] | None = None) -> str:
    """Names every bot over (or near) the budget, and every tracked folder that is gone; all is well otherwise."""
    def name(b: str) -> str:
        return shown_name((names or {}).get(b) or b)

    if not gauges and not gone:
        return "botmemory — no bots yet"
    red = [b for b, g in sorted(gauges.items()) if g.level is Level.RED]
    amber = [b for b, g in sorted(gauges.items()) if g.level is Level.AMBER]
    lines = ["botmemory"]
    for b in red:
        lines.append(f"{name(b)} is over the budget: {gauge_text.unloaded_text(gauges[b])}")
    for b in amber:
        size = gauge_text.size_text(gauges[b])
        lines.append(f"{name(b)} is nearly full: {gauge_text.lines_text(gauges[b])}" + (f", {size}" if size else ""))
    for b in gone or []:
        lines.append(f"{name(b)}: the folder is gone")
    if not red and not amber and gauges:
        n = len(gauges)
        lines.append(f"{'the bot is' if n == 1 else f'all {n} bots are'} within the budget")
    return "\n".join(lines)


def recent_text(row: Any, names: dict[str, str] | None = None) -> str:
    change = change_text(row)
    if len(change) > 60:
        change = change[:59] + "…"
    bot = shown_name((names or {}).get(row.bot) or row.bot)
    return f"{bot} · {row.file} · {who_text(row)} · {when_text(row)} — {change}"


class Tray(QObject):
    """The tray icon and its menu. Emits what the person asked for; the app does it."""

    open_panel = Signal(str)          # bot ("" = the default one)
    open_obsidian = Signal(str)
    reveal = Signal(str)
    tidy = Signal(str)
    undo = Signal(str, str)           # bot, row id
    settings = Signal()
    agents = Signal()                 # "Agent folders…": track Claude Code, OpenClaw, Hermes folders
    show_log = Signal()
    quit = Signal()

    def __init__(self, bots: list[str], parent: QObject | None = None, settings_available: bool = True) -> None:
        super().__init__(parent)
        self.icon = QSystemTrayIcon(self)
        self.level = Level.OK
        self.icon.setIcon(icons.tray_icon(Level.OK))
        self.icon.setToolTip("botmemory")
        self.icon.activated.connect(self._activated)
        self.menu = QMenu()
        self.names: dict[str, str] = {}
        """Each bot as people name it (a Claude Code project's path); its id when it has no other name."""
        self.gone: list[str] = []
        self.bot_menus: dict[str, QMenu] = {}
        self.tidy_actions: dict[str, QAction] = {}
        self._bots_anchor = self.menu.addSeparator()
        for bot in bots:
            self.add_bot(bot)
        self.menu.addSeparator()
        self.recent_menu = self.menu.addMenu("Recent changes")
        self.recent_actions: list[QAction] = []
        self.recent_empty = self.recent_menu.addAction("No changes yet")
        self.recent_empty.setEnabled(False)
        for _ in range(RECENT_SLOTS):
            a = self.recent_menu.addAction("")
            a.setVisible(False)
            a.triggered.connect(lambda _c=False, act=a: self._undo_action(act))
            self.recent_actions.append(a)
        self.menu.addSeparator()
        self.agents_action = self.menu.addAction("Agent folders…")
        self.agents_action.triggered.connect(self.agents)
        self.settings_action = self.menu.addAction("Settings…")
        self.settings_action.setEnabled(settings_available)
        self.settings_action.triggered.connect(self.settings)
        self.log_action = self.menu.addAction("Show log")
        self.log_action.triggered.connect(self.show_log)
        self.quit_action = self.menu.addAction("Quit")
        self.quit_action.triggered.connect(self.quit)
        self.icon.setContextMenu(self.menu)

    # ----- the menu

    def title(self, bot: str) -> str:
        return shown_name(self.names.get(bot) or bot)

    def add_bot(self, bot: str) -> None:
        """A bot's submenu; built once per bot, when the bot first appears (by its name, never an internal id)."""
        if bot in self.bot_menus:
            self.bot_menus[bot].setTitle(self.title(bot))
            return
        sub = QMenu(self.title(bot), self.menu)
        sub.addAction("Memory panel").triggered.connect(lambda _c=False: self.open_panel.emit(bot))
        sub.addAction("Open in Obsidian").triggered.connect(lambda _c=False: self.open_obsidian.emit(bot))
        sub.addAction("Show in file manager").triggered.connect(lambda _c=False: self.reveal.emit(bot))
        tidy = sub.addAction("Tidy up now")
        tidy.triggered.connect(lambda _c=False: self.tidy.emit(bot))
        self.tidy_actions[bot] = tidy
        order = sorted([*self.bot_menus, bot], key=lambda b: self.title(b).lower())
        after = order.index(bot) + 1
        before_action = self.bot_menus[order[after]].menuAction() if after < len(order) else self._bots_anchor
        self.menu.insertMenu(before_action, sub)
        self.bot_menus[bot] = sub

    @Slot(object)
    def set_bots(self, bots: list[str], names: dict[str, str] | None = None) -> None:
        if names is not None:
            self.names = dict(names)
        for b in bots:
            self.add_bot(b)

    @Slot(object)
    def set_recent(self, rows: list[Any]) -> None:
        """Show the newest rows; each entry undoes its row in one click."""
        self.recent_empty.setVisible(not rows)
        for i, a in enumerate(self.recent_actions):
            if i < len(rows):
                r = rows[i]
                a.setText(("Undo: " if r.undoable else "") + recent_text(r, self.names))
                a.setData((r.bot, r.id))
                a.setEnabled(bool(r.undoable))
                a.setToolTip("" if r.undoable else f"Can't undo: {r.reason}")
                a.setVisible(True)
            else:
                a.setVisible(False)
                a.setData(None)

    def _undo_action(self, action: QAction) -> None:
        data = action.data()
        if data:
            bot, row_id = data
            self.undo.emit(bot, row_id)

    # ----- icon and tooltip

    @Slot(object)
    def update_state(self, gauges: dict[str, FolderGauge]) -> None:
        for bot, g in gauges.items():     # an agent that writes its own memory is never tidied by botmemory
            if bot in self.tidy_actions:
                self.tidy_actions[bot].setVisible(not g.tracked)
        level = worst(gauges)
        if level is not self.level:
            self.level = level
            self.icon.setIcon(icons.tray_icon(level))
        self.icon.setToolTip(tooltip(gauges, self.names, self.gone))

    def worst_bot(self, gauges: dict[str, FolderGauge]) -> str:
        if not gauges:
            return ""
        return max(sorted(gauges), key=lambda b: (_RANK[gauges[b].level], gauges[b].fill))

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    @Slot(QSystemTrayIcon.ActivationReason)
    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.open_panel.emit("")
