"""The Qt models: files of a workspace, and the journal loaded lazily."""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt

from botmemory.core.disk.paths import FileKind
from botmemory.core.store.writer import Actor
from botmemory.desktop.corelink import Cursor, JournalQuery
from botmemory.desktop.models import (
    FilesModel,
    JournalModel,
    change_text,
    how_text,
    list_files,
    undo_text,
    who_text,
)
from botmemory.desktop.notify import _run_now as _sync_submit  # run at once, as a worker would later

from .conftest import BOT, entry, idle

TOPIC = """---
title: Northwind Logistics
description: fleet dashboard
aliases: [Northwind, fleet]
---
# Northwind
- 2026-10-01 · from chat "N" · Milestone 2 signed off
"""


def _fill(mem):
    s = mem.store
    s.write(BOT, "MEMORY.md", entry("2026-10-01", "Priya is vegetarian") + "\n", Actor.person())
    s.write(BOT, "memory/northwind.md", TOPIC, Actor.bot("N"))
    s.write(BOT, "memory/archive.md", "- old\n", Actor.person())
    s.write(BOT, "memory/log/2026-10-14.md", "- 09:00 · did a thing\n", Actor.bot("N"), allow_log=True)
    s.write(BOT, "memory/log/2026-10-15.md", "- 10:00 · did another\n", Actor.bot("N"), allow_log=True)


def test_files_are_listed_in_order_with_titles_and_aliases(mem):
    _fill(mem)
    files = list_files(mem, BOT)
    assert [f.rel for f in files] == ["MEMORY.md", "memory/northwind.md", "memory/archive.md",
                                      "memory/log/2026-10-15.md", "memory/log/2026-10-14.md"]
    topic = files[1]
    assert topic.kind is FileKind.TOPIC and topic.title == "Northwind Logistics"
    assert topic.aliases == ("Northwind", "fleet")
    assert "aliases: Northwind, fleet" in topic.about
    assert files[3].read_only and files[3].deletable
    assert not files[0].read_only and not files[0].deletable


def test_files_model(qtmodeltester, qtbot, mem):
    _fill(mem)
    model = FilesModel()
    model.set_files(list_files(mem, BOT))
    qtmodeltester.check(model)
    assert model.rowCount() == 5
    assert model.data(model.index(0, 0)) == "MEMORY.md"
    assert model.data(model.index(0, 1)) == "loads into every turn"
    assert model.data(model.index(3, 0)) == "log/2026-10-15.md"
    assert model.data(model.index(3, 1)) == "daily log (read-only)"
    assert model.row_of("memory/northwind.md") == 1
    assert model.data(model.index(0, 0), Qt.ItemDataRole.FontRole).bold()




def _edits(mem, n, bot=BOT):
    text = ""
    for i in range(n):
        text += entry("2026-10-01", f"fact {i}") + "\n"
        mem.store.write(bot, "MEMORY.md", text, Actor.bot("Plans") if i % 2 else Actor.person("panel"))


def test_journal_model_pages_lazily(qtmodeltester, mem):
    _edits(mem, 25)
    model = JournalModel(lambda q: Cursor(mem, q), _sync_submit, page=10)
    model.set_query(JournalQuery(BOT))
    assert model.rowCount() == 10
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    assert model.rowCount() == 20
    model.fetchMore(QModelIndex())
    assert model.rowCount() == 25
    assert not model.canFetchMore(QModelIndex())
    ids = [model.row_at(i).id for i in range(25)]
    assert len(set(ids)) == 25
    assert model.row_at(0).diff.count("fact 24") == 1          # newest first
    qtmodeltester.check(model)


def test_journal_model_on_the_worker(qtmodeltester, qtbot, session, mem):
    _edits(mem, 5)
    model = JournalModel(session.journal_cursor, session.submit_read)
    model.set_query(JournalQuery(BOT))
    assert model.loading and model.rowCount() == 0
    qtbot.waitUntil(lambda: model.rowCount() == 5)
    assert model.exhausted and not model.loading
    qtmodeltester.check(model)


