"""Faults and errors (issue 23): every error names its cause, with its own exit code.

A full disk is exit 5 and a permission the system refused exit 6 (never "unexpected error" and a
traceback); a file made read-only is refused, never silently turned 0600; a clock before 1970 still
gives row ids ``undo`` takes; an empty ``--until`` is refused; root is refused on another user's home;
``forget`` on a full disk changes nothing or finishes everything.
"""
from __future__ import annotations

import errno
import io
import json
import os
import stat
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from botmemory.core.faces.cli import main
from tests.conftest import snapshot

BOT = "scout"
DAY = "2026-10-15"


def run(capsys, root: Path, *args: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = main(["--root", str(root), "--today", DAY, *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path, capsys) -> Path:
    root = tmp_path / "home"
    assert main(["--root", str(root), "--today", DAY, "remember", BOT, "the office is in Pune"]) == 0
    capsys.readouterr()
    return root


def failing_os(monkeypatch, name: str, err: int, when=lambda *a: True) -> None:
    real = getattr(os, name)

    def fail(*a, **kw):
        if when(*a):
            raise OSError(err, os.strerror(err))
        return real(*a, **kw)

    monkeypatch.setattr(os, name, fail)


# ----- named errors, their own exit codes


def test_a_full_disk_is_exit_5_in_one_line_and_nothing_written(home, capsys, monkeypatch):
    ws = home / "workspaces" / BOT
    before = snapshot(home)
    failing_os(monkeypatch, "write", errno.ENOSPC)
    code, out, err = run(capsys, home, "save", BOT, "memory/trips.md", stdin="- Lisbon in May\n",
                         monkeypatch=monkeypatch)
    monkeypatch.undo()
    assert code == 5, (code, err)
    assert err.startswith("botmemory: disk full") and err.count("\n") == 1 and "unexpected" not in err, err
    assert "nothing was written" in err
    assert not (ws / "memory" / "trips.md").exists()
    assert snapshot(home) == before


def test_a_refused_permission_is_exit_6_in_one_line(home, capsys, monkeypatch):
    failing_os(monkeypatch, "open", errno.EACCES, lambda path, *a: str(path).endswith(".botmemory.tmp"))
    code, out, err = run(capsys, home, "remember", BOT, "tea, no sugar")
    monkeypatch.undo()
    assert code == 6, (code, err)
    assert err.startswith("botmemory: permission denied") and err.count("\n") == 1, err


def test_a_read_only_file_system_is_exit_6(home, capsys, monkeypatch):
    failing_os(monkeypatch, "write", errno.EROFS)
    code, out, err = run(capsys, home, "remember", BOT, "tea, no sugar")
    monkeypatch.undo()
    assert code == 6 and "Read-only file system" in err, err


def test_any_other_os_error_stays_unexpected_exit_1(home, capsys, monkeypatch):
    failing_os(monkeypatch, "write", errno.EIO)
    code, out, err = run(capsys, home, "remember", BOT, "tea, no sugar")
    monkeypatch.undo()
    assert code == 1 and "unexpected error" in err, err


def test_the_exit_codes_are_listed_in_the_help_and_the_readme(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "5 disk full" in out and "6 permission denied" in out, out
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    assert "`5` the disk is full" in readme and "`6` permission denied" in readme


def test_the_named_errors_keep_the_contract_codes_for_everything_else():
    from botmemory.core.base import errors as E

    assert (E.BadInput.exit_code, E.Conflict.exit_code, E.Refused.exit_code, E.Busy.exit_code) == (2, 3, 4, 1)
    assert (E.DiskFull.exit_code, E.PermissionDenied.exit_code) == (5, 6)
    assert isinstance(E.named(OSError(errno.EDQUOT, "Disk quota exceeded")), E.DiskFull)
    assert isinstance(E.named(PermissionError(errno.EPERM, "Operation not permitted")), E.PermissionDenied)
    assert E.named(OSError(errno.EIO, "I/O error")) is None


# ----- a read-only MEMORY.md


@pytest.mark.parametrize("args", [["remember", BOT, "tea, no sugar"], ["save", BOT, "MEMORY.md"],
                                  ["forget", BOT, "Pune"], ["tidy", BOT, "--no-model"]])
def test_a_read_only_memory_file_is_refused_and_keeps_its_mode(args, home, capsys, monkeypatch):
    path = home / "workspaces" / BOT / "MEMORY.md"
    path.write_text(path.read_text() + "- 2020-01-01 · from cli · Pune again · until 2020-01-02\n")
    os.chmod(path, 0o444)
    text = path.read_text()
    code, out, err = run(capsys, home, *args, stdin="- mine\n" if args[0] == "save" else None,
                         monkeypatch=monkeypatch)
    assert code == 4, (args, code, err)
    assert "MEMORY.md is read-only" in err and err.count("\n") == 1, err
    assert stat.S_IMODE(path.stat().st_mode) == 0o444 and path.read_text() == text


# ----- a clock before 1970


def test_a_clock_before_1970_gives_row_ids_undo_takes(home, capsys, monkeypatch):
    from botmemory.core.store import writer

    class Before1970(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime(1969, 7, 20, 20, 17, tzinfo=timezone.utc)

    monkeypatch.setattr(writer, "datetime", Before1970)
    code, out, err = run(capsys, home, "remember", BOT, "one small step")
    assert code == 0, err
    monkeypatch.undo()
    code, out, err = run(capsys, home, "journal", BOT, "--json")
    row = json.loads(out)[0]
    assert "one small step" in row["diff"]
    code, out, err = run(capsys, home, "undo", BOT, row["id"])
    assert code == 0, err
    assert "one small step" not in (home / "workspaces" / BOT / "MEMORY.md").read_text()


# ----- an empty --until


@pytest.mark.parametrize("args", [["remember", BOT, "tea, no sugar", "--until", ""],
                                  ["search", BOT, "Pune", "--until", ""],
                                  ["search", BOT, "Pune", "--since", ""]])
def test_an_empty_until_is_refused(args, home, capsys):
    before = snapshot(home)
    code, out, err = run(capsys, home, *args)
    assert code == 2 and ("--until" in err or "--since" in err), (code, out, err)
    assert snapshot(home) == before
    r = subprocess.run([sys.executable, "-m", "botmemory.core.faces.entry", "--root", str(home), *args],
                       capture_output=True, text=True)     # the fast path of recall and search too
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)


# ----- root on another user's home


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_root_on_another_users_home_is_refused_in_one_line(home, capsys):
    for dirpath, dirnames, filenames in os.walk(home):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), 65534, 65534)
    os.chown(home, 65534, 65534)
    before = snapshot(home)
    for args in (["remember", BOT, "a note"], ["watch", "--once"], ["recall", BOT, "where is the office"]):
        r = subprocess.run([sys.executable, "-m", "botmemory.core.faces.entry", "--root", str(home), *args],
                           capture_output=True, text=True)
        assert r.returncode == 4, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and "root" in r.stderr and "sudo -u" in r.stderr, r.stderr
    assert snapshot(home) == before
    owners = {os.lstat(os.path.join(d, f)).st_uid for d, _, fs in os.walk(home) for f in fs}
    assert owners == {65534}


def test_root_on_its_own_home_works(home, capsys):
    code, out, err = run(capsys, home, "remember", BOT, "still fine")
    assert code == 0, err


# ----- forget on a full disk: nothing changed, or everything


def forget_home(tmp_path: Path, capsys) -> Path:
    root = tmp_path / "home"
    for text in ("the office is in Pune", "Pune has good tea"):
        assert main(["--root", str(root), "--today", DAY, "remember", BOT, text]) == 0
    ws = root / "workspaces" / BOT
    (ws / "memory" / "trips.md").write_text("# Trips\n- 2026-10-01 · from cli · Pune in May\n")
    (ws / "memory" / "food.md").write_text("# Food\n- 2026-10-01 · from cli · tea in Pune\n")
    (root / "about-me.md").write_text("- I live in Pune\n- I like tea\n")
    assert main(["--root", str(root), "watch", "--once"]) == 0
    capsys.readouterr()
    return root


FORGOTTEN = ("workspaces/scout/MEMORY.md", "workspaces/scout/memory/trips.md",
             "workspaces/scout/memory/food.md", "about-me.md", "profile-learned.json")


def test_forget_with_the_disk_filling_at_every_write_changes_nothing_or_finishes(tmp_path, capsys, monkeypatch):
    fired = 0
    for k in range(1, 40):
        root = forget_home(tmp_path / str(k), capsys)
        before = snapshot(root)
        real = os.write
        count = {"n": 0}

        def full(*a, **kw):
            count["n"] += 1
            if count["n"] >= k:      # from the k-th write on, the disk stays full
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(*a, **kw)

        monkeypatch.setattr(os, "write", full)
        code, out, err = run(capsys, root, "forget", BOT, "Pune")
        monkeypatch.undo()
        if count["n"] < k:
            break
        fired += 1
        assert "Traceback" not in err and code in (0, 5), (k, code, err)
        after = snapshot(root)
        changed = [f for f in FORGOTTEN if after.get(f) != before.get(f)]
        if code == 5:
            assert changed == [], f"the disk filled at write #{k}: forget exited 5 having changed {changed}"
            assert err.startswith("botmemory: disk full") and err.count("\n") == 1, err
        else:
            assert changed == list(FORGOTTEN), f"write #{k}: forget finished only {changed}"
            assert all("Pune" not in (root / f).read_text() for f in FORGOTTEN[:4])
    assert fired >= 3
