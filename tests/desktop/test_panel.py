"""The Memory panel: one window, one bot at a time, every part refreshed by the rows that arrive."""
from __future__ import annotations

import pytest

from botmemory.core.store.writer import Actor
from botmemory.core.text.budget import Level
from botmemory.desktop.panel import MemoryPanel

from .conftest import BOT, OTHER, drain, entry, idle, memory_text


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
    assert panel.windowTitle() == "scout"          # the platform adds " — Bot Memory"


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
    qtbot.waitUntil(lambda: panel.editor.rel == "memory/kestrel foods.md", timeout=15_000)
    assert mem.store.text(BOT, "memory/kestrel foods.md").startswith("---\ntitle: Kestrel foods\n")
    panel.create_topic("../escape")
    assert "one file name under memory/" in panel.status_label.text()
    panel.create_topic(".hidden")
    assert "bad topic name" in panel.status_label.text()


def test_open_in_obsidian_and_show_in_file_manager(qtbot, panel, session, monkeypatch):
    from botmemory.desktop import obsidian

    calls = []
    monkeypatch.setattr(obsidian, "decide", lambda folder, file=None: obsidian.plan(folder, [], False))
    monkeypatch.setattr(obsidian, "open_url", lambda url, done=None: calls.append(url) or opens(done, True))
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, failed=None: calls.append(uri) or True)
    panel.obsidian_button.click()
    idle(qtbot, session)
    ws = session.mem.home.workspace(BOT)
    assert calls == [ws.as_uri()]
    assert "Open folder as vault" in panel.status_label.text()
    panel.reveal_button.click()
    assert calls[-1] == (ws / "MEMORY.md").as_uri()


@pytest.fixture
def empty_panel(qtbot, tmp_path):
    from botmemory.desktop.session import Session

    from .conftest import delete, open_home

    mem = open_home(tmp_path / "fresh")
    s = Session(mem, live=False, upkeep=False, today_fixed=True)
    s.start()
    p = MemoryPanel(s)
    qtbot.addWidget(p)
    p.show()
    idle(qtbot, s)
    yield p
    s.stop()
    delete(s)


def test_a_fresh_home_says_what_botmemory_is_for_and_offers_the_next_step(qtbot, empty_panel):
    p = empty_panel
    assert p.showing_welcome()
    texts = " ".join(w.text() for w in p.welcome.findChildren(type(p.status_label)))
    assert "long-term memory" in texts and "has no bots yet" in texts
    assert p.windowTitle() == "Welcome"
    for w in (p.bot_box, p.obsidian_button, p.reveal_button, p.new_topic_button):
        assert not w.isEnabled() and "no bots yet" in w.toolTip()
    assert p.welcome.home_button.isEnabled()
    # the found agent folders: none under this test's HOME, and the page says so
    qtbot.waitUntil(lambda: p.welcome.agents_box.isVisible(), timeout=5000)
    found = " ".join(w.text() for w in p.welcome.agents_box.findChildren(type(p.status_label)))
    assert "No Claude Code, OpenClaw or Hermes memory folders were found." in found
    # create a bot: a bad name says why and keeps Create disabled
    p.welcome.name_edit.setText("../x")
    assert not p.welcome.create_button.isEnabled() and "bad bot id" in p.welcome.create_error.text()
    p.welcome.name_edit.setText("scout")
    assert p.welcome.create_button.isEnabled()
    p.welcome.create_button.click()
    qtbot.waitUntil(lambda: p.bot == "scout", timeout=15_000)
    idle(qtbot, p.session)
    assert not p.showing_welcome()
    assert p.session.mem.home.workspace("scout").joinpath("MEMORY.md").is_file()
    assert p.bot_box.isEnabled() and p.new_topic_button.isEnabled()
    assert p.windowTitle() == "scout"


def test_the_agents_hook_lists_what_a_core_finder_finds(qtbot, empty_panel, monkeypatch):
    from botmemory.desktop import corelink

    found = [corelink.FoundFolder("claude-proj", "claude-code", "/home/p/.claude/projects/x/memory", False)]
    monkeypatch.setattr(corelink, "find_agents", lambda mem: found)
    empty_panel.welcome.look_for_agents()
    idle(qtbot, empty_panel.session)
    assert empty_panel.welcome.agents_box.isVisible()
    items = [empty_panel.welcome.agents_list.item(i).text() for i in range(empty_panel.welcome.agents_list.count())]
    assert items == ["claude-proj · Claude Code"]


