"""The journal's row chain: every write first records what changed outside, and journaling never fails a turn."""
from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from botmemory.core.faces.cli import main

BOT = "scout"


def cli(capsys, root: str, *args: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = main(["--root", root, "--today", "2026-10-15", *args])
    out, err = capsys.readouterr()
    return code, out, err


def rows(capsys, root: str) -> list[dict]:
    code, out, err = cli(capsys, root, "journal", BOT, "--limit", "1000", "--json")
    assert code == 0, err
    return json.loads(out)[::-1]   # oldest first


def assert_gapless(all_rows: list[dict]) -> None:
    last: dict[str, str | None] = {}
    for r in all_rows:
        if r["file"] in last:
            assert r["before_hash"] == last[r["file"]], f"a gap before row {r['id']} of {r['file']}"
        last[r["file"]] = r["after_hash"]


@pytest.fixture
def root(tmp_path, capsys, monkeypatch) -> str:
    r = str(tmp_path / "home")
    assert cli(capsys, r, "init", BOT)[0] == 0
    ws = Path(r) / "workspaces" / BOT
    (ws / "memory" / "trips.md").write_text("# Trips\n- 2026-10-01 · from cli · Lisbon in May\n")
    code, out, err = cli(capsys, r, "remember", BOT, "the office is in Pune")   # the first write: baseline + a row
    assert code == 0, err
    return r


def ws(root: str) -> Path:
    return Path(root) / "workspaces" / BOT


def edit_outside(root: str, rel: str, line: str) -> None:
    p = ws(root) / rel
    with open(p, "a", encoding="utf-8") as f:
        f.write(line)


COMMANDS = {
    "remember": (MEMORY_FILE := "MEMORY.md", ("remember", BOT, "tea, no sugar")),
    "save": ("memory/trips.md", ("save", BOT, "memory/trips.md")),
    "forget": ("MEMORY.md", ("forget", BOT, "Pune")),
    "rm": ("memory/trips.md", ("rm", BOT, "memory/trips.md")),
    "undo": ("MEMORY.md", ("undo", BOT, "LAST")),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_outside_edit_just_before_a_write_is_its_own_row(capsys, root, monkeypatch, command):
    rel, args = COMMANDS[command]
    last = rows(capsys, root)[-1]["id"]
    n = len(rows(capsys, root))
    edit_outside(root, rel, "- 2026-10-14 · from cli · added in another editor\n")
    args = tuple(last if a == "LAST" else a for a in args)
    code, out, err = cli(capsys, root, *args, stdin="# Trips\n- saved text\n" if command == "save" else None,
                         monkeypatch=monkeypatch)
    assert code == 0, err
    got = rows(capsys, root)
    assert len(got) == n + 2, [(r["who"], r["how"], r["file"]) for r in got[n:]]
    outside, write = got[n], got[n + 1]
    assert (outside["who"], outside["how"], outside["file"]) == ("person", "outside", rel)
    assert "added in another editor" in outside["diff"]
    assert write["who"] == "person" and write["how"] in ("cli", "undo")
    assert "added in another editor" not in "".join(ln for ln in write["diff"].split("\n") if ln.startswith("+"))
    assert_gapless(got)
    code, out, err = cli(capsys, root, "watch", "--once", "--json")
    assert code == 0 and json.loads(out) == []


def test_a_write_with_nothing_changed_outside_adds_one_row(capsys, root):
    n = len(rows(capsys, root))
    assert cli(capsys, root, "remember", BOT, "one more")[0] == 0
    assert len(rows(capsys, root)) == n + 1


# ----- journaling never fails a turn


def break_journal(root: str) -> Path:
    active = Path(root) / "memory-journal" / f"{BOT}.ndjson"
    os.replace(active, active.with_suffix(".kept"))
    active.mkdir()
    return active


def mend_journal(active: Path) -> None:
    active.rmdir()
    os.replace(active.with_suffix(".kept"), active)


def test_an_unwritable_journal_never_fails_a_turn_or_a_scan(capsys, caplog, root):
    active = break_journal(root)
    edit_outside(root, "MEMORY.md", "- 2026-10-14 · from cli · before the turn\n")
    code, out, err = cli(capsys, root, "turn", "begin", BOT, "--chat", "Plans")
    assert code == 0, err
    assert "the journal of scout" in caplog.text and "Traceback" not in err + caplog.text
    caplog.clear()
    turn = out.strip()
    edit_outside(root, "memory/trips.md", "- 2026-10-15 · from chat \"Plans\" · Porto in June\n")
    code, out, err = cli(capsys, root, "turn", "end", BOT, turn, "--said", "noted")
    assert code == 0, err
    assert "the journal of scout" in caplog.text and "Traceback" not in err + caplog.text
    caplog.clear()
    assert not list((Path(root) / "botmemory" / "turns").rglob("*.json"))   # the turn is over
    log = ws(root) / "memory" / "log" / "2026-10-15.md"
    assert "noted" in log.read_text()                                        # and its log line stands
    edit_outside(root, "MEMORY.md", "- 2026-10-15 · from cli · after the turn\n")
    code, out, err = cli(capsys, root, "watch", "--once")
    assert code == 0, err
    assert "the journal of scout" in caplog.text and "Traceback" not in err + caplog.text
    mend_journal(active)
    code, out, err = cli(capsys, root, "watch", "--once", "--json")   # nothing lost: recorded once it can be
    assert code == 0, err
    got = rows(capsys, root)
    text = "".join(r["diff"] for r in got)
    for words in ("before the turn", "Porto in June", "after the turn", "noted"):
        assert words in text
    assert_gapless(got)


def test_the_warning_is_one_line_on_stderr(capsys, root):
    import subprocess
    break_journal(root)
    edit_outside(root, "MEMORY.md", "- 2026-10-14 · from cli · before the turn\n")
    r = subprocess.run([sys.executable, "-m", "botmemory.core.faces.cli", "--root", root, "turn", "begin", BOT,
                        "--chat", "Plans"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip()
    assert r.stderr.startswith("botmemory: WARNING") and "could not write 1 row(s) to the journal of scout" in r.stderr
    assert "Traceback" not in r.stderr


def test_an_edit_during_a_turn_before_a_write_is_the_turns_work(capsys, root):
    code, turn, err = cli(capsys, root, "turn", "begin", BOT, "--chat", "Plans")
    assert code == 0, err
    n = len(rows(capsys, root))
    edit_outside(root, "MEMORY.md", "- 2026-10-15 · from chat \"Plans\" · written with the bot's file tool\n")
    assert cli(capsys, root, "remember", BOT, "and one through botmemory", "--chat", "Plans")[0] == 0
    got = rows(capsys, root)
    assert [(r["who"], r["how"], r["chat"]) for r in got[n:]] == [("bot", "task", "Plans"), ("bot", "task", "Plans")]
    assert "file tool" in got[n]["diff"] and "through botmemory" in got[n + 1]["diff"]
    assert_gapless(got)
    code, out, err = cli(capsys, root, "turn", "end", BOT, turn.strip(), "--json")
    assert code == 0, err
    assert_gapless(rows(capsys, root))


def test_a_file_made_outside_then_deleted_in_the_app_leaves_no_shadow(capsys, root):
    """Found by the undo property test: the outside row and the deletion are committed together, and the
    file's shadow must follow the deletion (the last change of a file in one commit), or a later file of
    the same text would never be recorded."""
    topic = Path(root) / "workspaces" / BOT / "memory" / "a.md"
    cli(capsys, root, "watch", "--once")
    topic.write_text("")                        # made in another editor
    assert cli(capsys, root, "rm", BOT, "memory/a.md")[0] == 0
    topic.write_text("")                        # and again
    cli(capsys, root, "watch", "--once")
    got = [r for r in rows(capsys, root) if r["file"] == "memory/a.md"]
    assert [(r["before_hash"] is None, r["after_hash"] is None) for r in got] == \
        [(True, False), (False, True), (True, False)]
    assert_gapless(rows(capsys, root))
