"""A regular file with more than one link is treated like a symbolic link (issue 23 item 1).

A hard link gives one file two names: a bot that can write in its workspace could make
``memory/archive.md`` another name of any file of the owner's on the same file system, and
every write botmemory makes in place (the archive's append past 1 MB) would land there. So a
memory file with ``st_nlink > 1`` is refused with exit 4 naming it by every command that
would write (or show) it, and skipped — said once on stderr — by the commands that only look
(recall, search, watch, the recall index, the shadows). Nothing of the other file reaches an
output or anything botmemory keeps, and the other file never changes.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from botmemory.core.faces.cli import main
from tests.conftest import snapshot
from tests.core.agent_fixtures import claude_code, hermes, openclaw

BOT = "scout"
DAY = "2026-10-14"
PRIVATE = "Zanzibarprivate"


def run(capsys, root: Path, *args: str, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        import io
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = main(["--root", str(root), "--today", DAY, *args])
    out, err = capsys.readouterr()
    return code, out, err


def process(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(root), "--today", DAY,
                           *args], capture_output=True, text=True)


def kept_anywhere(home: Path, skip_workspaces: bool = True) -> bool:
    """True when the private line is in anything botmemory keeps outside the workspace."""
    for dirpath, _, filenames in os.walk(home):
        if skip_workspaces and "workspaces" in Path(dirpath).relative_to(home).parts[:1]:
            continue
        for f in filenames:
            data = Path(dirpath, f).read_bytes()
            if f.endswith(".xz"):
                import lzma
                data = lzma.decompress(data)
            if PRIVATE.encode() in data:
                return True
    return False


def full_memory() -> str:
    return "".join(f"- 2026-09-{1 + i % 28:02d} · from cli · fact {i} filler words to take room\n" for i in range(200))


@pytest.fixture
def home(tmp_path, capsys):
    root = tmp_path / "home"
    assert main(["--root", str(root), "init", BOT]) == 0
    capsys.readouterr()
    ws = root / "workspaces" / BOT
    (ws / "MEMORY.md").write_text(full_memory())
    (ws / "memory" / "log").mkdir(parents=True, exist_ok=True)
    return root


def hard_link(path: Path, other: Path, text: str) -> None:
    """Make *path* a second name of *other* (a file of the owner's outside the workspace) holding *text*."""
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text(text)
    if path.exists():
        path.unlink()
    os.link(other, path)
    assert os.stat(path).st_nlink == 2


BIG_ARCHIVE = "".join(f"- 2025-01-01 · {PRIVATE} archived {i:06d} · moved 2025-02-01\n" for i in range(20_000))

# what is hard-linked (relative to the workspace), its text, the commands refused with exit 4
CASES = {
    "topic": ("memory/t.md", f"- {PRIVATE} secret plan\n",
              ["save topic", "rm topic", "show topic", "redact topic", "forget"]),
    "memory": ("MEMORY.md", f"- 2026-10-01 · {PRIVATE} owes money\n",
               ["save MEMORY.md", "show MEMORY.md", "remember", "gauge", "load", "forget"]),
    "archive": ("memory/archive.md", f"- 2026-01-01 · {PRIVATE} old · moved 2026-02-01\n",
                ["remember archiving", "show archive", "save archive", "forget"]),
    "big archive": ("memory/archive.md", BIG_ARCHIVE, ["remember archiving"]),
    "log": (f"memory/log/{DAY}.md", f"- 09:00 · chat \"x\" · {PRIVATE}\n", ["turn end", "rm log", "show log"]),
}


def command(name: str) -> tuple[list[str], bytes | None]:
    return {
        "save topic": (["save", BOT, "memory/t.md"], f"- mine {DAY}\n".encode()),
        "save MEMORY.md": (["save", BOT, "MEMORY.md"], b"- mine\n"),
        "save archive": (["save", BOT, "memory/archive.md"], b"- mine\n"),
        "rm topic": (["rm", BOT, "memory/t.md"], None),
        "rm log": (["rm", BOT, f"memory/log/{DAY}.md"], None),
        "redact topic": (["redact", BOT, "memory/t.md"], None),
        "show topic": (["show", BOT, "memory/t.md"], None),
        "show log": (["show", BOT, f"memory/log/{DAY}.md"], None),
        "show archive": (["show", BOT, "memory/archive.md"], None),
        "show MEMORY.md": (["show", BOT, "MEMORY.md"], None),
        "remember": (["remember", BOT, "a new note"], None),
        "remember archiving": (["remember", BOT, "a new note that moves old ones"], None),
        "gauge": (["gauge", BOT], None),
        "load": (["load", BOT], None),
        "forget": (["forget", BOT, "filler"], None),
    }[name]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hard_linked_memory_file_is_refused_by_every_write(case, home, tmp_path, capsys, monkeypatch):
    where, text, refused = CASES[case]
    ws = home / "workspaces" / BOT
    turn = None
    if "turn end" in refused:
        code, out, err = run(capsys, home, "turn", "begin", BOT, "--chat", "Plans")
        assert code == 0, err
        turn = out.strip()
    other = tmp_path / "owner" / "private.md"
    hard_link(ws / where, other, text)
    before = snapshot(tmp_path / "owner")
    for name in refused:
        if name == "turn end":
            args, stdin = ["turn", "end", BOT, turn or "", "--said", "done"], None
        else:
            args, stdin = command(name)
        code, out, err = run(capsys, home, *args, stdin=stdin, monkeypatch=monkeypatch)
        assert code == 4, (name, code, out, err)
        assert where in err and "hard link" in err and err.count("\n") == 1, (name, err)
        assert PRIVATE not in out, name
        assert snapshot(tmp_path / "owner") == before, f"{name} changed the other file"
    for args in (["recall", BOT, f"{PRIVATE} plan"], ["search", BOT, PRIVATE], ["watch", "--once"],
                 ["journal", BOT]):
        code, out, err = run(capsys, home, *args, "--json")
        assert code == 0, (args, err)
        assert PRIVATE not in out, (args, out)
    assert snapshot(tmp_path / "owner") == before
    assert not kept_anywhere(home), "the other file's text reached botmemory's own files"


def test_the_large_archive_is_never_appended_through_a_hard_link(home, tmp_path):
    """The hole itself: past 1 MB the archive is appended in place; a hard-linked one must be refused first."""
    from botmemory.core.base.errors import LinkRefused
    from botmemory.core.disk.safeio import append_file, append_file_hashed, cut_file, file_size, hash_file

    ws = home / "workspaces" / BOT
    other = tmp_path / "owner" / ".bashrc"
    hard_link(ws / "memory" / "archive.md", other, "alias ls='ls --color'\n")
    before = other.read_bytes()
    for call in (lambda p: append_file(p, b"  indented continuation\n", home),
                 lambda p: append_file_hashed(p, b"- planted\n", home),
                 lambda p: cut_file(p, 0, "0" * 64, home),
                 lambda p: file_size(p, home),
                 lambda p: hash_file(p, home)):
        with pytest.raises(LinkRefused, match="hard link"):
            call(ws / "memory" / "archive.md")
    assert other.read_bytes() == before


def test_a_file_hard_linked_after_the_baseline_is_skipped_not_taken_as_deleted(home, tmp_path, capsys):
    ws = home / "workspaces" / BOT
    (ws / "memory" / "t.md").write_text("- mine\n")
    assert run(capsys, home, "watch", "--once")[0] == 0     # the baseline
    os.link(ws / "memory" / "t.md", tmp_path / "elsewhere.md")
    (tmp_path / "elsewhere.md").write_text(f"- {PRIVATE} planted through the other name\n")
    code, out, err = run(capsys, home, "watch", "--once", "--json")
    assert code == 0 and json.loads(out) == [], out
    assert not kept_anywhere(home)
    os.unlink(tmp_path / "elsewhere.md")     # one name again: an ordinary file, its change is seen
    code, out, err = run(capsys, home, "watch", "--once", "--json")
    assert code == 0 and [r["file"] for r in json.loads(out)] == ["memory/t.md"], out


@pytest.mark.parametrize("args", [["recall", BOT, f"{PRIVATE} secret plan"], ["search", BOT, PRIVATE],
                                  ["watch", "--once"]])
def test_the_commands_that_only_look_say_it_once(args, home, tmp_path):
    ws = home / "workspaces" / BOT
    (ws / "memory" / "plans.md").write_text("- the secret plan is a surprise party\n")
    hard_link(ws / "memory" / "t.md", tmp_path / "owner" / "private.md", f"- {PRIVATE} secret plan\n")
    r = process(home, *args)
    assert r.returncode == 0, r.stderr
    assert PRIVATE not in r.stdout
    lines = [ln for ln in r.stderr.splitlines() if "memory/t.md" in ln]
    assert len(lines) == 1 and "hard link" in lines[0], r.stderr
    if args[0] == "recall":
        assert "surprise party" in r.stdout        # the other topics are still recalled
    assert not kept_anywhere(home)


def test_the_recall_index_never_holds_a_hard_linked_topic(home, tmp_path):
    from botmemory.core.disk.paths import Home
    from botmemory.core.recall.index import refresh_index
    from botmemory.core.recall.query import recall

    ws = home / "workspaces" / BOT
    hard_link(ws / "memory" / "t.md", tmp_path / "owner" / "private.md", f"- {PRIVATE} secret plan\n")
    h = Home(home)
    refresh_index(h, BOT)
    assert PRIVATE not in recall(h, BOT, f"{PRIVATE} secret plan", __import__("datetime").date(2026, 10, 14)).text
    assert not kept_anywhere(home)


def test_a_hard_linked_directory_entry_in_the_bookkeeping_is_not_a_concern(home, capsys):
    """Folders always have several links: only regular files are judged by their link count."""
    assert os.stat(home / "workspaces" / BOT).st_nlink > 1
    code, out, err = run(capsys, home, "remember", BOT, "an ordinary note")
    assert code == 0, err


# ----- tracked agent folders


TRACKED = {
    "claude-topic": ("claude-code", claude_code, "user_role.md",
                     [["save", "user_role.md"], ["show", "user_role.md"], ["rm", "user_role.md"]]),
    "claude-memory": ("claude-code", claude_code, "MEMORY.md",
                      [["save", "MEMORY.md"], ["show", "MEMORY.md"], ["gauge"], ["load"]]),
    "openclaw-note": ("openclaw", openclaw, "memory/2026-11-30.md",
                      [["save", "memory/2026-11-30.md"], ["show", "memory/2026-11-30.md"],
                       ["rm", "memory/2026-11-30.md"]]),
    "hermes-memory": ("hermes", hermes, "MEMORY.md",
                      [["save", "MEMORY.md"], ["show", "MEMORY.md"], ["gauge"], ["load"]]),
}


@pytest.mark.parametrize("case", sorted(TRACKED))
def test_a_hard_link_in_a_tracked_folder_is_refused_and_skipped(case, env, capsys, monkeypatch):
    kind, make, where, refused = TRACKED[case]
    home = env / "home"
    folder = make(env / "user")
    code, out, err = run(capsys, home, "track", "--path", str(folder), "--agent", kind, "--json")
    assert code == 0, err
    bot = json.loads(out)["id"]
    assert run(capsys, home, "watch", "--once")[0] == 0          # the baseline, before the link
    other = env / "other" / "private.md"
    hard_link(folder / where, other, f"- {PRIVATE} secret plan\n")
    before = snapshot(env / "other")
    for args in refused:
        cmd, rest = args[0], args[1:]
        stdin = b"- mine\n" if cmd == "save" else None
        code, out, err = run(capsys, home, cmd, bot, *rest, stdin=stdin, monkeypatch=monkeypatch)
        assert code == 4, (args, code, out, err)
        assert where in err and "hard link" in err and err.count("\n") == 1, (args, err)
        assert PRIVATE not in out, args
        assert snapshot(env / "other") == before, f"{args} changed the other file"
    for args in (["recall", bot, f"{PRIVATE} plan"], ["search", bot, PRIVATE], ["watch", "--once"],
                 ["journal", bot]):
        code, out, err = run(capsys, home, *args, "--json")
        assert PRIVATE not in out, (args, code, out, err)
    assert snapshot(env / "other") == before
    assert not kept_anywhere(home, skip_workspaces=False)


@pytest.mark.parametrize("kind, make", [("claude-code", claude_code), ("openclaw", openclaw), ("hermes", hermes)])
def test_a_kinds_file_list_leaves_a_hard_link_out(kind, make, env):
    from botmemory.core.kinds import get as get_kind

    folder = make(env / "user")
    other = env / "other.md"
    other.write_text(f"- {PRIVATE}\n")
    name = "MEMORY.md"
    os.unlink(folder / name)
    os.link(other, folder / name)
    files = get_kind(kind).memory_files(folder)
    assert name not in files, files
