"""save, rm and undo as operations on the opened home (core/files.py): results with their changes, the switch."""
from __future__ import annotations

import pytest

from botmemory.core.base.errors import BadInput, Conflict, Refused
from botmemory.core.disk import config
from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.store import files
from botmemory.core.store.writer import Actor

from ..conftest import BOT

PERSON = Actor.person("cli")
BOT_ACTOR = Actor.bot("Plans")


def test_save_returns_the_hash_and_the_change_its_row_records(mem):
    r = files.save(mem, BOT, "memory/garden.md", "tomatoes\n", PERSON, checked=True)
    assert r.changed and r.hash == mem.store.read(BOT, "memory/garden.md").hash
    assert [c.file for c in r.changes] == ["memory/garden.md"]
    assert mem.journal.list(BOT, limit=1)[0].id == r.changes[0].id
    again = files.save(mem, BOT, "memory/garden.md", "tomatoes\n", PERSON, expected_hash=r.hash)
    assert not again.changed and again.hash == r.hash and again.changes == []


def test_save_is_hash_checked_and_checks_the_path_first(mem):
    files.save(mem, BOT, "memory/garden.md", "one\n", PERSON)
    with pytest.raises(Conflict):
        files.save(mem, BOT, "memory/garden.md", "two\n", PERSON, expected_hash="0" * 64)
    with pytest.raises(Conflict):
        files.save(mem, BOT, "memory/garden.md", "two\n", PERSON, checked=True)   # None: must not exist
    with pytest.raises(BadInput):
        files.save(mem, BOT, "../outside.md", "x\n", PERSON)
    assert mem.store.text(BOT, "memory/garden.md") == "one\n"


def test_save_creates_the_workspace_unless_told_not_to(mem):
    assert files.save(mem, "newbot", MEMORY_FILE, "hi\n", PERSON).changed
    with pytest.raises(BadInput):
        files.save(mem, "otherbot", MEMORY_FILE, "hi\n", PERSON, create=False)


def test_the_memory_switch_refuses_a_bots_writes_not_a_persons(mem):
    files.save(mem, BOT, "memory/garden.md", "one\n", PERSON)
    config.set_bot_setting(mem.home, BOT, "memory", False)
    with pytest.raises(Refused, match="memory is switched off"):
        files.save(mem, BOT, "memory/garden.md", "two\n", BOT_ACTOR)
    with pytest.raises(Refused, match="memory is switched off"):
        files.rm(mem, BOT, "memory/garden.md", BOT_ACTOR)
    assert mem.store.text(BOT, "memory/garden.md") == "one\n"
    assert files.save(mem, BOT, "memory/garden.md", "two\n", PERSON).changed
    assert files.rm(mem, BOT, "memory/garden.md", PERSON).changed


def test_rm_deletes_and_refuses_memory_md(mem):
    h = files.save(mem, BOT, "memory/garden.md", "one\n", PERSON).hash
    with pytest.raises(Conflict):
        files.rm(mem, BOT, "memory/garden.md", PERSON, expected_hash="0" * 64)
    r = files.rm(mem, BOT, "memory/garden.md", PERSON, expected_hash=h)
    assert r.changed and r.hash is None and r.changes[0].after_hash is None
    with pytest.raises(Refused):
        files.rm(mem, BOT, MEMORY_FILE, PERSON)
    with pytest.raises(BadInput):
        files.rm(mem, BOT, "memory/garden.md", PERSON)


def test_undo_returns_the_change_that_put_the_file_back(mem):
    first = files.save(mem, BOT, "memory/garden.md", "one\n", PERSON)
    files.save(mem, BOT, "memory/garden.md", "two\n", PERSON)
    row = mem.journal.list(BOT, limit=1)[0]
    r = files.undo(mem, BOT, row.id)
    assert r.undone == row.id and r.changed and mem.store.read(BOT, "memory/garden.md").hash == first.hash
    assert not files.undo(mem, BOT, row.id).changed        # the file already holds that text
    with pytest.raises(BadInput):
        files.undo(mem, BOT, "")
