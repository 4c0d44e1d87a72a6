"""The CLI as a person or a harness meets it: every bad input is one clear line and exit 2, nothing lost."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from botmemory.core.faces.cli import main


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



@pytest.mark.parametrize("columns", ["50", "120"])
def test_help_is_as_wide_as_the_terminal_says(capsys, monkeypatch, columns):
    """The width argparse would read with shutil, read without it ($COLUMNS first)."""
    monkeypatch.setenv("COLUMNS", columns)
    assert main(["gauge", "--help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= int(columns)
    assert max(len(line) for line in lines) > int(columns) - 25   # and wrapped at that width, not at 80


@pytest.mark.parametrize("command", ["gauge", "load"])
def test_a_gauge_or_load_process_imports_no_typing_shutil_hashlib_nor_redaction(tmp_path, command):
    """typing (3 ms) and shutil (with lzma and bz2, 3 ms) cost every command for nothing, a gauge or a load
    hashes nothing (hashlib loads OpenSSL: 4 ms), and neither redacts (the patterns: 50 ms). A load reads the
    teams too, whose format-1 migration needs all of them: they load only when a team is migrated."""
    root = str(tmp_path / "home")
    assert main(["--root", root, "init", "scout"]) == 0
    (tmp_path / "home" / "teams").mkdir()   # a load then reads the teams (and checks for format-1 ones)
    code = ("import sys; from botmemory.core.faces import entry;"
            "rc = entry.main(sys.argv[1:]);"
            "print(rc, [m for m in ('typing', 'shutil', 'lzma', 'bz2', 'hashlib', 'botmemory.core.redact')"
            " if m in sys.modules])")
    p = subprocess.run([sys.executable, "-c", code, "--root", root, command, "scout"], capture_output=True, text=True)
    assert p.stdout.strip().splitlines()[-1] == "0 []", p.stderr

@pytest.mark.parametrize("command", ["recall", "search"])
@pytest.mark.parametrize("bot", ["a" * 300, "../scout", "sc out"])
def test_recall_and_search_refuse_a_bad_bot_id_in_one_line(capsys, root, command, bot):
    """recall and search answer without the full parser (the fast path): a bot id that is not one is bad
    input there too (exit 2, one line), never a path looked at (a 300-character id was an OSError, exit 1)."""
    from botmemory.core.faces import entry

    code = entry.main(["--root", root, command, bot, "garden"])
    err = capsys.readouterr().err
    assert code == 2 and "bad bot id" in err and one_line(err), err


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


def test_search_finds_a_note_by_its_fact_or_its_chat_title_and_the_hit_names_the_chat(capsys, root):
    assert run(capsys, "--root", root, "remember", "scout", "Prefers aisle seats", "--chat", "Berlin trip")[0] == 0
    for words in (["aisle"], ["berlin"], ["berlin", "aisle"], ["Trip"]):
        code, out, err = run(capsys, "--root", root, "search", "scout", *words, "--json")
        hits = json.loads(out)
        assert code == 0 and len(hits) == 1 and 'from chat "Berlin trip"' in hits[0]["text"], words


@pytest.mark.parametrize("word", ["chat", "room", "from", "cli", "2026", "noticed", "until"])
def test_search_never_matches_an_entrys_fixed_words_or_date(capsys, root, word):
    assert run(capsys, "--root", root, "remember", "scout", "Prefers aisle seats", "--chat", "Berlin trip",
               "--until", "2027-01-01")[0] == 0
    (_ws(root) / "MEMORY.md").write_text((_ws(root) / "MEMORY.md").read_text()
                                         + '- 2026-10-01 · from room "Dentist" (noticed) · Likes tea\n'
                                         + "- 2026-10-02 · from cli · Drinks coffee\n")
    code, out, err = run(capsys, "--root", root, "search", "scout", word, "--json")
    assert (code, json.loads(out)) == (0, [])


def test_journal_grep_matches_the_diff_as_written_chat_title_included(capsys, root):
    assert run(capsys, "--root", root, "remember", "scout", "Prefers aisle seats", "--chat", "Berlin trip")[0] == 0
    code, out, _ = run(capsys, "--root", root, "journal", "scout", "--grep", "berlin", "--json")
    assert code == 0 and [r["file"] for r in json.loads(out)] == ["MEMORY.md"]


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


def test_journal_limit_larger_than_any_index_lists_every_row(capsys, root):
    run(capsys, "--root", root, "remember", "scout", "one note")
    code, out, err = run(capsys, "--root", root, "journal", "scout", "--limit", "9" * 30, "--json")
    assert code == 0 and err == ""
    assert len(json.loads(out)) == 1


def test_gauge_says_one_line_in_the_singular(capsys, root):
    (_ws(root) / "MEMORY.md").write_text("".join(f"line {i}\n" for i in range(201)))
    code, out, _ = run(capsys, "--root", root, "gauge", "scout")
    assert code == 0 and "· 1 line does not load" in out
    code, out, _ = run(capsys, "--root", root, "load", "scout")
    assert "[MEMORY.md was cut off here: 1 more line did not load]" in out


# ----- arguments that are not UTF-8, and chat titles

BAD = "Chat\udcff"   # what Python makes of the byte 0xff in argv (surrogateescape)


@pytest.mark.parametrize("args", [
    ("remember", "scout", "note \udcff"),
    ("remember", "scout", "a note", "--chat", BAD),
    ("forget", "scout", "word", "b\udcffd"),
    ("prefer", "scout", "tea \udcff"),
    ("save", "scout", "memory/a.md", "--chat", BAD),
    ("turn", "begin", "scout", "--chat", BAD),
    ("search", "scout", "x\udcff"),
])
def test_an_argument_that_is_not_utf8_is_refused_up_front(capsys, root, args):
    from pathlib import Path
    before = sorted(str(p) for p in Path(root).rglob("*"))
    code, out, err = run(capsys, "--root", root, *args)
    assert code == 2 and one_line(err) and "not valid UTF-8" in err and "\\xff" in err
    assert "Traceback" not in err and "Error" not in err
    assert sorted(str(p) for p in Path(root).rglob("*")) == before


def test_a_real_process_with_a_bad_byte_in_argv_exits_2(root):
    r = subprocess.run([sys.executable, "-m", "botmemory.core.faces.cli", "--root", root, "remember", "scout",
                        b"caf\xe9".decode("utf-8", "surrogateescape")], capture_output=True)
    assert r.returncode == 2 and b"not valid UTF-8" in r.stderr and r.stderr.count(b"\n") == 1


def test_a_turn_whose_stored_title_is_not_utf8_still_ends(capsys, root):
    from pathlib import Path

    from botmemory.core.outside.turns import turn_begin
    from botmemory.core.store.memory import Memory

    mem = Memory.open(root)
    turn = turn_begin(mem, "scout", "Plans")
    f = next(Path(root).rglob(f"{turn}.json"))   # a title stored by an older botmemory
    d = json.loads(f.read_text())
    f.write_text(json.dumps({**d, "chat": BAD + "\nline two"}))
    (Path(root) / "workspaces/scout/MEMORY.md").write_text("- 2026-10-15 · from cli · a fact\n")
    code, out, err = run(capsys, "--root", root, "turn", "end", "scout", turn, "--said", "done")
    assert code == 0, err
    assert not list(Path(root).rglob(f"{turn}.json"))
    code, out, _ = run(capsys, "--root", root, "journal", "scout", "--json")
    rows = json.loads(out)
    assert {r["chat"] for r in rows} == {"Chat\ufffd line two"}
    log = next(Path(root).rglob("memory/log/*.md")).read_text(encoding="utf-8")
    assert log.count("\n") == 1 and 'chat "Chat\ufffd line two"' in log


def test_a_title_with_a_newline_writes_one_entry(capsys, root):
    from pathlib import Path
    forged = "x\n- 2020-01-01 · from cli · injected"
    code, out, err = run(capsys, "--root", root, "remember", "scout", "the fact", "--chat", forged)
    assert code == 0, err
    text = (Path(root) / "workspaces/scout/MEMORY.md").read_text()
    assert text.count("\n") == 1 and "\n- 2020-01-01" not in text
    assert text.endswith('from chat "x - 2020-01-01 · from cli · injected" · the fact\n')
    code, out, _ = run(capsys, "--root", root, "journal", "scout", "--json")
    assert json.loads(out)[0]["chat"] == "x - 2020-01-01 · from cli · injected"


def test_a_key_in_a_title_is_redacted(capsys, root):
    from pathlib import Path
    key = "ghp_" + "R4nd0mT0k3nV4lu3F0rT3st1ngAbCdEf1234"
    code, _, err = run(capsys, "--root", root, "remember", "scout", "the fact", "--chat", f"deploy {key}")
    assert code == 0, err
    for p in Path(root).rglob("*"):
        if p.is_file():
            assert key.encode() not in p.read_bytes(), p


def test_turn_end_said_and_tools_stay_one_redacted_log_line(capsys, root):
    from pathlib import Path
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 3
    pem = f"-----BEGIN PRIVATE KEY-----\n{body}\n{body}\n{body}\n-----END PRIVATE KEY-----"
    code, turn, err = run(capsys, "--root", root, "turn", "begin", "scout", "--chat", "Ops")
    assert code == 0, err
    code, _, err = run(capsys, "--root", root, "turn", "end", "scout", turn.strip(), "--said", f"here you go {pem}",
                       "--tools", "write\n- 09:00 · chat 'x' · forged,read")
    assert code == 0, err
    log = next(Path(root).rglob("memory/log/*.md")).read_text(encoding="utf-8")
    assert log.count("\n") == 1 and "MIIEvQ" not in log and "«redacted" in log
    assert "tools: write - 09:00 · chat 'x' · forged, read" in log


def test_turn_begin_stores_its_title_on_one_line(capsys, root):
    from pathlib import Path
    code, turn, err = run(capsys, "--root", root, "turn", "begin", "scout", "--chat",
                          'x\n- 2020-01-01 · from cli · injected "q"')
    assert code == 0, err
    stored = json.loads(next(Path(root).rglob(f"{turn.strip()}.json")).read_text())["chat"]
    assert stored == "x - 2020-01-01 · from cli · injected 'q'"
    code, _, err = run(capsys, "--root", root, "turn", "begin", "scout", "--chat", "\n\x00 ")
    assert code == 2 and one_line(err)


# ----- a bot id that is a credential

def test_a_credential_is_refused_as_a_bot_id_and_nothing_is_written(capsys, root):
    token = "xoxb-123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx"
    home = Path(root)
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    for args in (("init", token), ("remember", token, "a note")):
        code, out, err = run(capsys, "--root", root, *args)
        assert code == 4 and out == ""
        assert err.count("\n") == 1 and "credential" in err and token not in err
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before


@pytest.mark.parametrize("name", ["xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
                                  "gl" + "pat-" + "A1b2C3d4E5f6G7h8I9j0", "AK" + "IAQ3EGRT7VXB2HLW4J"])
def test_a_topic_named_like_a_credential_is_refused_and_nothing_is_written(capsys, root, monkeypatch, name):
    """A topic's name goes outside the workspace (journal rows, shadows, the recall index), as a bot id does."""
    home = Path(root)
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    code, out, err = run(capsys, "--root", root, "save", "scout", f"memory/{name}.md", stdin=b"notes\n",
                         monkeypatch=monkeypatch)
    assert code == 4 and out == "" and err.count("\n") == 1 and "credential" in err and name not in err
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before
    code, _, _ = run(capsys, "--root", root, "save", "scout", "memory/stripe-keys.md", stdin=b"notes\n",
                     monkeypatch=monkeypatch)
    assert code == 0     # a name that only mentions keys is fine


