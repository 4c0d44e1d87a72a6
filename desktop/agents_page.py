"""Settings → Agents: the agents found on this computer (Claude Code, Claude Desktop, Cursor), connected or not.

Each row says whether botmemory is connected, what the connection does, and
offers Connect or Disconnect — the same as ``botmemory connect AGENT --bot BOT``
and ``--remove``, through the core's door, run on the worker.

Claude Code needs no bot: its hooks recall from each project's own memory
folder. Claude Desktop and Cursor get the memory tools of one bot or tracked
folder, chosen in "Memory the agents use" — its list holds the home's bots and
the agent folders it tracks, by the names people read. Every button that cannot
act says why. On the demo home Connect writes nothing: it says what it would
change in your real settings.
"""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QFormLayout, QGridLayout, QGroupBox, QLabel, QPushButton, QVBoxLayout, QWidget

from botmemory.core.ops import CONNECT_AGENTS, Home, HomeInfo, connect_agent, connection_status, describe_home

from .wheel import no_wheel_unless_focused
from .wording import shown_name
from .worker import Worker

logger = logging.getLogger(__name__)

TITLES = {"claude-code": "Claude Code", "claude-desktop": "Claude Desktop", "cursor": "Cursor"}
MNEMONIC = {"claude-code": "C&laude Code", "claude-desktop": "Claude &Desktop", "cursor": "C&ursor"}
"""Each agent's button names it, with its own key (Alt+L, Alt+D, Alt+U): the rows' buttons sit far from their
labels, and the keyboard reaches each one."""


def button_text(agent: str, connected: bool) -> str:
    return f"{'Disconnect' if connected else 'Connect'} {MNEMONIC.get(agent, TITLES.get(agent, agent))}"
EACH_PROJECT = "Each Claude Code project's own memory"
NEEDS_A_BOT = ("{title} gets the memory tools of one bot or tracked folder: track an agent folder (Agent memory "
               "folders… above) or create a bot first.")
CHOOSE_A_BOT = "{title} gets the memory tools of one bot or tracked folder: choose it in “Memory the agents use”."
DEMO_NOTE = ("This is the demo: Connect shows what it would change in your real settings and writes nothing. "
             "Run Bot Memory without --demo to connect.")


def state_line(row: dict[str, Any], names: dict[str, str] | None = None) -> str:
    """One line on a connection: connected (with what) or not, and whether the agent is here at all."""
    if row.get("error"):
        return f"Cannot read its settings: {row['error']}"
    if row["connected"]:
        bot = row.get("mcp_bot")
        parts = (["hooks"] if row.get("hooks") else []) + (
            [f"memory tools for {shown_name((names or {}).get(bot, bot))}"] if bot else [])
        return "Connected: " + " and ".join(parts)
    return "Not connected" + ("" if row["found"] else " (not found on this computer)")


