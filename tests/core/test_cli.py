"""The CLI as a person or a harness meets it: every bad input is one clear line and exit 2, nothing lost."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from botmemory.core.cli import main


def run(capsys, *args, stdin: bytes | None = None, monkeypatch=None):
    if stdin is not None:
        import io
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def root(tmp_path, capsys):
    r = str(tmp_path / "home")
    assert main(["--root", r, "init", "scout"]) == 0
    capsys.readouterr()
    return r


def one_line(err: str) -> bool:
    return err.startswith("botmemory: ") and err.count("\n") == 1


def test_unknown_bot(capsys, root):
    code, out, err = run(capsys, "--root", root, "gauge", "nobody")
    assert code == 2 and "unknown bot 'nobody'" in err and "scout" in err and one_line(err)


def test_missing_home(capsys, tmp_path):
    code, _, err = run(capsys, "--root", str(tmp_path / "none"), "show", "scout", "MEMORY.md")
    assert code == 2 and one_line(err)


@pytest.mark.parametrize("args", [
    ("--today", "2026-02-30", "bots"),
    ("remember", "scout", "x", "--until", "soon"),
    ("search", "scout", "x", "--since", "last week"),
    ("settings", "scout", "memory", "maybe"),
    ("gauge", "../etc"),
    ("nosuchcommand",),
])
def test_malformed_input(capsys, root, args):
    code, _, err = run(capsys, "--root", root, *args)
    assert code == 2 and err.startswith("botmemory: ") and err.strip()


def test_invalid_utf8_on_stdin_saves_nothing(capsys, root, monkeypatch):
    code, _, err = run(capsys, "--root", root, "save", "scout", "memory/a.md", stdin=b"bad \xff\n", monkeypatch=monkeypatch)
    assert code == 2 and "UTF-8" in err and one_line(err)
    code, _, _ = run(capsys, "--root", root, "show", "scout", "memory/a.md")
    assert code == 2


def test_invalid_utf8_file_reads_but_is_not_rewritten(capsys, root, tmp_path):
    p = tmp_path / "home" / "workspaces" / "scout" / "MEMORY.md"
    p.write_bytes(b"- 2026-10-01 \xff broken\n")
    code, out, _ = run(capsys, "--root", root, "gauge", "scout", "--json")
    assert code == 0 and json.loads(out)["lines"] == 1
    code, _, err = run(capsys, "--root", root, "remember", "scout", "new fact")
    assert code == 2 and "UTF-8" in err
    assert p.read_bytes() == b"- 2026-10-01 \xff broken\n"


def test_a_100_mb_file(capsys, root, tmp_path):
    p = tmp_path / "home" / "workspaces" / "scout" / "MEMORY.md"
    with open(p, "wb") as f:
        f.truncate(100 * 1024 * 1024)
    code, _, err = run(capsys, "--root", root, "gauge", "scout")
    assert code == 2 and "MB" in err and one_line(err)
    code, _, err = run(capsys, "--root", root, "remember", "scout", "x")
    assert code == 2
    assert p.stat().st_size == 100 * 1024 * 1024


def test_conflict_prints_the_current_text(capsys, root, monkeypatch):
    run(capsys, "--root", root, "save", "scout", "memory/a.md", stdin=b"theirs\n", monkeypatch=monkeypatch)
    code, out, err = run(capsys, "--root", root, "save", "scout", "memory/a.md", "--expected-hash", "0" * 64,
                         stdin=b"mine\n", monkeypatch=monkeypatch)
    assert code == 3 and out == "theirs\n" and "conflict" in err


def test_json_after_any_command(capsys, root):
    code, out, _ = run(capsys, "--root", root, "bots", "--json")
    assert code == 0 and json.loads(out) == ["scout"]
    code, out, _ = run(capsys, "--root", root, "--json", "settings", "scout")
    assert json.loads(out) == {"memory": True, "upkeep": True, "helper": True}


def test_memory_off_refuses_bot_writes_and_loads_nothing(capsys, root):
    run(capsys, "--root", root, "remember", "scout", "a fact")
    assert run(capsys, "--root", root, "settings", "scout", "memory", "off")[0] == 0
    code, out, _ = run(capsys, "--root", root, "load", "scout")
    assert code == 0 and out == ""
    code, _, err = run(capsys, "--root", root, "remember", "scout", "x", "--chat", "Plans")
    assert code == 4 and "switched off" in err
    assert run(capsys, "--root", root, "remember", "scout", "the person's own")[0] == 0


def test_help_lists_every_command(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for cmd in ["bots", "init", "gauge", "load", "remember", "forget", "prefer", "show", "save", "rm",
                "recall", "search", "settings"]:
        assert cmd in out


def test_core_imports_no_qt():
    code = ("import importlib, pkgutil, sys\n"
            "import botmemory.core as c\n"
            "[importlib.import_module(m.name) for m in pkgutil.walk_packages(c.__path__, 'botmemory.core.')]\n"
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ----- forget, prefer, journal (issue 17)


def _ws(root):
    from pathlib import Path

    return Path(root) / "workspaces" / "scout"


@pytest.mark.parametrize("word", ["berlin", "chat", "cli", "2026", "Dentist", "room"])
def test_forget_judges_the_fact_not_the_chat_it_came_from(capsys, root, word):
    assert run(capsys, "--root", root, "remember", "scout", "Prefers aisle seats", "--chat", "Berlin trip")[0] == 0
    (_ws(root) / "MEMORY.md").write_text((_ws(root) / "MEMORY.md").read_text()
                                         + '- 2026-10-01 · from room "Dentist" · Likes tea\n')
    before = (_ws(root) / "MEMORY.md").read_text()
    code, out, err = run(capsys, "--root", root, "forget", "scout", word)
    assert (code, out, err) == (0, "forgot 0 notes\n", "")
    assert (_ws(root) / "MEMORY.md").read_text() == before
    code, out, _ = run(capsys, "--root", root, "forget", "scout", "aisle")
    assert (code, out) == (0, "forgot 1 note in MEMORY.md\n")


@pytest.mark.parametrize("word", ["the", "is", "a", "..."])
def test_forget_refuses_a_word_that_names_nothing(capsys, root, word):
    run(capsys, "--root", root, "remember", "scout", "The office is in Pune")
    code, out, err = run(capsys, "--root", root, "forget", "scout", "--", word)
    assert code == 2 and out == "" and one_line(err) and repr(word) in err
    assert "Pune" in (_ws(root) / "MEMORY.md").read_text()


def test_forget_that_cannot_look_at_a_file_says_so_and_writes_nothing(capsys, root):
    run(capsys, "--root", root, "remember", "scout", "Lisbon flat")
    (_ws(root) / "memory" / "trips.md").write_bytes(b"- Lisbon \xff trip\n")
    code, out, err = run(capsys, "--root", root, "forget", "scout", "Lisbon")
    assert code == 2 and out == "" and one_line(err) and "memory/trips.md" in err and "UTF-8" in err
    assert "Lisbon flat" in (_ws(root) / "MEMORY.md").read_text()
    assert not (_ws(root).parent.parent / "profile-learned.json").exists()


def test_remember_says_forgotten_words_can_be_learned_again(capsys, root):
    assert run(capsys, "--root", root, "forget", "scout", "IST")[0] == 0
    code, out, _ = run(capsys, "--root", root, "remember", "scout", "Times are in IST")
    assert code == 0 and out.splitlines()[-1] == "IST can be learned again"
    run(capsys, "--root", root, "forget", "scout", "IST")
    code, out, _ = run(capsys, "--root", root, "remember", "scout", "Meeting 9 IST", "--json")
    assert json.loads(out)["learnable_again"] == [["IST"]]
    code, out, _ = run(capsys, "--root", root, "remember", "scout", "Unrelated", "--json")
    assert json.loads(out)["learnable_again"] == []


def test_duplicate_prefer_names_the_existing_line(capsys, root, tmp_path):
    from datetime import date

    run(capsys, "--root", root, "--today", "2026-09-01", "prefer", "scout", "Reminders go to my task app")
    run(capsys, "--root", root, "init", "other")
    code, out, _ = run(capsys, "--root", root, "--today", "2026-10-01", "prefer", "other", "reminders go to my task app")
    assert code == 0
    assert out == "already in About me: - 2026-09-01 · learned by scout · Reminders go to my task app\n"
    assert date(2026, 10, 1).isoformat() not in out


def test_journal_limit_zero_prints_no_rows(capsys, root):
    code, out, err = run(capsys, "--root", root, "journal", "scout", "--limit", "0")
    assert (code, out, err) == (0, "", "")
    code, out, _ = run(capsys, "--root", root, "journal", "scout", "--limit", "0", "--json")
    assert (code, json.loads(out)) == (0, [])
    code, out, _ = run(capsys, "--root", root, "journal", "scout")
    assert out == "no changes recorded for scout yet\n"


def test_gauge_says_one_line_in_the_singular(capsys, root):
    (_ws(root) / "MEMORY.md").write_text("".join(f"line {i}\n" for i in range(201)))
    code, out, _ = run(capsys, "--root", root, "gauge", "scout")
    assert code == 0 and "· 1 line does not load" in out
    code, out, _ = run(capsys, "--root", root, "load", "scout")
    assert "[MEMORY.md was cut off here: 1 more line did not load]" in out
