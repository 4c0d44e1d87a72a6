"""Each kind's layout, budget and what loads, from the agents' documented rules."""
from __future__ import annotations

import os

import pytest

from botmemory.core import kinds
from botmemory.core.base.errors import BadInput
from botmemory.core.disk.paths import FileKind
from botmemory.core.kinds.base import Limits

CC = kinds.get("claude-code")
OC = kinds.get("openclaw")
HE = kinds.get("hermes")


def test_the_registry_knows_four_kinds_and_names_them_on_a_bad_one():
    assert kinds.NAMES == ("openmausbot", "claude-code", "openclaw", "hermes")
    for name in kinds.NAMES:
        assert kinds.get(name).name == name
    with pytest.raises(BadInput, match="claude-code"):
        kinds.get("codex")


@pytest.mark.parametrize("kind,rel,expected", [
    (CC, "MEMORY.md", FileKind.MEMORY), (CC, "user_role.md", FileKind.TOPIC),
    (OC, "MEMORY.md", FileKind.MEMORY), (OC, "memory/2026-11-30.md", FileKind.TOPIC),
    (HE, "MEMORY.md", FileKind.MEMORY), (HE, "USER.md", FileKind.MEMORY),
])
def test_layout(kind, rel, expected):
    assert kind.classify(rel) is expected


@pytest.mark.parametrize("kind,rel", [
    (CC, "memory/x.md"), (CC, "../x.md"), (CC, ".hidden.md"), (CC, "notes.txt"),
    (OC, "AGENTS.md"), (OC, "memory/a/b.md"), (HE, "notes.md"), (HE, "../MEMORY.md"),
])
def test_paths_outside_the_layout_are_refused(kind, rel):
    with pytest.raises(BadInput):
        kind.classify(rel)


def test_hermes_counts_its_snapshot_and_reads_its_limits(tmp_path):
    text = "User prefers tea\n§\nProject uses postgres\n"
    got = HE.loaded("MEMORY.md", text, HE.limits(tmp_path, {}, {}))
    assert got.text == ("═" * 46 + "\nMEMORY (your personal notes) [1% — 40/2,200 chars]\n" + "═" * 46
                        + "\nUser prefers tea\n§\nProject uses postgres")
    assert (got.chars, got.max_chars) == (len("User prefers tea\n§\nProject uses postgres"), 2200)
    cfg = tmp_path / ".hermes" / "config.yaml"
    cfg.parent.mkdir()
    cfg.write_text("memory:\n  memory_char_limit: 40\n  user_char_limit: 500\n")
    lim = HE.limits(tmp_path, {}, {})
    assert lim.max_chars == {"MEMORY.md": 40, "USER.md": 500}
    g = HE.gauge({"MEMORY.md": text, "USER.md": ""}, lim)
    assert g.level == "red" and g.as_dict()["max_lines"] is None   # Hermes refuses writes past the limit
    cfg.write_text("memory: [unclosed\n")
    lim = HE.limits(tmp_path, {}, {})
    assert lim.max_chars == {"MEMORY.md": 2200, "USER.md": 1375} and "config.yaml" in lim.unread[0]


def test_hermes_entries_split_on_the_section_sign():
    text = "a b\n§\nc d\n§\ne f\n"
    pieces = HE.pieces("MEMORY.md", text)
    assert [p.text for p in pieces] == ["a b", "c d", "e f"]
    assert HE.without("MEMORY.md", text, [pieces[1]]) == "a b\n§\ne f\n"


def test_discovery_follows_the_documented_places(tmp_path):
    from tests.core.agent_fixtures import claude_code, hermes, openclaw

    user = tmp_path / "user"
    claude_code(user)
    (user / ".claude" / "agent-memory" / "reviewer").mkdir(parents=True)
    openclaw(user)
    hermes(user)
    found = [f for k in kinds.AGENT_NAMES for f in kinds.get(k).discover(user, {})[0]]
    names = {(f.agent, f.path.relative_to(user).as_posix(), f.name) for f in found}
    assert names == {
        ("claude-code", ".claude/projects/-src-blog/memory", "/src/blog"),
        ("claude-code", ".claude/agent-memory/reviewer", "agent reviewer"),
        ("openclaw", ".openclaw/workspace", "OpenClaw workspace"),
        ("hermes", ".hermes/memories", "Hermes memories"),
    }


def test_claude_config_dir_and_auto_memory_directory_are_honoured(tmp_path):
    other = tmp_path / "cfg"
    (other / "projects" / "-x" / "memory").mkdir(parents=True)
    moved = tmp_path / "user" / "mem"
    moved.mkdir(parents=True)
    (other / "settings.json").write_text('{"autoMemoryDirectory": "~/mem", "theme": "dark"}')
    found, unread = CC.discover(tmp_path / "user", {"CLAUDE_CONFIG_DIR": str(other)})
    assert {f.path for f in found} == {other / "projects" / "-x" / "memory", moved} and unread == []
    (other / "settings.json").write_text("{broken")
    found, unread = CC.discover(tmp_path / "user", {"CLAUDE_CONFIG_DIR": str(other)})
    assert [f.path for f in found] == [other / "projects" / "-x" / "memory"]
    assert "settings.json" in unread[0]


def test_links_are_not_memory_files(tmp_path):
    (tmp_path / "MEMORY.md").write_text("x\n")
    (tmp_path / "real.md").write_text("y\n")
    os.symlink(tmp_path / "real.md", tmp_path / "link.md")
    assert CC.memory_files(tmp_path) == ["MEMORY.md", "real.md"]


