"""Settings → Agents: the agents found, Connect and Disconnect through the core, on the worker."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botmemory.core import Memory
from botmemory.desktop.agents_page import AgentsPage, state_line
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
    assert [page.bot_combo.itemText(i) for i in range(page.bot_combo.count())] == ["ledger", "scout"]
    assert page.buttons["claude-code"].text() == "Connect" and page.buttons["claude-code"].isEnabled()


def test_connect_then_disconnect_claude_code(qtbot: Any, page: AgentsPage, user: Path) -> None:
    page.bot_combo.setCurrentText("scout")
    with qtbot.waitSignal(page.refreshed, timeout=10_000):
        page.buttons["claude-code"].click()
    assert page.state["claude-code"].text() == "Connected: hooks and memory tools for scout"
    assert page.buttons["claude-code"].text() == "Disconnect"
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