def test_make_room_moves_the_previewed_entries_in_one_change(qtbot, panel, session, mem):
    mem.store.write(BOT, "MEMORY.md", "Hand-written: call me Sam\n" + memory_text(214), Actor.person())
    qtbot.waitUntil(lambda: panel.gauge.gauge is not None and panel.gauge.gauge.level is Level.RED, timeout=15_000)
    assert panel.room_button.isVisible()
    panel.room_button.click()
    idle(qtbot, session)
    assert panel.room_banner.isVisible()
    moved = panel.room_model.stringList()
    assert len(moved) == 15 and "Fact number 1 " in moved[0]
    panel.room_move_button.click()
    idle(qtbot, session)
    text = mem.store.text(BOT, "MEMORY.md")
    archive = mem.store.text(BOT, "memory/archive.md")
    assert all(m not in text and m in archive for m in moved)
    assert text.startswith("Hand-written: call me Sam\n") and len(text.splitlines()) == 200
    qtbot.waitUntil(lambda: panel.gauge.gauge.level is not Level.RED, timeout=15_000)
    assert not panel.room_button.isVisible()
    assert "Moved 15 entries" in panel.status_label.text()
    row = mem.journal.list(BOT, limit=1)[0]
    assert row.file == "MEMORY.md" and row.undoable
    # one click undoes the whole change: both files back as they were
    assert panel.room_banner.isVisible() and panel.room_undo_button.isVisible()
    before_archive = archive
    panel.room_undo_button.click()
    idle(qtbot, session)
    assert mem.store.text(BOT, "MEMORY.md") == "Hand-written: call me Sam\n" + memory_text(214)
    assert mem.store.read(BOT, "memory/archive.md") is None and before_archive
    assert not panel.room_banner.isVisible() and "Make room undone" in panel.status_label.text()
    assert [r.how for r in mem.journal.list(BOT, limit=2)] == ["undo", "undo"]


def test_new_topic_dialog_keeps_an_invalid_name_and_says_why(qtbot, panel):
    from botmemory.desktop.panel import topic_name_problem

    d = panel.topic_dialog()
    qtbot.addWidget(d)
    d.show()
    d.setTextValue("../escape")
    assert not d.ok_button().isEnabled()
    assert "one file name under memory/" in d.labelText()
    d.setTextValue("kestrel foods")
    assert d.ok_button().isEnabled() and "under memory/" not in d.labelText()
    assert topic_name_problem(".hidden") and topic_name_problem("archive")
    d.reject()


def test_the_new_topic_prompt_is_cores_rule_for_the_folders_kind(qtbot, panel, session, mem, tmp_path):
    """A workspace's topic takes letters and digits of any script; a Claude Code folder's takes '_':
    the dialog says the kind's rule as core words it (one message), never a copy of its own."""
    from botmemory.core import TOPIC_NAME_RULE, topic_name_rule
    from botmemory.core.ops import track

    d = panel.topic_dialog()
    qtbot.addWidget(d)
    assert TOPIC_NAME_RULE in d.labelText() and "any script" in d.labelText()
    assert topic_name_rule(mem.home, BOT) == TOPIC_NAME_RULE
    d.setTextValue("формулы")
    assert d.ok_button().isEnabled()
    d.reject()

    folder = tmp_path / "cc" / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- [Role](user_role.md)\n")
    cc = track(mem, path=str(folder), agent="claude-code").id
    rule = topic_name_rule(mem.home, cc)
    assert "'_'" in rule and rule != TOPIC_NAME_RULE
    panel.set_bot(cc)
    idle(qtbot, session)
    d = panel.topic_dialog()
    qtbot.addWidget(d)
    assert rule in d.labelText() and TOPIC_NAME_RULE not in d.labelText()
    d.setTextValue("feedback_testing")
    assert d.ok_button().isEnabled()
    d.setTextValue("a/b")
    assert not d.ok_button().isEnabled() and rule in d.labelText()
    d.reject()


def test_the_file_list_keeps_its_width_on_a_daily_log(qtbot, panel, session, mem):
    """No wall clock: the worker's tasks are run to their end and their results delivered (``drain``), however
    loaded the machine (it once waited 15 s for a read and failed under load)."""
    mem.store.write(BOT, "memory/log/2026-10-14.md", "- 09:00 · chat \"Plans\" · talked about the launch\n",
                    Actor.bot("Plans"), allow_log=True)
    panel.resize(1040, 760)
    panel.open_file("MEMORY.md")
    drain(session)
    assert panel.editor.rel == "MEMORY.md" and not panel.editor.editor.isReadOnly()
    before = panel.files_view.width()
    panel.open_file("memory/log/2026-10-14.md")
    drain(session)
    assert "read-only" in panel.editor.note.text()
    assert panel.files_view.width() == before


def opens(done, ok: bool) -> bool:
    """What a fake ``open_url`` answers: *ok*, told to *done* too (as the real one does, maybe later)."""
    if done is not None:
        done(ok)
    return ok
