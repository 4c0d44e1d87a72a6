"""The file editor: saves with the hash it opened; the conflict flow; the budget preview; logs; delete."""
from __future__ import annotations

import pytest

from botmemory.core.store.writer import Actor
from botmemory.desktop.editor import CONFLICT_TEXT, FileEditor

from .conftest import BOT, entry, idle, memory_text


@pytest.fixture
def editor(qtbot, session):
    e = FileEditor(session)
    qtbot.addWidget(e)
    e.show()
    return e


def _open(qtbot, editor, session, rel):
    editor.open_file(BOT, rel)
    idle(qtbot, session)


def test_opens_a_file_with_its_hash(qtbot, editor, session, mem):
    mem.store.write(BOT, "MEMORY.md", "hello\n", Actor.person())
    _open(qtbot, editor, session, "MEMORY.md")
    assert editor.editor.toPlainText() == "hello\n"
    assert editor.opened_hash == mem.store.read(BOT, "MEMORY.md").hash
    assert not editor.dirty and not editor.save_button.isEnabled()
    assert not editor.delete_button.isVisible()               # MEMORY.md is never deleted


def test_save_carries_the_hash_and_journals_a_panel_row(qtbot, editor, session, mem):
    mem.store.write(BOT, "MEMORY.md", "hello\n", Actor.person())
    _open(qtbot, editor, session, "MEMORY.md")
    editor.editor.setPlainText("hello\nworld\n")
    assert editor.dirty and editor.save_button.isEnabled()
    with qtbot.waitSignal(editor.saved):
        editor.save_button.click()
    assert mem.store.text(BOT, "MEMORY.md") == "hello\nworld\n"
    assert editor.opened_hash == mem.store.read(BOT, "MEMORY.md").hash
    assert not editor.dirty
    row = mem.journal.list(BOT, limit=1)[0]
    assert (row.who, row.how, row.file) == ("person", "panel", "MEMORY.md")


def _conflict(qtbot, editor, session, mem):
    mem.store.write(BOT, "MEMORY.md", "line one\n", Actor.person())
    _open(qtbot, editor, session, "MEMORY.md")
    editor.editor.setPlainText("line one\nmy draft line\n")
    # the bot writes while the person types
    mem.store.write(BOT, "MEMORY.md", "line one\n" + entry("2026-10-15", "the bot's note") + "\n", Actor.bot("Plans"))
    editor.save()
    idle(qtbot, session)


def test_conflict_is_said_and_nothing_is_overwritten(qtbot, editor, session, mem):
    _conflict(qtbot, editor, session, mem)
    assert editor.conflict_banner.isVisible()
    assert CONFLICT_TEXT.format(bot=BOT) in editor.conflict_banner.label.text()
    assert "scout changed this file while you were editing." in editor.conflict_banner.label.text()
    assert "the bot's note" in mem.store.text(BOT, "MEMORY.md")
    assert editor.editor.toPlainText() == "line one\nmy draft line\n"        # the draft is still there


def test_reload_shows_the_new_text_and_keeps_the_draft_under_the_editor(qtbot, editor, session, mem):
    _conflict(qtbot, editor, session, mem)
    editor.reload_button.click()
    assert "the bot's note" in editor.editor.toPlainText()
    assert editor.draft_box.isVisible()
    assert editor.draft.toPlainText() == "line one\nmy draft line\n"
    assert not editor.conflict_banner.isVisible()
    # saving now goes through: it carries the hash of the bot's version
    editor.editor.setPlainText(editor.editor.toPlainText() + "my draft line\n")
    with qtbot.waitSignal(editor.saved):
        editor.save()
    text = mem.store.text(BOT, "MEMORY.md")
    assert "the bot's note" in text and "my draft line" in text


def test_overwrite_with_mine_saves_the_draft_and_can_be_undone(qtbot, editor, session, mem):
    _conflict(qtbot, editor, session, mem)
    with qtbot.waitSignal(editor.saved):
        editor.overwrite_button.click()
    assert mem.store.text(BOT, "MEMORY.md") == "line one\nmy draft line\n"
    row = mem.journal.list(BOT, limit=1)[0]
    assert row.how == "panel" and row.undoable
    mem.undo(BOT, row.id)
    assert "the bot's note" in mem.store.text(BOT, "MEMORY.md")


