"""No read or write passes through a symbolic link in a tracked agent folder (issue 10's bad input).

Per kind, one place of the tracked folder — a topic, a subfolder, MEMORY.md itself — is a link to
another project's memory outside it. Every command that would read or write through it exits 4
naming the link (or, for the commands that only look, skips it); nothing in the link's target
changes and the other project's private line reaches no output and nothing botmemory keeps.
The folder's own path may have links above it (``~/.claude`` a link): the walk starts at the
tracked folder itself (``Home.trust_root``), so such a folder still works.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from botmemory.core.faces.cli import main
from tests.conftest import snapshot
from tests.core.agent_fixtures import claude_code, hermes, openclaw

PRIVATE = "Zanzibarprivate"


def run(capsys, root: Path, *args: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        import io
        import sys
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = main(["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def kept_anywhere(home: Path) -> bool:
    for dirpath, _, filenames in os.walk(home):
        for f in filenames:
            data = Path(dirpath, f).read_bytes()
            if f.endswith(".xz"):
                import lzma
                data = lzma.decompress(data)
            if PRIVATE.encode() in data:
                return True
    return False


def other_project(tmp: Path) -> Path:
    """Another project's memory outside the tracked folder, a private line in every file."""
    o = tmp / "other"
    (o / "memory").mkdir(parents=True)
    for f in ("MEMORY.md", "user_role.md", "memory/2026-11-30.md", "memory/notes.md", f"memory/{PRIVATE}.md"):
        (o / f).write_text(f"- {PRIVATE} secret plan\n")
    return o


def replace_with_link(path: Path, target: Path) -> None:
    if path.is_dir():
        import shutil
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    path.symlink_to(target, target_is_directory=target.is_dir())


