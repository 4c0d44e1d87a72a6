"""The operations (core/ops.py): Memory first, results with their changes, the policy in one place."""
from __future__ import annotations

import pytest

from botmemory.core.base.errors import Refused
from botmemory.core.disk import config
from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.ops import operations as ops
from botmemory.core.store.writer import Actor

from ..conftest import BOT

PERSON = Actor.person("cli")
BOT_ACTOR = Actor.bot("Plans")


def journal_ids(mem) -> set[str]:
    return {r.id for r in mem.journal.list(BOT, limit=None)}


def test_every_write_returns_its_changes_and_each_is_a_journal_row(mem):
    results = [
        ops.remember(mem, BOT, "The garden gate code is blue", BOT_ACTOR),
        ops.save(mem, BOT, "memory/garden.md", "tomatoes and the gate\n", PERSON),
        ops.forget(mem, BOT, ["gate"], PERSON),
    ]
    ids = journal_ids(mem)
    for r in results:
        assert r.changes and {c.id for c in r.changes} <= ids
    assert {c.file for c in results[2].changes} == {MEMORY_FILE, "memory/garden.md"}
    undone = ops.undo(mem, BOT, results[2].changes[0].id)
    assert undone.changed and undone.changes[0].id in journal_ids(mem)
    assert ops.rm(mem, BOT, "memory/garden.md", PERSON).changes[0].after_hash is None


def test_reads_have_no_changes(mem):
    ops.remember(mem, BOT, "The garden gate code is blue", PERSON)
    assert ops.recall(mem, BOT, "what is the garden gate code?").changes == []
    s = ops.search(mem, BOT, ["gate"])
    assert s.changes == [] and [h.file for h in s.hits] == [MEMORY_FILE]


def test_memory_off_refuses_a_bots_writes_and_search_finds_nothing(mem):
    ops.remember(mem, BOT, "The garden gate code is blue", PERSON)
    config.set_bot_setting(mem.home, BOT, "memory", False)
    for op in (lambda: ops.remember(mem, BOT, "another note", BOT_ACTOR),
               lambda: ops.forget(mem, BOT, ["gate"], BOT_ACTOR),
               lambda: ops.prefer(mem, BOT, "short answers", BOT_ACTOR),
               lambda: ops.save(mem, BOT, MEMORY_FILE, "", BOT_ACTOR)):
        with pytest.raises(Refused, match="memory is switched off"):
            op()
    assert "gate code" in mem.store.text(BOT, MEMORY_FILE)
    assert ops.search(mem, BOT, ["gate"]).hits == []
    assert ops.recall(mem, BOT, "what is the garden gate code?").why.startswith("Memory is off")
    assert ops.remember(mem, BOT, "a person may still write", PERSON).changes     # the switch is for bots
    assert ops.prefer(mem, BOT, "short answers", PERSON).added


def test_make_room_and_its_undo_are_operations_with_changes(mem):
    from datetime import date, timedelta

    from ..conftest import entry

    lines = [entry((date(2025, 1, 1) + timedelta(days=i)).isoformat(), f"fact {i}") for i in range(230)]
    ops.save(mem, BOT, MEMORY_FILE, "\n".join(lines) + "\n", PERSON)
    room = ops.move_overflow(mem, BOT, PERSON)
    assert room.moved and room.fits and {c.id for c in room.changes} <= journal_ids(mem)
    back = ops.undo_overflow(mem, BOT, room, Actor("person", "undo"))
    assert back.changed and len(back.changes) == 2 and len(mem.store.text(BOT, MEMORY_FILE).splitlines()) == 230
    config.set_bot_setting(mem.home, BOT, "memory", False)
    with pytest.raises(Refused):
        ops.move_overflow(mem, BOT, BOT_ACTOR)
