"""The upkeep section of the Memory panel: the Memory and upkeep switches, the last tidy-up, Tidy up now.

Also the heavy-bot line — *This bot loads a lot every turn.* with **Tidy
memory** — which the core decides (:func:`botmemory.core.upkeep.schedule.heavy_line`);
with Memory or its upkeep off the core never returns it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import INDEX_TOPIC, BotSettings, FolderActions, Memory, counted, remove_learned, settings, tidy

from . import corelink
from .look import secondary
from .session import Session

logger = logging.getLogger(__name__)

NO_BOT = "No bot is open yet: create or choose one first."


@dataclass(frozen=True)
class UpkeepInfo:
    settings: BotSettings
    last_run: datetime | None
    report: dict[str, Any] | None
    error: str | None
    heavy: str | None
    capture: dict[str, Any] | None = None     # the last capture: {"at": ISO time, "report": {...}}
    learned: tuple[tuple[str, str], ...] = ()  # About me lines added by the bots (id, line), newest first


def read_info(mem: Memory, bot: str) -> UpkeepInfo:
    """Runs on the worker."""
    s = settings(mem, bot)
    try:
        state = corelink.last_tidy(mem, bot)
        last, report, error = state.last_run, state.report, state.error
    except Exception as e:  # noqa: BLE001 - the upkeep state is optional
        logger.info("no upkeep state for %s: %s", bot, e)
        last, report, error = None, None, None
    try:
        heavy = corelink.heavy_line(mem, bot)
    except Exception as e:  # noqa: BLE001 - the line is optional; the panel works without it
        logger.info("heavy-bot check failed for %s: %s", bot, e)
        heavy = None
    try:
        captured = corelink.last_capture(mem, bot)
        learned = tuple((ll.id, ll.line) for ll in corelink.learned_lines(mem))
    except Exception as e:  # noqa: BLE001 - optional, like the upkeep state
        logger.info("no capture state for %s: %s", bot, e)
        captured, learned = None, ()
    return UpkeepInfo(s, last, report, error, heavy, captured, learned)


def capture_text(last: dict[str, Any] | None) -> str:
    """The last capture (the core's ``last_capture``) in plain words: when, what it filed, what it skipped."""
    if not last:
        return "Last capture: never"
    try:
        when = when_text(datetime.fromisoformat(str(last.get("at"))))
    except ValueError:
        when = "unknown"
    report = last.get("report") or {}
    filed = [f for f in report.get("filed") or [] if isinstance(f, dict)]
    text = f"Last capture: {when}. " + (f"Filed {_n(len(filed), 'fact', 'facts')}:" if filed else "Nothing new filed.")
    for f in filed:
        text += f"\n• {f.get('fact')} → {f.get('file')}"
    for s in report.get("skipped") or []:
        if isinstance(s, dict):
            text += f"\nSkipped: {s.get('what')}: {s.get('reason')}"
    moved = (report.get("organized") or {}).get("moved") or []
    if moved:
        text += f"\nOrganizing filed {_n(len(moved), 'line', 'lines')} of MEMORY.md into topics."
    return text


_n = counted


def report_text(report: dict[str, Any] | None, error: str | None = None) -> str:
    """A tidy-up report (the core's ``as_dict``) in plain words."""
    if error:
        return f"It failed: {error}"
    if not report:
        return ""
    if "error" in report and len(report) == 1:
        return f"It failed: {report['error']}"
    rows = report.get("rows") or []
    if not rows:
        skipped = {s.get("step") for s in report.get("skipped") or [] if isinstance(s, dict)}
        found = ["no expired entries", "no exact duplicates"]
        if "contradictions" not in skipped:     # a skipped step found nothing because it did not look
            found.append("no contradictions")
        return "Nothing needed tidying: " + ", ".join(found) + "." + _skipped(report)
    parts = [
        f"moved {_n(int(report.get('expired_moved', 0)), 'expired entry', 'expired entries')} to the archive",
        f"removed {_n(int(report.get('duplicates_removed', 0)), 'exact duplicate', 'exact duplicates')}",
        f"struck {_n(int(report.get('superseded', 0)), 'contradicted entry', 'contradicted entries')}",
    ]
    kept = int(report.get("kept_parts", 0) or 0)
    if kept:
        parts.append(f"kept {_n(kept, 'still-true part', 'still-true parts')}")
    text = "The tidy-up " + ", ".join(parts) + "."
    text += f" {_n(len(rows), 'journal row', 'journal rows')}, each can be undone."
    return text + _skipped(report)


def _skipped(report: dict[str, Any]) -> str:
    text = ""
    for s in report.get("skipped") or []:
        if isinstance(s, dict):
            where = f"{s.get('file')}: " if s.get("file") else ""
            text += f"\nSkipped {s.get('step')}: {where}{s.get('reason')}"
    return text


def when_text(t: datetime | None) -> str:
    if t is None:
        return "never"
    local = t.astimezone() if t.tzinfo else t
    today = datetime.now().astimezone().date()
    if local.date() == today:
        return f"today at {local:%H:%M}"
    if (today - local.date()).days == 1:
        return f"yesterday at {local:%H:%M}"
    return f"{local:%Y-%m-%d %H:%M}"


class UpkeepView(QWidget):
    status = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bot: str | None = None
        self.info: UpkeepInfo | None = None
        self._setting = False
        self._asked = 0

        self.memory_switch = QCheckBox("Let this bot use memory")
        self.memory_help = QLabel(
            "Off: MEMORY.md stops loading into new turns, recall and upkeep stop, and bot writes are refused. "
            "The files stay for you to review.")
        self.upkeep_switch = QCheckBox("Memory upkeep")
        self.upkeep_help = QLabel(
            "Every night after the tidy hour: expired entries move to the archive, exact duplicates go, "
            "and — with a helper model — contradictions are struck through. With a helper model it also notices "
            "facts in your chats (after two quiet minutes or six turns) and files detail from MEMORY.md into "
            "topics. Every change can be undone.")
        for lab in (self.memory_help, self.upkeep_help):
            lab.setWordWrap(True)
            lab.setIndent(22)
            secondary(lab)
        self.memory_switch.toggled.connect(lambda on: self._switch("memory", on))
        self.upkeep_switch.toggled.connect(lambda on: self._switch("upkeep", on))
        # nothing to tick until the bot's settings are read
        for w in (self.memory_switch, self.upkeep_switch):
            w.setEnabled(False)
            w.setToolTip(NO_BOT)

        self.applies: FolderActions | None = None
        self.agent_note = QLabel()
        self.agent_note.setWordWrap(True)
        self.agent_note.hide()
        self.last_label = QLabel()
        self.report_label = QLabel()
        self.report_label.setWordWrap(True)
        self.tidy_button = QPushButton("Tidy up now")
        self.tidy_button.clicked.connect(self.tidy_now)
        self.tidy_button.setEnabled(False)
        self.tidy_button.setToolTip(NO_BOT)

        self.heavy_frame = QFrame()
        self.heavy_frame.setObjectName("heavy")
        self.heavy_frame.setStyleSheet("QFrame#heavy { background: #fff1c2; border-radius: 4px; }"
                                       "QFrame#heavy QLabel { color: #1d1d1d; }")
        self.heavy_label = QLabel()
        self.heavy_button = QPushButton("Tidy memory")
        self.heavy_button.clicked.connect(self.tidy_now)
        hb = QHBoxLayout(self.heavy_frame)
        hb.setContentsMargins(10, 6, 10, 6)
        hb.addWidget(self.heavy_label, 1)
        hb.addWidget(self.heavy_button)
        self.heavy_frame.hide()

        self.capture_label = QLabel("Last capture: never")
        self.capture_label.setWordWrap(True)
        self.learned_title = QLabel("<b>Added by your bots</b> (About me)")
        self.learned_box = QVBoxLayout()
        self.learned_rows: list[tuple[str, QPushButton]] = []

        tidy_row = QHBoxLayout()
        tidy_row.addWidget(self.last_label, 1)
        tidy_row.addWidget(self.tidy_button)

        box = QVBoxLayout(self)
        box.addWidget(self.memory_switch)
        box.addWidget(self.memory_help)
        box.addSpacing(8)
        box.addWidget(self.upkeep_switch)
        box.addWidget(self.upkeep_help)
        box.addSpacing(12)
        box.addWidget(self.agent_note)
        box.addLayout(tidy_row)
        box.addWidget(self.report_label)
        box.addSpacing(8)
        box.addWidget(self.heavy_frame)
        box.addSpacing(8)
        box.addWidget(self.capture_label)
        box.addSpacing(8)
        box.addWidget(self.learned_title)
        box.addLayout(self.learned_box)
        box.addStretch(1)
        session.upkeep_ran.connect(self._ran)

    def set_bot(self, bot: str | None) -> None:
        self.bot = bot
        self.info = None
        self.applies = None
        for w in (self.upkeep_switch, self.upkeep_help, self.tidy_button, self.last_label):
            w.setVisible(True)
        self.agent_note.hide()
        self.refresh()

    def set_applies(self, actions: FolderActions) -> None:
        """What applies to the open folder (core's ``folder_actions``): a tidy-up only where it can run."""
        self.applies = actions
        tidy = actions.tidy
        for w in (self.upkeep_switch, self.upkeep_help, self.tidy_button, self.last_label):
            w.setVisible(tidy)
        self.agent_note.setVisible(not tidy)
        self.agent_note.setText(
            f"{actions.why_no_tidy}." + (f" When MEMORY.md no longer all loads, Make room (under the gauge) moves "
                                         f"the oldest index lines into {INDEX_TOPIC}, which the index points at — "
                                         "only when you ask." if actions.room == "index" else "")
            if actions.why_no_tidy else "")
        if self.info is not None and self.bot is not None:
            self._show(self._asked, self.bot, self.info)

    def refresh(self) -> None:
        bot = self.bot
        if bot is None:
            return
        mem = self.session.mem
        self._asked += 1
        asked = self._asked
        self.session.submit_read(lambda: read_info(mem, bot), lambda info: self._show(asked, bot, info),
                                 lambda e: self.report_label.setText(f"Could not read the upkeep state: {e}"))

    def _show(self, asked: int, bot: str, info: UpkeepInfo) -> None:
        if bot != self.bot or asked != self._asked:   # a newer read is on its way
            return
        self.info = info
        self._setting = True
        try:
            self.memory_switch.setChecked(info.settings.memory)
            self.upkeep_switch.setChecked(info.settings.upkeep)
        finally:
            self._setting = False
        on = info.settings.memory and info.settings.upkeep
        applies = self.applies is None or self.applies.tidy
        self.memory_switch.setEnabled(True)
        self.memory_switch.setToolTip("")
        self.upkeep_switch.setEnabled(info.settings.memory)
        self.upkeep_switch.setToolTip("" if info.settings.memory else "Memory is off for this bot: turn it on first.")
        self.tidy_button.setEnabled(on)
        self.tidy_button.setToolTip("" if on else "Upkeep is off for this bot." if info.settings.memory
                                    else "Memory is off for this bot.")
        self.last_label.setText(f"Last tidy-up: {when_text(info.last_run)}")
        text = report_text(info.report, info.error) if applies else ""
        if not applies:
            pass
        elif not on:
            text = ("Upkeep is off for this bot: nothing runs by itself, and Tidy up now is unavailable."
                    if info.settings.memory else "Memory is off for this bot: upkeep does not run.")
        g = self.session.gauges.get(bot)
        if on and g is not None and g.unloaded_lines > 0:
            n = g.unloaded_lines
            lines = f"{counted(n, 'line', 'lines')} of MEMORY.md still {'does' if n == 1 else 'do'} not load"
            if not applies:        # an agent's folder: the note above says what applies
                more = "."
            else:
                more = (": a tidy-up only moves expired entries. Make room (under the gauge) moves the oldest "
                        "dated entries to the archive now.")
            text = (text + "\n" if text else "") + lines + more
        self.report_label.setText(text)
        self.heavy_label.setText(f"<b>{info.heavy}</b>" if info.heavy else "")
        self.heavy_frame.setVisible(bool(info.heavy) and applies)
        self.capture_label.setText(capture_text(info.capture))
        self._show_learned(info.learned)

    def _show_learned(self, lines: tuple[tuple[str, str], ...]) -> None:
        while self.learned_box.count():
            item = self.learned_box.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None:
                w.deleteLater()
        self.learned_rows = []
        if not lines:
            self.learned_box.addWidget(QLabel("None yet: facts your bots learn about you show here."))
        for line_id, line in lines:
            row = QWidget()
            hb = QHBoxLayout(row)
            hb.setContentsMargins(0, 0, 0, 0)
            label = QLabel(line)
            label.setWordWrap(True)
            button = QPushButton("Remove")
            button.setToolTip("Take this line out of About me; no bot adds it again.")
            button.clicked.connect(lambda _=False, i=line_id: self.remove_learned(i))
            hb.addWidget(label, 1)
            hb.addWidget(button)
            self.learned_box.addWidget(row)
            self.learned_rows.append((line, button))

    def remove_learned(self, line_id: str) -> None:
        def done(_removed: Any) -> None:
            self.status.emit("Removed from About me; no bot adds it again. The journal (About me) can undo it.")
            self.refresh()

        def failed(e: BaseException) -> None:
            self.status.emit(f"Could not remove the line: {e}")
            self.refresh()

        self.session.run_op(lambda mem: remove_learned(mem, line_id), done, failed)

    def _switch(self, key: str, on: bool) -> None:
        if self._setting or self.bot is None:
            return
        bot = self.bot

        def done(_settings: Any) -> None:
            self.refresh()
            self.status.emit(f"{'Memory' if key == 'memory' else 'Memory upkeep'} is {'on' if on else 'off'} for {bot}.")

        self.session.run_op(lambda mem: settings(mem, bot, key, on), done,
                            lambda e: self.status.emit(f"Could not change the switch: {e}"))

    def tidy_now(self) -> None:
        if self.bot is None:
            return
        bot = self.bot
        self.tidy_button.setEnabled(False)
        self.heavy_button.setEnabled(False)
        self.report_label.setText("Tidying up…")
        self.session.run_op(lambda mem: tidy(mem, bot).as_dict(), lambda report: self._tidied(bot, report),
                            lambda e: self._tidy_failed(bot, e))

    def _tidied(self, bot: str, report: dict[str, Any]) -> None:
        self.session.upkeep_ran.emit(bot, report)
        self.heavy_button.setEnabled(True)
        self.status.emit(f"Tidy-up of {bot} done.")
        self.refresh()

    def _tidy_failed(self, bot: str, e: BaseException) -> None:
        self.heavy_button.setEnabled(True)
        self.tidy_button.setEnabled(True)
        self.report_label.setText(f"The tidy-up did not run: {e}")
        self.status.emit(f"The tidy-up of {bot} did not run: {e}")

    def _ran(self, bot: str, _report: Any) -> None:
        if bot == self.bot:
            self.refresh()