def test_journal_model_columns(mem):
    _edits(mem, 2)
    model = JournalModel(lambda q: Cursor(mem, q), _sync_submit)
    model.set_query(JournalQuery(BOT))
    cols = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert cols == ["When", "Who", "How", "File", "Change", ""]
    newest = [model.data(model.index(0, c)) for c in range(6)]
    assert newest[1] == "scout" and newest[2] == "during a task · chat “Plans”"
    assert newest[3] == "MEMORY.md" and newest[4].startswith("+1 −0") and newest[5] == ""
    older = [model.data(model.index(1, c)) for c in range(6)]
    assert older[1] == "You" and older[2] == "in the app" and older[4].startswith("+1 −0")


def test_journal_model_filters(mem):
    _edits(mem, 6)
    mem.store.write(BOT, "memory/travel.md", "- 2026-10-02 · from cli · Aisle seat please\n", Actor.person())
    model = JournalModel(lambda q: Cursor(mem, q), _sync_submit)
    model.set_query(JournalQuery(BOT, file="memory/travel.md"))
    assert model.rowCount() == 1
    model.set_query(JournalQuery(BOT, who="bot"))
    assert model.rowCount() == 3 and all(model.row_at(i).who == "bot" for i in range(3))
    model.set_query(JournalQuery(BOT, grep="aisle"))
    assert model.rowCount() == 1 and model.row_at(0).file == "memory/travel.md"
    model.set_query(JournalQuery(BOT, grep="fact 3"))
    assert model.rowCount() == 1                            # whole words: "fact" and "3"
    model.set_query(JournalQuery(BOT, grep="aisl"))
    assert model.rowCount() == 0                            # words are whole


def test_new_rows_go_on_top_once(qtmodeltester, mem):
    _edits(mem, 3)
    model = JournalModel(lambda q: Cursor(mem, q), _sync_submit)
    model.set_query(JournalQuery(BOT))
    assert model.rowCount() == 3
    mem.store.write(BOT, "MEMORY.md", "new text\n", Actor.person("panel"))
    newest = mem.journal.list(BOT, limit=2)
    assert model.add_new(newest) == 1                      # the second is already shown
    assert model.rowCount() == 4 and model.row_at(0).id == newest[0].id
    assert model.add_new(newest) == 0
    model.set_query(JournalQuery(BOT, who="bot"))
    assert model.add_new(newest) == 0                       # not the filter's
    qtmodeltester.check(model)


def test_a_query_change_drops_a_late_page(qtbot, session, mem):
    _edits(mem, 3)
    model = JournalModel(session.journal_cursor, session.submit_read)
    model.set_query(JournalQuery(BOT))
    model.set_query(JournalQuery(BOT, who="upkeep"))     # before the first page arrived
    idle(qtbot, session)
    assert model.rowCount() == 0 and model.exhausted


def test_texts_of_rows(mem):
    _edits(mem, 1)
    row = mem.journal.list(BOT, limit=1)[0]
    assert who_text(row) == "You" and how_text(row) == "in the app"
    assert change_text(row).startswith("+1 −0  2026-10-01 · from chat")
    assert undo_text(row) == ""                  # the button is painted there: no text beside it


class _Row:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def test_texts_of_odd_rows():
    base = {"bot": "scout", "chat": None, "before_hash": "a", "after_hash": "b", "diff": "", "undoable": False,
            "reason": "its earlier text held a credential", "at": "2026-10-15T10:00:00.000Z"}
    assert how_text(_Row(**base, who="person", how="outside")) == "changed outside the app"
    assert who_text(_Row(**base, who="upkeep", how="tidy-up")) == "Memory upkeep"
    assert undo_text(_Row(**base, who="person", how="panel")).startswith("Can't undo: its earlier text held")
    deleted = _Row(**{**base, "after_hash": None}, who="person", how="panel")
    assert change_text(deleted) == "deleted"


