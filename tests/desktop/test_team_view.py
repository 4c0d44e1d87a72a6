"""The Team tab: notes and what loads, pending cards with Accept/Reject and the text they would replace, history
with Restore, a conflict that keeps the draft, the team's journal with Undo, and the tab in the panel."""
from __future__ import annotations

import pytest

from botmemory.core import Actor, team_create, team_edit, team_propose, team_show
from botmemory.desktop.panel import MemoryPanel
from botmemory.desktop.team_view import CardsModel, NotesModel, RowsModel, TeamView, VersionsModel

from .conftest import BOT, OTHER, idle

PERSON = Actor.person("cli")
BOT_WORK = Actor.bot("Plans", "mcp")


@pytest.fixture
def team(mem) -> str:
    key = team_create(mem, "Launch", [BOT, OTHER], PERSON).team.team
    from botmemory.core import team_accept

    for i, text in enumerate(["The launch is on Thursday", "The press kit is in Drive"]):
        c = team_propose(mem, key, text, BOT_WORK, key=f"launch/{i}", bot=BOT).card
        team_accept(mem, key, c.card, c.rev, PERSON)
    team_propose(mem, key, "The launch moved to Friday", BOT_WORK, key="launch/0", title="Launch day", bot=OTHER)
    return key


@pytest.fixture
def view(qtbot, session, team):
    v = TeamView(session)
    qtbot.addWidget(v)
    v.show()
    v.set_bot(BOT)
    idle(qtbot, session)
    return v


def wait(qtbot, session, view, check) -> None:
    qtbot.waitUntil(lambda: not session.worker.busy and check(), timeout=10_000)


def test_the_models_pass_the_model_tester(qtmodeltester, view):
    for model in (view.notes, view.cards, view.versions, view.rows):
        qtmodeltester.check(model)
    for cls in (NotesModel, CardsModel, VersionsModel, RowsModel):
        qtmodeltester.check(cls())


def test_it_shows_the_bots_team_its_notes_what_loads_and_the_cards(view, team):
    assert view.key == team and view.team_box.currentText() == "Launch (this bot)"
    assert "2 of 2 notes load" in view.summary.text() and "1 card waiting" in view.summary.text()
    assert [view.notes.item(i)["text"] for i in range(view.notes.rowCount())] == ["The press kit is in Drive",
                                                                                  "The launch is on Thursday"]
    assert view.tabs.tabText(1) == "Pending (1)"
    view.cards_view.selectRow(0)
    assert "It would replace</b>: The launch is on Thursday" in view.card_text.text()
    assert view.accept_button.isEnabled()


def test_accept_with_the_cards_revision_replaces_the_note(qtbot, session, view, mem, team):
    view.cards_view.selectRow(0)
    view.decide(True)
    wait(qtbot, session, view, lambda: view.cards.rowCount() == 0)
    texts = [n["text"] for n in team_show(mem, team).as_dict()["notes"]]
    assert "The launch moved to Friday" in texts and "The launch is on Thursday" not in texts


def test_a_card_whose_fact_changed_cannot_be_accepted_and_says_so(qtbot, session, view, mem, team):
    note = next(n for n in team_show(mem, team).as_dict()["notes"] if n["key"] == "launch/0")
    team_edit(mem, team, note["note"], "The launch is on Wednesday", note["rev"], PERSON)
    view.refresh()
    wait(qtbot, session, view, lambda: view.cards.rowCount() == 1 and view.cards.item(0)["stale"])
    view.cards_view.selectRow(0)
    assert not view.accept_button.isEnabled() and "cannot be accepted" in view.card_text.text()
    assert "The launch is on Wednesday" in view.card_text.text()
    view.decide(False)
    wait(qtbot, session, view, lambda: view.cards.rowCount() == 0)


def test_a_stale_save_shows_the_banner_and_reload_keeps_the_draft(qtbot, session, view, mem, team):
    view.notes_view.selectRow(1)
    wait(qtbot, session, view, lambda: view.text_edit.toPlainText() == "The launch is on Thursday")
    note = view.selected_note()
    team_edit(mem, team, note["note"], "Someone else's text", note["rev"], PERSON)   # meanwhile, elsewhere
    view.text_edit.setPlainText("My draft")
    view.save_note()
    qtbot.waitUntil(lambda: view.conflict.isVisible(), timeout=10_000)
    assert [n["text"] for n in team_show(mem, team).as_dict()["notes"]].count("My draft") == 0
    view.reload_after_conflict()
    assert view.text_edit.toPlainText() == "Someone else's text" and view.draft.toPlainText() == "My draft"
    assert view.draft_box.isVisible() and not view.conflict.isVisible()
    view.text_edit.setPlainText("My draft, merged")
    view.save_note()
    wait(qtbot, session, view, lambda: any(n["text"] == "My draft, merged"
                                           for n in team_show(mem, team).as_dict()["notes"]))