def test_line_ranges_are_short():
    from botmemory.core.kinds.base import line_ranges

    assert line_ranges([3, 7, 8, 9, 12]) == "3, 7-9, 12" and line_ranges([]) == ""


def test_the_openmausbot_kind_keeps_the_spec_budget_and_amber_mark():
    from botmemory.core.kinds import base, openmausbot
    from botmemory.core.text import budget

    assert (openmausbot.MAX_LINES, openmausbot.MAX_BYTES) == (budget.MEMORY_MAX_LINES, budget.MEMORY_MAX_BYTES)
    assert base.AMBER_AT == budget.AMBER_AT
    text = "".join(f"- {i}\n" for i in range(230))
    got = kinds.get("openmausbot").loaded("MEMORY.md", text, Limits(max_lines=200, max_bytes=24 * 1024))
    assert (got.text, got.unloaded_lines) == budget.loaded_text(text)


def test_a_home_without_a_source_serves_only_its_workspaces(tmp_path):
    from botmemory.core.disk.paths import Home
    from botmemory.core.store.memory import Memory
    from tests.core.agent_fixtures import hermes

    (tmp_path / "user").mkdir()
    d = hermes(tmp_path / "user")
    mem = Memory.open(str(tmp_path / "bm"))
    from botmemory.core.kinds import tracked

    tracked.track(mem.home, path=str(d), agent="hermes")
    assert mem.home.bots() == ["hermes-memories"] and mem.home.workspace("hermes-memories") == d
    assert Home(mem.home.root).bots() == []          # a bare Home: no registry attached


def test_a_write_to_a_tracked_folder_that_is_gone_never_creates_it(tmp_path):
    import shutil

    from botmemory.core.kinds import tracked
    from botmemory.core.store.memory import Memory
    from botmemory.core.store.writer import Actor, Write
    from tests.core.agent_fixtures import claude_code

    d = claude_code(tmp_path / "user")
    mem = Memory.open(str(tmp_path / "bm"))
    t = tracked.track(mem.home, path=str(d), agent="claude-code")
    shutil.rmtree(d)
    with pytest.raises(BadInput, match="untrack"):
        mem.store.apply(t.id, [Write("user_role.md", "x\n")], Actor.person("panel"))
    assert not d.exists()


class _Only:
    def __init__(self, folders):
        self._f = folders

    def folders(self):
        return self._f


@pytest.mark.parametrize("kind, name, expected", [
    ("openmausbot", "kestrel foods", "memory/kestrel foods.md"),
    ("openmausbot", "feedback_testing", None),          # a workspace's topic names have no '_'
    ("openmausbot", "archive", None),
    ("claude-code", "feedback_testing", "feedback_testing.md"),   # what Claude Code writes
    ("claude-code", "MEMORY", None),
    ("claude-code", "sub/x", None),
    ("openclaw", "feedback_testing.md", "memory/feedback_testing.md"),
    ("hermes", "notes", None),
])
def test_a_new_topics_path_follows_the_folders_kind(tmp_path, kind, name, expected):
    from botmemory.core.base.errors import BadInput
    from botmemory.core.disk.paths import Folder, Home
    from botmemory.core.ops.folders import topic_path

    folders = {} if kind == "openmausbot" else {"f": Folder("f", tmp_path, "f", kinds.get(kind))}
    home = Home(tmp_path, _Only(folders))
    bot = "scout" if kind == "openmausbot" else "f"
    if expected is None:
        with pytest.raises(BadInput):
            topic_path(home, bot, name)
    else:
        assert topic_path(home, bot, name) == expected


def test_project_level_agent_memory_is_found_for_the_projects_claude_code_knows(tmp_path):
    """``<project>/.claude/agent-memory/<agent>/`` for each project whose cwd a transcript names (docs/RULES.md "Agent kinds")."""
    from tests.core.agent_fixtures import claude_code

    user = tmp_path / "user"
    project = tmp_path / "src" / "blog"
    claude_code(user, cwd=str(project))
    (project / ".claude" / "agent-memory" / "tester").mkdir(parents=True)
    (project / ".claude" / "agent-memory" / "tester" / "feedback_testing.md").write_text("Run pytest -x.\n")
    (tmp_path / "elsewhere" / ".claude" / "agent-memory" / "ghost").mkdir(parents=True)   # no transcript names it
    found = {f.path: f.name for f in CC.discover(user, {})[0]}
    assert found == {user / ".claude" / "projects" / "-src-blog" / "memory": str(project),
                     project / ".claude" / "agent-memory" / "tester": f"{project} · agent tester"}
    assert CC.memory_files(project / ".claude" / "agent-memory" / "tester") == ["feedback_testing.md"]


def test_the_registry_is_read_again_only_when_it_changed(tmp_path, monkeypatch):
    """Every path of a bot asks which folders are tracked: an unchanged tracked.json is not read again, a
    changed one is, and a missing one is none."""
    from botmemory.core.kinds import tracked
    from botmemory.core.store.memory import Memory
    from tests.core.agent_fixtures import hermes

    (tmp_path / "user").mkdir()
    mem = Memory.open(str(tmp_path / "bm"))
    assert mem.home.bots() == []
    tracked.track(mem.home, path=str(hermes(tmp_path / "user")), agent="hermes")
    reads = []
    real = tracked.read_file
    monkeypatch.setattr(tracked, "read_file", lambda *a, **k: reads.append(a) or real(*a, **k))
    for _ in range(5):
        assert mem.home.is_tracked("hermes-memories")
    assert len(reads) <= 1
    tracked.untrack(mem.home, "hermes-memories")
    assert not mem.home.is_tracked("hermes-memories")
    tracked.registry_file(mem.home).unlink()
    assert mem.home.bots() == []
