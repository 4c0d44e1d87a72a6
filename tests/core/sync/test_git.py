"""The git command line: checked once, failures said in one line without a credential, leftovers cleaned."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from botmemory.core.sync import git as g
from botmemory.core.sync.git import Git, GitMissing, Unreachable, blob_id, reason, shown_url

from .conftest import Computer, bare


def test_a_missing_git_is_said_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(g, "_checked", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GitMissing) as e:
        g.check_git()
    assert str(e.value) == ("sync needs the git command line (2.20 or newer), and `git` is not on PATH: "
                            "install git, then try again")
    assert e.value.exit_code == 1


def test_an_old_git_is_said_in_one_line(monkeypatch, tmp_path):
    fake = tmp_path / "git"
    fake.write_text("#!/bin/sh\necho 'git version 2.7.4'\n")
    fake.chmod(0o755)
    monkeypatch.setattr(g, "_checked", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GitMissing, match=r"^sync needs git 2.20 or newer; this computer has git 2.7.4"):
        g.check_git()


def test_the_version_is_checked_once(monkeypatch):
    monkeypatch.setattr(g, "_checked", None)
    first = g.check_git()
    monkeypatch.setenv("PATH", "/nonexistent")
    assert g.check_git() == first


def test_a_credential_in_a_url_is_never_shown():
    assert shown_url("https://priya:ghp_secret@github.com/p/m.git") == "https://github.com/p/m.git"
    assert shown_url("git@github.com:p/m.git") == "git@github.com:p/m.git"
    line = reason("fatal: unable to access 'https://priya:tok@host/x.git/': Could not resolve host: host\n")
    assert "tok" not in line and line.startswith("the remote cannot be reached (")


@pytest.mark.parametrize("stderr, said", [
    ("fatal: could not read Username for 'https://h': terminal prompts disabled", "the remote refused"),
    ("git@h: Permission denied (publickey).\nfatal: Could not read from remote repository.", "the remote refused"),
    ("fatal: '/x/y.git' does not appear to be a git repository", "the remote repository is not there"),
    ("ssh: connect to host h port 22: Connection refused", "the remote cannot be reached"),
    ("something else entirely", "git failed"),
])
def test_what_a_failure_means_in_a_few_words(stderr, said):
    assert reason(stderr).startswith(said) and "\n" not in reason(stderr)


def test_blob_ids_are_gits(tmp_path):
    data = "héllo\n".encode()
    out = subprocess.run(["git", "hash-object", "--stdin"], input=data, capture_output=True, check=True).stdout
    assert blob_id(data) == out.decode().strip()


def test_a_remote_that_does_not_answer_in_time_is_ended(tmp_path, monkeypatch):
    """A network call has a time limit; its whole process group is ended (a hung ssh never stays)."""
    slow = tmp_path / "bin"
    slow.mkdir()
    (slow / "ssh").write_text("#!/bin/sh\nsleep 30\n")
    (slow / "ssh").chmod(0o755)
    monkeypatch.setenv("GIT_SSH", str(slow / "ssh"))
    git = Git(tmp_path / "repo", timeout=1.0)
    git.init("main")
    git.set_remote("ssh://example.invalid/x.git")
    started = time.monotonic()
    with pytest.raises(Unreachable, match=r"the remote did not answer in 1 s"):
        git.remote_tip("main")
    assert time.monotonic() - started < 10


def _wait_exec(pid: int) -> None:
    """Until *pid* shows its own command line (Linux; elsewhere nothing to wait for)."""
    deadline = time.monotonic() + 5
    while Path("/proc").is_dir() and time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"git"):
                return
        except OSError:
            return
        time.sleep(0.01)


def test_a_git_left_running_by_a_killed_botmemory_is_ended_and_its_locks_removed(tmp_path):
    repo = tmp_path / "repo"
    git = Git(repo, pid_file=tmp_path / "git.pid")
    git.init("main")
    # a "git" that outlived its botmemory: its pid noted, a lock file left behind
    orphan = subprocess.Popen(["git", "60"], executable=shutil.which("sleep"), start_new_session=True)
    (tmp_path / "git.pid").write_text(str(orphan.pid))
    _wait_exec(orphan.pid)
    (repo / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "heads" / "main.lock").write_text("")
    (repo / "packed-refs.lock").write_text("")
    monkey_wait = g.ORPHAN_WAIT_S
    g.ORPHAN_WAIT_S = 0.5
    try:
        git.clear_leftovers()
    finally:
        g.ORPHAN_WAIT_S = monkey_wait
    try:
        assert orphan.wait(5) == -signal.SIGKILL
    finally:
        if orphan.poll() is None:
            orphan.kill()
    assert not (repo / "refs" / "heads" / "main.lock").exists() and not (repo / "packed-refs.lock").exists()
    assert not (tmp_path / "git.pid").exists()


def test_a_pid_that_is_not_a_git_any_more_is_left_alone(tmp_path):
    git = Git(tmp_path / "repo", pid_file=tmp_path / "git.pid")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / "git.pid").write_text(str(other.pid))
        git.clear_leftovers()
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_git_runs_with_our_repository_only_and_no_prompt(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path))
    git = Git(tmp_path / "repo")
    env = git.env()
    assert env["GIT_DIR"] == str(tmp_path / "repo") and "GIT_WORK_TREE" not in env
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    git.init("main")
    assert (tmp_path / "repo" / "HEAD").read_text().strip() == "ref: refs/heads/main"
    assert not (tmp_path / "elsewhere").exists()
    mode = os.stat(tmp_path / "repo" / "config").st_mode & 0o777
    assert mode & 0o077 == 0, oct(mode)      # umask 077: nothing of it readable by others


def test_the_sync_commands_never_wait_for_a_password(tmp_path, http_remote):
    """An http remote that asks for credentials fails at once (no terminal prompt), in one line."""
    bare(http_remote.root / "m.git")
    http_remote.refuse = True
    c = Computer(tmp_path / "laptop", "laptop")
    r = c.cli("sync", "setup", http_remote.url("m.git"), timeout=60)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]
    assert "the remote refused this computer's credentials" in r.stderr and "nothing was set up" in r.stderr


def test_paths_of_a_remote_are_its_own(tmp_path: Path):
    assert g.Git(tmp_path).git_dir == tmp_path
