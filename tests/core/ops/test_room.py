"""Make room by the folder's kind: a Claude Code index moves its oldest lines into a topic it points at."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from botmemory.core.ops import (
    INDEX_TOPIC,
    Actor,
    Memory,
    Refused,
    folder_actions,
    gauge,
    load,
    make_room,
    room_preview,
    track,
    undo_overflow,
)

PERSON = Actor.person("panel")


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    u = tmp_path / "user"
    u.mkdir()
    monkeypatch.setenv("HOME", str(u))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return u


def claude_project(user: Path, lines: int, head: str = "") -> Path:
    project = user / ".claude" / "projects" / "-work-shop-app"
    (project / "memory").mkdir(parents=True)
    index = head + "".join(f"- [Note {i}](note_{i}.md) — the shop's checkout, part {i}\n" for i in range(lines))
    (project / "memory" / "MEMORY.md").write_text(index)
    (project / "s1.jsonl").write_text(json.dumps({"cwd": "/work/shop-app"}) + "\n")
    return project / "memory"


@pytest.fixture
def shop(user: Path, tmp_path: Path) -> tuple[Memory, str, Path]:
    folder = claude_project(user, 260, head="# Index\n\n")
    mem = Memory.open(str(tmp_path / "home"))
    return mem, track(mem, "claude-work-shop-app").id, folder


def test_what_applies_to_each_kind(shop, mem):
    m, bot, _ = shop
    claude = folder_actions(m, bot)
    assert claude.room == "index" and not claude.tidy and "Claude Code writes its own memory" in claude.why_no_tidy
    assert folder_actions(mem, "scout") == folder_actions(mem, "scout")
    own = folder_actions(mem, "scout")
    assert own.tidy and own.room == "archive" and own.topics


def test_a_claude_code_index_over_its_budget_moves_its_oldest_lines_into_a_topic_it_points_at(shop):
    m, bot, folder = shop
    before = (folder / "MEMORY.md").read_text()
    assert gauge(m, bot).unloaded_lines == 62
    p = room_preview(m, bot)
    assert p is not None and p.kind == "index" and p.target == INDEX_TOPIC and p.fits_after
    assert p.moved[0].startswith("- [Note 0](note_0.md)") and p.unloaded_lines == 62
    assert (folder / "MEMORY.md").read_text() == before               # a preview writes nothing
    r = make_room(m, bot, PERSON, expected_hash=p.hash)
    assert r.fits and r.moved == p.moved and len(r.changes) == 2
    after = (folder / "MEMORY.md").read_text()
    assert gauge(m, bot).unloaded_lines == 0
    assert after.startswith("# Index\n\n- [Older memories](older_memories.md) — ")
    assert "[Note 259](note_259.md)" in load(m, bot).text             # the newest now load
    topic = (folder / INDEX_TOPIC).read_text()
    assert topic.startswith("---\nname: Older memories\n") and "type: reference" in topic
    assert all(line in topic for line in r.moved)
    assert sorted(after.splitlines()[3:] + [line for line in topic.splitlines() if line.startswith("- [Note")],
                  key=lambda s: int(s.split("](note_")[1].split(".")[0])) == before.splitlines()[2:]
    undo_overflow(m, bot, r, PERSON)                                    # one change to undo: both files back
    assert (folder / "MEMORY.md").read_text() == before and not (folder / INDEX_TOPIC).exists()


def test_a_second_make_room_adds_to_the_topic_and_keeps_one_pointer(shop):
    m, bot, folder = shop
    make_room(m, bot, PERSON)
    with (folder / "MEMORY.md").open("a") as f:
        f.write("".join(f"- [Later {i}](later_{i}.md) — newer\n" for i in range(30)))
    r = make_room(m, bot, PERSON)
    assert r.fits and gauge(m, bot).unloaded_lines == 0
    assert (folder / "MEMORY.md").read_text().count(f"]({INDEX_TOPIC})") == 1
    topic = (folder / INDEX_TOPIC).read_text()
    assert topic.count("name: Older memories") == 1 and all(line in topic for line in r.moved)


def test_a_changed_index_is_a_conflict_and_nothing_moves(shop):
    from botmemory.core.ops import Conflict

    m, bot, folder = shop
    p = room_preview(m, bot)
    with (folder / "MEMORY.md").open("a") as f:
        f.write("- [New](new.md) — written by Claude meanwhile\n")
    with pytest.raises(Conflict):
        make_room(m, bot, PERSON, expected_hash=p.hash)
    assert not (folder / INDEX_TOPIC).exists()


def test_hermes_has_nothing_to_move(user, tmp_path):
    mem_dir = user / ".hermes" / "memories"
    mem_dir.mkdir(parents=True)
    (mem_dir / "MEMORY.md").write_text("x" * 3000)
    m = Memory.open(str(tmp_path / "home"))
    bot = track(m, "hermes").id
    assert room_preview(m, bot) is None and folder_actions(m, bot).room is None
    with pytest.raises(Refused):
        make_room(m, bot, PERSON)