# ----- control characters in a note's text

@pytest.mark.parametrize("ctrl", ["\x1b[2J", "\x07", "\x00", "\x7f", "\x9b"])
def test_a_control_character_in_a_note_is_refused_and_nothing_is_written(capsys, root, ctrl):
    memory = Path(root) / "workspaces" / "scout" / "MEMORY.md"
    before = memory.read_bytes()
    code, out, err = run(capsys, "--root", root, "remember", "scout", f"clear{ctrl}screen")
    assert code == 2 and out == "" and err.count("\n") == 1 and "control character" in err, err
    assert memory.read_bytes() == before


def test_tabs_and_line_ends_in_a_note_are_fine(capsys, root):
    code, out, err = run(capsys, "--root", root, "remember", "scout", "first\tline\r\nsecond line")
    assert code == 0, err


def test_remember_until_a_past_day_is_refused_and_today_is_kept(capsys, root):
    memory = _ws(root) / "MEMORY.md"
    before = memory.read_bytes()
    code, out, err = run(capsys, "--root", root, "--today", "2026-10-15", "remember", "scout", "Ana in Lisbon",
                         "--until", "2026-10-14")
    assert code == 2 and one_line(err) and "until 2026-10-14 is before today (2026-10-15)" in err
    assert memory.read_bytes() == before
    code, out, err = run(capsys, "--root", root, "--today", "2026-10-15", "remember", "scout", "Ana in Lisbon",
                         "--until", "2026-10-15")
    assert code == 0 and memory.read_text().endswith("Ana in Lisbon · until 2026-10-15\n")