class AgentsPage(QGroupBox):
    """The Agents section of Settings."""

    refreshed = Signal()
    failed = Signal(str)

    def __init__(self, home: Home, worker: Worker, parent: QWidget | None = None, *, demo: bool = False) -> None:
        super().__init__("Agents", parent)
        self._home = home
        self._worker = worker
        self.demo = demo
        self._rows: dict[str, dict[str, Any]] = {}
        self.names: dict[str, str] = {}
        self.bot_combo = QComboBox()
        self.bot_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.bot_combo.setMinimumContentsLength(24)
        self.bot_combo.currentIndexChanged.connect(lambda _i: self._enable())
        no_wheel_unless_focused(self.bot_combo)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.state: dict[str, QLabel] = {}
        self.does: dict[str, QLabel] = {}
        self.buttons: dict[str, QPushButton] = {}
        layout = QVBoxLayout(self)
        if demo:
            note = QLabel(DEMO_NOTE)
            note.setWordWrap(True)
            note.setStyleSheet("color: #b26a00;")
            layout.addWidget(note)
        form = QFormLayout()
        form.addRow("Memory the agents use:", self.bot_combo)
        layout.addLayout(form)
        grid = QGridLayout()
        for i, agent in enumerate(CONNECT_AGENTS):
            name = QLabel(f"<b>{TITLES.get(agent, agent)}</b>")
            self.state[agent] = QLabel("…")
            self.state[agent].setWordWrap(True)
            self.does[agent] = QLabel()
            self.does[agent].setWordWrap(True)
            self.does[agent].setForegroundRole(QPalette.ColorRole.PlaceholderText)
            self.does[agent].setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            button = QPushButton(button_text(agent, False))
            button.setEnabled(False)
            button.clicked.connect(lambda _=False, a=agent: self.toggle(a))
            self.buttons[agent] = button
            grid.addWidget(name, 2 * i, 0)
            grid.addWidget(self.state[agent], 2 * i, 1)
            grid.addWidget(button, 2 * i, 2)
            grid.addWidget(self.does[agent], 2 * i + 1, 0, 1, 3)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        layout.addWidget(self.message)
        self.refresh()

    def refresh(self) -> None:
        root = self._home.root
        self._worker.read(lambda: (describe_home(root), connection_status()), self._show, self._on_error)

    def chosen(self) -> str | None:
        """The bot or tracked folder chosen (None: each Claude Code project's own memory)."""
        data = self.bot_combo.currentData()
        return str(data) if data else None

    def _show(self, result: tuple[HomeInfo, list[dict[str, Any]]]) -> None:
        info, rows = result
        self.names = {b: b for b in info.workspaces} | dict(info.tracked)
        used = [r["mcp_bot"] for r in rows if r.get("mcp_bot") in self.names]
        current = self.chosen() or (used[0] if used else None)
        self.bot_combo.blockSignals(True)
        self.bot_combo.clear()
        self.bot_combo.addItem(EACH_PROJECT, None)
        for bot in sorted(self.names, key=lambda b: shown_name(self.names[b]).lower()):
            self.bot_combo.addItem(shown_name(self.names[bot]), bot)
        index = self.bot_combo.findData(current) if current else 0
        self.bot_combo.setCurrentIndex(max(index, 0))
        self.bot_combo.setToolTip("Claude Code's hooks recall from each project's own memory folder; with a bot or "
                                  "folder chosen, they recall from it too and it gets the memory tools.")
        self.bot_combo.blockSignals(False)
        for row in rows:
            agent = row["agent"]
            self._rows[agent] = row
            if agent not in self.state:
                continue
            self.state[agent].setText(state_line(row, self.names))
            does = str(row["does"])
            self.does[agent].setText(does[:1].upper() + does[1:] + ".")
            self.buttons[agent].setText(button_text(agent, bool(row["connected"])))
        self._enable()
        self.refreshed.emit()

    def why_not(self, agent: str) -> str | None:
        """Why *agent*'s button cannot act now, or None."""
        row = self._rows.get(agent)
        if row is None:
            return "Still reading the agents' settings."
        if row.get("error"):
            return f"Its settings cannot be read, so botmemory will not change them: {row['error']}"
        if row["connected"] or agent == "claude-code":
            return None
        title = TITLES.get(agent, agent)
        if not self.names:
            return NEEDS_A_BOT.format(title=title)
        if self.chosen() is None:
            return CHOOSE_A_BOT.format(title=title)
        return None

    def _enable(self) -> None:
        for agent, button in self.buttons.items():
            why = self.why_not(agent)
            button.setEnabled(why is None)
            row = self._rows.get(agent) or {}
            button.setToolTip(why or ("Take botmemory out of its settings" if row.get("connected")
                                      else "Add botmemory to its settings" + (" (the demo writes nothing)"
                                                                              if self.demo else "")))

    def toggle(self, agent: str) -> None:
        row = self._rows.get(agent)
        if row is None or self.why_not(agent) is not None:
            return
        remove = bool(row["connected"])
        bot = None if remove else self.chosen()
        home, demo = self._home, self.demo
        for b in self.buttons.values():
            b.setEnabled(False)
        title = TITLES.get(agent, agent)

        def done(out: Any) -> None:
            if demo:
                files = ", ".join(out.changed) or "nothing (it is connected already)"
                self.message.setText(f"Demo: {'Disconnect' if remove else 'Connect'} would change {files}. "
                                     "Nothing was written.")
            else:
                verb = "disconnected" if remove else "connected"
                self.message.setText(f"{title} {verb}." + (" Restart Claude Desktop to load it."
                                                           if agent == "claude-desktop" and not remove else ""))
            self.refresh()

        def failed(error: BaseException) -> None:
            self._on_error(error)
            self.refresh()

        self._worker.write(lambda: connect_agent(home, agent, bot=bot, remove=remove, dry_run=demo), done, failed)

    def _on_error(self, error: BaseException) -> None:
        text = str(error) or type(error).__name__
        logger.warning("agents: %s", text)
        self.message.setText(text)
        self.failed.emit(text)
