"""Tracked agent folders in the desktop app: their gauge, what loads, their names, and the offer to track.

Claude Code, OpenClaw and Hermes folders are bots like any other in the
panel and the tray; this module supplies what differs by kind: a gauge with
the kind's budget (characters for Hermes and OpenClaw), "What loads" with the
lines that do not load marked (for OpenClaw the lost middle), the display
name ("/src/blog · Claude Code"), and the dialog that offers the folders
found on this computer ("Claude Code keeps memory for 3 projects here —
track them?"), on first run and from the tray and Settings.
"""
from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import (
    Candidate,
    FolderGauge,
    Memory,
    atomic_write,
    counted,
    gauge,
    kind_label,
    kind_of,
    load,
    track,
    untrack,
)

from .wording import shown_name

logger = logging.getLogger(__name__)

OFFERED_FILE = "agents-offered.json"


def gauge_of(mem: Memory, bot: str) -> FolderGauge:
    """The gauge of any bot: a workspace's budget (docs/RULES.md "The load budget"), the kind's for a tracked folder (worker)."""
    return gauge(mem, bot, secrets=False)


def loads_caption(mem: Memory, bot: str) -> str:
    """The caption over "What loads" for a tracked folder, by kind."""
    name = kind_of(mem, bot).name
    if name == "claude-code":
        return ("<b>What loads</b> — exactly what Claude Code reads at the start of a conversation: MEMORY.md "
                "without its frontmatter and comments, cut to 200 lines / 25,000 bytes. Lines marked ✗ do not "
                "load; topic files are read on demand.")
    if name == "openclaw":
        return ("<b>What loads</b> — exactly what OpenClaw injects each turn: MEMORY.md, its head and tail kept "
                "when it is over the limit. Lines marked ✗ are in the lost middle.")
    if name == "hermes":
        return ("<b>What loads</b> — the snapshot Hermes loads at session start: every § entry of MEMORY.md and "
                "USER.md.")
    return "<b>What loads</b>"


def display_name(mem: Memory, bot: str) -> str:
    """What the bot list shows: a workspace's id, or a tracked folder's name (``~`` for the home folder) and kind."""
    f = mem.home.folder(bot)
    if f is None:
        return bot
    return f"{shown_name(f.name or bot)} · {kind_label(f.layout.name)}"


def topic_prefix(mem: Memory, bot: str) -> str | None:
    """Where a new topic goes: ``memory/`` in a workspace or OpenClaw, beside MEMORY.md for Claude Code, nowhere
    for Hermes (None)."""
    return kind_of(mem, bot).topic_dir


def loads_text(mem: Memory, bot: str) -> str:
    """Runs on the worker: exactly what a tracked folder's agent loads, then the lines that do not load, marked."""
    r = load(mem, bot)
    text = r.text
    lost_parts: list[str] = []
    for u in r.unloaded:
        lost_parts.append(f"✗ {counted(len(u.lines), 'line')} of {u.file} "
                          f"{'does' if len(u.lines) == 1 else 'do'} not load ({u.where}):")
        lost_parts.extend(f"✗ {no:>5}  {line}" for no, line in u.lines)
    if lost_parts:
        text += ("\n" if text and not text.endswith("\n") else "") + "\n" + "\n".join(lost_parts) + "\n"
    return text


# ----- finding and offering


def offered(mem: Memory) -> bool:
    return (mem.home.state_dir / OFFERED_FILE).exists()


def mark_offered(mem: Memory) -> None:
    try:
        atomic_write(mem.home.state_dir / OFFERED_FILE, json.dumps({"offered": True}).encode("utf-8"))
    except OSError as e:
        logger.info("could not note that the agents were offered: %s", e)


def offer_text(found: Sequence[Any]) -> str:
    """``Claude Code keeps memory for 3 projects here — track them?`` for what was found and is not tracked."""
    fresh = [c for c in found if not c.tracked]
    if not fresh:
        return ""
    counts = Counter(c.agent for c in fresh)
    parts = []
    for agent, n in counts.items():
        if agent == "claude-code":
            parts.append(f"Claude Code keeps memory for {counted(n, 'project')} here")
        else:
            parts.append(f"{kind_label(agent)} keeps its memory here")
    return "; ".join(parts) + (" — track them?" if len(fresh) > 1 else " — track it?")


