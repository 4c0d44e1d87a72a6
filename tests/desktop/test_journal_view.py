"""The journal view: rows newest first, filters, search, the diff, and Undo in one click."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from botmemory.core.store.writer import Actor
from botmemory.desktop.journal_view import JournalView
from botmemory.desktop.models import JournalModel

from .conftest import BOT, entry, idle


@pytest.fixture
def view(qtbot, session):
    v = JournalView(session)
    qtbot.addWidget(v)
    v.resize(1000, 600)
    v.show()
    return v


def _history(mem):
    s = mem.store
    s.write(BOT, "MEMORY.md", entry("2026-10-01", "Priya is vegetarian") + "\n", Actor.person("panel"))
    s.write(BOT, "MEMORY.md", s.text(BOT, "MEMORY.md") + entry("2026-10-02", "Meetings never before ten", "Calendar") + "\n",
            Actor.bot("Calendar"))
    s.write(BOT, "memory/travel.md", "- 2026-10-03 · from chat \"Travel\" · Aisle seats\n", Actor.bot("Travel"))


def _load(qtbot, view, session):
    session.start()          # reads the journal's position, so later rows arrive as new
    view.set_bot(BOT, ["MEMORY.md", "memory/travel.md"])
    idle(qtbot, session)


def test_rows_newest_first_with_the_diff_of_the_selected_one(qtbot, view, session, mem):
    _history(mem)
    _load(qtbot, view, session)
    m = view.model
    assert m.rowCount() == 3
    assert [m.data(m.index(r, 3)) for r in range(3)] == ["memory/travel.md", "MEMORY.md", "MEMORY.md"]
    assert view.table.currentIndex().row() == 0                 # the newest is selected
    view.table.selectRow(1)
    assert "+- 2026-10-02 · from chat \"Calendar\" · Meetings never before ten" in view.diff.toPlainText()
    assert "MEMORY.md · scout · during a task · chat “Calendar”" in view.diff_title.text()
    assert view.undo_button.isEnabled()
    assert "3 changes shown" in view.count_label.text()


def test_filters_by_file_and_who_and_search(qtbot, view, session, mem):
    _history(mem)
    _load(qtbot, view, session)
    view.file_box.setCurrentIndex(view.file_box.findData("memory/travel.md"))
    idle(qtbot, session)
    assert view.model.rowCount() == 1
    view.file_box.setCurrentIndex(0)
    view.who_box.setCurrentIndex(view.who_box.findData("person"))
    idle(qtbot, session)
    assert view.model.rowCount() == 1 and view.model.row_at(0).who == "person"
    view.who_box.setCurrentIndex(0)
    view.search.setText("vegetarian")
    qtbot.waitUntil(lambda: view.model.query.grep == "vegetarian")     # after the typing pause
    idle(qtbot, session)
    assert view.model.rowCount() == 1 and view.model.row_at(0).how == "panel"


def _click_undo(qtbot, view, row):
    rect = view.table.visualRect(view.model.index(row, JournalModel.UNDO_COLUMN))
    button = view.delegate.button_rect(rect)
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=button.center())


def test_undo_in_one_click_from_the_row(qtbot, view, session, mem):
    _history(mem)
    _load(qtbot, view, session)
    before = mem.store.text(BOT, "MEMORY.md")
    assert "Meetings never before ten" in before
    with qtbot.waitSignal(view.undone, timeout=5000):
        _click_undo(qtbot, view, 1)                             # the Calendar row
    assert "Meetings never before ten" not in mem.store.text(BOT, "MEMORY.md")
    # the undo is itself a row, on top, and can be undone in turn
    qtbot.waitUntil(lambda: view.model.rowCount() == 4)
    top = view.model.row_at(0)
    assert top.how == "undo" and top.undoable
    with qtbot.waitSignal(view.undone, timeout=5000):
        _click_undo(qtbot, view, 0)
    assert mem.store.text(BOT, "MEMORY.md") == before


def test_a_click_beside_the_button_does_nothing(qtbot, view, session, mem):
    _history(mem)
    _load(qtbot, view, session)
    rect = view.table.visualRect(view.model.index(0, JournalModel.UNDO_COLUMN))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(rect.right() - 1, rect.center().y()))
    idle(qtbot, session)
    assert len(mem.journal.list(BOT, limit=10)) == 3


def test_rows_that_cannot_be_undone_say_why(qtbot, view, session, mem):
    (mem.home.root / "config.json").write_text('{"memory": {"journalKeepMB": 0.001}}')   # 1 KB kept
    s = mem.store
    s.write(BOT, "memory/big.md", "".join(f"- line {i} of a long topic\n" for i in range(100)), Actor.person("panel"))
    s.write(BOT, "memory/big.md", "small now\n", Actor.person("panel"))
    _load(qtbot, view, session)
    row = view.model.row_at(0)
    assert not row.undoable
    cell = view.model.data(view.model.index(0, JournalModel.UNDO_COLUMN))
    assert cell.startswith("Can't undo: its earlier text was") and "too large to keep" in cell
    assert not view.undo_button.isEnabled()
    assert "journalKeepMB" in view.undo_reason.text()
    _click_undo(qtbot, view, 0)                                 # no button there: nothing happens
    idle(qtbot, session)
    assert mem.store.text(BOT, "memory/big.md") == "small now\n"


def test_a_row_whose_only_lines_held_a_credential_says_so_before_and_is_refused(qtbot, view, session, mem):
    s = mem.store
    s.write(BOT, "MEMORY.md", "wifi password: hunter2hunter2\n", Actor.person("panel"))
    # the file held a credential on disk (written by another editor), then changed
    path = mem.home.file(BOT, "MEMORY.md")
    path.write_text("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", encoding="utf-8")
    s.write(BOT, "MEMORY.md", "clean now\n", Actor.person("panel"),
            expected_hash=s.read(BOT, "MEMORY.md").hash)
    _load(qtbot, view, session)
    row = view.model.row_at(0)
    assert row.undoable and row.secret_lines
    qtbot.waitUntil(lambda: "credential" in view.preview.text())        # said before Undo is pressed
    with qtbot.waitSignal(view.status) as said:
        _click_undo(qtbot, view, 0)
    assert "credential" in said.args[0] and "wJalrXUtnFEMI" not in said.args[0]
    idle(qtbot, session)
    assert mem.store.text(BOT, "MEMORY.md") == "clean now\n"


def test_new_rows_arrive_on_top_and_keep_the_selection(qtbot, view, session, mem):
    _history(mem)
    _load(qtbot, view, session)
    view.table.selectRow(2)
    selected = view.model.row_at(2).id
    mem.store.write(BOT, "memory/food.md", "- thalis\n", Actor.person("cli"))
    qtbot.waitUntil(lambda: view.model.rowCount() == 4, timeout=5000)
    assert view.model.row_at(0).file == "memory/food.md"
    assert view.model.row_at(view.table.currentIndex().row()).id == selected


def _many_rows(mem, n):
    """*n* journal rows written straight into the journal (not durable: this is a test's scratch home)."""
    from botmemory.core.store.journal import Journal, Row

    rows = [Row(f"{0x019a00000000 + i:012x}-{i % 0xffffff:06x}", "2026-10-15T10:00:00.000Z", BOT, "person", "cli",
                None, "memory/big.md", None if i == 0 else f"h{i - 1}", f"h{i}",
                f"--- a/memory/big.md\n+++ b/memory/big.md\n@@ -{i} +{i},2 @@\n+line {i}\n", "" if i else None,
                True, None)
            for i in range(n)]
    Journal(mem.home, durable=False).append(BOT, rows)


def test_scrolling_fetches_older_pages(qtbot, session, mem):
    _many_rows(mem, 450)
    v = JournalView(session)
    qtbot.addWidget(v)
    v.resize(900, 500)
    v.show()
    v.set_bot(BOT)
    qtbot.waitUntil(lambda: v.model.rowCount() == JournalModel.PAGE)
    v.table.scrollToBottom()
    qtbot.waitUntil(lambda: v.model.rowCount() > JournalModel.PAGE, timeout=5000)
    while v.model.canFetchMore():
        v.model.fetchMore()
        idle(qtbot, session)
    assert v.model.rowCount() == 450
    assert v.model.row_at(449).before_hash is None              # the oldest: the file was created


def test_a_long_reason_wraps_and_never_widens_the_window(qtbot, view, session, mem):
    from types import SimpleNamespace

    before = view.minimumSizeHint().width()
    view.model._rows = [SimpleNamespace(id="r1", bot=BOT, who="person", how="panel", chat=None, file="MEMORY.md",
                                        before_hash="a", after_hash="b", diff="", undoable=False, at="2026-10-15",
                                        reason="its earlier text held a credential " * 12)]
    view._show_row(0)
    assert view.undo_reason.wordWrap()
    assert view.minimumSizeHint().width() <= before
    view._show_row(-1)
    assert view.minimumSizeHint().width() <= before


def test_deleted_files_stay_in_the_file_filter(qtbot, view, session, mem):
    _history(mem)
    mem.store.delete(BOT, "memory/travel.md", Actor.person("panel"))
    session.start()
    view.set_bot(BOT, ["MEMORY.md"])                 # travel.md is no longer on disk
    idle(qtbot, session)
    items = [view.file_box.itemData(i) for i in range(view.file_box.count())]
    assert items == [None, "MEMORY.md", "memory/travel.md"]
    assert view.file_box.itemText(2) == "memory/travel.md (deleted)"
    view.file_box.setCurrentIndex(2)
    idle(qtbot, session)
    assert {view.model.row_at(i).file for i in range(view.model.rowCount())} == {"memory/travel.md"}
