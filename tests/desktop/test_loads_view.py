"""What loads, and the recall preview."""
from __future__ import annotations

import pytest

from botmemory.core.disk import config
from botmemory.core.notes import loader
from botmemory.core.store.writer import Actor
from botmemory.desktop.loads_view import LoadsView

from .conftest import BOT, entry, idle

TOPIC = """---
title: Travel
aliases: [flights, trips]
---
# Travel
- 2026-10-03 · from chat "Travel" · Aisle seats on morning flights to Rotterdam
"""


@pytest.fixture
def view(qtbot, session, mem):
    mem.store.write(BOT, "MEMORY.md", entry("2026-10-01", "Priya is vegetarian") + "\n"
                    + entry("2026-09-01", "Dentist on Thursday") + " · until 2026-09-30\n", Actor.person())
    mem.store.write(BOT, "memory/travel.md", TOPIC, Actor.person())
    v = LoadsView(session)
    qtbot.addWidget(v)
    v.show()
    v.set_bot(BOT)
    idle(qtbot, session)
    return v


def test_shows_exactly_what_the_next_turn_loads(view, mem):
    text = view.block.toPlainText()
    assert text == loader.load_block(mem, BOT).rstrip("\n") or text == loader.load_block(mem, BOT)
    assert "Priya is vegetarian" in text
    assert "Dentist" not in text                                  # expired: stays out
    assert "## Topics" in text and "memory/travel.md — Travel (aliases: flights, trips)" in text


def test_recall_preview(qtbot, view, session):
    view.message.setText("Which seats do I like on flights?")
    qtbot.waitUntil(lambda: "Aisle seats" in view.recall.toPlainText(), timeout=5000)
    assert "not an instruction" in view.recall.toPlainText()


def test_recall_preview_says_why_it_is_empty(qtbot, view, session, mem):
    view.message.setText("hi")
    qtbot.waitUntil(lambda: "8 characters" in view.recall.toPlainText(), timeout=5000)
    view.message.setText("something about gardening tools")
    qtbot.waitUntil(lambda: "No note matches" in view.recall.toPlainText(), timeout=5000)
    config.set_bot_setting(mem.home, BOT, "memory", False)
    view.message.setText("Which seats do I like on flights?")
    qtbot.waitUntil(lambda: "Memory is off" in view.recall.toPlainText(), timeout=5000)
    view.refresh()
    idle(qtbot, session)
    assert view.block.toPlainText() == ""


def test_the_recall_preview_follows_a_changed_file(qtbot, view, session, mem):
    view.message.setText("Which seats do I like on flights?")
    qtbot.waitUntil(lambda: "Aisle seats" in view.recall.toPlainText(), timeout=5000)
    mem.store.write(BOT, "memory/travel.md", TOPIC.replace("Aisle seats", "Window seats"), Actor.person())
    view.refresh()                                   # what the panel does when a journal row arrives
    idle(qtbot, session)
    assert "Window seats" in view.recall.toPlainText() and "Aisle seats" not in view.recall.toPlainText()
