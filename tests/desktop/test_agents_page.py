"""Settings → Agents: the agents found, Connect and Disconnect through the core, on the worker."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botmemory.core import Memory
from botmemory.desktop.agents_page import EACH_PROJECT, AgentsPage, state_line
from botmemory.desktop.worker import Worker


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"model": "opus", "hooks": {}}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return home


@pytest.fixture
def page(qtbot: Any, mem: Memory, user: Path) -> Iterator[AgentsPage]:
    worker = Worker()
    with qtbot.waitSignal(worker.busy_changed, timeout=10_000):
        p = AgentsPage(mem.home, worker)
    qtbot.addWidget(p)
    qtbot.waitUntil(lambda: p.state["claude-code"].text() != "…", timeout=10_000)
    yield p
    worker.shutdown()


def test_lists_the_agents_and_what_each_connection_does(page: AgentsPage) -> None:
    assert page.state["claude-code"].text() == "Not connected"
    assert page.state["cursor"].text() == "Not connected (not found on this computer)"
    assert page.does["claude-code"].text().startswith("Hooks: each prompt gets the matching notes")
    assert "restart Claude Desktop" in page.does["claude-desktop"].text()
    assert [page.bot_combo.itemText(i) for i in range(page.bot_combo.count())] == [EACH_PROJECT, "ledger", "scout"]
    assert page.buttons["claude-code"].text() == "Connect C&laude Code" and page.buttons["claude-code"].isEnabled()


def test_connect_then_disconnect_claude_code(qtbot: Any, page: AgentsPage, user: Path) -> None:
    page.bot_combo.setCurrentText("scout")
    with qtbot.waitSignal(page.refreshed, timeout=10_000):
        page.buttons["claude-code"].click()
    assert page.state["claude-code"].text() == "Connected: hooks and memory tools for scout"
    assert page.buttons["claude-code"].text() == "Disconnect C&laude Code"
    settings = json.loads((user / ".claude" / "settings.json").read_text())
    assert settings["model"] == "opus" and "UserPromptSubmit" in settings["hooks"]
    assert json.loads((user / ".claude.json").read_text())["mcpServers"]["botmemory"]["args"][-1] == "scout"
    with qtbot.waitSignal(page.refreshed, timeout=10_000):
        page.buttons["claude-code"].click()
    assert page.state["claude-code"].text() == "Not connected"
    assert json.loads((user / ".claude" / "settings.json").read_text()) == {"model": "opus", "hooks": {}}


def test_a_broken_settings_file_is_named_and_kept(qtbot: Any, page: AgentsPage, user: Path) -> None:
    (user / ".cursor").mkdir()
    (user / ".cursor" / "mcp.json").write_text("{nope")
    with qtbot.waitSignal(page.refreshed, timeout=10_000):
        page.refresh()
    assert page.state["cursor"].text().startswith("Cannot read its settings:")
    assert str(user / ".cursor" / "mcp.json") in page.state["cursor"].text()
    assert not page.buttons["cursor"].isEnabled()
    assert (user / ".cursor" / "mcp.json").read_text() == "{nope"


def test_state_line() -> None:
    assert state_line({"connected": True, "hooks": True, "mcp_bot": None, "found": True}) == "Connected: hooks"
    assert state_line({"connected": False, "found": True}) == "Not connected"


def claude_project(user: Path, name: str) -> Path:
    """A Claude Code project's memory folder, and a transcript that names the project's real path."""
    d = user / ".claude" / "projects" / name / "memory"
    d.mkdir(parents=True)
    (d / "MEMORY.md").write_text("- [Testing](feedback_testing.md) — run the whole suite\n")
    cwd = "/" + name.strip("-").replace("-", "/").replace("shop/app", "shop-app")
    (d.parent / "s1.jsonl").write_text(json.dumps({"type": "user", "cwd": cwd}) + "\n")
    return d


@pytest.fixture
def agents_only(tmp_path: Path, user: Path) -> Memory:
    """A person who runs Claude Code and no OpenMausBot: botmemory's own home, tracking two projects."""
    from botmemory.core.ops import track

    for name in ("-home-priya-src-shop-app", "-home-priya-src-blog"):
        claude_project(user, name)
    mem = Memory.open(str(tmp_path / "own-home"))
    for folder in ("claude-home-priya-src-shop-app", "claude-home-priya-src-blog"):
        track(mem, folder)
    return mem


def make_page(qtbot: Any, mem: Memory, **kw: Any) -> tuple[AgentsPage, Worker]:
    worker = Worker()
    p = AgentsPage(mem.home, worker, **kw)
    qtbot.addWidget(p)
    qtbot.waitUntil(lambda: p.state["claude-code"].text() != "…", timeout=10_000)
    return p, worker


def test_without_an_openmausbot_workspace_claude_code_connects(qtbot: Any, agents_only: Memory, user: Path) -> None:
    """Issue 29, Broken 2: tracked folders only — Connect works, the list holds the projects by name, and a button
    that cannot act says why."""
    page, worker = make_page(qtbot, agents_only)
    try:
        items = [page.bot_combo.itemText(i) for i in range(page.bot_combo.count())]
        assert items[0] == EACH_PROJECT and "/home/priya/src/blog · Claude Code" in items
        assert page.buttons["claude-code"].isEnabled()
        assert not page.buttons["claude-desktop"].isEnabled()
        assert "choose it in" in page.buttons["claude-desktop"].toolTip()
        page.bot_combo.setCurrentIndex(items.index("/home/priya/src/blog · Claude Code"))
        assert page.buttons["claude-desktop"].isEnabled()
        page.bot_combo.setCurrentIndex(0)
        with qtbot.waitSignal(page.refreshed, timeout=10_000):
            page.buttons["claude-code"].click()
        assert page.state["claude-code"].text() == "Connected: hooks"
        hook = json.loads((user / ".claude" / "settings.json").read_text())["hooks"]["UserPromptSubmit"][0]
        assert hook["hooks"][0]["command"].split()[-2:] == ["hook", "claude-code"]
    finally:
        worker.shutdown()


def test_with_no_bot_at_all_the_tools_say_what_they_need(qtbot: Any, tmp_path: Path, user: Path) -> None:
    mem = Memory.open(str(tmp_path / "empty-home"))
    page, worker = make_page(qtbot, mem)
    try:
        assert page.buttons["claude-code"].isEnabled()
        assert not page.buttons["cursor"].isEnabled()
        assert "track an agent folder" in page.buttons["cursor"].toolTip()
    finally:
        worker.shutdown()


def test_the_demo_connect_writes_nothing_and_says_so(qtbot: Any, agents_only: Memory, user: Path) -> None:
    """Issue 29, Broken 3: the demo's Connect changes none of the person's real files."""
    before = {p: p.read_bytes() for p in user.rglob("*") if p.is_file()}
    page, worker = make_page(qtbot, agents_only, demo=True)
    try:
        with qtbot.waitSignal(page.refreshed, timeout=10_000):
            page.buttons["claude-code"].click()
        assert page.message.text().startswith("Demo: Connect would change ")
        assert str(user / ".claude" / "settings.json") in page.message.text()
        assert "Nothing was written" in page.message.text()
        assert page.state["claude-code"].text() == "Not connected"
        assert {p: p.read_bytes() for p in user.rglob("*") if p.is_file()} == before
    finally:
        worker.shutdown()
