"""The Memory panel: one window, one bot at a time, every part refreshed by the rows that arrive."""
from __future__ import annotations

import pytest
from botmemory.core.budget import Level
from botmemory.core.store import Actor
from botmemory.desktop.panel import MemoryPanel

from .conftest import BOT, OTHER, entry, idle, memory_text


@pytest.fixture
def panel(qtbot, session, mem):
    mem.store.write(BOT, "MEMORY.md", memory_text(165), Actor.person())
    mem.store.write(BOT, "memory/travel.md", "---\ntitle: Travel\naliases: [flights]\n---\n# Travel\n",
                    Actor.person())
    mem.store.write(OTHER, "MEMORY.md", entry("2026-10-01", "Books close on the 5th") + "\n", Actor.person())
    session.start()
    p = MemoryPanel(session)
    qtbot.addWidget(p)
    p.show()
    idle(qtbot, session)
    assert p.bot == OTHER                       # the first bot, until one is chosen
    p.set_bot(BOT)
    idle(qtbot, session)
    return p


def test_opens_on_the_first_bot_with_its_gauge_and_files(panel, mem):
    assert panel.bot == BOT
    assert [panel.bot_box.itemText(i) for i in range(panel.bot_box.count())] == [OTHER, BOT]
    assert panel.gauge.gauge.level is Level.AMBER
    assert panel.gauge.lines_label.text() == "165 of 200 lines"
    assert [f.rel for f in panel.files_model.files()] == ["MEMORY.md", "memory/travel.md"]
    assert panel.editor.rel == "MEMORY.md"
    assert "Fact number 1 about" in panel.editor.editor.toPlainText()
    assert panel.windowTitle() == "scout — Memory"


def test_switching_bots(qtbot, panel, session):
    panel.bot_box.setCurrentText(OTHER)
    idle(qtbot, session)
    assert panel.bot == OTHER
    assert panel.gauge.gauge.level is Level.OK
    assert "Books close" in panel.editor.editor.toPlainText()
    assert panel.journal.model.query.bot == OTHER


def test_choosing_a_file_opens_it(qtbot, panel, session):
    panel.files_view.selectRow(1)
    idle(qtbot, session)
    assert panel.editor.rel == "memory/travel.md"
    assert not panel.editor.delete_button.isHidden()


def test_a_change_from_elsewhere_refreshes_everything(qtbot, panel, session, mem):
    panel.show_tab("journal")
    rows_before = panel.journal.model.rowCount()
    mem.store.write(BOT, "MEMORY.md", memory_text(214), Actor.bot("Plans"))
    qtbot.waitUntil(lambda: panel.gauge.gauge.level is Level.RED, timeout=5000)
    assert panel.gauge.unloaded_label.text() == "14 lines are not being loaded"
    qtbot.waitUntil(lambda: panel.journal.model.rowCount() == rows_before + 1, timeout=5000)
    qtbot.waitUntil(lambda: panel.editor.editor.toPlainText().count("\n") == 214, timeout=5000)
    qtbot.waitUntil(lambda: "cut off here: 14 more lines" in panel.loads.block.toPlainText(), timeout=5000)


def test_new_topic(qtbot, panel, session, mem):
    panel.create_topic("kestrel foods")
    idle(qtbot, session)
    qtbot.waitUntil(lambda: panel.editor.rel == "memory/kestrel foods.md", timeout=5000)
    assert mem.store.text(BOT, "memory/kestrel foods.md").startswith("---\ntitle: Kestrel foods\n")
    panel.create_topic("../escape")
    assert "one file name under memory/" in panel.status_label.text()
    panel.create_topic(".hidden")
    assert "bad topic name" in panel.status_label.text()


def test_open_in_obsidian_and_show_in_file_manager(qtbot, panel, session, monkeypatch):
    from botmemory.desktop import obsidian

    calls = []
    monkeypatch.setattr(obsidian, "decide", lambda folder, file=None: obsidian.plan(folder, [], False))
    monkeypatch.setattr(obsidian, "open_url", lambda url: calls.append(url) or True)
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, failed=None: calls.append(uri) or True)
    panel.obsidian_button.click()
    idle(qtbot, session)
    ws = session.mem.home.workspace(BOT)
    assert calls == [ws.as_uri()]
    assert "Open folder as vault" in panel.status_label.text()
    panel.reveal_button.click()
    assert calls[-1] == (ws / "MEMORY.md").as_uri()