def test_choosing_another_note_keeps_the_unsaved_draft(qtbot, session, view):
    view.notes_view.selectRow(1)
    wait(qtbot, session, view, lambda: view.text_edit.toPlainText() == "The launch is on Thursday")
    view.text_edit.setPlainText("Half-written")
    view.notes_view.selectRow(0)
    assert view.text_edit.toPlainText() == "The press kit is in Drive"
    assert view.draft.toPlainText() == "Half-written" and view.draft_box.isVisible()


def test_history_restore_pin_delete_and_undo(qtbot, session, view, mem, team):
    view.notes_view.selectRow(1)
    wait(qtbot, session, view, lambda: view.versions.rowCount() == 1)
    view.text_edit.setPlainText("The launch is on Tuesday")
    view.save_note()
    wait(qtbot, session, view, lambda: view.versions.rowCount() == 2)
    view.versions_view.selectRow(1)
    assert view.restore_button.isEnabled()
    view.restore_version()
    wait(qtbot, session, view, lambda: view.versions.rowCount() == 3 and view.versions.item(0)["how"] == "restore")
    assert view.selected_note()["text"] == "The launch is on Thursday"
    view.toggle_pin()
    wait(qtbot, session, view, lambda: view.notes.item(0)["pinned"])
    assert view.notes.data(view.notes.index(0, 1)) == "pinned"
    view.notes_view.selectRow(0)
    view.delete_note()
    wait(qtbot, session, view, lambda: view.notes.rowCount() == 1)
    view.rows_view.selectRow(0)
    assert view.rows.item(0)["file"].startswith("notes/") and view.undo_button.isEnabled()
    view.undo_row()
    wait(qtbot, session, view, lambda: view.notes.rowCount() == 2)


def test_a_bot_proposing_from_another_process_shows_up(qtbot, session, view, mem, team):
    team_propose(mem, team, "The launch venue is the Pune office", BOT_WORK, bot=BOT)   # not through the view
    wait(qtbot, session, view, lambda: view.cards.rowCount() == 2)


def test_no_team_says_how_to_make_one_and_new_team_makes_it(qtbot, session, mem):
    v = TeamView(session)
    qtbot.addWidget(v)
    v.set_bot(BOT)
    idle(qtbot, session)
    assert v.key is None and "No team yet" in v.summary.text() and not v.save_button.isEnabled()
    v.create_team("Ops")
    wait(qtbot, session, v, lambda: v.key is not None and "Ops" in v.summary.text())
    assert team_show(mem, v.key).team.bots == (BOT,)


def test_the_panel_has_a_team_tab(qtbot, session, mem, team):
    session.start()
    p = MemoryPanel(session)
    qtbot.addWidget(p)
    p.show()
    p.set_bot(BOT)
    idle(qtbot, session)
    p.show_tab("team")
    assert p.tabs.tabText(p.tabs.currentIndex()) == "Team" and p.tabs.currentWidget() is p.team
    wait(qtbot, session, p.team, lambda: p.team.key == team and p.team.notes.rowCount() == 2)


def test_the_tab_says_the_teams_sync_and_sync_this_team_adds_it(qtbot, session, view, mem, team, tmp_path,
                                                                 monkeypatch):
    import subprocess

    from botmemory.core.ops import sync
    from botmemory.desktop import sync_view

    assert view.sync_label.isHidden() and view.sync_button.isHidden()        # sync is not set up here
    remote = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    sync.setup(mem, remote.as_uri(), host="desktop")
    view.refresh()
    wait(qtbot, session, view, lambda: view.sync_button.isVisible())
    assert view.sync_label.text() == "Across computers: Not synced to your other computers"
    monkeypatch.setattr(sync_view, "TIMING", {"quiet": 0.2, "cap": 1.0, "active_every": 0.3, "idle_every": 5.0})
    try:
        view.sync_button.click()
        wait(qtbot, session, view, lambda: sync.status(mem).folders != [])
        assert [(f.id, f.key, f.kind) for f in sync.status(mem).folders] == [(f"team-{team}", f"team/{team}", "team")]
        qtbot.waitUntil(lambda: sync.status(mem).folders[0].last_sync is not None, timeout=30_000)
        view.refresh()
        wait(qtbot, session, view, lambda: view.sync_label.text().startswith("Across computers: Synced "))
        assert view.sync_button.isHidden() and f"team/{team}" in view.sync_label.toolTip()
    finally:
        sync_view.service_for(session).stop()
        idle(qtbot, session)
