"""``botmemory sync …`` as a person and a script use it: outputs, JSON, exit codes, one-line errors; and ``watch``
syncing by itself on two homes."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

from ..sync.conftest import BOT, Computer, bare


def test_sync_without_a_command_or_a_setup_says_what_to_do(tmp_path):
    c = Computer(tmp_path / "laptop", "laptop")
    r = c.cli("sync")
    assert r.returncode == 2 and "sync needs a command: setup, add, now, status, resolve or remove" in r.stderr
    c.ok("init", BOT)
    for args in (("sync", "now"), ("sync", "add", BOT)):
        r = c.cli(*args)
        assert r.returncode == 2 and "sync is not set up on this computer: `botmemory sync setup REMOTE`" in r.stderr
    r = c.ok("sync", "status", "--json")
    assert json.loads(r.stdout) == {"remote": None, "host": "laptop", "last_round": None, "error": None,
                                    "folders": []}


def test_setup_add_now_status_resolve_remove(tmp_path):
    remote = bare(tmp_path / "memory.git")
    a, b = Computer(tmp_path / "laptop", "laptop"), Computer(tmp_path / "desktop", "desktop")
    for c in (a, b):
        c.ok("init", BOT)
        r = c.ok("sync", "setup", remote.as_uri(), "--json")
        assert json.loads(r.stdout) == {"remote": remote.as_uri(), "host": c.host, "branch": "main"}
        r = c.ok("sync", "add", BOT, "--json")
        assert json.loads(r.stdout)["key"] == BOT
    r = a.cli("sync", "add", "nobody")
    assert r.returncode == 2 and "unknown bot 'nobody'" in r.stderr
    a.ok("save", BOT, "MEMORY.md", stdin="- The office is in Pune\n")
    a.ok("sync", "now")
    b.ok("sync", "now")
    a.ok("save", BOT, "MEMORY.md", stdin="- The office is in Mumbai\n")
    b.ok("save", BOT, "MEMORY.md", stdin="- The office is in Delhi\n")
    a.ok("sync", "now")
    r = b.ok("sync", "now", "--json")
    assert json.loads(r.stdout) == {"folders": [{"id": BOT, "key": BOT, "in": 1, "out": 1, "conflicts": 1,
                                                 "new_conflicts": 1}]}
    st = json.loads(b.ok("sync", "status", "--json").stdout)
    f = st["folders"][0]
    assert {k: f[k] for k in ("id", "key", "ahead", "behind", "conflicts", "conflicted")} == {
        "id": BOT, "key": BOT, "ahead": 0, "behind": 0, "conflicts": 1, "conflicted": ["MEMORY.md"]}
    assert f["last_sync"] and st["remote"] == remote.as_uri() and st["host"] == "desktop"
    plain = b.ok("sync", "status").stdout
    assert f"`botmemory sync resolve {BOT} MEMORY.md < RESOLVED`" in plain
    r = b.cli("sync", "resolve", BOT, "memory/none.md", stdin="x\n")
    assert r.returncode == 2 and "has no conflict in memory/none.md (conflicts: MEMORY.md)" in r.stderr
    r = b.ok("sync", "resolve", BOT, "MEMORY.md", stdin="- The office is in Delhi\n", )
    assert "resolved; the next sync sends it" in r.stdout
    assert json.loads(b.ok("sync", "status", "--json").stdout)["folders"][0]["conflicts"] == 0
    b.ok("sync", "now")
    a.ok("sync", "now")
    assert a.text() == "- The office is in Delhi\n"
    r = a.ok("sync", "remove", BOT, "--json")
    assert json.loads(r.stdout) == {"id": BOT, "key": BOT, "removed": True}
    assert json.loads(a.ok("sync", "status", "--json").stdout)["folders"] == []
    assert a.cli("sync", "remove", BOT).returncode == 2


def test_a_credential_stops_the_push_with_one_line_naming_the_file_exit_4(tmp_path):
    remote = bare(tmp_path / "memory.git")
    a = Computer(tmp_path / "laptop", "laptop")
    a.ok("init", BOT)
    a.ok("sync", "setup", remote.as_uri())
    a.ok("sync", "add", BOT)
    a.outside("memory/env.md", "GITHUB_TOKEN=ghp_Zq8r2LmN4pX7vB1cD9fG3hJ6kS0tU5wYa1b2\n")
    r = a.cli("sync", "now")
    assert r.returncode == 4
    assert r.stderr.strip().startswith("botmemory: scout/memory/env.md holds a credential (")
    assert len(r.stderr.strip().splitlines()) == 1 and "ghp_" not in r.stderr + r.stdout
    log = subprocess.run(["git", "--git-dir", str(remote), "log", "--all", "-p"], capture_output=True, text=True)
    assert "ghp_" not in log.stdout


def test_sync_now_when_git_is_missing_says_so_in_one_line(tmp_path):
    a = Computer(tmp_path / "laptop", "laptop")
    env = {**a.env(), "PATH": str(tmp_path / "empty")}
    r = subprocess.run([*__import__("tests.core.sync.conftest", fromlist=["BOTMEMORY"]).BOTMEMORY, "--root",
                        str(a.root / "home"), "sync", "setup", str(tmp_path / "m.git")], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 1
    assert r.stderr == ("botmemory: sync needs the git command line (2.20 or newer), and `git` is not on PATH: "
                        "install git, then try again\n")


def test_two_homes_each_running_watch_converge(tmp_path):
    """Both computers run `botmemory watch`; notes written on either arrive on the other by themselves."""
    remote = bare(tmp_path / "memory.git")
    cs = [Computer(tmp_path / "laptop", "laptop"), Computer(tmp_path / "desktop", "desktop")]
    for c in cs:
        c.ok("init", BOT)
        c.ok("sync", "setup", remote.as_uri())
        c.ok("sync", "add", BOT)
    from ..sync.conftest import BOTMEMORY

    watchers = [subprocess.Popen([*BOTMEMORY, "--root", str(c.root / "home"), "watch"], env=c.env(),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True) for c in cs]
    try:
        cs[0].ok("remember", BOT, "Written on the laptop")
        cs[1].ok("remember", BOT, "Written on the desktop")
        cs[1].outside("memory/trips.md", "- Typed in an editor on the desktop\n")
        deadline = time.monotonic() + 90
        want = ("Written on the laptop", "Written on the desktop")
        while time.monotonic() < deadline:
            if (all(w in cs[0].text() and w in cs[1].text() for w in want)
                    and cs[0].files() == cs[1].files() and "memory/trips.md" in cs[0].files()):
                break
            time.sleep(0.2)
        assert cs[0].files() == cs[1].files(), (cs[0].files(), cs[1].files())
        assert all(w in cs[0].text() for w in want)
    finally:
        errs = []
        for w in watchers:
            os.killpg(w.pid, signal.SIGTERM)
            errs.append(w.communicate(timeout=60)[1])
    assert all(w.returncode == 0 for w in watchers), errs
    assert any("botmemory: sync: Synced" in e for e in errs)
