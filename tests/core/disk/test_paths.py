from __future__ import annotations

from pathlib import Path

import pytest

from botmemory.core.base.errors import BadInput
from botmemory.core.disk.paths import FileKind, Home, check_bot_id, classify, parse_day, today


@pytest.mark.parametrize("rel,kind", [
    ("MEMORY.md", FileKind.MEMORY), ("memory/archive.md", FileKind.ARCHIVE),
    ("memory/Client notes-2.md", FileKind.TOPIC), ("memory/log/2026-10-14.md", FileKind.LOG),
    ("memory/v1.2 plan.md", FileKind.TOPIC), ("memory/формулы.md", FileKind.TOPIC), ("memory/東京.md", FileKind.TOPIC),
    ("memory/ü.md", FileKind.TOPIC), ("memory/u\u0308ber.md", FileKind.TOPIC), ("memory/हिन्दी नोट्स.md", FileKind.TOPIC),
    ("memory/Ελλάδα 2.md", FileKind.TOPIC),
])
def test_good_paths(rel, kind):
    assert classify(rel) is kind


@pytest.mark.parametrize("rel", [
    "memory/../evil.md", "memory/.hidden.md", "memory/sub/x.md", "memory/notes.txt", "../x.md",
    "/etc/passwd", "memory/log/2026-13-01.md", "memory/log/today.md", "memory/a_b.md",
    "MEMORY.MD", "memory/", "memory/.md", "", "memory/ .md", "memory/   .md", "memory/. .md", "memory/...md",
    "memory/ lead.md", "memory/a\tb.md", "memory/a\nb.md", "memory/a\x00b.md", "memory/a\\b.md",
    "memory/a:b.md", "memory/\u0308x.md", "memory/" + "я" * 130 + ".md", "memory/a\u202eb.md",
])
def test_bad_paths(rel):
    with pytest.raises(BadInput):
        classify(rel)


@pytest.mark.parametrize("bot", ["", ".hidden", "a/b", "x" * 65, "sp ace", "..", "é"])
def test_bad_bot_ids(bot):
    with pytest.raises(BadInput):
        check_bot_id(bot)


def test_good_bot_ids():
    for bot in ["scout", "Scout-2", "a.b_c", "x" * 64, "_x"]:
        assert check_bot_id(bot) == bot


def test_dates():
    assert parse_day("2026-02-28").day == 28
    for bad in ["2026-02-30", "26-1-1", "yesterday", "2026/01/01"]:
        with pytest.raises(BadInput):
            parse_day(bad)
    assert today("2026-10-15").isoformat() == "2026-10-15"


def test_home_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENMAUSBOT_HOME", str(tmp_path / "env"))
    assert Home.locate(str(tmp_path / "root")).root == tmp_path / "root"
    assert Home.locate(None).root == tmp_path / "env"
    monkeypatch.delenv("OPENMAUSBOT_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "h" / ".openmausbot").mkdir(parents=True)
    assert Home.locate(None).root == tmp_path / "h" / ".openmausbot"


def test_without_openmausbot_the_home_is_the_platform_data_folder(monkeypatch, tmp_path):
    """A person who only runs Claude Code: no --root, no $OPENMAUSBOT_HOME, no ~/.openmausbot."""
    monkeypatch.delenv("OPENMAUSBOT_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from platformdirs import user_data_dir

    assert Home.locate(None).root == Path(user_data_dir("botmemory", appauthor=False))
    assert not (tmp_path / "h" / ".openmausbot").exists()


def test_unknown_bot_names_the_known_ones(tmp_path):
    home = Home(tmp_path)
    (tmp_path / "workspaces" / "scout").mkdir(parents=True)
    with pytest.raises(BadInput, match="scout"):
        home.require_bot("nobody")


def test_memory_files_skip_links_and_other_files(tmp_path):
    home = Home(tmp_path)
    ws = tmp_path / "workspaces" / "scout"
    (ws / "memory" / "log").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("")
    (ws / "memory" / "a.md").write_text("")
    (ws / "memory" / "b.txt").write_text("")
    (ws / "memory" / ".c.md").write_text("")
    (ws / "memory" / "link.md").symlink_to(ws / "memory" / "a.md")
    (ws / "memory" / "log" / "2026-10-01.md").write_text("")
    assert home.memory_files("scout") == ["MEMORY.md", "memory/a.md", "memory/log/2026-10-01.md"]


def test_topic_message_says_what_is_allowed():
    with pytest.raises(BadInput) as e:
        classify("memory/a_b.md")
    msg = str(e.value)
    assert "letters and digits of any script" in msg and "spaces, dots and dashes" in msg
    assert "use letters" not in msg


def test_an_ascii_topic_name_is_judged_as_the_general_rule_judges_it() -> None:
    """topic_name_ok's one-match path for ASCII names agrees with the character-by-character rule."""
    import itertools
    import random

    from botmemory.core.disk.paths import _topic_name_any_script as general
    from botmemory.core.disk.paths import topic_name_ok

    alphabet = "aZ09 .-_~#\t/\\:md"
    names = ["".join(p) for n in range(1, 4) for p in itertools.product(alphabet, repeat=n)]
    rng = random.Random(1)
    names += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) + rng.choice([".md", ".MD", "md", ""])
              for _ in range(20000)]
    names += ["a" * 247 + ".md", "a" * 248 + ".md", ".md", "..md", " .md", "-.md", "a .md", "a..md", "notes.md"]
    for name in names:
        assert topic_name_ok(name) == general(name), name
