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
    code, out, _ = run(capsys, "--root", root, "show", "scout", "memory/a.md", "--json")
    assert code == 0 and json.loads(out)["hash"] is None


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


# ----- save --expected-hash absent, show of a missing file, malformed hashes (issue 17 item 13)


def test_show_of_a_missing_file_is_empty_with_no_hash(capsys, root):
    code, out, err = run(capsys, "--root", root, "show", "scout", "memory/new.md", "--json")
    assert code == 0
    assert json.loads(out) == {"path": "memory/new.md", "text": "", "hash": None, "exists": False,
                               "valid_utf8": True}
    code, out, err = run(capsys, "--root", root, "show", "scout", "memory/new.md")
    assert code == 0 and out == "" and "does not exist yet" in err and one_line(err)


def test_save_expected_hash_absent_creates_only_while_absent(capsys, root, monkeypatch, tmp_path):
    code, out, _ = run(capsys, "--root", root, "save", "scout", "memory/new.md", "--expected-hash", "absent",
                       "--json", stdin=b"first\n", monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["changed"] is True
    p = tmp_path / "home" / "workspaces" / "scout" / "memory" / "new.md"
    assert p.read_text() == "first\n"
    code, out, err = run(capsys, "--root", root, "save", "scout", "memory/new.md", "--expected-hash", "ABSENT",
                         stdin=b"second\n", monkeypatch=monkeypatch)
    assert code == 3 and out == "first\n" and "conflict" in err
    assert p.read_text() == "first\n"


def test_expected_hash_ignores_case_and_malformed_is_bad_input(capsys, root, monkeypatch, tmp_path):
    run(capsys, "--root", root, "save", "scout", "memory/a.md", stdin=b"x\n", monkeypatch=monkeypatch)
    h = json.loads(run(capsys, "--root", root, "show", "scout", "memory/a.md", "--json")[1])["hash"]
    code, _, _ = run(capsys, "--root", root, "save", "scout", "memory/a.md", "--expected-hash", h.upper(),
                     stdin=b"y\n", monkeypatch=monkeypatch)
    assert code == 0
    for bad in ["xyz", "0" * 63, "g" * 64, "", "absent-ish"]:
        code, _, err = run(capsys, "--root", root, "save", "scout", "memory/a.md", "--expected-hash", bad,
                           stdin=b"z\n", monkeypatch=monkeypatch)
        assert code == 2 and "--expected-hash" in err and one_line(err), bad
        code, _, err = run(capsys, "--root", root, "rm", "scout", "memory/a.md", "--expected-hash", bad)
        assert code == 2 and one_line(err), bad
    code, _, err = run(capsys, "--root", root, "rm", "scout", "memory/a.md", "--expected-hash", "absent")
    assert code == 2 and one_line(err)
    assert (tmp_path / "home" / "workspaces" / "scout" / "memory" / "a.md").read_text() == "y\n"


# ----- rm edges (issue 17 items 11 and 16)


def test_rm_of_a_file_too_large_to_read_deletes_it_with_a_row_that_cannot_be_undone(capsys, root, tmp_path):
    p = tmp_path / "home" / "workspaces" / "scout" / "memory" / "huge.md"
    with open(p, "wb") as f:
        f.truncate(52 * 1000 * 1000)
    code, out, err = run(capsys, "--root", root, "rm", "scout", "memory/huge.md", "--json")
    assert code == 0, err
    assert not p.exists()
    assert json.loads(out)["undoable"] is False and "52 MB" in err and "cannot be undone" in err
    code, out, _ = run(capsys, "--root", root, "journal", "scout", "--json")
    row = json.loads(out)[0]
    assert row["file"] == "memory/huge.md" and row["undoable"] is False and "52 MB" in row["reason"]
    assert row["before_hash"] is not None
    code, _, err = run(capsys, "--root", root, "undo", "scout", row["id"])
    assert code == 4 and "52 MB" in err


def test_rm_of_a_file_not_utf8_says_it_cannot_be_undone(capsys, root, tmp_path):
    p = tmp_path / "home" / "workspaces" / "scout" / "memory" / "bad.md"
    p.write_bytes(b"caf\xe9\n")
    code, out, err = run(capsys, "--root", root, "rm", "scout", "memory/bad.md")
    assert code == 0 and not p.exists()
    assert "cannot be undone" in err and "UTF-8" in err and one_line(err)
    row = json.loads(run(capsys, "--root", root, "journal", "scout", "--json")[1])[0]
    assert row["undoable"] is False and "UTF-8" in row["reason"]


def test_rm_of_the_archive_is_refused(capsys, root, tmp_path):
    p = tmp_path / "home" / "workspaces" / "scout" / "memory" / "archive.md"
    p.write_text("- 2026-01-01 · old · moved 2026-02-01\n")
    code, _, err = run(capsys, "--root", root, "rm", "scout", "memory/archive.md")
    assert code == 4 and "archive" in err and one_line(err)
    assert p.exists()


def test_topics_in_other_scripts(capsys, root, monkeypatch, tmp_path):
    for name in ["формулы", "東京"]:
        code, _, err = run(capsys, "--root", root, "save", "scout", f"memory/{name}.md", stdin=b"- x\n",
                           monkeypatch=monkeypatch)
        assert code == 0, err
        assert (tmp_path / "home" / "workspaces" / "scout" / "memory" / f"{name}.md").read_text() == "- x\n"
    nfd = "memory/u\u0308ber.md"   # typed decomposed: stored and shown under its NFC name
    assert run(capsys, "--root", root, "save", "scout", nfd, stdin=b"- y\n", monkeypatch=monkeypatch)[0] == 0
    assert (tmp_path / "home" / "workspaces" / "scout" / "memory" / "\u00fcber.md").exists()
    code, _, err = run(capsys, "--root", root, "save", "scout", "memory/ .md", stdin=b"- y\n", monkeypatch=monkeypatch)
    assert code == 2 and "letters and digits of any script" in err and one_line(err)
