"""The file editor of the Memory panel: saves with the hash it opened, never over the bot's work.

A save carries the hash of the text that was opened. When the file changed in
between, the core refuses it (``Conflict``) and the editor says so —
"<bot> changed this file while you were editing." — with **Reload** (the new
text in the editor, the draft kept in a box under it) and **Overwrite with
mine**. Before a save that would push MEMORY.md past the budget, it shows which
entries the next write through the harness would move to the archive.
Daily logs are read-only; they and topics can be deleted — the core's one rule
(``delete_refusal``): never MEMORY.md, never the archive.
"""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListView,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import (
    ONLY_FIRST_LINES,
    BotMemoryError,
    Conflict,
    FileKind,
    OverflowPreview,
    counted,
    delete_refusal,
    foresee_rm,
    overflow_preview,
    rm,
    save,
)

from . import corelink
from .look import secondary
from .session import PANEL, Session

logger = logging.getLogger(__name__)

CONFLICT_TEXT = "{bot} changed this file while you were editing."


def delete_question(rel: str, warnings: list[str]) -> str:
    """The delete dialog's question: it promises an undo only when the journal will really keep the text."""
    if not warnings:
        return f"Delete {rel}? The journal keeps its text, so Undo in the journal brings it back."
    return f"Delete {rel}? " + " ".join(warnings) + "."


def save_question(rel: str, warnings: list[str]) -> str:
    """The question before a save whose row could not bring something back."""
    return f"Save {rel}? " + " ".join(w.rstrip(".") + "." for w in warnings) + " Save anyway?"
UNKNOWN_CHANGE = "This file changed on disk while you were editing."


def changed_by_text(row: Any) -> str:
    """Who changed the file under the editor, as the journal names them (*row*: its newest row, or None)."""
    if row is None:
        return UNKNOWN_CHANGE
    who, how = getattr(row, "who", ""), getattr(row, "how", "")
    if how == "undo":
        return ("You undid a change to this file while you were editing here." if who == "person"
                else "An undo changed this file while you were editing.")
    if who == "bot":
        return CONFLICT_TEXT.format(bot=row.bot)
    if who == "person":
        return {
            "outside": "You changed this file outside the app (in another editor) while you were editing here.",
            "cli": "You changed this file from the command line while you were editing here.",
            "panel": "You saved this file from another window while you were editing here.",
        }.get(how, "You changed this file elsewhere while you were editing here.")
    if who == "upkeep":
        return "Memory upkeep changed this file while you were editing."
    if how == "outside":
        return "This file was changed outside the app while you were editing."
    return UNKNOWN_CHANGE


def newest_row_of(mem: Any, bot: str, rel: str) -> Any:
    """Runs on the worker: the newest journal row of one file, or None."""
    from .corelink import JournalQuery, journal_of

    for row in journal_of(mem).matching(bot, JournalQuery(bot, rel).filter()):
        return row
    return None