def test_a_second_conflict_after_overwrite_is_caught_again(qtbot, editor, session, mem):
    _conflict(qtbot, editor, session, mem)
    # the bot writes again between the conflict and the overwrite
    mem.store.write(BOT, "MEMORY.md", "the bot again\n", Actor.bot("Plans"))
    editor.overwrite_button.click()
    idle(qtbot, session)
    assert editor.conflict_banner.isVisible()
    assert mem.store.text(BOT, "MEMORY.md") == "the bot again\n"


def test_a_file_deleted_meanwhile_is_a_conflict_too(qtbot, editor, session, mem):
    mem.store.write(BOT, "memory/travel.md", "aisle\n", Actor.person())
    _open(qtbot, editor, session, "memory/travel.md")
    editor.editor.setPlainText("window\n")
    mem.store.delete(BOT, "memory/travel.md", Actor.bot("Plans"))
    editor.save()
    idle(qtbot, session)
    assert editor.conflict_banner.isVisible()
    with qtbot.waitSignal(editor.saved):
        editor.overwrite_button.click()
    assert mem.store.text(BOT, "memory/travel.md") == "window\n"


def test_a_redacted_save_shows_what_was_kept(qtbot, editor, session, mem):
    _open(qtbot, editor, session, "MEMORY.md")
    editor.editor.setPlainText("wifi password: hunter2hunter2\n")
    with qtbot.waitSignal(editor.saved):
        editor.save()
    assert "«redacted" in editor.editor.toPlainText()
    assert "«redacted" in mem.store.text(BOT, "MEMORY.md")
    assert not editor.dirty


def test_daily_logs_are_read_only_but_deletable(qtbot, editor, session, mem, monkeypatch):
    rel = "memory/log/2026-10-14.md"
    mem.store.write(BOT, rel, "- 09:00 · chat \"Plans\" · did it\n", Actor.bot("Plans"), allow_log=True)
    _open(qtbot, editor, session, rel)
    assert editor.editor.isReadOnly()
    assert not editor.save_button.isEnabled()
    assert "read-only" in editor.note.text()
    monkeypatch.setattr(editor, "confirm", lambda _q: True)
    with qtbot.waitSignal(editor.deleted):
        editor.delete_button.click()
    assert mem.store.read(BOT, rel) is None
    assert mem.journal.list(BOT, limit=1)[0].after_hash is None


def test_the_archive_is_not_offered_for_deletion_the_rule_is_cores(qtbot, editor, session, mem):
    """The same rule as `botmemory rm`: a topic or a daily log is deleted, never MEMORY.md or the archive."""
    from botmemory.core import ARCHIVE_FILE, FileKind, delete_refusal

    mem.store.write(BOT, ARCHIVE_FILE, "- 2024-01-01 · old · moved 2024-02-01\n", Actor.person())
    _open(qtbot, editor, session, ARCHIVE_FILE)
    assert editor.editor.toPlainText().startswith("- 2024-01-01")
    assert not editor.delete_button.isVisible() and not editor.delete_button.isEnabled()
    assert editor.note.text() == delete_refusal(FileKind.ARCHIVE)
    editor.ask_delete()                   # even if asked: nothing is deleted, nothing is asked
    idle(qtbot, session)
    assert mem.store.read(BOT, ARCHIVE_FILE) is not None


def test_delete_asks_first(qtbot, editor, session, mem, monkeypatch):
    mem.store.write(BOT, "memory/travel.md", "aisle\n", Actor.person())
    _open(qtbot, editor, session, "memory/travel.md")
    monkeypatch.setattr(editor, "confirm", lambda _q: False)
    editor.delete_button.click()
    idle(qtbot, session)
    assert mem.store.read(BOT, "memory/travel.md") is not None


