"""Format 1 → 2: what becomes what, atomically (a failure at any step leaves the old file or the whole new folder),
and a reader that refuses a format it does not know."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from botmemory.core.base.errors import Refused
from botmemory.core.disk import safeio
from botmemory.core.notes.loader import load_block
from botmemory.core.ops import team as T
from botmemory.core.team import migrate as M

from .conftest import BOT, OTHER, PERSON

KEY = "t-0123456789"


def v1(**over) -> dict:
    d = {"version": 1, "team": KEY, "name": "Ops", "bots": [BOT, OTHER], "created": "2026-01-02T03:04:05Z",
         "deleted": False,
         "entries": [
             {"id": "1", "key": "ops/backups", "title": "Backups", "text": "Backups run at 01:00",
              "status": "superseded", "pinned": False, "rev": 1, "bot": BOT, "at": "2026-01-03T00:00:00Z"},
             {"id": "2", "key": "ops/backups", "title": "Nightly backups", "text": "Backups run at 02:00",
              "status": "accepted", "pinned": True, "rev": 2, "bot": OTHER, "at": "2026-02-03T00:00:00Z"},
             {"id": "3", "key": "ops/backups", "title": "", "text": "Backups run at 03:00",
              "status": "pending", "pinned": False, "rev": 1, "bot": BOT, "at": "2026-03-03T00:00:00Z"},
             {"id": "4", "key": None, "title": "", "text": "Restores are tested monthly",
              "status": "accepted", "pinned": False, "rev": 1, "bot": None, "at": "2026-01-05T00:00:00Z"},
             {"id": "5", "key": None, "title": "", "text": "Use the old VPN", "status": "deleted",
              "pinned": False, "rev": 3, "bot": None, "at": "2026-01-06T00:00:00Z"},
             {"id": "6", "key": "ops/pager", "title": "", "text": "Page Joel after 22:00", "status": "rejected",
              "pinned": False, "rev": 1, "bot": BOT, "at": "2026-01-07T00:00:00Z"},
         ]}
    d.update(over)
    return d


def put_v1(mem, d: dict | None = None) -> Path:
    folder = mem.home.root / "teams"
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{KEY}.json"
    p.write_text(json.dumps(d or v1()))
    return p


def test_a_format_1_team_becomes_format_2_on_first_use_with_its_history(mem):
    old = put_v1(mem)
    shown = T.show(mem, "Ops").as_dict()
    assert shown["team"] == KEY and shown["bots"] == [BOT, OTHER]
    assert [(n["title"], n["text"], n["pinned"]) for n in shown["notes"]] == [
        ("Nightly backups", "Backups run at 02:00", True), ("", "Restores are tested monthly", False)]
    backups = shown["notes"][0]
    assert [(v.text, v.how) for v in T.history(mem, KEY, backups["note"])] == [
        ("Backups run at 02:00", "migrate"), ("Backups run at 01:00", "migrate")]
    (card,) = shown["cards"]
    assert card["text"] == "Backups run at 03:00" and card["replaces"] == backups["note"] and not card["stale"]
    T.accept(mem, KEY, card["card"], card["rev"], PERSON)       # the pending correction still works
    assert T.show(mem, KEY).as_dict()["notes"][0]["text"] == "Backups run at 03:00"
    # the old file is kept inside the new folder, never read again; each new file says format 2
    assert not old.exists() and (mem.home.root / "teams" / KEY / M.OLD_FILE).is_file()
    for p in (mem.home.root / "teams" / KEY).rglob("*.json"):
        if p.name != M.OLD_FILE:
            assert json.loads(p.read_text())["format"] == 2
    # the deleted and rejected entries are on disk, found nowhere
    assert "VPN" not in load_block(mem, BOT) and T.search(mem, BOT, ["vpn"]).hits == []


def test_two_computers_migrating_the_same_file_write_the_same_records(mem, tmp_path):
    from botmemory.core.store.memory import Memory

    put_v1(mem)
    T.list_teams(mem)
    other = Memory.open(str(tmp_path / "other"), "2026-10-15")
    for b in (BOT, OTHER):
        other.store.init(b)
    put_v1(other)
    T.list_teams(other)
    names = lambda m: sorted(p.name for p in (m.home.root / "teams" / KEY).rglob("*.json"))
    assert names(mem) == names(other)


def test_a_deleted_format_1_team_stays_retired(mem):
    put_v1(mem, v1(deleted=True, deleted_at="2026-04-01T00:00:00Z"))
    assert T.list_teams(mem) == [] and T.list_teams(mem, retired=True)[0].retired == "2026-04-01T00:00:00Z"
    assert load_block(mem, BOT) == ""


def test_a_migration_that_fails_at_any_step_leaves_the_old_file_or_the_whole_new_folder(tmp_path, monkeypatch):
    """Every write, rename and replace of the migration fails in turn (k = 1, 2, …) until one run passes them all."""
    from botmemory.core.store.memory import Memory

    real_write, real_rename, real_replace = safeio.atomic_write, os.rename, os.replace
    k = 0
    while True:
        k += 1
        mem = Memory.open(str(tmp_path / f"home{k}"), "2026-10-15")
        for b in (BOT, OTHER):
            mem.store.init(b)
        old = put_v1(mem)
        before = old.read_bytes()
        calls = {"n": 0}

        def tick() -> None:
            calls["n"] += 1
            if calls["n"] == k:
                raise OSError("injected")

        monkeypatch.setattr("botmemory.core.team.files.atomic_write", lambda *a, **kw: (tick(), real_write(*a, **kw)))
        monkeypatch.setattr(os, "rename", lambda *a, **kw: (tick(), real_rename(*a, **kw)))
        monkeypatch.setattr(os, "replace", lambda *a, **kw: (tick(), real_replace(*a, **kw)))
        try:
            M.upgrade(mem.home)
            failed = False
        except OSError:
            failed = True
        finally:
            monkeypatch.undo()
        final = mem.home.root / "teams" / KEY
        if failed:   # the old file as it was and no new folder, or the new folder whole
            assert (final / "team.json").is_file() or (old.read_bytes() == before and not final.exists()), k
        # whatever happened, the next use finishes the migration, with every note
        assert [n["text"] for n in T.show(mem, KEY).as_dict()["notes"]] == ["Backups run at 02:00",
                                                                           "Restores are tested monthly"]
        assert not old.exists() and not [p for p in (mem.home.root / "teams").iterdir() if p.name.startswith(".")]
        if not failed:
            break
    assert k > 8      # 6 files (each a write and a replace), the folder's rename, the old file's move


def test_a_reader_refuses_a_format_it_does_not_know_in_one_line(mem):
    put_v1(mem, v1(version=7))
    with pytest.raises(Refused) as e:
        T.list_teams(mem)
    assert str(e.value) == (f"teams/{KEY}.json is team-memory format 7; this botmemory reads formats 1 to 2: "
                            "update botmemory (nothing was changed)")
    assert load_block(mem, BOT) == ""          # a turn's load leaves it out (with a warning), never fails
