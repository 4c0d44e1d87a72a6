"""botmemory as a Claude Code plugin (issue 29): the marketplace and the plugin pass the real ``claude plugin
validate``, the plugin's hooks are the ones ``connect`` writes, its one command runs the installed botmemory or
says that there is none, and installed from the marketplace into the real Claude Code its hook answers a prompt.

Claude Code is installed with npm into a cache (``tests/claude_code.py``; ``$BOTMEMORY_AGENT_CACHE``).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import claude_code
from tests.claude_code import FakeModel

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugins" / "botmemory"
RUN = PLUGIN / "bin" / "botmemory-run"
BIN = Path(sys.executable).parent           # where this environment's botmemory is


@pytest.fixture(scope="module")
def claude() -> Path:
    try:
        return claude_code.claude()
    except claude_code.Unavailable as e:
        if "npm is missing" in str(e):
            pytest.skip(str(e))
        raise


def validate(claude: Path, path: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(claude), "plugin", "validate", "--strict", str(path)], capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), **claude_code.OFFLINE},
                          timeout=120)


def test_the_marketplace_and_the_plugin_pass_claude_plugin_validate(claude: Path, tmp_path: Path) -> None:
    for path in (ROOT, PLUGIN):
        p = validate(claude, path, tmp_path)
        assert p.returncode == 0 and "Validation passed" in p.stdout, p.stdout + p.stderr


def test_the_validation_can_fail(claude: Path, tmp_path: Path) -> None:
    """Not vacuous: a plugin whose name is not kebab-case is refused."""
    bad = tmp_path / "bad"
    (bad / ".claude-plugin").mkdir(parents=True)
    (bad / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "bot memory", "version": 1}))
    assert validate(claude, bad, tmp_path).returncode != 0


def test_the_plugins_hooks_are_the_ones_connect_writes() -> None:
    from botmemory.core.ops.connect import HOOK_EVENTS, HOOK_WORDS

    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert {event: groups[0]["hooks"][0]["timeout"] for event, groups in hooks.items()} == HOOK_EVENTS
    for groups in hooks.values():
        command = groups[0]["hooks"][0]["command"]
        assert command == '"${CLAUDE_PLUGIN_ROOT}/bin/botmemory-run" ' + " ".join(HOOK_WORDS)
    server = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["botmemory"]
    assert server == {"command": "${CLAUDE_PLUGIN_ROOT}/bin/botmemory-run", "args": ["mcp", "--project"]}
    marketplace = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    plugin = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert [p["source"] for p in marketplace["plugins"]] == ["./plugins/botmemory"]
    assert plugin["name"] == marketplace["plugins"][0]["name"] == "botmemory"


def session_start(cwd: Path) -> str:
    return json.dumps({"hook_event_name": "SessionStart", "session_id": "s1", "cwd": str(cwd), "source": "startup",
                       "transcript_path": str(cwd / "t.jsonl")})


def test_its_command_runs_the_installed_botmemory(tmp_path: Path) -> None:
    p = subprocess.run([str(RUN), "hook", "claude-code"], input=session_start(tmp_path), capture_output=True,
                       text=True, timeout=60, env={"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert p.returncode == 0, p.stderr


def test_without_botmemory_it_says_so_and_blocks_nothing(tmp_path: Path) -> None:
    """Exit 1 is a hook error Claude Code shows; 2 would block the prompt."""
    p = subprocess.run([str(RUN), "hook", "claude-code"], input=session_start(tmp_path), capture_output=True,
                       text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert p.returncode == 1
    assert "botmemory is not installed, or not on PATH" in p.stderr and "pipx install botmemory" in p.stderr


def test_installed_from_the_marketplace_its_hook_answers_claude_p(claude: Path, tmp_path: Path) -> None:
    """The real Claude Code, offline: /plugin marketplace add, /plugin install, then a prompt about a topic of the
    project's memory reaches the model with that topic's note (UserPromptSubmit's answer)."""
    import re

    home = tmp_path / "priya"
    project = home / "src" / "shop-app"
    project.mkdir(parents=True)
    memory = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project)) / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- [Payment retries](payment_retries.md) — how the client retries\n")
    (memory / "payment_retries.md").write_text(
        "---\nname: payment retries\ndescription: retries\ntype: reference\n---\n"
        "The payment client retries a failed charge 3 times with a 2 second budget.\n")
    env = {"PATH": f"{BIN}:{os.environ['PATH']}", "HOME": str(home), **claude_code.OFFLINE}
    for args in (["plugin", "marketplace", "add", str(ROOT)], ["plugin", "install", "botmemory@botmemory"]):
        p = subprocess.run([str(claude), *args], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
    with FakeModel().running() as fake:
        p = claude_code.run(claude, "How does the payment client retry a failed charge?", cwd=project, home=home,
                            port=fake.port, path=env["PATH"])
        assert p.returncode == 0, p.stdout + p.stderr
        sent = "\n".join(fake.texts())
    assert "UserPromptSubmit hook additional context" in sent
    assert "retries a failed charge 3 times with a 2 second budget" in sent