def test_budget_preview_lists_what_the_next_harness_write_would_move(qtbot, editor, session, mem):
    _open(qtbot, editor, session, "MEMORY.md")
    draft = "# Hand-written, never moves\n" + memory_text(205)
    editor.editor.setPlainText(draft)
    editor.save()
    assert editor.budget_banner.isVisible()
    moved = editor.moved_model.stringList()
    assert moved and "Fact number 1 about" in moved[0]       # the oldest dated entry first
    assert "would not load" in editor.budget_banner.label.text()
    assert mem.store.text(BOT, "MEMORY.md") == ""             # nothing saved yet
    with qtbot.waitSignal(editor.saved):
        editor.save_anyway_button.click()
    assert mem.store.text(BOT, "MEMORY.md") == draft          # saved as typed: the panel never moves entries


def test_keep_editing_saves_nothing(qtbot, editor, session, mem):
    _open(qtbot, editor, session, "MEMORY.md")
    editor.editor.setPlainText(memory_text(210))
    editor.save()
    editor.keep_editing_button.click()
    idle(qtbot, session)
    assert not editor.budget_banner.isVisible()
    assert mem.store.text(BOT, "MEMORY.md") == ""


def test_live_refresh_when_not_editing(qtbot, editor, session, mem):
    mem.store.write(BOT, "MEMORY.md", "old\n", Actor.person())
    _open(qtbot, editor, session, "MEMORY.md")
    mem.store.write(BOT, "MEMORY.md", "new\n", Actor.bot("Plans"))
    editor.file_changed_on_disk()
    idle(qtbot, session)
    assert editor.editor.toPlainText() == "new\n"
    editor.editor.setPlainText("typing…\n")
    mem.store.write(BOT, "MEMORY.md", "newer\n", Actor.bot("Plans"))
    editor.file_changed_on_disk()
    idle(qtbot, session)
    assert editor.editor.toPlainText() == "typing…\n"          # a draft is never replaced


def test_the_conflict_banner_names_who_the_journal_names(qtbot, editor, session, mem):
    from botmemory.core.store.writer import Actor as A

    mem.store.write(BOT, "MEMORY.md", "line one\n", Actor.person())
    _open(qtbot, editor, session, "MEMORY.md")
    editor.editor.setPlainText("line one\nmy draft line\n")
    mem.store.write(BOT, "MEMORY.md", "line one\nedited in Obsidian\n", A("person", "outside"))
    editor.save()
    idle(qtbot, session)
    text = editor.conflict_banner.label.text()
    assert "You changed this file outside the app" in text
    assert "scout changed" not in text


def test_a_change_on_disk_under_a_draft_shows_at_once(qtbot, editor, session, mem):
    mem.store.write(BOT, "MEMORY.md", "old\n", Actor.person())
    _open(qtbot, editor, session, "MEMORY.md")
    editor.editor.setPlainText("my draft\n")
    mem.store.write(BOT, "MEMORY.md", "the bot's\n", Actor.bot("Plans"))
    editor.file_changed_on_disk()                   # the panel calls this when a journal row arrives
    idle(qtbot, session)
    assert editor.conflict_banner.isVisible() and editor.reload_button.isVisible()
    assert "scout changed this file while you were editing." in editor.conflict_banner.label.text()
    assert editor.editor.toPlainText() == "my draft\n"            # the draft stays until the person chooses
    editor.reload_button.click()
    assert editor.editor.toPlainText() == "the bot's\n" and editor.draft.toPlainText() == "my draft\n"


def test_the_draft_pane_goes_after_a_successful_overwrite(qtbot, editor, session, mem):
    _conflict(qtbot, editor, session, mem)
    editor.reload_button.click()
    assert editor.draft_box.isVisible()
    editor.editor.setPlainText("mine after all\n")
    mem.store.write(BOT, "MEMORY.md", "the bot once more\n", Actor.bot("Plans"))
    editor.save()
    idle(qtbot, session)
    assert editor.conflict_banner.isVisible()
    with qtbot.waitSignal(editor.saved):
        editor.overwrite_button.click()
    assert mem.store.text(BOT, "MEMORY.md") == "mine after all\n"
    assert not editor.draft_box.isVisible()