def test_a_row_that_removes_frontmatter_counts_every_line(mem):
    from botmemory.core.store.writer import Actor

    mem.store.write(BOT, "memory/trips.md", "---\ntitle: Trips\n---\n-- signed\n", Actor.person("panel"))
    mem.store.write(BOT, "memory/trips.md", "", Actor.person("panel"))
    row = mem.journal.list(BOT, limit=1)[0]
    assert change_text(row) == "+0 −4  title: Trips"


def test_the_files_list_counts_lines_as_the_gauge_does(mem):
    from botmemory.core.store.writer import Actor
    from botmemory.core.text import budget

    text = "- 2026-10-01 · from cli · one\n- 2026-10-02 · from cli · two"       # no final newline
    mem.store.write(BOT, "MEMORY.md", text, Actor.person())
    mem.store.write(BOT, "memory/plans.md", "a\nb\n", Actor.person())
    files = {f.rel: f for f in list_files(mem, BOT)}
    assert files["MEMORY.md"].lines == budget.gauge(text).lines == 2
    assert files["memory/plans.md"].lines == 2


def test_a_created_topic_shows_its_first_real_line_not_the_frontmatter_fence(mem):
    from botmemory.core.store.writer import Actor

    mem.store.write(BOT, "memory/travel.md", "---\ntitle: Travel\n---\n# Travel\n", Actor.person())
    row = mem.journal.list(BOT, limit=1)[0]
    assert change_text(row) == "created  title: Travel"


def test_a_one_byte_file_says_1_byte(qtbot, mem):
    mem.store.write(BOT, "memory/tiny.md", "x", Actor.person())
    model = FilesModel()
    model.set_files(list_files(mem, BOT))
    row = next(i for i in range(model.rowCount()) if model.data(model.index(i, 0)) == "tiny.md")
    tip = model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole)
    assert tip.endswith("\n1 byte"), tip


def test_a_star_bullet_is_an_entry_too_and_its_row_shows_the_line_without_it(mem):
    mem.store.write(BOT, "MEMORY.md", '* 2026-10-01 · from chat "N" · Milestone 2 signed off\n', Actor.person())
    row = mem.journal.list(BOT, limit=1)[0]
    assert change_text(row).endswith('  2026-10-01 · from chat "N" · Milestone 2 signed off')


def test_what_each_kind_of_row_says(mem):
    """Issue 29, Looks: an edit's summary is its new line; an undo is told apart; Hermes' § is never the summary;
    a redaction says so and explains its empty diff."""
    from botmemory.core.ops import Actor, save, undo
    from botmemory.desktop.models import diff_text

    save(mem, BOT, "memory/travel.md", "# Travel\n\n- Aisle seats\n", Actor.person("panel"))
    r = save(mem, BOT, "memory/travel.md", "# Travel\n\n- Window seats on long flights\n", Actor.person("panel"))
    edit = mem.journal.list(BOT, limit=1)[0]
    assert change_text(edit) == "+1 −1  Window seats on long flights"
    undo(mem, BOT, r.changes[0].id)
    undone = mem.journal.list(BOT, limit=1)[0]
    assert change_text(undone) == "↶ undo: +1 −1  Aisle seats" and how_text(undone).startswith("undo of the change at ")
    hermes = _Row(bot="h", chat=None, who="unknown", how="outside", before_hash="a", after_hash="b",
                  diff="--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -3 +3,3 @@\n Standup\n+§\n+Lunch at 13:00\n",
                  undoable=True, reason=None, added=2, removed=0, at="2026-10-15T10:00:00.000Z")
    hermes.counts = lambda: (2, 0)
    assert change_text(hermes) == "+2 −0  Lunch at 13:00"
    redacted = _Row(bot="h", chat=None, who="person", how="redact", before_hash="a", after_hash="b", diff="",
                    undoable=False, reason="its earlier text held a credential", at="2026-10-15T10:00:00.000Z")
    redacted.counts = lambda: (0, 0)
    assert change_text(redacted) == "credentials redacted" and how_text(redacted) == "credentials redacted"
    assert "never keeps a credential" in diff_text(redacted)
