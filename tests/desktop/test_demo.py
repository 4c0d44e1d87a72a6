"""The embedded demo home: three bots, realistic notes, a real journal, and their team."""
from __future__ import annotations

from datetime import date
from pathlib import Path

from botmemory.core.store.memory import Memory
from botmemory.core.text import budget, frontmatter
from botmemory.core.text.budget import Level
from botmemory.desktop import demo


def test_expand_dates():
    assert demo.expand("- @D-2@ · x · until @D+3@ · @D0@", date(2026, 10, 15)) == \
        "- 2026-10-13 · x · until 2026-10-18 · 2026-10-15"


def test_the_demo_goes_into_an_empty_root_else_a_fresh_folder(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    assert demo.choose_root(empty) == empty
    empty.mkdir()
    assert demo.choose_root(empty) == empty
    (empty / "something").write_text("x")
    monkeypatch.setattr(demo.tempfile, "mkdtemp", lambda prefix: str(tmp_path / (prefix + "fresh")))
    assert demo.choose_root(empty) == tmp_path / "botmemory-demo-fresh"
    assert demo.choose_root(None) == tmp_path / "botmemory-demo-fresh"


def test_the_demo_home_is_real(tmp_path):
    today = date(2026, 10, 15)
    root = demo.prepare(tmp_path / "demo", today)
    mem = Memory.open(str(root), today.isoformat())
    assert mem.home.bots() == ["ledger", "quill", "scout"]
    g = budget.gauge(mem.store.text("scout", "MEMORY.md"))
    assert g.level is Level.AMBER                                   # a full memory, still loading whole
    topics = mem.home.topics("scout")
    assert len(topics) >= 4
    fm = frontmatter.read(mem.store.text("scout", "memory/northwind.md"))
    assert fm is not None and fm.title == "Northwind Logistics" and "Northwind" in fm.aliases
    logs = [f for f in mem.home.memory_files("scout") if f.startswith("memory/log/")]
    assert "memory/log/2026-10-15.md" in logs and len(logs) == 3
    assert "@D" not in mem.store.text("scout", "MEMORY.md")
    rows = mem.journal.list("scout", limit=None)
    kinds = {(r.who, r.how) for r in rows}
    for kind in [("import", "import"), ("bot", "task"), ("person", "panel"), ("person", "outside"),
                 ("person", "undo"), ("upkeep", "tidy-up")]:
        assert kind in kinds, kind
    assert all(r.undoable for r in rows)
    assert "Ilse asked for the Dutch store listing" in mem.store.text("scout", "memory/kestrel-foods.md")
    assert "moved 2026-10-15" in mem.store.text("ledger", "memory/archive.md")      # last night's tidy-up
    assert mem.home.about_me.is_file()


def test_the_demo_team_of_three_bots_has_notes_that_load_and_some_that_do_not_cards_and_history(tmp_path):
    from botmemory.core import load, team_history, team_list, team_show

    today = date(2026, 10, 15)
    mem = Memory.open(str(demo.prepare(tmp_path / "demo", today)), today.isoformat())
    (team,) = team_list(mem)
    assert team.name == "Halden studio" and sorted(team.bots) == ["ledger", "quill", "scout"]
    shown = team_show(mem, team.team).as_dict()
    assert shown["loaded"] > 10 and shown["not_loaded"] > 0 and shown["loaded_bytes"] <= 6000
    assert [n["pinned"] for n in shown["notes"][:2]] == [True, True]
    cards = shown["cards"]
    assert len(cards) == 4 and sum(c["stale"] for c in cards) == 1 and any(c["quotes"] for c in cards)
    assert any(c["replaces_text"] and not c["stale"] for c in cards)
    drive = next(n for n in shown["notes"] if n["key"] == "studio/drive")
    assert len(team_history(mem, team.team, drive["note"])) == 3
    for bot in team.bots:
        assert "## Team memory: Halden studio" in load(mem, bot).text


def test_the_package_ships_the_demo_files():
    names = [rel for rel, _item in demo._walk(demo._source())]
    assert "scout/MEMORY.md" in names and "ledger/MEMORY.md" in names and "quill/MEMORY.md" in names
    assert "about-me.md" in names
    assert any(n.startswith("scout/memory/log/") for n in names)
    assert all(Path(n).suffix == ".md" for n in names)