def test_a_save_keeps_the_final_newline_as_it_was(qtbot, editor, session, mem):
    mem.store.write(BOT, "memory/plans.md", "# Plans\nship it\n", Actor.person())
    _open(qtbot, editor, session, "memory/plans.md")
    editor.editor.setPlainText("# Plans\nship it on Friday")          # the edit at the end lost the newline
    with qtbot.waitSignal(editor.saved):
        editor.save_button.click()
    assert mem.store.text(BOT, "memory/plans.md") == "# Plans\nship it on Friday\n"
    assert not editor.dirty
    mem.store.write(BOT, "memory/raw.md", "no newline", Actor.person())
    _open(qtbot, editor, session, "memory/raw.md")
    editor.editor.setPlainText("still none")
    with qtbot.waitSignal(editor.saved):
        editor.save_button.click()
    assert mem.store.text(BOT, "memory/raw.md") == "still none"


def test_the_editor_wraps_long_lines_like_the_draft_pane(editor):
    assert editor.editor.lineWrapMode() == editor.draft.lineWrapMode()


def test_a_windows_file_keeps_its_crlf_line_endings(qtbot, editor, session, mem):
    path = mem.home.workspace(BOT) / "memory" / "windows.md"
    path.write_bytes(b"# Windows\r\n- line one\r\n- line two\r\n")
    _open(qtbot, editor, session, "memory/windows.md")
    assert editor.editor.toPlainText() == "# Windows\n- line one\n- line two\n"
    assert not editor.dirty and not editor.save_button.isEnabled()      # opening is not an edit
    editor.editor.setPlainText("# Windows\n- line one\n- line two\n- line three")
    with qtbot.waitSignal(editor.saved):
        editor.save()
    assert path.read_bytes() == b"# Windows\r\n- line one\r\n- line two\r\n- line three\r\n"
    assert not editor.dirty
    row = mem.journal.list(BOT, limit=1)[0]
    assert row.counts() == (1, 0)                                         # one line added, none rewritten
    path.write_bytes(b"# Windows\r\n- changed elsewhere\r\n")             # a change on disk, no draft
    editor.file_changed_on_disk()
    idle(qtbot, session)
    assert editor.editor.toPlainText() == "# Windows\n- changed elsewhere\n" and not editor.dirty


def test_a_plain_newline_file_is_saved_with_plain_newlines(qtbot, editor, session, mem):
    mem.store.write(BOT, "MEMORY.md", "hello\n", Actor.person())
    _open(qtbot, editor, session, "MEMORY.md")
    editor.editor.setPlainText("hello\nworld\n")
    with qtbot.waitSignal(editor.saved):
        editor.save()
    assert (mem.home.workspace(BOT) / "MEMORY.md").read_bytes() == b"hello\nworld\n"


def test_deleting_a_topic_over_what_the_journal_keeps_promises_no_undo(qtbot, editor, session, mem, monkeypatch):
    """Issue 29, Broken 4: the dialog says what the row will say — a topic larger than the journal keeps (1 MB
    today) cannot come back — and a small one's Undo is promised. Core decides (``foresee_rm``)."""
    from botmemory.core.ops import foresee_rm

    asked: list[str] = []
    monkeypatch.setattr(editor, "confirm", lambda q: asked.append(q) or True)
    mem.store.write(BOT, "memory/small.md", "aisle\n", Actor.person())
    _open(qtbot, editor, session, "memory/small.md")
    with qtbot.waitSignal(editor.deleted):
        editor.delete_button.click()
    assert "Undo in the journal brings it back" in asked[-1]
    assert mem.journal.list(BOT, limit=1)[0].undoable

    big = "".join(f"- line {i} of a long topic pasted from somewhere " + "x" * 60 + "\n" for i in range(12_000))
    assert len(big.encode()) > 1024 * 1024
    mem.store.write(BOT, "memory/big.md", big, Actor.person())
    lost = foresee_rm(mem, BOT, "memory/big.md")
    _open(qtbot, editor, session, "memory/big.md")
    with qtbot.waitSignal(editor.deleted, timeout=10_000):
        editor.delete_button.click()
    row = mem.journal.list(BOT, limit=1)[0]
    assert row.after_hash is None
    assert ("cannot be undone" in asked[-1]) == (not row.undoable) == bool(lost)
    assert "Undo in the journal brings it back" not in asked[-1] or row.undoable
