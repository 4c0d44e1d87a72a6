"""The CLI contract of undo (docs/RULES.md "Undo"), run as a real process.

``undo BOT ROW_ID`` reverses that row's own lines: exit 3 with both texts on a
real conflict, exit 4 only when the lines to bring back held a credential
(naming them), ``--whole`` the whole-file restore; before a forget, save or rm
whose row could not bring something back, a line on stderr says so.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import BOT

GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


class Cli:
    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root, self.env = root, env

    def __call__(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(self.root),
                               "--today", "2026-10-15", *args], input=stdin, capture_output=True, text=True,
                              env=self.env, timeout=60)

    def ok(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        p = self(*args, stdin=stdin)
        assert p.returncode == 0, f"{args}: {p.returncode}\n{p.stdout}\n{p.stderr}"
        return p

    def rows(self, bot: str = BOT) -> list[dict]:
        return json.loads(self.ok("journal", bot, "--json").stdout)

    @property
    def ws(self) -> Path:
        return self.root / "workspaces" / BOT


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    user = tmp_path / "user"
    user.mkdir()
    env = {**os.environ, "HOME": str(user)}
    c = Cli(tmp_path / "home", env)
    c.ok("init", BOT)
    return c


def test_undo_of_an_older_row_keeps_the_later_ones(cli):
    cli.ok("remember", BOT, "first fact")
    cli.ok("remember", BOT, "regretted fact")
    rid = cli.rows()[0]["id"]
    cli.ok("remember", BOT, "later fact")
    p = cli.ok("undo", BOT, rid)
    text = (cli.ws / "MEMORY.md").read_text()
    assert "regretted fact" not in text and "first fact" in text and "later fact" in text
    assert "took out 1 line" in p.stdout
    newest = cli.rows()[0]
    assert newest["how"] == "undo" and newest["undoes"] == rid
    assert f"(undo of {rid})" in cli.ok("journal", BOT, "--limit", "1").stdout


def test_a_real_conflict_is_exit_3_with_both_texts_and_nothing_written(cli):
    cli.ok("save", BOT, "memory/a.md", stdin="a\nb\nc\n")
    cli.ok("save", BOT, "memory/a.md", stdin="a\nB1\nc\n")
    rid = cli.rows()[0]["id"]
    cli.ok("save", BOT, "memory/a.md", stdin="a\nB2\nc\n")
    p = cli("undo", BOT, rid)
    assert p.returncode == 3 and "nothing was written" in p.stderr
    assert p.stdout.startswith("a\nB2\nc\n") and p.stdout.rstrip().endswith("a\nb\nc")   # the file now, then undone
    j = cli("undo", BOT, rid, "--json")
    got = json.loads(j.stdout)
    assert j.returncode == 3 and got["conflict"] and got["text"] == "a\nB2\nc\n" and got["undone"] == "a\nb\nc\n"
    assert got["clashes"] == [{"line": 2, "now": ["B2"], "left": ["B1"], "back": ["b"]}]
    assert (cli.ws / "memory" / "a.md").read_text() == "a\nB2\nc\n"
    cli.ok("undo", BOT, rid, "--force", "--expected-hash", got["hash"])
    assert (cli.ws / "memory" / "a.md").read_text() == "a\nb\nc\n"


def test_whole_restores_the_newest_row_and_is_hash_checked(cli):
    cli.ok("save", BOT, "memory/a.md", stdin="one\n")
    cli.ok("save", BOT, "memory/a.md", stdin="one\ntwo\n")
    older = cli.rows()[0]["id"]
    cli.ok("save", BOT, "memory/a.md", stdin="one\ntwo\nthree\n")
    newer = cli.rows()[0]["id"]
    p = cli("undo", BOT, older, "--whole")
    assert p.returncode == 3 and (cli.ws / "memory" / "a.md").read_text() == "one\ntwo\nthree\n"
    cli.ok("undo", BOT, newer, "--whole")
    assert (cli.ws / "memory" / "a.md").read_text() == "one\ntwo\n"


def test_dry_run_says_which_lines_come_back_and_writes_nothing(cli):
    cli.ok("save", BOT, "memory/a.md", stdin="- keep\n- the fence is blue\n")
    cli.ok("save", BOT, "memory/a.md", stdin="- keep\n")
    rid = cli.rows()[0]["id"]
    p = cli.ok("undo", BOT, rid, "--dry-run")
    assert "brings back" in p.stdout and "the fence is blue" in p.stdout
    assert (cli.ws / "memory" / "a.md").read_text() == "- keep\n" and cli.rows()[0]["id"] == rid


def _openclaw(cli: Cli) -> tuple[str, Path]:
    ws = Path(cli.env["HOME"]) / ".openclaw" / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("- keep me\n")
    t = json.loads(cli.ok("track", "--path", str(ws), "--agent", "openclaw", "--json").stdout)
    return t["id"], ws


def test_exit_4_names_the_line_that_held_a_credential_and_the_other_lines_come_back(cli):
    bot, ws = _openclaw(cli)
    cli.ok("watch", "--once")
    (ws / "MEMORY.md").write_text(f"- keep me\n- token {GH}\n- the fence is blue\n")   # the agent wrote it
    cli.ok("watch", "--once")
    p = cli.ok("save", bot, "MEMORY.md", stdin="- keep me\n")
    assert "credential" in p.stderr and "token «redacted" in p.stderr and GH not in p.stderr   # told at the save
    rid = cli.rows(bot)[0]["id"]
    p = cli("undo", bot, rid)
    assert p.returncode == 4 and "token «redacted" in p.stderr and GH not in p.stderr + p.stdout
    assert (ws / "MEMORY.md").read_text() == "- keep me\n- the fence is blue\n"


def test_forget_says_on_stderr_what_its_rows_cannot_bring_back(cli):
    bot, ws = _openclaw(cli)
    (ws / "MEMORY.md").write_text(f"- keep me\n- deploy token {GH}\n")
    p = cli.ok("forget", bot, "deploy", "--dry-run")
    assert "credential" in p.stderr and GH not in p.stderr
    p = cli.ok("forget", bot, "deploy")
    assert "credential" in p.stderr and (ws / "MEMORY.md").read_text() == "- keep me\n"


def test_a_save_or_rm_past_the_journal_limit_is_warned_on_stderr(cli):
    (cli.root / "config.json").write_text(json.dumps({"memory": {"journalKeepMB": 0.01}}))
    big = "".join(f"- line {i} of a longer topic\n" for i in range(2000))
    cli.ok("save", BOT, "memory/big.md", stdin=big)
    p = cli.ok("save", BOT, "memory/big.md", stdin="small\n")
    assert "cannot be undone" in p.stderr and "journalKeepMB" in p.stderr
    row = cli.rows()[0]
    assert row["undoable"] is False and "journalKeepMB" in row["reason"]
    assert cli("undo", BOT, row["id"]).returncode == 4


def test_undo_takes_bot_and_row_or_home_and_row(cli):
    assert cli("undo", BOT).returncode == 2
    assert cli("undo", "--home", BOT, "0192f3a4b5c6-1a2b3c").returncode == 2
    assert cli("journal").returncode == 2