class AgentsDialog(QDialog):
    """The memory folders found on this computer, ticked when tracked; OK tracks and untracks as ticked."""

    changed = Signal()

    def __init__(self, mem: Memory, found: list[Candidate], unread: list[str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mem = mem
        self.found = found
        self.setWindowTitle("Agent memory folders")   # the platform adds " — Bot Memory"
        box = QVBoxLayout(self)
        question = offer_text(found)
        self.question = QLabel(f"<b>{question}</b>" if question else
                               ("Every agent memory folder found here is tracked." if found
                                else "No Claude Code, OpenClaw or Hermes memory folders were found."))
        self.question.setWordWrap(True)
        box.addWidget(self.question)
        box.addWidget(QLabel("botmemory shows what each agent loads, journals every change with undo, "
                             "and never writes into the folder unless you ask."))
        self.list = QListWidget()
        for c in found:
            item = QListWidgetItem(f"{c.name} · {kind_label(c.agent)}  —  {c.path}")
            item.setData(Qt.ItemDataRole.UserRole, c.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            # first run: everything found is ticked; later the ticks say what is tracked
            item.setCheckState(Qt.CheckState.Checked if (c.tracked or question) else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        box.addWidget(self.list, 1)
        for u in unread:
            note = QLabel(f"Could not read {u.removeprefix('could not read ')} — its defaults are used.")
            note.setWordWrap(True)
            note.setStyleSheet("color: #a15c00;")
            box.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Track the ticked folders")
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("Not now")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        box.addWidget(buttons)
        self.resize(640, 360)

    def ticked(self) -> set[str]:
        out = set()
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.add(str(item.data(Qt.ItemDataRole.UserRole)))
        return out

    def apply(self) -> list[str]:
        """Track what is ticked and untrack what is not; returns what could not be done."""
        problems = []
        want = self.ticked()
        for c in self.found:
            try:
                if c.id in want and not c.tracked:
                    track(self.mem, c.id)
                elif c.id not in want and c.tracked:
                    untrack(self.mem, c.id)
            except Exception as e:  # noqa: BLE001 - one folder must not stop the others
                problems.append(f"{c.name}: {e}")
        self.changed.emit()
        return problems

    def accept(self) -> None:
        problems = self.apply()
        if problems:
            self.question.setText("<br>".join(problems))
            return
        super().accept()


class SecretsBanner(QWidget):
    """"This folder holds a credential" over a tracked folder, with **Redact** (a journaled change per file).

    botmemory never rewrites an agent's file on its own: the banner only says
    which files hold what, and redacts when asked.
    """

    status = Signal(str)

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        from PySide6.QtWidgets import QHBoxLayout, QPushButton

        super().__init__(parent)
        self.session = session
        self.bot: str | None = None
        self.found: dict[str, list[str]] = {}
        self._asked = 0
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.redact_button = QPushButton("Redact")
        self.redact_button.setToolTip("Replace each credential by «redacted N chars». botmemory keeps no copy "
                                      "of a credential, so this cannot be undone.")
        self.redact_button.clicked.connect(self.redact)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 4, 6, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.redact_button)
        self.setStyleSheet("background: #fdecea; color: #8a1c12;")
        self.hide()

    def set_bot(self, bot: str | None) -> None:
        self.bot = bot
        self.refresh()

    def refresh(self) -> None:
        bot = self.bot
        mem = self.session.mem
        if bot is None or not mem.home.is_tracked(bot):
            self.found = {}
            self.hide()
            return
        self._asked += 1
        asked = self._asked
        self.session.submit_read(lambda: gauge(mem, bot).secrets,
                                 lambda found: self._show(asked, bot, found),
                                 lambda e: logger.info("could not look for credentials: %s", e))

    def _show(self, asked: int, bot: str, found: dict[str, list[str]]) -> None:
        if asked != self._asked or bot != self.bot:
            return
        self.found = found
        if not found:
            self.hide()
            return
        files = ", ".join(f"{rel} ({', '.join(kinds_)})" for rel, kinds_ in found.items())
        self.label.setText(f"<b>A credential is kept in this memory:</b> {files}. "
                           "The agent loads it with its memory.")
        self.show()

    def redact(self) -> None:
        bot = self.bot
        if bot is None or not self.found:
            return
        from botmemory.core.ops import Actor, redact

        files = list(self.found)

        def done(results: list[Any]) -> None:
            n = sum(len(r.changes) for r in results)
            self.status.emit(f"Redacted {counted(n, 'file')}. The journal shows the "
                             "change; botmemory keeps no copy of a credential, so it cannot be put back.")
            self.refresh()

        self.session.run_op(lambda mem: [redact(mem, bot, rel, Actor.person("panel")) for rel in files], done,
                            lambda e: self.status.emit(f"Could not redact: {e}"))
