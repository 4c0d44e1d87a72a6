"""The Team tab of the Memory panel: a team's accepted notes (and which load), its pending cards, a note's
history, and the team's journal.

- **Notes**: in load order, pinned first, each saying whether it loads; the
  line on top says how many load within the 6,000 bytes and how many do not
  (those are found with ``session_search`` scope ``team``). Select one to
  edit it (with the revision it was opened at), pin it or delete it. A save
  refused because someone changed the note meanwhile shows a banner:
  **Reload** puts their text in the editor and keeps your draft under it.
- **Pending**: each card with the accepted text it would replace; **Accept** and
  **Reject** carry the card's revision. A card whose accepted fact changed
  since it was proposed says so and cannot be accepted.
- **History**: the selected note's kept versions (up to 50); **Restore** makes
  the chosen one the note's text again, as a new revision.
- **Journal**: every change of the team, newest first, with **Undo**.

Every read and write runs on the session's worker through the core's team
operations; the tab refreshes after each and when the team's files change on
disk (a bot proposing from another process).
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QFileSystemWatcher,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from botmemory.core import (
    Actor,
    BotMemoryError,
    Memory,
    TeamConflict,
    counted,
    sync_add_team,
    team_accept,
    team_create,
    team_edit,
    team_history,
    team_journal,
    team_list,
    team_pin,
    team_reject,
    team_remove,
    team_restore,
    team_show,
    team_sync_state,
    team_undo,
)

from .editor import Banner, mono_font
from .session import Session

logger = logging.getLogger(__name__)

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()
PANEL = Actor.person("panel")
WATCH_DELAY_MS = 150
NO_TEAM = ("No team yet. A team shares notes between bots: bots propose them, you accept them, and every "
           "member bot loads them. New team… makes one with this bot in it.")


def one_line(text: str, limit: int = 160) -> str:
    t = " ".join(str(text).split())
    return t if len(t) <= limit else t[: limit - 1] + "…"


class Table(QAbstractTableModel):
    """Rows of dicts under fixed column titles; each column reads one value of a row."""

    COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...] = ()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: list[dict[str, Any]] = []

    def set_items(self, items: Sequence[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.items = list(items)
        self.endResetModel()

    def item(self, row: int) -> dict[str, Any] | None:
        return self.items[row] if 0 <= row < len(self.items) else None

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < len(self.COLUMNS):
            return self.COLUMNS[section][0]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.items) or not 0 <= index.column() < len(self.COLUMNS):
            return None
        item = self.items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return str(self.COLUMNS[index.column()][1](item))
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(item)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self.colour(item)
        return None

    def tooltip(self, item: dict[str, Any]) -> str | None:
        return None

    def colour(self, item: dict[str, Any]) -> QColor | None:
        return None


class NotesModel(Table):
    """Accepted notes in load order; the ones that do not load in grey."""

    COLUMNS = (("Loads", lambda n: "yes" if n["loads"] else "no"), ("Pinned", lambda n: "pinned" if n["pinned"] else ""),
               ("Key", lambda n: n["key"] or ""), ("Title", lambda n: n["title"]), ("Rev", lambda n: n["rev"]),
               ("Note", lambda n: one_line(n["text"])))

    def tooltip(self, item: dict[str, Any]) -> str:
        return item["text"] if item["loads"] else ("Does not fit in what loads: found with session_search scope "
                                                   f"team.\n\n{item['text']}")

    def colour(self, item: dict[str, Any]) -> QColor | None:
        return None if item["loads"] else QColor("#888888")


class CardsModel(Table):
    """Pending cards, oldest first; a card whose accepted fact changed since in red."""

    COLUMNS = (("From", lambda c: c["bot"] or {"person": "You", "upkeep": "Memory upkeep"}.get(c["who"], c["who"])),
               ("Key", lambda c: c["key"] or ""), ("Proposed", lambda c: one_line(c["text"])),
               ("Would replace", lambda c: one_line(c["replaces_text"] or "—")))

    def colour(self, item: dict[str, Any]) -> QColor | None:
        return QColor("#b3261e") if item["stale"] else None

    def tooltip(self, item: dict[str, Any]) -> str:
        return str(item["text"])


class VersionsModel(Table):
    COLUMNS = (("Rev", lambda v: v["rev"]), ("Day", lambda v: v["day"]),
               ("How", lambda v: v["how"] + (f" of {v['restored']}" if v.get("restored") else "")),
               ("By", lambda v: v["bot"] or v["who"]),
               ("Text", lambda v: one_line((f"{v['title']}: " if v["title"] else "") + v["text"])))

    def tooltip(self, item: dict[str, Any]) -> str:
        return str(item["text"])


class RowsModel(Table):
    COLUMNS = (("When", lambda r: r["at"][:19].replace("T", " ")), ("Who", lambda r: f"{r['who']}/{r['how']}"),
               ("File", lambda r: r["file"]), ("Change", lambda r: one_line(r["summary"], 80)))


def read_team(mem: Memory, key: str | None, bot: str | None) -> dict[str, Any]:
    """Runs on the worker: the teams, the one shown (the bot's first when none is chosen), its rows."""
    teams = [t.listed() for t in team_list(mem)]
    if key not in {t["team"] for t in teams}:
        mine = [t for t in teams if bot in t["bots"]]
        key = (mine or teams or [{"team": None}])[0]["team"]
    if key is None:
        return {"teams": teams, "team": None}
    shown = team_show(mem, key).as_dict()
    rows = [{**r.as_dict(), "summary": r.summary().split("  ", 2)[-1]} for r in team_journal(mem, key, 200)]
    try:
        s = team_sync_state(mem, key)
        synced: dict[str, Any] | None = {**s.as_dict(), "line": s.line()}
    except BotMemoryError as e:
        logger.info("could not read the sync of team %s: %s", key, e)
        synced = None
    return {"teams": teams, "team": key, "show": shown, "rows": rows, "sync": synced}


def summary_text(show: dict[str, Any]) -> str:
    notes = show["notes"]
    if not notes:
        head = "No accepted notes yet."
    else:
        head = (f"{show['loaded']} of {counted(len(notes), 'note')} load into every member bot's turn "
                f"({show['loaded_bytes']:,} of {show['max_bytes']:,} bytes)")
        head += (f"; {show['not_loaded']} do not: session_search with scope team finds them." if show["not_loaded"]
                 else ".")
    cards = len(show["cards"])
    return (f"<b>{escape(show['name'])}</b> — shared by {escape(', '.join(show['bots'])) or 'no bot'}. {head} "
            + (f"{counted(cards, 'card')} waiting for you." if cards else ""))


def table(model: Table, stretch: int = 1) -> QTableView:
    """A read-only table of one selectable row at a time; its last *stretch* columns share the width left."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.verticalHeader().hide()
    view.setShowGrid(False)
    view.setWordWrap(False)
    header = view.horizontalHeader()
    n = len(model.COLUMNS)
    for i in range(n):
        header.setSectionResizeMode(i, QHeaderView.ResizeMode.Stretch if i >= n - stretch
                                    else QHeaderView.ResizeMode.ResizeToContents)
    return view


class TeamView(QWidget):
    status = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bot: str | None = None
        self.key: str | None = None
        self.state: dict[str, Any] = {}
        self._asked = 0
        self._editing: dict[str, Any] | None = None     # the note the editor opened, at its rev

        self.team_box = QComboBox()
        self.team_box.setMinimumContentsLength(16)
        self.team_box.currentIndexChanged.connect(self._team_chosen)
        self.new_button = QPushButton("New team…")
        self.new_button.clicked.connect(self.new_team)
        self.reload_button = QPushButton("Reload")
        self.reload_button.clicked.connect(self.refresh)
        self.summary = QLabel(NO_TEAM)
        self.summary.setWordWrap(True)
        self.sync_label = QLabel()
        self.sync_label.setStyleSheet("color: #555;")
        self.sync_label.setWordWrap(True)
        self.sync_button = QPushButton("Sync this team")
        self.sync_button.setToolTip("Keep this team the same on your other computers (each adds it once: "
                                    "`botmemory sync add --team KEY`)")
        self.sync_button.clicked.connect(self.sync_team)
        sync_row = QHBoxLayout()
        sync_row.addWidget(self.sync_label, 1)
        sync_row.addWidget(self.sync_button)
        head = QHBoxLayout()
        head.addWidget(QLabel("Team"))
        head.addWidget(self.team_box, 1)
        head.addWidget(self.new_button)
        head.addWidget(self.reload_button)

        # notes, with the editor
        self.notes = NotesModel(self)
        self.notes_view = table(self.notes)
        self.notes_view.selectionModel().currentRowChanged.connect(lambda cur, _p: self._note_selected(cur.row()))
        self.pin_button = QPushButton("Pin")
        self.pin_button.clicked.connect(self.toggle_pin)
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(self.delete_note)
        self.title_edit = QLineEdit()
        self.title_edit.setPlaceholderText("Title (optional)")
        self.text_edit = QPlainTextEdit()
        self.text_edit.setFont(mono_font())
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self.save_note)
        self.conflict = Banner("#fde2c8")
        self.conflict_reload = self.conflict.add_button("Reload")
        self.conflict_reload.clicked.connect(self.reload_after_conflict)
        self.draft_label = QLabel("Your draft, kept from before Reload:")
        self.draft = QPlainTextEdit()
        self.draft.setReadOnly(True)
        self.draft.setMaximumHeight(110)
        self.draft_box = QWidget()
        dl = QVBoxLayout(self.draft_box)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addWidget(self.draft_label)
        dl.addWidget(self.draft)
        self.draft_box.hide()
        self._conflict_now: dict[str, Any] | None = None
        buttons = QHBoxLayout()
        buttons.addWidget(self.pin_button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        editor = QWidget()
        el = QVBoxLayout(editor)
        el.setContentsMargins(0, 0, 0, 0)
        el.addWidget(self.conflict)
        el.addWidget(self.title_edit)
        el.addWidget(self.text_edit, 1)
        el.addWidget(self.draft_box)
        el.addLayout(buttons)
        notes_page = QSplitter(Qt.Orientation.Vertical)
        notes_page.addWidget(self.notes_view)
        notes_page.addWidget(editor)
        notes_page.setSizes([320, 220])

        # pending cards
        self.cards = CardsModel(self)
        self.cards_view = table(self.cards, stretch=2)
        self.cards_view.selectionModel().currentRowChanged.connect(lambda cur, _p: self._card_selected(cur.row()))
        self.card_text = QLabel()
        self.card_text.setWordWrap(True)
        self.card_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.accept_button = QPushButton("Accept")
        self.accept_button.clicked.connect(lambda: self.decide(True))
        self.reject_button = QPushButton("Reject")
        self.reject_button.clicked.connect(lambda: self.decide(False))
        cards_page = QWidget()
        cl = QVBoxLayout(cards_page)
        cl.addWidget(self.cards_view, 1)
        cl.addWidget(self.card_text)
        cb = QHBoxLayout()
        cb.addStretch(1)
        cb.addWidget(self.reject_button)
        cb.addWidget(self.accept_button)
        cl.addLayout(cb)

        # history of the selected note
        self.versions = VersionsModel(self)
        self.versions_view = table(self.versions)
        self.versions_view.selectionModel().currentRowChanged.connect(lambda _c, _p: self._enable())
        self.restore_button = QPushButton("Restore this version")
        self.restore_button.clicked.connect(self.restore_version)
        history_page = QWidget()
        hl = QVBoxLayout(history_page)
        self.history_label = QLabel("Select a note to see its versions.")
        hl.addWidget(self.history_label)
        hl.addWidget(self.versions_view, 1)
        hb = QHBoxLayout()
        hb.addStretch(1)
        hb.addWidget(self.restore_button)
        hl.addLayout(hb)

        # the team's journal
        self.rows = RowsModel(self)
        self.rows_view = table(self.rows)
        self.rows_view.selectionModel().currentRowChanged.connect(lambda _c, _p: self._enable())
        self.undo_button = QPushButton("Undo this change")
        self.undo_button.clicked.connect(self.undo_row)
        journal_page = QWidget()
        jl = QVBoxLayout(journal_page)
        jl.addWidget(self.rows_view, 1)
        jb = QHBoxLayout()
        jb.addStretch(1)
        jb.addWidget(self.undo_button)
        jl.addLayout(jb)

        self.tabs = QTabWidget()
        self.tabs.addTab(notes_page, "Notes")
        self.tabs.addTab(cards_page, "Pending")
        self.tabs.addTab(history_page, "History")
        self.tabs.addTab(journal_page, "Journal")

        box = QVBoxLayout(self)
        box.addLayout(head)
        box.addWidget(self.summary)
        box.addLayout(sync_row)
        box.addWidget(self.tabs, 1)

        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._changed_on_disk)
        self._watcher.fileChanged.connect(self._changed_on_disk)
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.setInterval(WATCH_DELAY_MS)
        self._soon.timeout.connect(self.refresh)
        self._enable()

    # ----- what is shown

    def set_bot(self, bot: str) -> None:
        self.bot = bot
        self.refresh()

    def refresh(self) -> None:
        mem, key, bot = self.session.mem, self.key, self.bot
        self._asked += 1
        asked = self._asked
        self.session.submit_read(lambda: read_team(mem, key, bot), lambda s: self._shown(asked, s),
                                 lambda e: self.say(f"Could not read the team: {e}"))

    def _shown(self, asked: int, state: dict[str, Any]) -> None:
        if asked != self._asked:           # a newer read is on its way
            return
        self.state = state
        self.key = state["team"]
        self.team_box.blockSignals(True)
        self.team_box.clear()
        for t in state["teams"]:
            mine = " (this bot)" if self.bot in t["bots"] else ""
            self.team_box.addItem(f"{t['name']}{mine}", t["team"])
        self.team_box.setCurrentIndex(self.team_box.findData(self.key))
        self.team_box.blockSignals(False)
        show = state.get("show")
        self._show_sync(state.get("sync"))
        if show is None:
            self.summary.setText(NO_TEAM)
            for m in (self.notes, self.cards, self.versions, self.rows):
                m.set_items([])
            self._enable()
            return
        self.summary.setText(summary_text(show))
        selected = self.selected_note()
        self.notes.set_items(show["notes"])
        self.cards.set_items(show["cards"])
        self.rows.set_items(state["rows"])
        self.tabs.setTabText(1, f"Pending ({len(show['cards'])})" if show["cards"] else "Pending")
        self._watch()
        if selected is not None:
            row = next((i for i, n in enumerate(show["notes"]) if n["note"] == selected["note"]), -1)
            if row >= 0:
                self.notes_view.selectRow(row)
        self._card_selected(self.cards_view.currentIndex().row())
        self._enable()

    def _show_sync(self, s: dict[str, Any] | None) -> None:
        """The team's sync in one line (nothing when sync is not set up on this computer)."""
        shown = s is not None and bool(s["set_up"])
        self.sync_label.setVisible(shown)
        self.sync_label.setText(f"Across computers: {s['line']}" if s is not None and shown else "")
        if s is not None and shown:
            self.sync_label.setToolTip(f"Synced under team/{s['team']}: the same key on every computer"
                                       if s["synced"] else "")
        self.sync_button.setVisible(s is not None and shown and not s["synced"])

    def show_team(self, key: str) -> None:
        """Show team *key* (the sync line's Resolve… on its conflict cards), on its Pending page."""
        self.key = key
        self.clear_editor()
        self.tabs.setCurrentIndex(1)
        self.refresh()

    def sync_team(self) -> None:
        key, mem = self.key, self.session.mem
        if key is None:
            return

        def added(_r: Any) -> None:
            from .sync_view import service_for

            self.say("This team syncs now: add it on each of your other computers with its key, " + key + ".")
            service_for(self.session).sync_now()
            self.refresh()

        self.session.run_op(lambda _mem: sync_add_team(mem, key, sync=False), added,
                            lambda e: self.say(f"Could not sync the team: {e}"))

    def _watch(self) -> None:
        """Refresh when the team's files change on disk (a bot proposing from another process)."""
        if self.key is None:
            return
        base = self.session.mem.home.root / "teams" / self.key
        wanted = [str(p) for p in (base, base / "notes", base / "cards") if p.is_dir()]
        old = self._watcher.directories()
        if old != wanted:
            if old:
                self._watcher.removePaths(old)
            if wanted:
                self._watcher.addPaths(wanted)

    def _changed_on_disk(self, *_args: Any) -> None:
        if not self._soon.isActive():
            self._soon.start()

    def _team_chosen(self, index: int) -> None:
        key = self.team_box.itemData(index)
        if key and key != self.key:
            self.key = key
            self.clear_editor()
            self.refresh()

    def _enable(self) -> None:
        note = self.selected_note()
        card = self.selected_card()
        has = self.key is not None
        for w in (self.pin_button, self.delete_button, self.save_button, self.title_edit, self.text_edit):
            w.setEnabled(has and note is not None)
        self.pin_button.setText("Unpin" if note is not None and note["pinned"] else "Pin")
        self.accept_button.setEnabled(card is not None and not card["stale"])
        self.accept_button.setToolTip("The accepted note changed since this card was proposed: it cannot be "
                                      "accepted" if card is not None and card["stale"] else "")
        self.reject_button.setEnabled(card is not None)
        self.restore_button.setEnabled(note is not None and self.versions_view.currentIndex().row() > 0)
        self.undo_button.setEnabled(self.rows_view.currentIndex().isValid())

    def selected_note(self) -> dict[str, Any] | None:
        return self.notes.item(self.notes_view.currentIndex().row())

    def selected_card(self) -> dict[str, Any] | None:
        return self.cards.item(self.cards_view.currentIndex().row())

    def _note_selected(self, row: int) -> None:
        note = self.notes.item(row)
        if note is None:
            self._enable()
            return
        was = self._editing
        dirty = was is not None and self.text_edit.toPlainText() != was["text"]
        if dirty and was is not None and was["note"] != note["note"]:     # never lose a draft: keep it below
            self.draft.setPlainText(self.text_edit.toPlainText())
            self.draft_label.setText(f"Your unsaved draft of “{was['title'] or was['key'] or was['note']}”:")
            self.draft_box.show()
            self.say("Your unsaved changes were kept under the editor.")
        if not (dirty and was is not None and was["note"] == note["note"]):
            self._editing = dict(note)
            self.title_edit.setText(note["title"])
            self.text_edit.setPlainText(note["text"])
        self.load_history(note["note"], note["title"] or note["key"] or "")
        self._enable()

    def _card_selected(self, row: int) -> None:
        card = self.cards.item(row)
        if card is None:
            self.card_text.setText("Select a card to see what it would change.")
        else:
            what = escape(" · ".join(x for x in (card["title"], card["key"] or "no key") if x))
            text = f"<b>Proposed</b> ({what}): {escape(card['text'])}"
            if card["replaces_text"] is not None:
                text += f"<br><b>It would replace</b>: {escape(card['replaces_text'])}"
            if card["quotes"]:
                text += "<br><b>Said</b>: " + " · ".join(f"“{escape(q)}”" for q in card["quotes"])
            if card["conflict"]:
                text += f"<br>Edited on {escape(card['host'] or 'another computer')} at the same time as here."
            if card["stale"]:
                text += ("<br><span style='color:#b3261e'>The accepted note changed since this was proposed: "
                         "it cannot be accepted. Reject it, or edit the note.</span>")
            self.card_text.setText(text)
        self._enable()

    def load_history(self, note: str, name: str = "") -> None:
        mem, key = self.session.mem, self.key
        if key is None:
            return

        def shown(versions: list[dict[str, Any]]) -> None:
            if key != self.key:
                return
            self.versions.set_items(versions)
            self.history_label.setText(f"{counted(len(versions), 'version')} of “{name or note}” kept (up to 50); "
                                       "the first is its text now.")
            self._enable()

        self.session.submit_read(lambda: [v.as_dict() for v in team_history(mem, key, note)], shown,
                                 lambda e: self.say(f"Could not read the note's history: {e}"))

    def clear_editor(self) -> None:
        self._editing = None
        self.title_edit.clear()
        self.text_edit.clear()
        self.conflict.hide()
        self.draft_box.hide()

    # ----- changes

    def _write(self, fn: Callable[[], Any], done: str, failed: str) -> None:
        def finished(_r: Any) -> None:
            self.say(done)
            self.refresh()

        def error(e: BaseException) -> None:
            self.say(f"{failed}: {e}" if not isinstance(e, TeamConflict) else str(e))
            self.refresh()

        self.session.run_op(lambda _mem: fn(), finished, error)

    def decide(self, accept: bool) -> None:
        card, key, mem = self.selected_card(), self.key, self.session.mem
        if card is None or key is None:
            return
        cid, rev = card["card"], card["rev"]
        if accept:
            self._write(lambda: team_accept(mem, key, cid, rev, PANEL), "Accepted: every member bot loads it now.",
                        "Could not accept the card")
        else:
            self._write(lambda: team_reject(mem, key, cid, rev, PANEL), "Rejected.", "Could not reject the card")

    def toggle_pin(self) -> None:
        note, key, mem = self.selected_note(), self.key, self.session.mem
        if note is None or key is None:
            return
        on = not note["pinned"]
        self._write(lambda: team_pin(mem, key, note["note"], on, PANEL), "Pinned: it loads first." if on else
                    "Unpinned.", "Could not pin the note")

    def delete_note(self) -> None:
        note, key, mem = self.selected_note(), self.key, self.session.mem
        if note is None or key is None:
            return
        rev = note["rev"]
        self._write(lambda: team_remove(mem, key, note["note"], rev, PANEL),
                    "Deleted: it no longer loads. Undo it in the team's journal.", "Could not delete the note")
        self.clear_editor()

    def save_note(self) -> None:
        note, key, mem = self._editing, self.key, self.session.mem
        if note is None or key is None:
            return
        text, title, rev = self.text_edit.toPlainText(), self.title_edit.text(), note["rev"]

        def saved(r: Any) -> None:
            self._editing = {**note, "text": r.note.text, "title": r.note.title, "rev": r.note.rev}
            self.conflict.hide()
            self.say("Saved: every member bot loads the new text.")
            self.refresh()

        def failed(e: BaseException) -> None:
            if isinstance(e, TeamConflict):
                self._conflict_now = dict(e.current)
                self.conflict.label.setText("<b>Someone changed this note while you were editing.</b> Reload shows "
                                            "their text and keeps your draft under the editor; nothing was saved.")
                self.conflict.show()
                return
            self.say(f"Could not save the note: {e}")

        self.session.run_op(lambda _mem: team_edit(mem, key, note["note"], text, rev, PANEL, title=title),
                            saved, failed)

    def reload_after_conflict(self) -> None:
        """Show the note as it is now; keep the draft under the editor for comparison."""
        now, note = self._conflict_now, self._editing
        if now is None or note is None:
            return
        self.draft.setPlainText(self.text_edit.toPlainText())
        self.draft_label.setText("Your draft, kept from before Reload:")
        self.draft_box.show()
        self._editing = {**note, "text": now.get("text", ""), "title": now.get("title", note["title"]),
                         "rev": now.get("rev", note["rev"])}
        self.title_edit.setText(self._editing["title"])
        self.text_edit.setPlainText(self._editing["text"])
        self.conflict.hide()
        self._conflict_now = None
        self.refresh()

    def restore_version(self) -> None:
        note, key, mem = self.selected_note(), self.key, self.session.mem
        version = self.versions.item(self.versions_view.currentIndex().row())
        if note is None or key is None or version is None:
            return
        rev, vrev = note["rev"], version["rev"]
        self._write(lambda: team_restore(mem, key, note["note"], vrev, rev, PANEL),
                    f"Restored version {vrev} as a new revision.", "Could not restore the version")
        self._editing = None

    def undo_row(self) -> None:
        row, key, mem = self.rows.item(self.rows_view.currentIndex().row()), self.key, self.session.mem
        if row is None or key is None:
            return
        rid = row["id"]
        self._write(lambda: team_undo(mem, key, rid), f"Undid {rid}.", "Could not undo")

    def new_team(self) -> None:
        name, ok = QInputDialog.getText(self, "New team", "Name of the team (this bot will be a member):")
        if ok and name.strip():
            self.create_team(name.strip())

    def create_team(self, name: str) -> None:
        mem, bot = self.session.mem, self.bot

        def made(r: Any) -> None:
            self.key = r.team.team
            self.say(f"Made team {r.team.name}.")
            self.refresh()

        self.session.run_op(lambda _mem: team_create(mem, name, [bot] if bot else [], PANEL), made,
                            lambda e: self.say(f"Could not make the team: {e}"))

    def say(self, text: str) -> None:
        self.status.emit(text)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self.bot is not None:
            self.refresh()

