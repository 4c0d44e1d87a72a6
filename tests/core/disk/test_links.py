"""No read and no write passes through a symbolic link between the home and a file (issue 17 item 2).

Each case links one place — memory/, memory/log, a topic, the workspace, workspaces/, the
journal folder — to another bot's folder outside the home, runs every command that would
go through it, and checks that the command exits 4 naming the link (or, for the commands
that only look, skips it), that nothing in the link's target changed, and that the other
bot's private line never reached an output or anything botmemory keeps.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from botmemory.core.faces.cli import main
from tests.conftest import snapshot

BOT = "scout"
DAY = "2026-10-14"
PRIVATE = "Zanzibarprivate"


def run(capsys, root: Path, *args: str, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        import io
        import sys
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = main(["--root", str(root), "--today", DAY, *args])
    out, err = capsys.readouterr()
    return code, out, err


def kept_anywhere(home: Path) -> bool:
    """True when the private line is in anything botmemory keeps outside the workspace."""
    for dirpath, _, filenames in os.walk(home):
        if "workspaces" in Path(dirpath).relative_to(home).parts[:1]:
            continue
        for f in filenames:
            data = Path(dirpath, f).read_bytes()
            if f.endswith(".xz"):
                import lzma
                data = lzma.decompress(data)
            if PRIVATE.encode() in data:
                return True
    return False


def other_bot(tmp: Path) -> Path:
    """Another bot's workspace outside the home, holding a private line everywhere."""
    o = tmp / "other" / "workspaces" / "rival"
    (o / "memory" / "log").mkdir(parents=True)
    (o / "MEMORY.md").write_text(f"- 2026-10-01 · {PRIVATE} owes money\n")
    (o / "memory" / "t.md").write_text(f"- {PRIVATE} secret plan\n")
    (o / "memory" / "archive.md").write_text(f"- 2026-01-01 · {PRIVATE} old · moved 2026-02-01\n")
    (o / "memory" / "log" / f"{DAY}.md").write_text(f"- 09:00 · chat \"x\" · {PRIVATE}\n")
    return o


def full_memory() -> str:
    return "".join(f"- 2026-09-{1 + i % 28:02d} · from cli · fact {i} filler words to take room\n" for i in range(200))


@pytest.fixture
def home(tmp_path, capsys):
    root = tmp_path / "home"
    assert main(["--root", str(root), "init", BOT]) == 0
    capsys.readouterr()
    return root


