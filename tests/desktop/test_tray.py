"""The tray: icon and tooltip from the worst gauge, the menu built once, Recent changes with undo."""
from __future__ import annotations

import pytest

from botmemory.core.ops import text_gauge
from botmemory.core.store.writer import Actor
from botmemory.core.text.budget import Level
from botmemory.desktop.tray import Tray, tooltip, worst

from .conftest import BOT, OTHER, delete, memory_text


def _gauges(**lines):
    return {bot: text_gauge(memory_text(n)) for bot, n in lines.items()}


def test_worst_level_and_tooltip():
    assert worst({}) is Level.OK
    g = _gauges(scout=214, ledger=20)
    assert worst(g) is Level.RED
    text = tooltip(g)
    assert "scout is over the budget: 14 lines are not being loaded" in text
    assert "ledger" not in text
    g = _gauges(scout=170, ledger=20)
    assert worst(g) is Level.AMBER and "scout is nearly full: 170 of 200 lines" in tooltip(g)
    assert "all 2 bots are within the budget" in tooltip(_gauges(scout=10, ledger=20))


@pytest.fixture
def tray(qtbot):
    t = Tray([BOT, OTHER])
    yield t
    t.hide()
    delete(t.menu)
    delete(t)


def test_menu_is_built_once_with_every_action(tray):
    texts = [a.text() for a in tray.menu.actions() if a.text()]
    assert texts == [OTHER, BOT, "Recent changes", "Agent folders…", "Settings…", "Show log", "Quit"]
    sub = tray.bot_menus[BOT]
    assert [a.text() for a in sub.actions()] == ["Memory panel", "Open in Obsidian", "Show in file manager",
                                                 "Tidy up now"]
    before = list(tray.menu.actions())
    tray.set_bots([BOT, OTHER])
    assert tray.menu.actions() == before                          # nothing rebuilt
    tray.set_bots([BOT, OTHER, "atlas"])
    assert [a.text() for a in tray.menu.actions() if a.text()][:3] == ["atlas", OTHER, BOT]


def test_menu_actions_ask_for_what_they_say(qtbot, tray):
    sub = tray.bot_menus[BOT]
    for i, signal in enumerate((tray.open_panel, tray.open_obsidian, tray.reveal, tray.tidy)):
        with qtbot.waitSignal(signal) as blocker:
            sub.actions()[i].trigger()
        assert blocker.args == [BOT]
    with qtbot.waitSignal(tray.quit):
        tray.quit_action.trigger()


def test_left_click_opens_the_panel(qtbot, tray):
    from PySide6.QtWidgets import QSystemTrayIcon

    with qtbot.waitSignal(tray.open_panel) as blocker:
        tray.icon.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    assert blocker.args == [""]


def test_icon_and_tooltip_follow_the_worst_gauge(tray):
    tray.update_state(_gauges(scout=214, ledger=20))
    assert tray.level is Level.RED
    assert "scout is over the budget" in tray.icon.toolTip()
    tray.update_state(_gauges(scout=10, ledger=20))
    assert tray.level is Level.OK
    assert tray.worst_bot(_gauges(scout=10, ledger=170)) == OTHER


def test_recent_changes_undo_in_one_click(qtbot, tray, mem):
    mem.store.write(BOT, "MEMORY.md", "one\n", Actor.person("panel"))
    mem.store.write(OTHER, "MEMORY.md", "two\n", Actor.bot("Books"))
    rows = sorted(mem.journal.list(BOT, limit=5) + mem.journal.list(OTHER, limit=5), key=lambda r: r.id,
                  reverse=True)
    tray.set_recent(rows)
    visible = [a for a in tray.recent_actions if a.isVisible()]
    assert len(visible) == 2 and not tray.recent_empty.isVisible()
    assert visible[0].text().startswith("Undo: ledger · MEMORY.md · ledger")
    with qtbot.waitSignal(tray.undo) as blocker:
        visible[1].trigger()
    assert blocker.args == [BOT, rows[1].id]
    tray.set_recent([])
    assert tray.recent_empty.isVisible() and not any(a.isVisible() for a in tray.recent_actions)
