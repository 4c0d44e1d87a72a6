"""Tracked agent folders in the panel: their names, their kind's gauge, what loads, the journal and undo."""
from __future__ import annotations

import pytest

from botmemory.core.kinds import tracked
from botmemory.core.ops import FolderGauge
from botmemory.core.ops import folders as agents
from botmemory.core.ops import undo as ops_undo
from botmemory.core.outside.turns import scan
from botmemory.core.store.writer import Actor
from botmemory.core.text.budget import Level
from botmemory.desktop.agents_view import AgentsDialog, offer_text
from botmemory.desktop.panel import MemoryPanel
from tests.core.agent_fixtures import claude_code, hermes, openclaw

from .conftest import BOT, delete, idle


def track(mem, agent):
    found, _ = tracked.discover(mem.home)
    return tracked.track(mem.home, next(c.id for c in found if c.agent == agent)).id


@pytest.fixture
def open_panel(qtbot, session):
    def make(bot):
        session.start()
        p = MemoryPanel(session)
        qtbot.addWidget(p)
        p.show()
        idle(qtbot, session)
        p.set_bot(bot)
        idle(qtbot, session)
        return p
    return make


def test_claude_code_over_its_budget(qtbot, mem, session, open_panel, no_real_agent_folders):
    d = claude_code(no_real_agent_folders, index_lines=215)
    bot = track(mem, "claude-code")
    p = open_panel(bot)
    names = [p.bot_box.itemText(i) for i in range(p.bot_box.count())]
    assert "/src/blog · Claude Code" in names and p.bot_box.currentText() == "/src/blog · Claude Code"
    g = p.gauge.gauge
    assert isinstance(g, FolderGauge) and g.level is Level.RED and g.unloaded_lines == 15
    assert p.gauge.lines_label.text() == "215 of 200 lines"
    assert "25,000 bytes" in p.gauge.rule_label.text()
    assert p.gauge.unloaded_label.text() == "15 lines are not being loaded"
    qtbot.waitUntil(lambda: "do not load" in p.loads.block.toPlainText(), timeout=5000)
    text = p.loads.block.toPlainText()
    assert "✗ 15 lines of MEMORY.md do not load (at the end):" in text and "note 212" in text
    assert "modified:" not in text.split("✗")[0]
    assert {f.rel for f in p.files_model.files()} == {"MEMORY.md", "user_role.md", "project_blog.md"}

    # an outside change: journaled as changed outside the app, nobody named; undone in the panel's session
    scan(mem)
    (d / "user_role.md").write_text((d / "user_role.md").read_text() + "Uses vim.\n")
    rows = scan(mem)
    assert [(r.who, r.how) for r in rows] == [("unknown", "outside")]
    p.show_tab("journal")
    qtbot.waitUntil(lambda: p.journal.model.rowCount() >= 1, timeout=5000)
    from botmemory.desktop.models import how_text, who_text

    newest = p.journal.model.row_at(0)
    assert (who_text(newest), how_text(newest)) == ("Someone", "changed outside the app")   # not "You"
    done = []
    session.run_op(lambda m: ops_undo(m, bot, rows[0].id), done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert "Uses vim" not in (d / "user_role.md").read_text()


def test_hermes_near_its_limit_counts_characters(qtbot, mem, session, open_panel, no_real_agent_folders):
    d = hermes(no_real_agent_folders, entries=["x" * 900, "y" * 900], memory_limit=2200)
    bot = track(mem, "hermes")
    p = open_panel(bot)
    g = p.gauge.gauge
    assert g.level is Level.AMBER and g.max_chars == 2200
    assert p.gauge.lines_label.text() == "1,803 of 2,200 characters"
    assert p.gauge.size_bar.isHidden() and p.gauge.lines_name.text() == "Characters"
    assert "Hermes" in p.gauge.rule_label.text()
    assert p.new_topic_button.isHidden()                      # Hermes keeps no topic files
    qtbot.waitUntil(lambda: "xxx" in p.loads.block.toPlainText(), timeout=5000)
    r = agents.forget(mem, bot, ["Lisbon"], Actor.person("panel"))
    assert r.files == ["USER.md"]
    qtbot.waitUntil(lambda: "Lisbon" not in p.loads.block.toPlainText(), timeout=5000)
    done = []
    session.run_op(lambda m: ops_undo(m, bot, r.changes[0].id), done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert "Lives in Lisbon" in (d / "USER.md").read_text()


def test_openclaw_marks_the_lost_middle(qtbot, mem, session, open_panel, no_real_agent_folders):
    openclaw(no_real_agent_folders, lines=120, max_chars=1500)
    bot = track(mem, "openclaw")
    p = open_panel(bot)
    assert p.gauge.gauge.level is Level.RED and "characters are not being loaded" in p.gauge.unloaded_label.text()
    qtbot.waitUntil(lambda: "in the middle" in p.loads.block.toPlainText(), timeout=5000)
    text = p.loads.block.toPlainText()
    assert "line 060" in text.split("in the middle")[1] and "line 000" in text.split("✗")[0]


def test_openclaw_says_which_bootstrap_files_took_its_share(qtbot, mem, session, open_panel, no_real_agent_folders):
    import json

    ws = openclaw(no_real_agent_folders, lines=120)
    (ws / "SOUL.md").write_text("s" * 25_000)
    (no_real_agent_folders / ".openclaw" / "openclaw.json").write_text(
        json.dumps({"agents": {"defaults": {"bootstrapTotalMaxChars": 22_000}}}))
    bot = track(mem, "openclaw")
    p = open_panel(bot)
    rule = p.gauge.rule_label.text()
    # SOUL.md cut to 19,999 (OpenClaw's marker inside its limit); the missing IDENTITY.md and BOOTSTRAP.md cost
    # their [MISSING] lines
    assert "AGENTS.md (8 characters), SOUL.md (19,999 characters), IDENTITY.md (" in rule
    assert "are loaded first and take 20,2" in rule
    assert "of the 22,000-character total MEMORY.md shares with them" in rule
    assert p.gauge.gauge.max_chars < 2_000 and p.gauge.gauge.level is Level.RED


def test_the_found_folders_are_offered_and_tracked(qtbot, mem, no_real_agent_folders):
    for _i, name in enumerate(("-a", "-b", "-c")):
        (no_real_agent_folders / ".claude" / "projects" / name / "memory").mkdir(parents=True)
    found, unread = tracked.discover(mem.home)
    assert offer_text(found) == "Claude Code keeps memory for 3 projects here — track them?"
    dialog = AgentsDialog(mem, found, unread)
    qtbot.addWidget(dialog)
    assert dialog.ticked() == {c.id for c in found}
    assert dialog.apply() == []
    assert set(mem.home.folders()) == {c.id for c in found}
    again, _ = tracked.discover(mem.home)
    assert offer_text(again) == ""


def test_a_credential_is_shown_and_redacted_only_when_asked(qtbot, mem, session, open_panel, no_real_agent_folders):
    d = claude_code(no_real_agent_folders)
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (d / "project_blog.md").write_text(f"Deploy with {secret}\n")
    bot = track(mem, "claude-code")
    p = open_panel(bot)
    qtbot.waitUntil(lambda: p.secrets.isVisible(), timeout=5000)
    assert "project_blog.md" in p.secrets.label.text()
    assert secret in (d / "project_blog.md").read_text()        # shown, never silently rewritten
    p.secrets.redact_button.click()
    qtbot.waitUntil(lambda: secret not in (d / "project_blog.md").read_text(), timeout=5000)
    qtbot.waitUntil(lambda: not p.secrets.isVisible(), timeout=5000)
    row = mem.journal.list(bot, limit=1)[0]
    assert (row.file, row.who, row.how) == ("project_blog.md", "person", "redact")


def test_the_app_offers_found_folders_once_on_first_run(qtbot, mem, no_real_agent_folders):
    from botmemory.desktop.app import App

    from .conftest import delete

    claude_code(no_real_agent_folders)
    hermes(no_real_agent_folders)
    a = App(mem, today_fixed=True, live=False, upkeep=False, tray=True)
    try:
        a.start()
        qtbot.waitUntil(lambda: a._agents is not None and a._agents.isVisible(), timeout=5000)
        assert "Claude Code keeps memory for 1 project here" in a._agents.question.text()
        a._agents.accept()
        qtbot.waitUntil(lambda: len(mem.home.folders()) == 2, timeout=5000)
        qtbot.waitUntil(lambda: len(a.session.bots) == 4, timeout=5000)     # two workspaces, two folders
    finally:
        a.shutdown()
        if a._agents is not None:
            delete(a._agents)
        delete(a)
    b = App(mem, today_fixed=True, live=False, upkeep=False, tray=True)
    try:
        b.start()
        idle(qtbot, b.session)
        assert b._agents is None                                            # asked once only
    finally:
        b.shutdown()
        delete(b)


def test_the_welcome_page_lists_found_folders_and_tracks_one(qtbot, tmp_path, no_real_agent_folders):
    from botmemory.core.store.memory import Memory
    from botmemory.desktop.session import Session

    from .conftest import delete

    claude_code(no_real_agent_folders)
    mem = Memory.open(str(tmp_path / "fresh"))
    s = Session(mem, live=False, upkeep=False, today_fixed=True)
    p = MemoryPanel(s)
    qtbot.addWidget(p)
    try:
        s.start()
        p.show()
        qtbot.waitUntil(lambda: p.welcome.agents_box.isVisible(), timeout=5000)
        items = [p.welcome.agents_list.item(i).text() for i in range(p.welcome.agents_list.count())]
        assert items == ["/src/blog · Claude Code"]
        assert p.welcome.agents_list.item(0).toolTip() == "Its memory folder: ~/.claude/projects/-src-blog/memory"
        p.welcome._track(p.welcome.found[0].id)
        qtbot.waitUntil(lambda: p.bot is not None, timeout=5000)
        assert mem.home.is_tracked(p.bot) and p.bot_box.currentText() == "/src/blog · Claude Code"
    finally:
        s.stop()
        delete(s)


def test_the_new_topic_dialog_checks_names_by_the_folders_kind(qtbot, mem, session, open_panel,
                                                               no_real_agent_folders):
    """Claude Code writes `feedback_testing.md`: its folder's dialog takes '_', a workspace's does not."""
    d = claude_code(no_real_agent_folders)
    bot = track(mem, "claude-code")
    p = open_panel(bot)
    dialog = p.topic_dialog()
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.setTextValue("feedback_testing")
    assert dialog.ok_button().isEnabled(), dialog.labelText()
    dialog.setTextValue("MEMORY")
    assert not dialog.ok_button().isEnabled() and "not a topic" in dialog.labelText()
    dialog.reject()
    p.create_topic("feedback_testing")
    idle(qtbot, session)
    qtbot.waitUntil(lambda: (d / "feedback_testing.md").is_file(), timeout=5000)

    p.set_bot("scout")
    idle(qtbot, session)
    dialog = p.topic_dialog()
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.setTextValue("feedback_testing")
    assert not dialog.ok_button().isEnabled() and "bad topic name" in dialog.labelText()
    dialog.reject()


def test_forget_everywhere_previews_then_forgets_in_every_folder_and_bot_each_undoable(
        qtbot, mem, session, open_panel, no_real_agent_folders):
    """"Forget my old address everywhere": what would go first (nothing written), then one row per file, each
    with Undo, across the tracked folders and the home's bots."""
    d = hermes(no_real_agent_folders, entries=["User lives at 12 Elm Street", "Project uses postgres 16"])
    bot = track(mem, "hermes")
    mem.store.write(BOT, "memory/home.md", "# Home\n\n- 2026-10-01 · Lives at 12 Elm Street\n",
                    Actor.person("cli"))
    before = {p: p.read_text() for p in (d / "MEMORY.md", mem.home.workspace(BOT) / "memory" / "home.md")}
    p = open_panel(BOT)
    dialog = p.open_forget()
    dialog.words.setText("Elm Street")
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: dialog.forget_button.isEnabled(), timeout=5000)
    assert "2 notes in 2 files would go" in dialog.message.text()
    assert {p.read_text() for p in before} == set(before.values())        # a preview writes nothing
    with qtbot.waitSignal(dialog.finished_forgetting, timeout=5000) as blocker:
        dialog.forget_button.click()
    results = blocker.args[0]
    assert {(r.bot, tuple(r.files)) for r in results} == {(bot, ("MEMORY.md",)), (BOT, ("memory/home.md",))}
    assert "Elm" not in (d / "MEMORY.md").read_text() and "postgres" in (d / "MEMORY.md").read_text()
    assert "Elm" not in mem.store.text(BOT, "memory/home.md")
    assert len(dialog.undo_buttons) == 2
    for button in dialog.undo_buttons.values():
        button.click()
    qtbot.waitUntil(lambda: all(b.text() == "Undone" for b in dialog.undo_buttons.values()), timeout=5000)
    assert {p: p.read_text() for p in before} == before
    dialog.close()


def test_tracking_from_the_welcome_page_makes_the_watcher_look_at_the_folder(qtbot, tmp_path, no_real_agent_folders):
    """Else an outside edit in the folder tracked there is journaled only after a restart."""
    from botmemory.core.store.memory import Memory
    from botmemory.desktop.session import Session

    from .conftest import delete

    claude_code(no_real_agent_folders)
    mem = Memory.open(str(tmp_path / "fresh"))
    s = Session(mem, live=False, upkeep=False, today_fixed=True)
    rescans: list[int] = []
    original = s.rescan
    s.rescan = lambda: (rescans.append(1), original())[1]   # type: ignore[method-assign]
    p = MemoryPanel(s)
    qtbot.addWidget(p)
    try:
        s.start()
        p.show()
        qtbot.waitUntil(lambda: p.welcome.agents_box.isVisible(), timeout=5000)
        p.welcome._track(p.welcome.found[0].id)
        qtbot.waitUntil(lambda: p.bot is not None, timeout=5000)
        assert rescans
    finally:
        s.stop()
        delete(s)


def test_the_bot_list_is_wide_enough_for_a_tracked_folders_name(qtbot, mem, session, open_panel,
                                                                no_real_agent_folders):
    claude_code(no_real_agent_folders)
    bot = track(mem, "claude-code")
    p = open_panel(bot)
    text = p.bot_box.currentText()
    assert "Claude Code" in text
    assert p.bot_box.width() >= p.bot_box.fontMetrics().horizontalAdvance(text) + 20


def test_a_red_claude_code_folder_offers_make_room_for_its_index_and_no_tidy_up(qtbot, mem, session, open_panel,
                                                                                no_real_agent_folders):
    """Issue 29, Misleading 8: what applies to the kind — Make room moves the oldest index lines into a topic the
    index points at (one change you can undo, only when asked); Tidy up now, which refuses, is not offered."""
    d = claude_code(no_real_agent_folders, index_lines=230)
    bot = track(mem, "claude-code")
    before = (d / "MEMORY.md").read_text()
    p = open_panel(bot)
    qtbot.waitUntil(lambda: p.applies is not None, timeout=5000)
    assert p.room_button.isVisible() and "index lines" in p.room_button.toolTip()
    p.show_tab("upkeep")
    idle(qtbot, session)
    assert not p.upkeep.tidy_button.isVisible() and not p.upkeep.upkeep_switch.isVisible()
    assert "Claude Code writes its own memory" in p.upkeep.agent_note.text()
    assert "Make room" in p.upkeep.agent_note.text()
    p.room_button.click()
    qtbot.waitUntil(p.room_banner.isVisible, timeout=5000)
    assert "index lines" in p.room_banner.label.text() and p.room_model.rowCount() > 0
    assert (d / "MEMORY.md").read_text() == before                      # shown first, nothing written
    p.room_move_button.click()
    qtbot.waitUntil(p.room_undo_button.isVisible, timeout=5000)
    idle(qtbot, session)
    assert (d / "older_memories.md").exists() and session.gauges[bot].unloaded_lines == 0
    assert not p.room_button.isVisible()
    p.room_undo_button.click()
    qtbot.waitUntil(lambda: not p.room_banner.isVisible(), timeout=5000)
    idle(qtbot, session)
    assert (d / "MEMORY.md").read_text() == before and not (d / "older_memories.md").exists()


def test_the_tray_offers_no_tidy_up_for_an_agent_folder(qtbot, mem, no_real_agent_folders):
    from botmemory.desktop.app import App

    claude_code(no_real_agent_folders, index_lines=10)
    bot = track(mem, "claude-code")
    a = App(mem, tray=True, live=False, upkeep=False, today_fixed=True)
    try:
        a.start()
        qtbot.waitUntil(lambda: bot in a.session.gauges, timeout=5000)
        assert not a.tray.tidy_actions[bot].isVisible() and a.tray.tidy_actions[BOT].isVisible()
    finally:
        a.shutdown()
        delete(a)




def test_a_folder_gone_while_shown_says_so_and_comes_back(qtbot, mem, session, open_panel, no_real_agent_folders,
                                                          tmp_path):
    """Issue 29, Misleading 5: no stale files, gauge and "within the budget" after the folder went away."""
    import shutil

    d = claude_code(no_real_agent_folders, index_lines=20)
    bot = track(mem, "claude-code")
    p = open_panel(bot)
    qtbot.waitUntil(lambda: p.files_model.rowCount() > 0, timeout=5000)
    shutil.copytree(d, tmp_path / "backup")
    shutil.rmtree(d)
    session.refresh_bots()                   # what the live watcher asks for at once
    qtbot.waitUntil(p.gone_banner.isVisible, timeout=5000)
    assert "is gone" in p.gone_banner.label.text() and p.files_model.rowCount() == 0
    assert "within the budget" not in p.gauge.state_label.text() and "gone" in p.gauge.state_label.text()
    shutil.copytree(tmp_path / "backup", d)
    session.refresh_bots()
    qtbot.waitUntil(lambda: not p.gone_banner.isVisible() and p.files_model.rowCount() > 0, timeout=5000)
    qtbot.waitUntil(lambda: p.gauge.gauge is not None, timeout=5000)
    assert "within the budget" in p.gauge.state_label.text()


def test_first_run_with_only_agents_folders_is_the_welcome_page_with_the_offer_then_the_panel(
        qtbot, tmp_path, no_real_agent_folders):
    """Issue 29, Misleading 11: not a bare dialog and no panel — the welcome page, the folders ticked in it,
    one button, then the panel on a tracked folder."""
    from botmemory.core.store.memory import Memory
    from botmemory.desktop.app import App

    claude_code(no_real_agent_folders)
    hermes(no_real_agent_folders)
    mem = Memory.open(str(tmp_path / "own-home"))
    a = App(mem, today_fixed=True, live=False, upkeep=False, tray=True)
    try:
        a.start()
        qtbot.waitUntil(lambda: a.panel is not None and a.panel.isVisible(), timeout=5000)
        p = a.panel
        assert a._agents is None                                   # no bare dialog
        qtbot.waitUntil(lambda: p.welcome.agents_list is not None, timeout=5000)
        assert p.showing_welcome()
        texts = " ".join(w.text() for w in p.welcome.agents_box.findChildren(type(p.status_label)))
        assert "track them?" in texts
        assert sorted(p.welcome.ticked()) == sorted(f.id for f in p.welcome.found)
        p.welcome.track_button.click()
        qtbot.waitUntil(lambda: p.bot is not None and not p.showing_welcome(), timeout=5000)
        assert len(mem.home.folders()) == 2 and mem.home.is_tracked(p.bot)
    finally:
        a.shutdown()
        if a.panel is not None:
            delete(a.panel)
        delete(a)