# kind, how the folder is made, what is linked (relative to it), to what in the other project,
# the commands that go through the link (exit 4 naming it)
CASES = {
    "claude-topic": ("claude-code", claude_code, "user_role.md", "user_role.md",
                     [["save", "user_role.md"], ["show", "user_role.md"], ["rm", "user_role.md"]]),
    "claude-memory": ("claude-code", claude_code, "MEMORY.md", "MEMORY.md",
                      [["save", "MEMORY.md"], ["show", "MEMORY.md"], ["gauge"], ["load"]]),
    "openclaw-subfolder": ("openclaw", openclaw, "memory", "memory",
                           [["save", "memory/notes.md"], ["show", "memory/2026-11-30.md"],
                            ["rm", "memory/2026-11-30.md"]]),
    "openclaw-memory": ("openclaw", openclaw, "MEMORY.md", "MEMORY.md",
                        [["save", "MEMORY.md"], ["show", "MEMORY.md"], ["gauge"], ["load"]]),
    "hermes-memory": ("hermes", hermes, "MEMORY.md", "MEMORY.md",
                      [["save", "MEMORY.md"], ["show", "MEMORY.md"], ["gauge"], ["load"]]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_nothing_passes_through_a_link_in_a_tracked_folder(case, env, capsys, monkeypatch):
    kind, make, where, what, refused = CASES[case]
    home = env / "home"
    folder = make(env / "user")
    other = other_project(env)
    code, out, err = run(capsys, home, "track", "--path", str(folder), "--agent", kind, "--json")
    assert code == 0, err
    bot = json.loads(out)["id"]
    assert run(capsys, home, "watch", "--once")[0] == 0          # the baseline, before the link
    replace_with_link(folder / where, other / what)
    before = snapshot(other)

    for args in refused:
        cmd, rest = args[0], args[1:]
        stdin = f"- mine {PRIVATE[:3]}\n" if cmd == "save" else None
        code, out, err = run(capsys, home, cmd, bot, *rest, stdin=stdin, monkeypatch=monkeypatch)
        assert code == 4, (args, code, out, err)
        assert f"{where} is a symbolic link" in err and err.count("\n") == 1, (args, err)
        assert PRIVATE not in out, args
        assert snapshot(other) == before, f"{args} changed the link's target"

    for args in (["recall", bot, f"{PRIVATE} plan"], ["search", bot, PRIVATE], ["watch", "--once"],
                 ["gauge", bot], ["load", bot], ["forget", bot, PRIVATE], ["forget", "--all", PRIVATE],
                 ["redact", bot], ["journal", bot], ["bots"]):
        code, out, err = run(capsys, home, *args, "--json")
        assert PRIVATE not in out and PRIVATE not in err, (args, code, out, err)
        assert snapshot(other) == before, f"{args} changed the link's target"
    assert not kept_anywhere(home), "the other project's line reached botmemory's own files"


def test_a_tracked_folder_below_a_linked_home_folder_still_works(env, capsys):
    """~/.claude itself a link (dotfiles kept elsewhere): the folder is trusted from itself down."""
    real = env / "dotfiles" / "claude"
    claude_code(env / "dotfiles-user")
    (env / "dotfiles").mkdir(exist_ok=True)
    os.rename(env / "dotfiles-user" / ".claude", real)
    (env / "user" / ".claude").symlink_to(real, target_is_directory=True)
    home = env / "home"
    folder = env / "user" / ".claude" / "projects" / "-src-blog" / "memory"
    code, out, err = run(capsys, home, "track", "--path", str(folder), "--agent", "claude-code", "--json")
    assert code == 0, err
    bot = json.loads(out)["id"]
    code, out, err = run(capsys, home, "show", bot, "user_role.md")
    assert code == 0 and "Senior developer" in out, err
    code, out, err = run(capsys, home, "gauge", bot, "--json")
    assert code == 0 and json.loads(out)["lines"] >= 1, err


@pytest.mark.parametrize("kind, make, linked", [("claude-code", claude_code, ""), ("openclaw", openclaw, "memory"),
                                                ("hermes", hermes, "")])
def test_a_kinds_file_list_never_looks_through_a_link(kind, make, linked, env):
    """memory_files and watched_dirs skip a linked subfolder, a linked file, and a tracked folder that is a link."""
    from botmemory.core.kinds import get as get_kind

    folder = make(env / "user")
    other = other_project(env)
    k = get_kind(kind)
    (folder / f"{PRIVATE}-topic.md").symlink_to(other / "user_role.md")
    if linked:
        replace_with_link(folder / linked, other / linked)
    files = k.memory_files(folder)
    assert files and not any(PRIVATE in f for f in files), files
    assert all(not (folder / f).is_symlink() for f in files)
    if linked:
        assert not any(f.startswith(linked + "/") for f in files), files
        assert folder / linked not in k.watched_dirs(folder)
    lnk = env / "linked-folder"
    lnk.symlink_to(folder, target_is_directory=True)
    assert k.memory_files(lnk) == [] and k.watched_dirs(lnk) == []


def test_a_tracked_folder_replaced_by_a_link_is_refused_naming_it(env, capsys, monkeypatch):
    home = env / "home"
    folder = hermes(env / "user")
    code, out, err = run(capsys, home, "track", "--path", str(folder), "--agent", "hermes", "--json")
    assert code == 0, err
    bot = json.loads(out)["id"]
    other = other_project(env)
    replace_with_link(folder, other)
    before = snapshot(other)
    for args in (["gauge", bot], ["load", bot], ["show", bot, "MEMORY.md"], ["save", bot, "MEMORY.md"]):
        code, out, err = run(capsys, home, *args, stdin="- mine\n" if args[0] == "save" else None,
                             monkeypatch=monkeypatch)
        assert code == 4 and f"{folder} is a symbolic link" in err and err.count("\n") == 1, (args, code, err)
        assert PRIVATE not in out
    assert snapshot(other) == before


def test_a_tracked_folder_replaced_by_a_link_is_skipped_by_the_scan_not_taken_as_deleted(env, capsys):
    home = env / "home"
    folder = openclaw(env / "user")
    code, out, err = run(capsys, home, "track", "--path", str(folder), "--agent", "openclaw", "--json")
    assert code == 0, err
    assert run(capsys, home, "watch", "--once")[0] == 0      # the baseline
    other = other_project(env)
    replace_with_link(folder / "memory", other / "memory")
    code, out, _ = run(capsys, home, "watch", "--once", "--json")
    assert code == 0 and json.loads(out) == [], out
    replace_with_link(folder, other)
    code, out, _ = run(capsys, home, "watch", "--once", "--json")
    assert code == 0 and json.loads(out) == [], out
    assert not kept_anywhere(home)


def test_an_agents_settings_file_that_is_a_link_is_not_read(env):
    """openclaw.json, Hermes' config.yaml, Claude Code's settings.json linked elsewhere: the defaults, and
    the note says it is a link (opened with O_NOFOLLOW, no check-then-open)."""
    from botmemory.core.kinds import get as get_kind

    user = env / "user"
    openclaw(user)
    hermes(user)
    elsewhere = env / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "o.json").write_text('{"agents": {"defaults": {"bootstrapMaxChars": 7}}}')
    (elsewhere / "h.yaml").write_text("memory:\n  memory_char_limit: 7\n")
    (user / ".openclaw" / "openclaw.json").symlink_to(elsewhere / "o.json")
    (user / ".hermes" / "config.yaml").symlink_to(elsewhere / "h.yaml")
    for kind in ("openclaw", "hermes"):
        limits = get_kind(kind).limits(user, {}, {})
        assert 7 not in limits.max_chars.values(), kind
        assert limits.unread and "symbolic link" in limits.unread[0], (kind, limits.unread)