def line_ending(text: str) -> str:
    """The file's line ending: ``\\r\\n`` when most of its lines end so (a Windows file), else ``\\n``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and 2 * crlf >= text.count("\n") else "\n"


def for_editor(text: str) -> str:
    """A file's text as the editor holds it: plain newlines (Qt's plain-text editor has no other)."""
    return text.replace("\r\n", "\n")


def for_file(text: str, ending: str) -> str:
    """The editor's text with the file's own line ending put back."""
    return text if ending == "\n" else text.replace("\n", ending)


def keep_final_newline(original: str, text: str) -> str:
    """*text* ending with a newline when the file it was opened from did (an edit at the end drops it easily)."""
    if original.endswith("\n") and text and not text.endswith("\n"):
        return text + "\n"
    return text


def mono_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    return font


class Banner(QFrame):
    """A coloured strip with a message and buttons, shown above the editor."""

    def __init__(self, colour: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setStyleSheet(f"QFrame#banner {{ background: {colour}; border-radius: 4px; }}"
                           "QFrame#banner QLabel { color: #1d1d1d; }")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.buttons = QHBoxLayout()
        self.buttons.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(10, 8, 10, 8)
        box.addWidget(self.label)
        box.addLayout(self.buttons)
        self.hide()

    def add_button(self, text: str) -> QPushButton:
        b = QPushButton(text)
        self.buttons.addWidget(b)
        return b


class FileEditor(QWidget):
    """Edit one memory file of one bot."""

    saved = Signal(str)
    """A save went through: the relative path."""
    deleted = Signal(str)
    status = Signal(str)
    """A short message for the panel's status line."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bot: str | None = None
        self.rel: str | None = None
        self.opened_hash: str | None = None
        self.opened_text = ""
        self.ending = "\n"          # the open file's line ending, written back on save
        self.kind: FileKind | None = None
        self.conflict: Conflict | None = None
        self._loading = False
        self._confirmed_over_budget = False
        self._asked = 0
        self._opening = False
        self._overwriting = False
        self._who_asked = 0

        self.path_label = QLabel()
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.editor = QPlainTextEdit()
        self.editor.setFont(mono_font())
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)   # like the draft pane below
        self.editor.textChanged.connect(self._on_edit)

        self.conflict_banner = Banner("#fde2c8")
        self.reload_button = self.conflict_banner.add_button("Reload")
        self.overwrite_button = self.conflict_banner.add_button("Overwrite with mine")
        self.reload_button.clicked.connect(self.reload_theirs)
        self.overwrite_button.clicked.connect(self.overwrite)

        self.budget_banner = Banner("#fff1c2")
        self.moved_model = QStringListModel(self)
        self.moved_view = QListView()
        self.moved_view.setModel(self.moved_model)
        self.moved_view.setMaximumHeight(110)
        self.moved_view.setFont(mono_font())
        banner_layout = self.budget_banner.layout()
        assert isinstance(banner_layout, QVBoxLayout)
        banner_layout.insertWidget(1, self.moved_view)
        self.save_anyway_button = self.budget_banner.add_button("Save anyway")
        self.keep_editing_button = self.budget_banner.add_button("Keep editing")
        self.save_anyway_button.clicked.connect(self._save_anyway)
        self.keep_editing_button.clicked.connect(self.budget_banner.hide)

        self.draft_label = QLabel("Your draft, kept from before Reload — copy what you need back into the file:")
        self.draft = QPlainTextEdit()
        self.draft.setReadOnly(True)
        self.draft.setFont(mono_font())
        self.draft.setMaximumHeight(160)
        self.draft_close = QPushButton("Discard draft")
        self.draft_close.clicked.connect(self.discard_draft)
        self.draft_box = QWidget()
        db = QVBoxLayout(self.draft_box)
        db.setContentsMargins(0, 0, 0, 0)
        dh = QHBoxLayout()
        dh.addWidget(self.draft_label, 1)
        dh.addWidget(self.draft_close)
        db.addLayout(dh)
        db.addWidget(self.draft)
        self.draft_box.hide()

        self.save_button = QPushButton("Save")
        self.save_button.setShortcut("Ctrl+S")
        self.revert_button = QPushButton("Revert")
        self.delete_button = QPushButton("Delete file…")
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(self.revert)
        self.delete_button.clicked.connect(self.ask_delete)
        self.note = QLabel()
        self.note.setWordWrap(True)   # a long note must not widen the editor (and shift the file list)
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        secondary(self.note)
        buttons = QHBoxLayout()
        buttons.addWidget(self.note, 1)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.save_button)

        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.path_label)
        box.addWidget(self.conflict_banner)
        box.addWidget(self.budget_banner)
        box.addWidget(self.editor, 1)
        box.addWidget(self.draft_box)
        box.addLayout(buttons)
        self._update_buttons()

    # ----- state

    @property
    def dirty(self) -> bool:
        return self.rel is not None and not self.editor.isReadOnly() and \
            self.editor.toPlainText() != self.opened_text

    def _update_buttons(self) -> None:
        has = self.rel is not None
        writable = has and self.kind is not FileKind.LOG
        self.save_button.setEnabled(writable and self.dirty)
        self.revert_button.setEnabled(writable and self.dirty)
        deletable = self.kind is None or delete_refusal(self.kind) is None
        self.delete_button.setEnabled(has and deletable)
        self.delete_button.setVisible(deletable)

    def _on_edit(self) -> None:
        if self._loading:
            return
        self._confirmed_over_budget = False
        self.budget_banner.hide()
        self._update_buttons()

    # ----- opening

    def clear(self) -> None:
        self.bot = self.rel = self.opened_hash = None
        self.kind = None
        self._set_text("")
        self.path_label.setText("")
        self.note.setText("")
        self.conflict_banner.hide()
        self.budget_banner.hide()
        self.draft_box.hide()
        self._update_buttons()

    def open_file(self, bot: str, rel: str) -> None:
        """Read a file on the worker and show it."""
        self.bot, self.rel = bot, rel
        self.kind = self.session.mem.home.classify(bot, rel)
        self.conflict = None
        self.conflict_banner.hide()
        self.budget_banner.hide()
        self.draft_box.hide()
        self.path_label.setText(f"<b>{rel}</b>")
        self.editor.setReadOnly(True)
        self._update_buttons()
        asked = self._ask()
        self._opening = True
        self.session.read_file(bot, rel, lambda ft: self._opened(asked, bot, rel, ft), self._read_failed)

    def _ask(self) -> int:
        """Number a read; only the newest one's answer is shown."""
        self._asked += 1
        return self._asked

    def _opened(self, asked: int, bot: str, rel: str, ft: Any) -> None:
        if (bot, rel) != (self.bot, self.rel) or asked != self._asked:
            return
        self._opening = False
        self.opened_hash = ft.hash if ft is not None else None
        self._set_opened_text(ft.text if ft is not None else "")
        self._set_text(self.opened_text)
        read_only = self.kind is FileKind.LOG or (ft is not None and not ft.valid)
        self.editor.setReadOnly(read_only)
        if self.kind is FileKind.LOG:
            self.note.setText("Daily logs are the bot's own record: read-only here, but they can be deleted.")
        elif ft is not None and not ft.valid:
            self.note.setText("This file is not valid UTF-8; botmemory will not rewrite it.")
        elif self.kind is not None and delete_refusal(self.kind) is not None:
            self.note.setText(delete_refusal(self.kind) or "")
        else:
            self.note.setText("")
        self._update_buttons()

    def _set_opened_text(self, text: str) -> None:
        """Keep a file's text as the editor shows it, and its line ending for the save (CRLF stays CRLF)."""
        self.ending = line_ending(text)
        self.opened_text = for_editor(text)

    def _read_failed(self, e: BaseException) -> None:
        self.note.setText(f"Could not read the file: {e}")

    def _set_text(self, text: str) -> None:
        self._loading = True
        try:
            bar = self.editor.verticalScrollBar()
            pos = bar.value()
            self.editor.setPlainText(text)
            bar.setValue(pos)
        finally:
            self._loading = False

    def file_changed_on_disk(self) -> None:
        """The open file changed (journal row): reload it when nothing is being edited; with a draft,
        show the conflict banner at once (Reload / Overwrite with mine) instead of waiting for Save."""
        if self.bot is None or self.rel is None:
            return
        bot, rel = self.bot, self.rel
        if self.conflict is not None:
            self._ask_who(bot, rel)            # name whoever changed it last
            return
        if self.dirty:
            asked = self._ask()
            self.session.read_file(bot, rel, lambda ft: self._changed_under_draft(asked, bot, rel, ft))
            return
        if self._opening:          # still opening: open again, so the newest text arrives whole
            self.open_file(bot, rel)
            return
        asked = self._ask()
        self.session.read_file(bot, rel, lambda ft: self._refreshed(asked, bot, rel, ft))

    def _changed_under_draft(self, asked: int, bot: str, rel: str, ft: Any) -> None:
        if (bot, rel) != (self.bot, self.rel) or asked != self._asked or not self.dirty or self.conflict:
            return
        now = ft.hash if ft is not None else None
        if now != self.opened_hash:
            self.show_conflict(Conflict(rel, ft.text if ft is not None else "", now or ""))

    def _refreshed(self, asked: int, bot: str, rel: str, ft: Any) -> None:
        if (bot, rel) != (self.bot, self.rel) or asked != self._asked or self.dirty:
            return
        if ft is None:
            self.opened_hash = None
            self._set_opened_text("")
            self._set_text("")
            self.note.setText("This file was deleted.")
        elif ft.hash != self.opened_hash:
            self.opened_hash = ft.hash
            self._set_opened_text(ft.text)
            self._set_text(self.opened_text)
        self._update_buttons()

    # ----- saving

    def save(self) -> None:
        if self.bot is None or self.rel is None or self.kind is FileKind.LOG:
            return
        text = self._with_final_newline()
        if (self.kind is FileKind.MEMORY and not self._confirmed_over_budget
                and not self.session.mem.home.is_tracked(self.bot)):   # a tracked agent has its own budget
            preview = overflow_preview(for_file(text, self.ending), self.session.mem.today)
            if preview.over:
                self.show_budget_preview(preview)
                return
        self._save(text, self.opened_hash)

    def _with_final_newline(self) -> str:
        """The editor's text, its final newline put back when the file had one (shown in the editor too)."""
        text = self.editor.toPlainText()
        fixed = keep_final_newline(self.opened_text, text)
        if fixed != text:
            self._loading = True
            try:
                end = QTextCursor(self.editor.document())    # not the person's cursor: it stays where it is
                end.movePosition(QTextCursor.MoveOperation.End)
                end.insertText("\n")
            finally:
                self._loading = False
        return fixed

    def show_budget_preview(self, p: OverflowPreview) -> None:
        g = p.gauge
        head = (f"This text is over the budget: {g.lines} of {g.max_lines} lines, "
                f"{g.bytes / 1024:.1f} of {g.max_bytes // 1024} KB — {ONLY_FIRST_LINES}, so "
                f"{counted(g.unloaded_lines, 'line')} would not load.")
        if p.moved:
            n = len(p.moved)
            tail = (f" The next write through the harness would move {'this entry' if n == 1 else f'these {n} entries'}"
                    f" to memory/archive.md:")
            if not p.fits_after:
                tail += " (and it would still not fit: hand-written lines and health facts never move)"
        else:
            tail = (" Nothing here can move to the archive (hand-written lines and health facts never move), "
                    "so these lines would stay unloaded until you trim the file.")
        self.budget_banner.label.setText(head + tail)
        self.moved_model.setStringList(p.moved)
        self.moved_view.setVisible(bool(p.moved))
        self.budget_banner.show()

    def _save_anyway(self) -> None:
        self._confirmed_over_budget = True
        self.budget_banner.hide()
        self.save()

    def _save(self, text: str, expected: str | None) -> None:
        """Save the editor's *text*, written with the file's own line ending — after asking, when its row could not
        bring something back (a line holding a credential it takes out, a file past the journal's limit)."""
        bot, rel = self.bot, self.rel
        assert bot is not None and rel is not None
        self.save_button.setEnabled(False)
        mem = self.session.mem
        on_disk = for_file(text, self.ending)
        self.session.submit_read(lambda: corelink.foresee_save(mem, bot, rel, on_disk),
                                 lambda warnings: self._save_checked(bot, rel, text, expected, warnings),
                                 lambda e: self._save_checked(bot, rel, text, expected, []))

    def _save_checked(self, bot: str, rel: str, text: str, expected: str | None, warnings: list[str]) -> None:
        if (bot, rel) != (self.bot, self.rel):
            return
        if warnings and not self.confirm_save(save_question(rel, warnings)):
            self.status.emit(f"Not saved: {rel} is as it was.")
            self._update_buttons()
            return
        written = for_file(text, self.ending)   # expected None: the file must not exist yet
        self.session.run_op(lambda mem: save(mem, bot, rel, written, PANEL, expected_hash=expected, checked=True,
                                             create=False),
                            lambda r: self._saved(bot, rel, text, r.changes[0] if r.changes else None),
                            lambda e: self._save_failed(bot, rel, e))

    def confirm_save(self, question: str) -> bool:
        """Ask before a save whose row could not bring something back (patched in tests)."""
        answer = QMessageBox.question(self, "Save file", question,
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def _saved(self, bot: str, rel: str, text: str, change: Any) -> None:
        if (bot, rel) != (self.bot, self.rel):
            return
        self._confirmed_over_budget = False
        self.conflict = None
        self.conflict_banner.hide()
        if self._overwriting:         # the draft is what was saved: the pane kept from Reload has done its job
            self._overwriting = False
            self.discard_draft()
        if change is not None:
            self.opened_hash = change.after_hash
            self.opened_text = for_editor(change.after) if change.after is not None else text
        else:
            self.opened_text = text
        if self.editor.toPlainText() == text and self.opened_text != text:
            self._set_text(self.opened_text)   # the core redacted a secret: show what was saved
            self.status.emit("Saved; something that looked like a credential was redacted.")
        else:
            self.status.emit(f"Saved {rel}.")
        self._update_buttons()
        self.saved.emit(rel)

    def _save_failed(self, bot: str, rel: str, e: BaseException) -> None:
        self._overwriting = False
        if (bot, rel) != (self.bot, self.rel):
            return
        if isinstance(e, Conflict):
            self.show_conflict(e)
        elif isinstance(e, BotMemoryError):
            self.note.setText(str(e))
            self.status.emit(f"Not saved: {e}")
        else:
            logger.error("save failed", exc_info=e)
            self.note.setText(f"Not saved: {e}")
        self._update_buttons()

    # ----- the conflict flow

    def show_conflict(self, c: Conflict, who: str = UNKNOWN_CHANGE) -> None:
        self.conflict = c
        self._conflict_text(who)
        self.conflict_banner.show()
        if self.bot is not None and self.rel is not None:
            self._ask_who(self.bot, self.rel)

    def _conflict_text(self, who: str) -> None:
        self.conflict_banner.label.setText(
            f"<b>{who}</b><br>Reload shows the version on disk and keeps your draft "
            "under the editor; Overwrite with mine saves yours over it. Either way the change is in the "
            "journal and can be undone.")

    def _ask_who(self, bot: str, rel: str) -> None:
        """Read the file's newest journal row on the worker and name who changed it."""
        self._who_asked += 1
        asked = self._who_asked
        mem = self.session.mem
        self.session.submit_read(lambda: newest_row_of(mem, bot, rel),
                                 lambda row: self._who_known(asked, bot, rel, row),
                                 lambda e: logger.info("who changed %s: %s", rel, e))

    def _who_known(self, asked: int, bot: str, rel: str, row: Any) -> None:
        if asked != self._who_asked or (bot, rel) != (self.bot, self.rel) or self.conflict is None:
            return
        self._conflict_text(changed_by_text(row))

    def reload_theirs(self) -> None:
        """Show the file as it is now; keep the draft under the editor."""
        c = self.conflict
        if c is None:
            return
        draft = self.editor.toPlainText()
        self.conflict = None
        self.conflict_banner.hide()
        self.opened_hash = c.hash or None
        self._set_opened_text(c.text)
        self._set_text(self.opened_text)
        self.draft.setPlainText(draft)
        self.draft_box.show()
        self._update_buttons()

    def overwrite(self) -> None:
        """Save the draft over the bot's version (checked against the version the conflict showed)."""
        c = self.conflict
        if c is None:
            return
        self.conflict_banner.hide()
        self._confirmed_over_budget = True
        self._overwriting = True
        self._save(self._with_final_newline(), c.hash or None)

    def discard_draft(self) -> None:
        self.draft.clear()
        self.draft_box.hide()

    def revert(self) -> None:
        self._set_text(self.opened_text)
        self.budget_banner.hide()
        self._update_buttons()

    # ----- deleting

    def confirm(self, question: str) -> bool:
        """Ask the person (patched in tests)."""
        answer = QMessageBox.question(self, "Delete file", question,
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def ask_delete(self) -> None:
        """Ask whether to delete, promising only what the journal's row will keep (core's ``foresee_rm``)."""
        if self.bot is None or self.rel is None or self.kind is None or delete_refusal(self.kind) is not None:
            return
        bot, rel, mem = self.bot, self.rel, self.session.mem
        self.delete_button.setEnabled(False)
        self.session.submit_read(lambda: foresee_rm(mem, bot, rel), lambda lost: self._ask_delete(bot, rel, lost),
                                 lambda e: self._ask_delete(bot, rel, [f"Could not tell whether Undo can bring it "
                                                                       f"back ({e})."]))

    def _ask_delete(self, bot: str, rel: str, lost: list[str]) -> None:
        self._update_buttons()
        if (bot, rel) != (self.bot, self.rel):
            return
        if not self.confirm(delete_question(rel, lost)):
            return
        opened = self.opened_hash
        self.session.run_op(lambda mem: rm(mem, bot, rel, PANEL, expected_hash=opened),
                            lambda _r: self._deleted(bot, rel, not lost),
                            lambda e: self._delete_failed(bot, rel, e))

    def _delete_failed(self, bot: str, rel: str, e: BaseException) -> None:
        if isinstance(e, Conflict):
            self.note.setText(f"Not deleted: {UNKNOWN_CHANGE} Look at the new text first.")
            self.file_changed_on_disk()
        else:
            self.note.setText(f"Not deleted: {e}")

    def _deleted(self, bot: str, rel: str, undoable: bool = True) -> None:
        self.status.emit(f"Deleted {rel}; Undo in the journal brings it back." if undoable
                         else f"Deleted {rel}.")
        if (bot, rel) == (self.bot, self.rel):
            self.clear()
        self.deleted.emit(rel)