def link(path: Path, target: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        import shutil
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(target, target_is_directory=target.is_dir())


# (what is linked, to what in the other bot, the link as named in the message)
CASES = {
    "memory": ("workspaces/scout/memory", "memory", "workspaces/scout/memory"),
    "log": ("workspaces/scout/memory/log", "memory/log", "workspaces/scout/memory/log"),
    "topic": ("workspaces/scout/memory/t.md", "memory/t.md", "workspaces/scout/memory/t.md"),
    "workspace": ("workspaces/scout", "", "workspaces/scout"),
    "workspaces": ("workspaces", "..", "workspaces"),
    "journal": ("memory-journal", "memory", "memory-journal"),
    "bookkeeping": ("botmemory", "memory", "botmemory"),
}

# the commands that must be refused with exit 4, per case
WRITES = {
    "memory": ["save topic", "rm topic", "show topic", "remember archiving", "turn end"],
    "log": ["turn end", "rm log", "show log"],
    "topic": ["save topic", "rm topic", "show topic"],
    "workspace": ["save MEMORY.md", "show MEMORY.md", "remember", "turn begin", "init"],
    "workspaces": ["save MEMORY.md", "show MEMORY.md", "remember", "turn begin", "init"],
    "journal": ["save topic", "remember"],
    "bookkeeping": ["save topic", "remember", "rm topic", "turn begin"],
}


def command(name: str) -> tuple[list[str], bytes | None]:
    return {
        "save topic": (["save", BOT, "memory/t.md"], f"- mine {DAY}\n".encode()),
        "save MEMORY.md": (["save", BOT, "MEMORY.md"], b"- mine\n"),
        "rm topic": (["rm", BOT, "memory/t.md"], None),
        "rm log": (["rm", BOT, f"memory/log/{DAY}.md"], None),
        "show topic": (["show", BOT, "memory/t.md"], None),
        "show log": (["show", BOT, f"memory/log/{DAY}.md"], None),
        "show MEMORY.md": (["show", BOT, "MEMORY.md"], None),
        "remember": (["remember", BOT, "a new note"], None),
        "remember archiving": (["remember", BOT, "a new note that moves old ones"], None),
        "turn begin": (["turn", "begin", BOT, "--chat", "Plans"], None),
        "init": (["init", BOT], None),
    }[name]


@pytest.mark.parametrize("case", sorted(CASES))
def test_nothing_passes_through_a_link(case, home, tmp_path, capsys, monkeypatch):
    where, what, named = CASES[case]
    other = other_bot(tmp_path)
    ws = home / "workspaces" / BOT
    (ws / "MEMORY.md").write_text(full_memory())
    (ws / "memory" / "log").mkdir(parents=True, exist_ok=True)
    (ws / "memory" / "t.md").write_text("- mine\n")
    turn = None
    if "turn end" in WRITES[case]:
        code, out, err = run(capsys, home, "turn", "begin", BOT, "--chat", "Plans")
        assert code == 0, err
        turn = out.strip()
    target = (other / what).resolve()
    link(home / where, target)
    before = snapshot(tmp_path / "other")

    for name in WRITES[case]:
        if name == "turn end":
            args, stdin = ["turn", "end", BOT, turn or "", "--said", "done"], None
        else:
            args, stdin = command(name)
        code, out, err = run(capsys, home, *args, stdin=stdin, monkeypatch=monkeypatch)
        assert code == 4, (name, code, out, err)
        assert f"{named} is a symbolic link" in err and err.count("\n") == 1, (name, err)
        assert PRIVATE not in out, name
        assert snapshot(tmp_path / "other") == before, f"{name} changed the link's target"

    for args in (["recall", BOT, f"{PRIVATE} plan"], ["search", BOT, PRIVATE], ["watch", "--once"],
                 ["gauge", BOT], ["load", BOT], ["forget", BOT, "nothing-like-this"]):
        code, out, err = run(capsys, home, *args, "--json")
        assert PRIVATE not in out, (args, out)
        assert snapshot(tmp_path / "other") == before, f"{args} changed the link's target"
    assert not kept_anywhere(home), "the other bot's line reached botmemory's own files"


def test_a_linked_folder_is_skipped_by_the_scan_not_taken_as_deleted(home, tmp_path, capsys):
    ws = home / "workspaces" / BOT
    (ws / "memory" / "t.md").write_text("- mine\n")
    assert run(capsys, home, "watch", "--once")[0] == 0     # the baseline
    other = other_bot(tmp_path)
    link(ws / "memory", other / "memory")
    code, out, _ = run(capsys, home, "watch", "--once", "--json")
    assert code == 0 and json.loads(out) == []
    assert not kept_anywhere(home)


def test_clean_stale_temps_never_looks_through_a_link(tmp_path):
    from botmemory.core.disk.safeio import TEMP_SUFFIX, clean_stale_temps

    home = tmp_path / "home"
    ws = home / "workspaces" / BOT
    ws.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / f".x{TEMP_SUFFIX}").write_text("keep me")
    (ws / "memory").symlink_to(outside)
    assert clean_stale_temps(ws, root=home) == 0
    assert (outside / f".x{TEMP_SUFFIX}").exists()


def test_make_dirs_never_creates_through_a_link(tmp_path):
    from botmemory.core.base.errors import Refused
    from botmemory.core.disk.safeio import make_dirs

    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (home / "workspaces").symlink_to(outside)
    with pytest.raises(Refused, match="workspaces is a symbolic link"):
        make_dirs(home / "workspaces" / BOT / "memory", home)
    assert list(outside.iterdir()) == []


