"""Settings → Agents: the agents found on this computer (Claude Code, Claude Desktop, Cursor), connected or not.

Each row says whether botmemory is connected, what the connection does, and
offers Connect or Disconnect — the same as ``botmemory connect AGENT --bot BOT``
and ``--remove``, through the core's surface, run on the worker.
"""
from __future__ import annotations

import logging
from typing import Any

from botmemory.core.ops import CONNECT_AGENTS, Home, connect_agent, connection_status
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QFormLayout, QGridLayout, QGroupBox, QLabel, QPushButton, QVBoxLayout, QWidget

from .worker import Worker

logger = logging.getLogger(__name__)

TITLES = {"claude-code": "Claude Code", "claude-desktop": "Claude Desktop", "cursor": "Cursor"}


def state_line(row: dict[str, Any]) -> str:
    """One line on a connection: connected (with what) or not, and whether the agent is here at all."""
    if row.get("error"):
        return f"Cannot read its settings: {row['error']}"
    if row["connected"]:
        parts = (["hooks"] if row.get("hooks") else []) + ([f"memory tools for {row['mcp_bot']}"]
                                                           if row.get("mcp_bot") else [])
        return "Connected: " + " and ".join(parts)
    return "Not connected" + ("" if row["found"] else " (not found on this computer)")


class AgentsPage(QGroupBox):
    """The Agents section of Settings."""

    refreshed = Signal()
    failed = Signal(str)

    def __init__(self, home: Home, worker: Worker, parent: QWidget | None = None) -> None:
        super().__init__("Agents", parent)
        self._home = home
        self._worker = worker
        self._rows: dict[str, dict[str, Any]] = {}
        self.bot_combo = QComboBox()
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.state: dict[str, QLabel] = {}
        self.does: dict[str, QLabel] = {}
        self.buttons: dict[str, QPushButton] = {}
        layout = QVBoxLayout(self)
        form = QFormLayout()
        form.addRow("Memory the agents use:", self.bot_combo)
        layout.addLayout(form)
        grid = QGridLayout()
        for i, agent in enumerate(CONNECT_AGENTS):
            name = QLabel(f"<b>{TITLES.get(agent, agent)}</b>")
            self.state[agent] = QLabel("…")
            self.does[agent] = QLabel()
            self.does[agent].setWordWrap(True)
            self.does[agent].setForegroundRole(QPalette.ColorRole.PlaceholderText)
            self.does[agent].setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            button = QPushButton("Connect")
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
        home = self._home
        self._worker.read(lambda: (home.bots(), connection_status()), self._show, self._on_error)

    def _show(self, result: tuple[list[str], list[dict[str, Any]]]) -> None:
        bots, rows = result
        used = [r["mcp_bot"] for r in rows if r.get("mcp_bot") in bots]
        current = self.bot_combo.currentText() or (used[0] if used else "")
        self.bot_combo.clear()
        self.bot_combo.addItems(bots)
        if current in bots:     # the one chosen, else the one the agents already use
            self.bot_combo.setCurrentText(current)
        for row in rows:
            agent = row["agent"]
            self._rows[agent] = row
            if agent not in self.state:
                continue
            self.state[agent].setText(state_line(row))
            does = str(row["does"])
            self.does[agent].setText(does[:1].upper() + does[1:] + ".")
            self.buttons[agent].setText("Disconnect" if row["connected"] else "Connect")
            self.buttons[agent].setEnabled(bool(row["connected"] or bots) and not row.get("error"))
        self.refreshed.emit()

    def toggle(self, agent: str) -> None:
        row = self._rows.get(agent)
        if row is None:
            return
        remove = bool(row["connected"])
        bot = None if remove else (self.bot_combo.currentText() or None)
        home = self._home
        for b in self.buttons.values():
            b.setEnabled(False)

        def done(out: Any) -> None:
            title = TITLES.get(agent, agent)
            verb = "disconnected" if remove else "connected"
            self.message.setText(f"{title} {verb}." + (" Restart Claude Desktop to load it."
                                                       if agent == "claude-desktop" and not remove else ""))
            self.refresh()

        def failed(error: BaseException) -> None:
            self._on_error(error)
            self.refresh()

        self._worker.write(lambda: connect_agent(home, agent, bot=bot, remove=remove), done, failed)

    def _on_error(self, error: BaseException) -> None:
        text = str(error) or type(error).__name__
        logger.warning("agents: %s", text)
        self.message.setText(text)
        self.failed.emit(text)
