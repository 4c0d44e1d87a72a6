"""The live watcher covers tracked folders: a writer behaving like each agent, in place and temp+rename."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from botmemory.core.kinds import tracked
from botmemory.core.outside import watcher as W
from botmemory.core.store.memory import Memory
from tests.core.agent_fixtures import claude_code, hermes, openclaw
from tests.core.outside.test_reconcile import Collector, outside_tmp  # noqa: F401  (a fixture)


def in_place(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:   # Hermes and most editors: truncate and write
        f.write(text)


def temp_rename(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")   # Claude Code / OpenClaw style atomic write
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


AGENTS = {
    "claude-code": (claude_code, "MEMORY.md", "- [Deploy](deploy.md) — friday freeze\n"),
    "openclaw": (openclaw, "MEMORY.md", "- the fence is blue\n"),
    "hermes": (hermes, "USER.md", "§\nPrefers dark mode\n"),
}


@pytest.mark.parametrize("writer", [in_place, temp_rename], ids=["in-place", "temp+rename"])
@pytest.mark.parametrize("agent", list(AGENTS))
def test_an_agent_writing_its_memory_is_journaled_live(outside_tmp, monkeypatch, agent, writer):  # noqa: F811
    make, rel, added = AGENTS[agent]
    user = outside_tmp / "user"
    monkeypatch.setenv("HOME", str(user))
    folder = make(user)
    mem = Memory.open(str(outside_tmp / "bm"))
    found, _ = tracked.discover(mem.home)
    bot = next(c.id for c in found if c.agent == agent)
    tracked.track(mem.home, bot)
    before = (folder / rel).read_text()
    got = Collector()
    w = W.Watcher(mem, got)
    w.start()
    try:
        writer(folder / rel, before + added)
        rows = got.wait_for(lambda rows: any(r.file == rel for r in rows))
    finally:
        w.stop()
    row = next(r for r in rows if r.file == rel)
    assert (row.bot, row.who, row.how) == (bot, "unknown", "outside")
    assert not any(".tmp" in r.file for r in rows)
    assert not list(folder.glob("*.botmemory*"))     # no bookkeeping in the agent's folder
    assert (outside_tmp / "bm" / "botmemory" / "shadows").is_dir()
