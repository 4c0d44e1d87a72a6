"""The panel's parts of issue 28: the journal view says what Undo will do before it does it, tells undo rows
apart, shows a real conflict side by side and writes nothing until the person picks, lists About me's own
journal; the delete dialog and the editor's save tell the truth about what Undo can bring back."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from botmemory.core import ops
from botmemory.core.store.writer import Actor
from botmemory.desktop.editor import FileEditor
from botmemory.desktop.journal_view import JournalView, UndoConflictDialog
from botmemory.desktop.models import UNDO_COLOR, JournalModel

from .conftest import BOT, idle

PERSON = Actor.person("panel")
AWS = "AKIAZ7Q4L2M9XW3RT8KP"


@pytest.fixture
def view(qtbot, session):
    v = JournalView(session)
    qtbot.addWidget(v)
    v.resize(1000, 600)
    v.show()
    return v


@pytest.fixture
def editor(qtbot, session):
    e = FileEditor(session)
    qtbot.addWidget(e)
    e.show()
    return e


def _load(qtbot, view, session, files=("MEMORY.md", "memory/a.md")):
    session.start()
    view.set_bot(BOT, list(files))
    idle(qtbot, session)


def _click_undo(qtbot, view, row):
    rect = view.table.visualRect(view.model.index(row, JournalModel.UNDO_COLUMN))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=view.delegate.button_rect(rect).center())


def test_the_view_says_which_lines_come_back_before_undo_is_pressed(qtbot, view, session, mem):
    mem.store.write(BOT, "memory/a.md", "- keep\n- the fence is blue\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "- keep\n", PERSON)
    _load(qtbot, view, session)
    qtbot.waitUntil(lambda: "brings back" in view.preview.text())
    assert "the fence is blue" in view.preview.text()
    assert mem.store.text(BOT, "memory/a.md") == "- keep\n"          # nothing written by looking
    view.table.selectRow(1)                        # the creation: undo takes out what is left of its lines
    qtbot.waitUntil(lambda: "removes memory/a.md" in view.preview.text())


def test_an_older_row_is_undone_by_its_own_lines_from_the_view(qtbot, view, session, mem):
    mem.store.write(BOT, "memory/a.md", "- one\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "- one\n- regretted\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "- one\n- regretted\n- later\n", PERSON)
    _load(qtbot, view, session)
    with qtbot.waitSignal(view.status) as said:
        _click_undo(qtbot, view, 1)
    assert "took out 1 line" in said.args[0]
    idle(qtbot, session)
    assert mem.store.text(BOT, "memory/a.md") == "- one\n- later\n"


def test_undo_rows_are_told_apart_from_the_change_they_undid(qtbot, view, session, mem):
    mem.store.write(BOT, "memory/a.md", "- one\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "- one\n- two\n", PERSON)
    _load(qtbot, view, session)
    undone = view.model.row_at(0)
    with qtbot.waitSignal(view.undone):
        _click_undo(qtbot, view, 0)
    qtbot.waitUntil(lambda: view.model.rowCount() == 3)
    m = view.model
    top = m.row_at(0)
    assert top.how == "undo" and top.undoes == undone.id
    how, change = m.data(m.index(0, 2)), m.data(m.index(0, 4))
    assert how.startswith("undo of the change at ") and change.startswith("↶ undo")
    assert m.data(m.index(0, 2), Qt.ItemDataRole.ForegroundRole).name() == UNDO_COLOR
    assert not m.data(m.index(1, 4)).startswith("↶")                 # the change it undid reads as before
    assert m.data(m.index(0, 2), Qt.ItemDataRole.ToolTipRole) == f"This row undid row {undone.id}."


def test_a_real_conflict_is_shown_side_by_side_and_nothing_is_written_until_picked(qtbot, view, session, mem):
    mem.store.write(BOT, "memory/a.md", "a\nb\nc\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "a\nB1\nc\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "a\nB2\nc\n", PERSON)
    _load(qtbot, view, session)
    qtbot.waitUntil(lambda: view.model.rowCount() == 3)
    _click_undo(qtbot, view, 1)
    qtbot.waitUntil(lambda: view.conflict_dialog is not None)
    dialog = view.conflict_dialog
    assert isinstance(dialog, UndoConflictDialog)
    assert dialog.now.toPlainText() == "a\nB2\nc\n" and dialog.undone.toPlainText() == "a\nb\nc\n"
    idle(qtbot, session)
    assert mem.store.text(BOT, "memory/a.md") == "a\nB2\nc\n"          # nothing written yet
    with qtbot.waitSignal(view.undone):
        dialog.use_button.click()
    assert mem.store.text(BOT, "memory/a.md") == "a\nb\nc\n"


def test_keeping_the_file_as_it_is_writes_nothing(qtbot, view, session, mem):
    mem.store.write(BOT, "memory/a.md", "a\nb\nc\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "a\nB1\nc\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "a\nB2\nc\n", PERSON)
    _load(qtbot, view, session)
    qtbot.waitUntil(lambda: view.model.rowCount() == 3)
    _click_undo(qtbot, view, 1)
    qtbot.waitUntil(lambda: view.conflict_dialog is not None)
    n = len(mem.journal.list(BOT, limit=None))
    with qtbot.waitSignal(view.status) as said:
        view.conflict_dialog.keep_button.click()
    assert "nothing was written" in said.args[0]
    idle(qtbot, session)
    assert mem.store.text(BOT, "memory/a.md") == "a\nB2\nc\n" and len(mem.journal.list(BOT, limit=None)) == n


def test_about_me_has_its_own_journal_in_the_view_undoable_like_any_row(qtbot, view, session, mem):
    mem.home.about_me.write_text("I live in Pune.\n", encoding="utf-8")
    ops.prefer(mem, BOT, "Reminders go to my task app", Actor.person("cli"))
    _load(qtbot, view, session)
    view.show_about_me()
    idle(qtbot, session)
    qtbot.waitUntil(lambda: view.model.rowCount() == 1)
    row = view.model.row_at(0)
    assert row.file == "about-me.md" and view.model.data(view.model.index(0, 1)) == "You"
    assert [view.file_box.itemData(i) for i in range(view.file_box.count())] == \
        [None, "about-me.md", "profile-learned.json"]
    qtbot.waitUntil(lambda: "takes out" in view.preview.text())
    with qtbot.waitSignal(view.undone):
        _click_undo(qtbot, view, 0)
    assert "task app" not in mem.home.about_me.read_text()
    qtbot.waitUntil(lambda: view.model.rowCount() == 2)                # the undo arrives as About me's row
    assert view.model.row_at(0).how == "undo"
    view.show_about_me(False)
    idle(qtbot, session)
    assert all(r.file != "about-me.md" for r in (view.model.row_at(i) for i in range(view.model.rowCount())))


def _open(qtbot, editor, session, rel):
    editor.open_file(BOT, rel)
    idle(qtbot, session)


def test_the_delete_dialog_promises_undo_for_a_large_topic_and_it_is_true(qtbot, editor, session, mem, monkeypatch):
    big = "".join(f"- line {i} of a long topic that goes on and on\n" for i in range(40_000))   # about 1.9 MB
    mem.store.write(BOT, "memory/big.md", big, PERSON)
    _open(qtbot, editor, session, "memory/big.md")
    asked: list[str] = []
    monkeypatch.setattr(editor, "confirm", lambda q: asked.append(q) or True)
    with qtbot.waitSignal(editor.deleted, timeout=10_000):
        editor.delete_button.click()
    assert "Undo in the journal brings it back" in asked[0]
    ops.undo(mem, BOT, mem.journal.list(BOT, limit=1)[0].id)
    assert mem.store.text(BOT, "memory/big.md") == big


def test_the_delete_dialog_tells_the_truth_past_the_journals_limit(qtbot, editor, session, mem, monkeypatch):
    (mem.home.root / "config.json").write_text(json.dumps({"memory": {"journalKeepMB": 1}}))
    big = "".join(f"- line {i} of a long topic that goes on and on\n" for i in range(40_000))
    mem.store.write(BOT, "memory/big.md", big, PERSON)
    _open(qtbot, editor, session, "memory/big.md")
    asked: list[str] = []
    monkeypatch.setattr(editor, "confirm", lambda q: asked.append(q) or False)
    editor.delete_button.click()
    qtbot.waitUntil(lambda: bool(asked))
    assert "cannot be undone" in asked[0] and "journalKeepMB" in asked[0] and "brings it back" not in asked[0]
    idle(qtbot, session)
    assert mem.store.text(BOT, "memory/big.md") == big                  # said no: nothing deleted


def test_a_save_that_takes_out_a_credential_asks_first(qtbot, editor, session, mem, monkeypatch):
    path = mem.home.file(BOT, "memory/a.md")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"- keep\n- deploy key {AWS}\n")                      # pasted in another editor
    _open(qtbot, editor, session, "memory/a.md")
    asked: list[str] = []
    monkeypatch.setattr(editor, "confirm_save", lambda q: asked.append(q) or False)
    editor.editor.setPlainText("- keep\n")
    editor.save()
    qtbot.waitUntil(lambda: bool(asked))
    assert "credential" in asked[0] and AWS not in asked[0] and "deploy key «redacted" in asked[0]
    idle(qtbot, session)
    assert AWS in path.read_text()                                       # said no: not saved
    monkeypatch.setattr(editor, "confirm_save", lambda q: True)
    with qtbot.waitSignal(editor.saved):
        editor.save()
    assert path.read_text() == "- keep\n"


def test_a_plain_save_asks_nothing(qtbot, editor, session, mem, monkeypatch):
    mem.store.write(BOT, "memory/a.md", "- keep\n", PERSON)
    _open(qtbot, editor, session, "memory/a.md")
    monkeypatch.setattr(editor, "confirm_save", lambda q: pytest.fail(f"asked: {q}"))
    editor.editor.setPlainText("- keep\n- more\n")
    with qtbot.waitSignal(editor.saved):
        editor.save()
    assert mem.store.text(BOT, "memory/a.md") == "- keep\n- more\n"


def test_the_journal_model_with_undo_rows_passes_the_model_tester(qtbot, qtmodeltester, view, session, mem):
    mem.store.write(BOT, "memory/a.md", "- one\n", PERSON)
    mem.store.write(BOT, "memory/a.md", "- one\n- two\n", PERSON)
    ops.undo(mem, BOT, mem.journal.list(BOT, limit=1)[0].id)
    _load(qtbot, view, session)
    qtbot.waitUntil(lambda: view.model.rowCount() == 3)
    qtmodeltester.check(view.model)