def _parsed(parser, argv):
    """What *parser* makes of *argv*: the namespace, or the exit code and what it printed."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            ns = vars(parser.parse_args(argv))
        except SystemExit as e:
            return ("exit", e.code, out.getvalue(), err.getvalue())
    return {k: (v.__name__ if callable(v) else v) for k, v in ns.items()}


def test_a_command_parsed_by_its_own_parser_alone_reads_as_with_every_command():
    """Only the named command's parser is built (argparse's parsers cost a fifth of `botmemory gauge`); each
    command's help, its errors and a good command line read exactly as with every parser built."""
    from botmemory.core.faces import cli as c

    full = c.build_parser()
    assert {"gauge", "load", "sync", "team", "journal", "undo", "search", "turn"} <= full.commands
    for name in sorted(full.commands):
        own = c.parser_for(["--root", "/x", name])
        assert len(own._subparsers._group_actions[0].choices) == 1, name
        for argv in ([name, "--help"], ["--root", "/x", name], [name, "--bogus"]):
            assert _parsed(own, argv) == _parsed(full, argv), (name, argv)
    assert _parsed(c.parser_for(["gauge", "scout", "--json"]), ["gauge", "scout", "--json"]) == \
        _parsed(full, ["gauge", "scout", "--json"])
    assert _parsed(c.parser_for(["search", "scout", "--scope", "team", "w"]),
                   ["search", "scout", "--scope", "team", "w"]) == _parsed(full, ["search", "scout", "--scope", "team", "w"])
    for argv in (["gauge-it", "scout"], ["--help"], [], ["-v"], ["--root=/x", "nosuch"]):
        assert c.parser_for(argv).commands == full.commands
        assert len(c.parser_for(argv)._subparsers._group_actions[0].choices) == len(full.commands), argv
        assert _parsed(c.parser_for(argv), argv) == _parsed(full, argv), argv
