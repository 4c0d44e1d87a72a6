"""`botmemory connect`: botmemory's entries in real-shaped settings files, kept apart from everything else."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from botmemory.core import BadInput, Refused
from botmemory.core.ops.connect import connect, status
from tests.conftest import BOT

DATA = Path(__file__).parents[1] / "data" / "hooks"
CLI = [sys.executable, "-m", "botmemory.core.faces.cli"]


@pytest.fixture
def user(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text((DATA / "claude_settings.json").read_text())
    (home / ".claude.json").write_text((DATA / "claude_json.json").read_text())
    return home


def load(p: Path) -> dict:
    return json.loads(p.read_text())


def test_claude_code_adds_the_hooks_and_keeps_everything_else(user, mem):
    before = load(user / ".claude" / "settings.json")
    out = connect(mem.home, "claude-code")
    after = load(user / ".claude" / "settings.json")
    assert out.changed == [str(user / ".claude" / "settings.json")]
    for key in ("$schema", "model", "permissions", "env", "autoMemoryEnabled", "someFutureKey"):
        assert after[key] == before[key]
    assert after["hooks"]["PreToolUse"] == before["hooks"]["PreToolUse"]
    assert after["hooks"]["UserPromptSubmit"][0] == before["hooks"]["UserPromptSubmit"][0]
    assert after["hooks"]["SessionStart"][0] == before["hooks"]["SessionStart"][0]
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        ours = after["hooks"][event][-1]["hooks"][0]
        assert ours["type"] == "command" and ours["command"].split()[-2:] == ["hook", "claude-code"]
        assert Path(ours["command"].split()[0]).is_absolute()
        assert "--root" in ours["command"] and str(mem.home.root) in ours["command"]
    assert (user / ".claude" / "settings.json.botmemory-backup").read_text() == (DATA / "claude_settings.json").read_text()
    assert load(user / ".claude.json") == load(DATA / "claude_json.json")   # no --bot: no MCP server


def test_a_second_run_changes_nothing_and_remove_takes_out_exactly_what_was_added(user, mem):
    connect(mem.home, "claude-code", bot=BOT)
    settings = (user / ".claude" / "settings.json").read_bytes()
    cj = (user / ".claude.json").read_bytes()
    assert connect(mem.home, "claude-code", bot=BOT).changed == []
    assert (user / ".claude" / "settings.json").read_bytes() == settings
    assert (user / ".claude.json").read_bytes() == cj
    server = load(user / ".claude.json")["mcpServers"]["botmemory"]
    assert server["args"][-2:] == ["mcp", BOT] and Path(server["command"]).is_absolute()
    assert load(user / ".claude.json")["mcpServers"]["github"] == load(DATA / "claude_json.json")["mcpServers"]["github"]
    connect(mem.home, "claude-code", remove=True)
    assert load(user / ".claude" / "settings.json") == load(DATA / "claude_settings.json")
    assert load(user / ".claude.json") == load(DATA / "claude_json.json")
    assert connect(mem.home, "claude-code", remove=True).changed == []


def test_binding_another_bot_replaces_the_entries_in_place(user, mem):
    mem.store.init("ledger")
    connect(mem.home, "claude-code", bot=BOT)
    connect(mem.home, "claude-code", bot="ledger")
    s = load(user / ".claude" / "settings.json")
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        ours = [h for g in s["hooks"][event] for h in g["hooks"] if "claude-code" in h["command"]]
        assert len(ours) == 1 and ours[0]["command"].endswith("--bot ledger")
    assert load(user / ".claude.json")["mcpServers"]["botmemory"]["args"][-1] == "ledger"


def test_project_scope(user, mem, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    out = connect(mem.home, "claude-code", project=str(project), bot=BOT)
    assert sorted(out.changed) == sorted([str(project / ".claude" / "settings.json"), str(project / ".mcp.json")])
    assert load(project / ".mcp.json")["mcpServers"]["botmemory"]["args"][-1] == BOT
    assert (project / ".mcp.json.botmemory-backup").read_text() == ""   # there was no file
    assert load(user / ".claude" / "settings.json") == load(DATA / "claude_settings.json")
    connect(mem.home, "claude-code", project=str(project), remove=True)
    assert not (project / ".mcp.json").exists() and not (project / ".claude" / "settings.json").exists()
    assert sorted(p.name for p in project.rglob("*") if p.is_file()) == []   # nothing of botmemory is left


def test_claude_desktop_and_cursor(user, mem, tmp_path):
    connect(mem.home, "claude-desktop", bot=BOT)
    cfg = user / ".config" / "Claude" / "claude_desktop_config.json"
    assert load(cfg)["mcpServers"]["botmemory"]["args"][-2:] == ["mcp", BOT]
    connect(mem.home, "cursor", bot=BOT)
    assert load(user / ".cursor" / "mcp.json")["mcpServers"]["botmemory"]["args"][-1] == BOT
    project = tmp_path / "proj"
    project.mkdir()
    connect(mem.home, "cursor", bot=BOT, project=str(project))
    assert load(project / ".cursor" / "mcp.json")["mcpServers"]["botmemory"]["args"][-1] == BOT
    with pytest.raises(BadInput, match="needs --bot"):
        connect(mem.home, "cursor")
    with pytest.raises(BadInput, match="no project settings"):
        connect(mem.home, "claude-desktop", bot=BOT, project=str(project))
    rows = {r["agent"]: r for r in status()}
    assert rows["claude-desktop"]["mcp_bot"] == BOT and rows["cursor"]["connected"]
    assert rows["claude-code"]["connected"] is False and rows["claude-code"]["found"] is True


def test_a_file_that_is_not_json_is_refused_with_its_path_and_never_overwritten(user, mem):
    broken = '{"model": "opus",, }'
    (user / ".claude" / "settings.json").write_text(broken)
    with pytest.raises(BadInput, match=r"settings\.json is not valid JSON \(line 1"):
        connect(mem.home, "claude-code", bot=BOT)
    assert (user / ".claude" / "settings.json").read_text() == broken
    assert load(user / ".claude.json") == load(DATA / "claude_json.json")   # the other file was not touched either
    (user / ".claude" / "settings.json").write_text("[1, 2]")
    with pytest.raises(BadInput, match="does not hold a JSON object"):
        connect(mem.home, "claude-code")


def test_a_settings_file_that_is_not_utf8_is_refused_and_kept_byte_for_byte(user, mem):
    settings = user / ".claude" / "settings.json"
    raw = b'{"keep": "caf\xe9"}\n'    # Latin-1: rewriting it would put U+FFFD in place of the e-acute
    settings.write_bytes(raw)
    with pytest.raises(BadInput, match=r"settings\.json is not valid UTF-8"):
        connect(mem.home, "claude-code")
    assert settings.read_bytes() == raw
    assert not settings.with_name("settings.json.botmemory-backup").exists()


@pytest.mark.parametrize("content, named", [('{"hooks": []}', "hooks is not a JSON object"),
                                            ('{"hooks": {"Stop": "x"}}', "hooks.Stop is not a list")])
def test_a_part_that_is_not_what_connect_expects_is_refused_naming_the_file(user, mem, content, named):
    settings = user / ".claude" / "settings.json"
    settings.write_text(content)
    with pytest.raises(BadInput) as e:
        connect(mem.home, "claude-code")
    assert str(e.value).startswith(f"{settings}: {named};")
    assert settings.read_text() == content


def test_a_server_of_that_name_that_is_not_ours_is_kept(user, mem):
    data = load(user / ".claude.json")
    data["mcpServers"]["botmemory"] = {"command": "npx", "args": ["something-else"]}
    (user / ".claude.json").write_text(json.dumps(data))
    with pytest.raises(BadInput, match="not botmemory's"):
        connect(mem.home, "claude-code", bot=BOT)
    assert load(user / ".claude.json") == data


def test_a_symlinked_settings_file_is_refused(user, mem, tmp_path):
    real = tmp_path / "real.json"
    real.write_text("{}")
    (user / ".claude" / "settings.json").unlink()
    os.symlink(real, user / ".claude" / "settings.json")
    with pytest.raises(Refused, match="symbolic link"):
        connect(mem.home, "claude-code")
    assert real.read_text() == "{}"


def test_a_projects_linked_claude_folder_is_refused_naming_it(user, mem, tmp_path):
    """--project's files are walked from the project: its .claude a link to another project's is not written."""
    other = tmp_path / "other" / ".claude"
    other.mkdir(parents=True)
    (other / "settings.json").write_text("{}")
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".claude").symlink_to(other, target_is_directory=True)
    with pytest.raises(Refused, match=r"\.claude is a symbolic link"):
        connect(mem.home, "claude-code", project=str(project), bot=BOT)
    assert (other / "settings.json").read_text() == "{}" and not (project / ".mcp.json").exists()
    assert "symbolic link" in [s for s in status(str(project)) if s["agent"] == "claude-code"][0]["error"]


def test_unknown_bot_is_bad_input(user, mem):
    with pytest.raises(BadInput):
        connect(mem.home, "claude-code", bot="nobody")


def test_cli_connect_json_and_exit_codes(user, mem):
    root = str(mem.home.root)
    env = {**os.environ}
    p = subprocess.run([*CLI, "--root", root, "connect", "claude-code", "--bot", BOT], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0 and "claude-code connected" in p.stdout
    p = subprocess.run([*CLI, "--root", root, "connect", "--json"], capture_output=True, text=True, env=env)
    rows = {r["agent"]: r for r in json.loads(p.stdout)}
    assert rows["claude-code"]["connected"] and rows["claude-code"]["hooks"] and rows["claude-code"]["mcp_bot"] == BOT
    assert rows["cursor"]["connected"] is False
    (user / ".cursor").mkdir()
    (user / ".cursor" / "mcp.json").write_text("{oops")
    p = subprocess.run([*CLI, "--root", root, "connect", "cursor", "--bot", BOT], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 2 and str(user / ".cursor" / "mcp.json") in p.stderr and len(p.stderr.splitlines()) == 1
    assert (user / ".cursor" / "mcp.json").read_text() == "{oops"
    p = subprocess.run([*CLI, "--root", root, "connect", "--remove"], capture_output=True, text=True, env=env)
    assert p.returncode == 2


def test_the_written_hook_command_runs(user, mem, tmp_path):
    """The command connect writes is one that starts this botmemory and answers a hook (exit 0)."""
    connect(mem.home, "claude-code", bot=BOT)
    cmd = load(user / ".claude" / "settings.json")["hooks"]["SessionEnd"][-1]["hooks"][0]["command"]
    p = subprocess.run(cmd, shell=True, input=(DATA / "session_end.json").read_text(), capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr


def test_remove_puts_back_the_empty_containers_that_were_there(user, mem):
    original = {"model": "opus", "hooks": {"Stop": []}, "mcpServers": {}}
    (user / ".claude" / "settings.json").write_text(json.dumps(original))
    (user / ".claude.json").write_text(json.dumps({"mcpServers": {}}))
    connect(mem.home, "claude-code", bot=BOT)
    connect(mem.home, "claude-code", remove=True)
    assert load(user / ".claude" / "settings.json") == original
    assert load(user / ".claude.json") == {"mcpServers": {}}


def test_the_default_home_needs_no_root(user):
    from botmemory.core import Home
    from botmemory.core.ops.connect import hook_command

    assert "--root" not in hook_command(Home(user / ".openmausbot"), None)
    assert "--root" in hook_command(Home(user / "elsewhere"), None)


@pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")
def test_a_settings_file_keeps_its_mode_and_a_new_one_is_0600(user, mem):
    settings = user / ".claude" / "settings.json"
    os.chmod(settings, 0o644)
    cursor = user / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text("{}\n")
    os.chmod(cursor, 0o640)
    connect(mem.home, "claude-code")
    connect(mem.home, "cursor", bot=BOT)
    connect(mem.home, "claude-desktop", bot=BOT)
    assert os.stat(settings).st_mode & 0o7777 == 0o644
    assert os.stat(cursor).st_mode & 0o7777 == 0o640
    assert os.stat(user / ".config" / "Claude" / "claude_desktop_config.json").st_mode & 0o7777 == 0o600
    connect(mem.home, "claude-code", remove=True)
    assert os.stat(settings).st_mode & 0o7777 == 0o644


def _tray_beside_the_cli() -> Path:
    """The tray app's program in this environment (beside the ``botmemory`` the tests' Python has)."""
    tray = Path(sys.executable).parent / "botmemory-tray"
    assert tray.exists() and (Path(sys.executable).parent / "botmemory").exists()
    return tray


def test_connect_from_the_tray_app_writes_the_command_line_and_what_it_wrote_runs(user, mem, monkeypatch):
    """Issue 29: the app once wrote `botmemory-tray … hook claude-code` (any program named botmemory* passed).
    The hook and the MCP server it writes now start the CLI, and answer."""
    monkeypatch.setattr(sys, "argv", [str(_tray_beside_the_cli()), "--root", str(mem.home.root)])
    connect(mem.home, "claude-code", bot=BOT)
    hook = load(user / ".claude" / "settings.json")["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    server = load(user / ".claude.json")["mcpServers"]["botmemory"]
    assert Path(hook.split()[0]).name == "botmemory" and Path(server["command"]).name == "botmemory"
    event = {"hook_event_name": "SessionStart", "session_id": "s1", "cwd": str(user), "source": "startup",
             "transcript_path": str(user / "t.jsonl")}
    p = subprocess.run(hook, shell=True, input=json.dumps(event), capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}}
    proc = subprocess.Popen([server["command"], *server["args"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **server["env"]})
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(init) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 1 and "serverInfo" in answer["result"]
    finally:
        proc.kill()
        proc.communicate(timeout=30)


def test_the_command_is_the_cli_beside_the_program_even_off_path(monkeypatch, tmp_path):
    from botmemory.core.ops.connect import botmemory_command

    bundle = tmp_path / "bundle"
    bundle.mkdir()
    for name in ("botmemory", "botmemory-tray"):
        (bundle / name).write_text("#!/bin/sh\n")
        (bundle / name).chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(bundle / "botmemory-tray")])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert botmemory_command() == [str(bundle / "botmemory")]
    monkeypatch.setattr(sys, "argv", [str(bundle / "botmemory")])
    assert botmemory_command() == [str(bundle / "botmemory")]


def test_a_file_botmemory_created_goes_again_on_disconnect(user, mem):
    (user / ".claude" / "settings.json").unlink()
    (user / ".claude.json").unlink()
    connect(mem.home, "claude-code", bot=BOT)
    assert (user / ".claude" / "settings.json.botmemory-backup").read_text() == ""   # there was no file
    connect(mem.home, "claude-code", remove=True)
    assert not (user / ".claude" / "settings.json").exists() and not (user / ".claude.json").exists()
    assert not (user / ".claude" / "settings.json.botmemory-backup").exists()


def test_the_backup_is_the_file_before_botmemory_first_touched_it(user, mem):
    """A later Connect never takes a file botmemory already changed for its backup."""
    settings = user / ".claude" / "settings.json"
    settings.unlink()
    connect(mem.home, "claude-code")                      # botmemory made the file
    data = load(settings)
    data["model"] = "opus"                               # the person adds to it
    settings.write_text(json.dumps(data))
    connect(mem.home, "claude-code", bot=BOT)
    assert (user / ".claude" / "settings.json.botmemory-backup").read_text() == ""
    connect(mem.home, "claude-code", remove=True)
    assert load(settings) == {"model": "opus"}           # the person's key stays, botmemory's go


def test_a_dry_run_says_what_would_change_and_writes_nothing(user, mem):
    before = {p: p.read_bytes() for p in (user / ".claude" / "settings.json", user / ".claude.json")}
    out = connect(mem.home, "claude-code", bot=BOT, dry_run=True)
    assert set(out.changed) == {str(p) for p in before}
    assert {p: p.read_bytes() for p in before} == before
    assert not (user / ".claude" / "settings.json.botmemory-backup").exists()