def test_settings_and_bookkeeping_folders_are_not_written_through_links(home, tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    link(home / "settings", outside)
    code, _, err = run(capsys, home, "settings", BOT, "upkeep", "off")
    assert code == 4 and "settings is a symbolic link" in err
    assert list(outside.iterdir()) == []


def test_the_live_watcher_does_not_watch_a_linked_folder(home, tmp_path):
    from botmemory.core.outside.watcher import Watcher
    from botmemory.core.store.memory import Memory

    other = other_bot(tmp_path)
    ws = home / "workspaces" / BOT
    link(ws / "memory", other / "memory")
    mem = Memory.open(str(home), DAY)
    seen: list = []
    with Watcher(mem, seen.extend, safety_rescan=None) as w:
        assert str(ws) in w._watches
        assert str(ws / "memory") not in w._watches and str(ws / "memory" / "log") not in w._watches
        (other / "memory" / "t.md").write_text(f"- {PRIVATE} changed\n")
        w.rescan()
        assert w.wait_idle(10)
    assert all(PRIVATE not in (r.diff or "") for r in seen)
    assert not kept_anywhere(home)


def test_the_journal_is_not_read_through_a_link(home, tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / f"{BOT}.ndjson").write_text(json.dumps({"id": "0190000000ab-abcdef", "diff": PRIVATE}) + "\n")
    link(home / "memory-journal", outside)
    code, out, err = run(capsys, home, "journal", BOT, "--json")
    assert code == 4 and "memory-journal is a symbolic link" in err and PRIVATE not in out


@pytest.mark.parametrize("args", [["remember", BOT, "a note"], ["tidy", BOT, "--no-model"], ["forget", BOT, "mine"]])
@pytest.mark.parametrize("where", ["workspaces/scout", "workspaces/scout/memory"])
def test_a_command_through_a_link_says_so_in_one_line_with_exit_4(where, args, home, tmp_path):
    """In a real process (logging on stderr): no warnings before the refusal, which is exit 4 for every command."""
    import subprocess
    import sys
    other = other_bot(tmp_path)
    link(home / where, other / where.removeprefix("workspaces/scout").lstrip("/"))
    before = snapshot(tmp_path / "other")
    r = subprocess.run([sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(home), *args],
                       capture_output=True, text=True)
    assert r.returncode == 4, r.stderr
    assert r.stderr.count("\n") == 1 and "is a symbolic link" in r.stderr, r.stderr
    assert snapshot(tmp_path / "other") == before


def test_read_text_reads_as_read_file_does_without_a_hash(tmp_path):
    """Store.text (the gauge's read) goes through read_text: the same link refusal, the same text, no hash."""
    from botmemory.core.base.errors import LinkRefused
    from botmemory.core.disk.safeio import read_file, read_text

    root = tmp_path / "home"
    (root / "ws" / "memory").mkdir(parents=True)
    outside = tmp_path / "outside.md"
    outside.write_text(PRIVATE, encoding="utf-8")
    good, bad = root / "ws" / "MEMORY.md", root / "ws" / "memory" / "bad.md"
    good.write_text("- a note ✓\n", encoding="utf-8")
    bad.write_bytes(b"caf\xe9 au lait\n")
    for path in (good, bad):
        assert read_text(path, root) == read_file(path, root).text
    assert "\ufffd" in read_text(bad, root)
    assert read_text(root / "ws" / "missing.md", root) is None
    (root / "ws" / "memory" / "linked.md").symlink_to(outside)
    os.symlink(tmp_path, root / "ws" / "elsewhere")
    for linked in (root / "ws" / "memory" / "linked.md", root / "ws" / "elsewhere" / "outside.md"):
        with pytest.raises(LinkRefused):
            read_text(linked, root)
