"""Credentials planted in Claude Code transcripts (prompts, answers, the prompt Claude Code records, tool output;
several formats) never appear in a brief or a session search hit, through any face, nor in any file botmemory
writes under its home while serving them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime

from botmemory.core import ops
from botmemory.core.faces.cli import main
from botmemory.core.kinds.claude_code_paths import sanitized

from ..faces.test_secrets_everywhere import ghp, password, pem, sk
from .transcripts import Turn, write_session

TODAY = "2026-10-15"
CLI = [sys.executable, "-m", "botmemory.core.faces.cli"]


def test_no_planted_credential_reaches_a_brief_a_hit_or_a_file_of_the_home(tmp_path, monkeypatch, capsys):
    from ..faces.test_mcp_server import calls

    claude, app = tmp_path / "claude", tmp_path / "work" / "app"
    (app / ".git").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    memory = claude / "projects" / sanitized(str(app)) / "memory"
    memory.mkdir(parents=True)
    pwd_line, pwd = password("cc-pwd")
    pem_block, pem_line = pem("cc-pem")
    key, token, bearer, aws = sk("cc-sk"), ghp("cc-ghp"), "Zq8" + sk("cc-bearer")[8:40], "AKIAQ3EGUF2KXZ7WN4PL"
    secrets = {"sk in a prompt": key, "ghp in an answer": token, "password in an answer": pwd,
               "PEM in an answer": pem_line, "bearer in a prompt": bearer, "aws in tool output": aws}
    day = datetime(2026, 10, 15, 9, 0)
    write_session(claude, app, [Turn(f"Deploy with {key} please", f"Deployed. The token {token} is set.", day,
                                     tool_output=f"aws_access_key_id = {aws}")], "aaaa1111-s1")
    write_session(claude, app, [Turn(f"curl it with Authorization: Bearer {bearer}",
                                     f"Deployed; the database {pwd_line}\n{pem_block}\nis the key.", day.replace(hour=10))],
                  "bbbb2222-s2")
    root = tmp_path / "home"
    mem = ops.Memory.open(str(root), TODAY)
    bot = ops.track(mem, None, path=str(memory), agent="claude-code").id
    cli = ["--root", str(root), "--today", TODAY]
    outputs: dict[str, str] = {}

    def run(name: str, *args: str) -> None:
        assert main([*cli, *args]) == 0, name
        outputs[name] = capsys.readouterr().out

    run("connect --brief", "connect", "claude-code", "--brief", "--project", str(app), "--json")
    run("brief --json", "brief", bot, "--json")
    run("brief", "brief", bot, "--chat", "Claude Code zzzz")
    run("search since --json", "search", bot, "--since", "3d", "--json")
    run("search since", "search", bot, "--since", "yesterday")
    run("search words", "search", bot, "deployed", "--json")
    run("search the key's own word", "search", bot, "token", "--json")
    for words in (["deploy"], ["bearer"], ["database"]):
        outputs[f"mcp session_search {words}"] = calls(mem, ("session_search", {"words": words}), bot=bot)[0][1]
    outputs["mcp memory_load"] = calls(mem, ("memory_load", {}), bot=bot)[0][1]
    event = json.dumps({"session_id": "cccc3333-now", "cwd": str(app), "hook_event_name": "SessionStart",
                        "transcript_path": str(tmp_path / "none.jsonl"), "source": "startup"})
    hook = subprocess.run([*CLI, *cli, "hook", "claude-code"], input=event, capture_output=True, text=True,
                          env=os.environ, check=True)
    outputs["hook SessionStart"] = hook.stdout + hook.stderr

    brief = json.loads(outputs["brief --json"])
    assert len(brief["lines"]) == 2 and brief["text"].count("«redacted") >= 3      # the secrets were there
    assert "«redacted" in json.loads(outputs["search since --json"])[0]["text"]
    assert len(json.loads(outputs["search since --json"])) == 4
    assert "Deployed" in outputs["hook SessionStart"] and "«redacted" in outputs["hook SessionStart"]
    for name, out in outputs.items():
        for what, secret in secrets.items():
            assert secret not in out, f"{what} reached {name}"
    written = [p for p in root.rglob("*") if p.is_file()]
    assert any(p.name == "claude-code-brief.json" for p in written)
    for p in written:
        data = p.read_bytes()
        for what, secret in secrets.items():
            assert secret.encode() not in data, f"{what} reached {p.relative_to(root)}"


def test_the_planted_formats_are_secrets_to_the_redactor():
    """The test above is not vacuous: each planted value is found by redaction in its context."""
    from botmemory.core.redact import redact

    pwd_line, pwd = password("cc-pwd")
    pem_block, pem_line = pem("cc-pem")
    for text, secret in ((f"Deploy with {sk('cc-sk')} please", sk("cc-sk")), (f"The token {ghp('cc-ghp')}",
                                                                                 ghp("cc-ghp")),
                         (pwd_line, pwd), (pem_block, pem_line),
                         (f"Authorization: Bearer Zq8{sk('cc-bearer')[8:40]}", "Zq8" + sk("cc-bearer")[8:40])):
        assert secret in text and secret not in redact(text)
