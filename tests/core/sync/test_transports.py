"""The remotes people use, for real on this machine: a loopback ``git daemon``, ``git http-backend`` that can
refuse, a remote that disappears in the middle of a push. Nothing is lost, and the command says why in one line."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .conftest import BOT, Computer, bare


def test_two_computers_over_a_loopback_git_daemon(tmp_path, daemon):
    bare(daemon.base / "memory.git")
    a, b = Computer(tmp_path / "laptop", "laptop"), Computer(tmp_path / "desktop", "desktop")
    for c in (a, b):
        c.ok("init", BOT)
        c.ok("sync", "setup", daemon.url + "memory.git")
        c.ok("sync", "add", BOT, "--name", "scout")
    a.ok("remember", BOT, "Prefers window seats")
    b.ok("remember", BOT, "Allergic to peanuts")
    for c in (a, b, a):
        c.ok("sync", "now")
    assert a.text() == b.text() and "Prefers window seats" in a.text() and "Allergic to peanuts" in a.text()


def test_an_http_remote_that_refuses_exits_1_in_one_line_and_nothing_is_lost(tmp_path, http_remote):
    bare(http_remote.root / "memory.git")
    subprocess.run(["git", "--git-dir", str(http_remote.root / "memory.git"), "config", "http.receivepack", "true"],
                   check=True)
    a, b = Computer(tmp_path / "laptop", "laptop"), Computer(tmp_path / "desktop", "desktop")
    for c in (a, b):
        c.ok("init", BOT)
        c.ok("sync", "setup", http_remote.url("memory.git"))
        c.ok("sync", "add", BOT, "--name", "scout")
    http_remote.refuse = True
    a.ok("remember", BOT, "Written while the remote refused")    # a write is never blocked
    r = a.cli("sync", "now")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1
    assert "the remote refused this computer's credentials" in r.stderr
    assert "nothing was lost: sync tries again later" in r.stderr
    st = a.ok("sync", "status", "--json")
    assert '"ahead": 1' in st.stdout and "refused" in st.stdout
    http_remote.refuse = False
    a.ok("sync", "now")
    b.ok("sync", "now")
    assert "Written while the remote refused" in b.text()


def test_a_remote_that_disappears_mid_push_loses_nothing(tmp_path, remote):
    a, b = Computer(tmp_path / "laptop", "laptop"), Computer(tmp_path / "desktop", "desktop")
    for c in (a, b):
        c.setup(remote.as_uri())
        c.sync()
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nmv '{remote}' '{remote}.gone'\nexit 1\n")
    hook.chmod(0o755)
    a.remember("Pushed while the remote went away")
    r = a.cli("sync", "now")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "nothing was lost" in r.stderr
    assert not remote.exists()
    r = a.cli("sync", "now")                       # still gone: the same one line
    assert r.returncode == 1 and "the remote repository is not there" in r.stderr
    Path(f"{remote}.gone").rename(remote)
    hook.unlink()
    assert "Pushed while the remote went away" in a.text()
    a.sync()
    b.sync()
    assert "Pushed while the remote went away" in b.text()


def test_a_daemon_that_dies_mid_push(tmp_path, daemon):
    served = bare(daemon.base / "memory.git")
    a, b = Computer(tmp_path / "laptop", "laptop"), Computer(tmp_path / "desktop", "desktop")
    for c in (a, b):
        c.setup(daemon.url + "memory.git")
        c.sync()
    assert daemon.proc is not None
    hook = served / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nkill -9 -{daemon.proc.pid} 2>/dev/null; kill -9 {daemon.proc.pid}; sleep 2; exit 1\n")
    hook.chmod(0o755)
    b.remember("Pushed as the daemon died")
    r = b.cli("sync", "now")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    hook.unlink()
    daemon.proc.wait(10)
    daemon.start()                                 # the same port again
    b.sync()
    a.sync()
    assert "Pushed as the daemon died" in a.text() and a.text() == b.text()


def test_an_unreadable_remote_path_is_said_and_retried(tmp_path, remote):
    a = Computer(tmp_path / "laptop", "laptop")
    a.setup(remote.as_uri())
    a.sync()
    moved = tmp_path / "elsewhere.git"
    shutil.move(str(remote), moved)
    remote.write_text("not a repository\n")        # the path is there, but it is no repository
    a.remember("kept locally")
    r = a.cli("sync", "now")
    assert r.returncode == 1 and "nothing was lost" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    remote.unlink()
    shutil.move(str(moved), remote)
    a.sync()
    assert "kept locally" in subprocess.run(["git", "--git-dir", str(remote), "show", "main:scout/MEMORY.md"],
                                            capture_output=True, text=True, check=True).stdout
