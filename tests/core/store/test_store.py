from __future__ import annotations

import os
import stat

import pytest

from botmemory.core.base.errors import BadInput, Conflict, Refused
from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.disk.safeio import text_hash
from botmemory.core.store.writer import Actor, Write

from ..conftest import BOT

PERSON = Actor.person()


def mode(p):
    return stat.S_IMODE(os.stat(p).st_mode)


def test_init_layout_and_modes(mem, ws):
    assert (ws / "MEMORY.md").read_text() == "" and (ws / "memory").is_dir()
    assert mode(ws) == 0o700 and mode(ws / "memory") == 0o700 and mode(ws / "MEMORY.md") == 0o600
    assert mem.store.init(BOT) is False  # idempotent


def test_write_returns_a_change_record(mem):
    c = mem.store.write(BOT, "memory/clients.md", "- Acme\n", Actor.bot("Plans"))
    assert c is not None and c.before is None and c.before_hash is None
    assert c.after == "- Acme\n" and c.after_hash == text_hash("- Acme\n")
    assert (c.actor.who, c.actor.chat) == ("bot", "Plans") and c.id
    assert mem.store.write(BOT, "memory/clients.md", "- Acme\n", PERSON) is None  # unchanged: no change


def test_expected_hash_conflict_changes_nothing(mem):
    mem.store.write(BOT, "memory/a.md", "one\n", PERSON)
    h = mem.store.read(BOT, "memory/a.md").hash
    mem.store.write(BOT, "memory/a.md", "two\n", PERSON, expected_hash=h)
    with pytest.raises(Conflict) as e:
        mem.store.write(BOT, "memory/a.md", "mine\n", PERSON, expected_hash=h)
    assert e.value.text == "two\n" and e.value.hash == text_hash("two\n")
    assert mem.store.text(BOT, "memory/a.md") == "two\n"


def test_a_conflict_in_a_batch_writes_nothing(mem):
    mem.store.write(BOT, "memory/a.md", "a\n", PERSON)
    with pytest.raises(Conflict):
        mem.store.apply(BOT, [Write("memory/b.md", "b\n"), Write("memory/a.md", "x\n", "0" * 64)], PERSON)
    assert mem.store.read(BOT, "memory/b.md") is None


def test_file_rules(mem, ws):
    with pytest.raises(Refused):
        mem.store.delete(BOT, MEMORY_FILE, PERSON)
    (ws / "memory" / "log").mkdir()
    (ws / "memory" / "log" / "2026-10-14.md").write_text("- did\n")
    with pytest.raises(Refused):
        mem.store.write(BOT, "memory/log/2026-10-14.md", "x\n", PERSON)
    mem.store.delete(BOT, "memory/log/2026-10-14.md", PERSON)
    with pytest.raises(BadInput):
        mem.store.delete(BOT, "memory/nothing.md", PERSON)


def test_symlink_targets_are_refused(mem, ws, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret outside\n")
    (ws / "memory" / "link.md").symlink_to(outside)
    with pytest.raises(Refused):
        mem.store.write(BOT, "memory/link.md", "overwrite\n", PERSON)
    assert outside.read_text() == "secret outside\n"


def test_invalid_utf8_is_read_but_never_rewritten(mem, ws):
    (ws / "memory" / "bin.md").write_bytes(b"ok \xff\xfe bad\n")
    ft = mem.store.read(BOT, "memory/bin.md")
    assert ft is not None and not ft.valid and "ok" in ft.text
    with pytest.raises(BadInput):
        mem.store.write(BOT, "memory/bin.md", "new\n", PERSON)
    assert (ws / "memory" / "bin.md").read_bytes() == b"ok \xff\xfe bad\n"
    mem.store.delete(BOT, "memory/bin.md", PERSON)  # deleting is still allowed


def test_too_large_file(mem, ws):
    with open(ws / "memory" / "big.md", "wb") as f:
        f.truncate(100 * 1024 * 1024)
    with pytest.raises(BadInput, match="MB"):
        mem.store.read(BOT, "memory/big.md")


def test_listener_failure_never_fails_the_write(mem, caplog):
    seen = []

    def boom(change):
        raise RuntimeError("disk full")

    mem.store.listeners[:0] = [boom, seen.append]
    mem.store.write(BOT, "memory/a.md", "a\n", PERSON)
    assert mem.store.text(BOT, "memory/a.md") == "a\n" and len(seen) == 1
    assert "listener failed" in caplog.text


def test_stale_temp_files_are_cleaned(mem, ws, tmp_path):
    from botmemory.core.store.memory import Memory
    stale = ws / "memory" / ".a.md.0badf00d.botmemory.tmp"
    stale.write_text("half")
    fresh = Memory.open(str(mem.home.root), "2026-10-15")
    fresh.store.write(BOT, "memory/a.md", "a\n", PERSON)
    assert not stale.exists()


def test_unknown_bot_write_creates_workspace_on_first_use(mem):
    mem.store.ensure("newbot")
    assert (mem.home.workspace("newbot") / "MEMORY.md").exists()


def test_stale_temp_cleaning_stays_in_the_memory_folders(mem, ws):
    from botmemory.core.store.memory import Memory
    project = ws / "project" / "src"
    project.mkdir(parents=True)
    theirs = project / ".main.py.0badf00d.botmemory.tmp"  # not botmemory's to touch
    theirs.write_text("x")
    (ws / "memory" / "log").mkdir()
    ours = ws / "memory" / "log" / ".2026-10-14.md.0badf00d.botmemory.tmp"
    ours.write_text("half")
    Memory.open(str(mem.home.root), "2026-10-15").store.write(BOT, "memory/a.md", "a\n", PERSON)
    assert theirs.exists() and not ours.exists()


def test_delete_is_one_rule_a_topic_or_a_log_never_memory_or_the_archive(mem):
    """Store.delete (the CLI's rm, the routes' DELETE, the panel's Delete) refuses MEMORY.md and the archive."""
    from botmemory.core import ARCHIVE_FILE, FileKind, Refused, delete_refusal
    from botmemory.core.store.writer import Actor

    mem.store.write(BOT, ARCHIVE_FILE, "- 2024-01-01 · old · moved 2024-02-01\n", Actor.person())
    mem.store.write(BOT, "MEMORY.md", "- a\n", Actor.person())
    for rel, kind in ((ARCHIVE_FILE, FileKind.ARCHIVE), ("MEMORY.md", FileKind.MEMORY)):
        why = delete_refusal(kind)
        assert why
        with pytest.raises(Refused) as e:
            mem.store.delete(BOT, rel, Actor.person())
        assert str(e.value) == why
        assert mem.store.read(BOT, rel) is not None
    assert delete_refusal(FileKind.TOPIC) is None and delete_refusal(FileKind.LOG) is None
