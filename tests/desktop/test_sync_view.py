"""The panel's sync line: the last sync, what came in, conflicts with Mark resolved; nothing without sync."""
from __future__ import annotations

import subprocess

import pytest

from botmemory.core.ops import sync
from botmemory.core.store.writer import Actor
from botmemory.desktop import sync_view
from botmemory.desktop.sync_view import SyncLine, service_for

from ..core.sync.conftest import Computer
from .conftest import BOT, idle


@pytest.fixture
def fast(monkeypatch):
    monkeypatch.setattr(sync_view, "TIMING", {"quiet": 0.2, "cap": 1.0, "active_every": 0.3, "idle_every": 5.0})


def test_a_home_without_sync_shows_no_line(qtbot, session):
    line = SyncLine(session)
    qtbot.addWidget(line)
    idle(qtbot, session)
    assert not line.isVisible() and line.service.scheduler is None
    assert service_for(session) is line.service
    line.service.stop()


def test_the_line_says_what_came_in_and_a_conflict_is_marked_resolved(qtbot, session, mem, tmp_path, fast):
    remote = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    sync.setup(mem, remote.as_uri(), host="desktop")
    sync.add(mem, BOT, name="scout", sync=False)
    other = Computer(tmp_path / "laptop", "laptop")
    other.setup(remote.as_uri())
    line = SyncLine(session)
    qtbot.addWidget(line)
    line.show()
    try:
        qtbot.waitUntil(lambda: line.service.scheduler is not None and line.service.scheduler.rounds >= 1,
                        timeout=20_000)
        other.sync()
        other.save("MEMORY.md", "- The office is in Mumbai\n")
        other.sync()
        qtbot.waitUntil(lambda: "1 change came in" in line.label.text(), timeout=30_000)
        assert line.label.text().startswith("Sync: Synced ")
        # the same line changed here and there: both kept, one conflict, Mark resolved
        other.save("MEMORY.md", "- The office is in Delhi\n")
        other.sync()
        mem.store.write(BOT, "MEMORY.md", "- The office is in Pune\n", Actor.person("panel"))
        qtbot.waitUntil(lambda: line.service.conflicts == [(BOT, "MEMORY.md")], timeout=30_000)
        assert line.resolve_button.isVisible() and "1 conflict to resolve" in line.label.text()
        actions = line.resolve_menu.actions()
        assert [a.text() for a in actions] == [
            f"Mark {BOT}/MEMORY.md resolved (edit it first: both versions are in it)"]
        actions[0].trigger()
        qtbot.waitUntil(lambda: line.service.conflicts == [], timeout=10_000)
        assert not line.resolve_button.isVisible()
        assert sync.status(mem).folders[0].conflicts == []
    finally:
        line.service.stop()
        idle(qtbot, session)


def test_a_teams_conflict_card_is_in_the_line_and_resolve_opens_its_team_tab(qtbot, session, mem, tmp_path, fast):
    from botmemory.core.ops import team as T
    from botmemory.desktop.panel import MemoryPanel

    person = Actor.person("cli")
    remote = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    other = Computer(tmp_path / "laptop", "laptop")
    other.mem.store.init(BOT)
    sync.setup(other.mem, remote.as_uri(), host="laptop")
    key = T.create(other.mem, "Launch", [BOT], person).team.team
    n = T.accept(other.mem, key, T.propose(other.mem, key, "Venue is Pune", person).card.card, 1, person).note
    sync.add_team(other.mem, key)
    sync.setup(mem, remote.as_uri(), host="desktop")
    sync.add_team(mem, key)
    T.edit(other.mem, key, n.note, "Venue is Baner", n.rev, person)
    other.sync()
    T.edit(mem, key, n.note, "Venue is Kharadi", n.rev, person)
    panel = MemoryPanel(session)
    qtbot.addWidget(panel)
    panel.show()
    line = panel.sync_line
    try:
        qtbot.waitUntil(lambda: line.service.team_conflicts == [(key, "Launch", "laptop")], timeout=30_000)
        assert line.resolve_button.isVisible() and "1 conflict to resolve" in line.label.text()
        (action,) = line.resolve_menu.actions()
        assert action.text() == "Team Launch: 1 conflict card (the text of laptop) — accept or reject in the Team tab"
        action.trigger()
        assert panel.tabs.currentWidget() is panel.team and panel.team.key == key
        qtbot.waitUntil(lambda: panel.team.cards.rowCount() == 1 and not session.worker.busy, timeout=10_000)
        assert panel.team.cards.item(0)["conflict"] and panel.team.tabs.currentIndex() == 1
        assert "1 conflict card (Pending)" in panel.team.sync_label.text()
    finally:
        line.service.stop()
        idle(qtbot, session)
