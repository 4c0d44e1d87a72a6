"""Issue 17's "done when": distinct fake credentials planted through every write path never reach a byte
outside the workspaces (journal segments decompressed, shadows, open turns, the recall index, settings,
profile-learned, upkeep state, logs), and the workspace holds only markers where botmemory wrote."""
from __future__ import annotations

import io
import json
import lzma
import random
import string
import sys
from pathlib import Path

import pytest

from botmemory.core.faces.cli import main
from botmemory.core.redact import contains_secret
from botmemory.core.store import journal

BOT = "scout"
TODAY = "2026-10-15"
_ALNUM = string.ascii_letters + string.digits


def _rand(seed: str, n: int) -> str:
    r = random.Random(seed)
    return "".join(r.choice(_ALNUM) for _ in range(n))


def sk(seed: str) -> str:
    return "sk-proj-" + _rand(seed, 48)


def ghp(seed: str) -> str:
    return "ghp_" + _rand(seed, 36)


def password(seed: str) -> tuple[str, str]:
    value = _rand(seed, 10) + "!7" + _rand(seed + "2", 6)
    return f"password: {value}", value


def pem(seed: str) -> tuple[str, str]:
    body = [_rand(seed + str(i), 64) for i in range(4)]
    return "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END PRIVATE KEY-----", body[1]


class Planted:
    """Every planted secret by where it went in: what to search for, and whether botmemory wrote it."""

    def __init__(self) -> None:
        self.needles: dict[str, str] = {}
        self.by_botmemory: set[str] = set()

    def add(self, where: str, needle: str, botmemory_wrote: bool = True) -> None:
        assert needle not in self.needles.values()
        self.needles[where] = needle
        if botmemory_wrote:
            self.by_botmemory.add(where)


def every_byte(root: Path) -> dict[Path, bytes]:
    """Every file under *root* outside the workspaces; compressed journal segments decompressed."""
    out: dict[Path, bytes] = {}
    for p in root.rglob("*"):
        if not p.is_file() or p.is_symlink() or (root / "workspaces") in p.parents:
            continue
        data = p.read_bytes()
        if p.name.endswith(".xz"):
            data = lzma.decompress(data)
        out[p] = data
    return out


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "ACTIVE_MAX_BYTES", 6 * 1024)    # closed (compressed) segments too
    for var in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(var, str(tmp_path / "user" / var.lower()))
    monkeypatch.delenv("OMB_HELPER_INSTANCE", raising=False)
    return tmp_path


def plant_everywhere(home: Path, capsys, monkeypatch) -> tuple[Path, Planted, dict[Path, bytes]]:
    """Run every write path with its own secret; returns the home, what was planted and every byte outside."""
    root = home / "home"
    planted = Planted()

    def cli(*args: str, stdin: str | None = None) -> str:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
        code = main(["--root", str(root), "--today", TODAY, *args])
        out, err = capsys.readouterr()
        assert code == 0, (args, err)
        for needle in planted.needles.values():   # stdout may show a file's text as it is (show, recall)
            assert needle not in err, (args, needle)
        return out

    cli("init", BOT)
    ws = root / "workspaces" / BOT

    # the person's CLI writes
    planted.add("remember", k := sk("remember"))
    cli("remember", BOT, f"the deploy key is {k}")
    pw, value = password("save")
    block, body = pem("save")
    planted.add("save password", value)
    planted.add("save pem", body)
    cli("save", BOT, "memory/servers.md", stdin=f"# Servers\n- db {pw}\n{block}\n- the db is on port 5432\n")
    pw, value = password("prefer")
    planted.add("prefer", value)
    cli("prefer", BOT, f"likes short answers, {pw}")
    planted.add("forget", g := ghp("forget"))
    cli("forget", BOT, "Globex", g)

    # chat titles, and a bot's write
    planted.add("remember --chat", g := ghp("title"))
    cli("remember", BOT, "replies in English", "--chat", f"deploy {g}")
    planted.add("turn begin --chat", k := sk("turn title"))
    turn = cli("turn", "begin", BOT, "--chat", f"ops {k}").strip()
    open_turn = [p for p in every_byte(root) if "turns" in p.parts]
    assert open_turn and all(k.encode() not in every_byte(root)[p] for p in open_turn)
    planted.add("write in a turn", k := sk("in turn"))
    with open(ws / "memory" / "servers.md", "a", encoding="utf-8") as f:   # the bot's file tool, in the turn
        f.write(f"- the staging key is {k}\n")
    planted.by_botmemory.discard("write in a turn")    # the bot wrote that line itself, not botmemory
    planted.add("turn end --said", g := ghp("said"))
    planted.add("turn end --tools", k := sk("tools"))
    cli("turn", "end", BOT, turn, "--said", f"stored {g} for you", "--tools", f"write,{k}")

    # outside edits, picked up by watch --once
    pw, value = password("outside")
    planted.add("outside password", value, botmemory_wrote=False)
    block, body = pem("outside")
    planted.add("outside pem", body, botmemory_wrote=False)
    with open(ws / "MEMORY.md", "a", encoding="utf-8") as f:
        f.write(f"- 2026-01-02 · from cli · old wifi {pw} · until 2026-02-01\n")
    (ws / "memory" / "keys.md").write_text(f"# Keys\n{block}\n- the vault is in Oslo\n", encoding="utf-8")
    cli("watch", "--once")

    # recall reads (and indexes) them; tidy moves the expired one; undo puts a file back
    cli("recall", BOT, "where is the vault kept these days")
    cli("tidy", BOT, "--no-model")
    rows = json.loads(cli("journal", BOT, "--limit", "1000", "--json"))
    created = next(r for r in rows if r["file"] == "memory/keys.md" and r["before_hash"] is None)
    cli("undo", BOT, created["id"])
    planted.add("remember after undo", k := sk("last"))
    cli("remember", BOT, f"rotate {k} monthly")
    cli("watch", "--once")

    files = every_byte(root)
    files.update(every_byte(home / "user"))   # the user's config, state and log folders (XDG_*, HOME)
    return root, planted, files


def test_no_planted_secret_reaches_disk_outside_the_workspace(home, capsys, monkeypatch):
    root, planted, files = plant_everywhere(home, capsys, monkeypatch)
    ws = root / "workspaces" / BOT
    assert any(p.name.endswith(".xz") for p in files), "the test should reach closed journal segments"
    assert any("shadows" in p.parts for p in files) and any(p.name.endswith(".sqlite3") for p in files)
    found = {(where, str(p.relative_to(home))) for p, data in files.items()
             for where, needle in planted.needles.items() if needle.encode() in data}
    assert found == set()

    in_workspace = {(where, str(p.relative_to(ws))) for p in ws.rglob("*") if p.is_file()
                    for where, needle in planted.needles.items()
                    if where in planted.by_botmemory and needle.encode() in p.read_bytes()}
    assert in_workspace == set()
    assert "«redacted" in (ws / "MEMORY.md").read_text() and "«redacted" in (ws / "memory" / "archive.md").read_text()
    for p in ws.rglob("*.md"):    # botmemory rewrote every file but these two since the outside edits
        if p.name not in ("servers.md", "keys.md"):
            assert not contains_secret(p.read_text(encoding="utf-8")), p


def test_no_planted_secret_reaches_the_recall_index(home, capsys, monkeypatch):
    root, planted, files = plant_everywhere(home, capsys, monkeypatch)
    found = {(where, str(p.relative_to(home))) for p, data in files.items() if "index" in p.parts
             for where, needle in planted.needles.items() if needle.encode() in data}
    assert found == set()
