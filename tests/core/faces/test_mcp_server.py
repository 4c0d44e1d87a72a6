"""`botmemory mcp BOT`: the memory tools over MCP, with the SDK's own client in-process and as real processes."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, Implementation

from botmemory.core import Memory
from botmemory.core.faces.mcp_server import build
from tests.conftest import BOT, TODAY, entry, memory_text, open_home

CLI = [sys.executable, "-m", "botmemory.core.faces.cli"]


def _result_text(r: Any) -> str:
    return "".join(getattr(c, "text", "") for c in r.content)


def calls(mem: Memory, *steps: tuple[str, dict[str, Any]], client: str = "tester",
          bot: str = BOT) -> list[tuple[bool, str]]:
    """Run tool calls in order through the SDK's in-process client; (is_error, text) for each."""
    server = build(mem, bot)

    async def go() -> list[tuple[bool, str]]:
        out = []
        async with Client(server, client_info=Implementation(name=client, version="1")) as c:
            for name, args in steps:
                r = await c.call_tool(name, args)
                out.append((bool(r.is_error), _result_text(r)))
        return out

    return asyncio.run(go())


def one(mem: Memory, name: str, args: dict[str, Any], **kw: Any) -> tuple[bool, str]:
    return calls(mem, (name, args), **kw)[0]


def ok(mem: Memory, name: str, args: dict[str, Any], **kw: Any) -> str:
    err, text = one(mem, name, args, **kw)
    assert not err, text
    return text


def test_lists_the_seven_tools_with_schemas_and_annotations(mem):
    server = build(mem, BOT)

    async def go() -> Any:
        async with Client(server) as c:
            return (await c.list_tools()).tools

    tools = {t.name: t for t in asyncio.run(go())}
    assert set(tools) == {"memory_update", "session_search", "memory_recall", "memory_load", "memory_read",
                          "memory_write", "memory_journal"}
    for t in tools.values():
        assert t.description and len(t.description) > 40
        assert t.input_schema["type"] == "object"
        a = t.annotations
        assert a is not None and a.open_world_hint is False
        assert None not in (a.read_only_hint, a.destructive_hint, a.idempotent_hint)
    assert tools["memory_update"].input_schema["properties"]["action"]["enum"] == ["remember", "forget", "prefer"]
    assert tools["memory_update"].input_schema["required"] == ["action"]
    assert tools["memory_write"].annotations.read_only_hint is False
    assert tools["memory_read"].annotations.read_only_hint is True


def test_remember_is_the_bots_work_in_the_clients_chat(mem, ws):
    text = ok(mem, "memory_update", {"action": "remember", "text": "Ships on Fridays"}, client="Claude Code")
    assert json.loads(text)["entry"] == entry(TODAY, "Ships on Fridays", "Claude Code")
    assert entry(TODAY, "Ships on Fridays", "Claude Code") in (ws / "MEMORY.md").read_text()
    row = mem.journal.list(BOT, limit=1)[0]
    assert (row.who, row.how, row.chat) == ("bot", "mcp", "Claude Code")


def test_the_chat_argument_wins_over_the_client_name(mem, ws):
    ok(mem, "memory_update", {"action": "remember", "note": "Ships on Fridays", "chat": "Ops"}, client="cursor")
    assert entry(TODAY, "Ships on Fridays", "Ops") in (ws / "MEMORY.md").read_text()
    assert mem.journal.list(BOT, limit=1)[0].chat == "Ops"


def test_remember_over_the_budget_names_what_moved(mem, ws):
    (ws / "MEMORY.md").write_text(memory_text(200))
    r = json.loads(ok(mem, "memory_update", {"action": "remember", "text": "The new fact"}))
    assert r["moved_count"] >= 1 and r["moved"][0].startswith("- 2026-01-01")
    assert "Fact number 1 about" in (ws / "memory" / "archive.md").read_text()


def test_a_secret_is_redacted_before_it_is_written(mem, ws):
    ok(mem, "memory_update", {"action": "remember", "content": "deploy token ghp_abcdefghijklmnopqrstuvwxyz0123456789"})
    assert "ghp_abcdef" not in (ws / "MEMORY.md").read_text()
    assert "redacted" in (ws / "MEMORY.md").read_text()
    for row in mem.journal.list(BOT):
        assert "ghp_abcdef" not in json.dumps(row.as_dict())


def test_forget_and_prefer(mem, ws):
    (ws / "MEMORY.md").write_text(entry("2026-10-01", "The dentist is on Main Street") + "\n"
                                  + entry("2026-10-02", "Ships on Fridays") + "\n")
    r = json.loads(ok(mem, "memory_update", {"action": "forget", "query": "dentist"}))
    assert len(r["removed"]) == 1 and "dentist" not in (ws / "MEMORY.md").read_text()
    r = json.loads(ok(mem, "memory_update", {"action": "prefer", "text": "Reminders go to my task app"}))
    assert r["added"] is True
    assert "Reminders go to my task app" in mem.home.about_me.read_text()


def test_a_refused_write_is_a_tool_error_and_nothing_is_written(mem, ws):
    subprocess.run([*CLI, "--root", str(mem.home.root), "settings", BOT, "memory", "off"], check=True,
                   capture_output=True)
    before = (ws / "MEMORY.md").read_bytes()
    for action, args in (("remember", {"text": "Ships on Fridays"}), ("forget", {"words": "Fridays"}),
                         ("prefer", {"text": "Short answers"})):
        err, text = one(mem, "memory_update", {"action": action, **args})
        assert err and text.startswith("memory is switched off for scout") and "\n" not in text
    err, text = one(mem, "memory_write", {"path": "memory/new.md", "text": "x"})
    assert err and "switched off" in text
    assert (ws / "MEMORY.md").read_bytes() == before and not (ws / "memory" / "new.md").exists()
    assert not mem.home.about_me.exists() and not mem.home.profile_learned.exists()
    assert mem.journal.list(BOT) == []


@pytest.mark.parametrize("name,args,says", [
    ("memory_update", {"action": "remember"}, "needs 'text'"),
    ("memory_update", {"action": "shout", "text": "x"}, "'action' must be one of remember, forget, prefer"),
    ("memory_update", {"text": "x"}, "needs the argument 'action'"),
    ("memory_update", {"action": "remember", "txt": "x"}, "has no argument 'txt'"),
    ("memory_update", {"action": "remember", "text": "x", "content": "y"}, "give text once"),
    ("memory_update", {"action": "remember", "text": "x", "until": "next week"}, "until"),
    ("memory_update", {"action": "remember", "text": "x", "until": "2026-10-14"}, "until 2026-10-14 is before today"),
    ("memory_update", {"action": "remember", "text": "line\n" * 30}, "lines"),
    ("memory_journal", {"n": "many"}, "'n' must be a whole number"),
    ("memory_read", {"path": "../secrets.md"}, "../secrets.md"),
    ("memory_read", {"path": "memory/none.md"}, "does not exist"),
    ("memory_write", {"path": "memory/log/2026-10-15.md", "text": "x"}, "daily log"),
    ("memory_write", {"path": "MEMORY.md", "text": "x"}, "pass its hash as expected_hash"),
    ("session_search", {}, "needs words, since or until"),
    ("session_search", {"since": "someday"}, "since"),
    ("memory_recall", {}, "needs the argument 'message'"),
    ("memory_load", {"bot": "other"}, "memory_load has no argument 'bot' (it takes: chat)"),
    ("memory_journal", {"limit": -1}, "'limit' must be 0 or more"),
])
def test_bad_calls_say_which_argument_in_one_line(mem, ws, name, args, says):
    before = (ws / "MEMORY.md").read_bytes()
    err, text = one(mem, name, args)
    assert err, text
    assert says in text and "\n" not in text
    assert (ws / "MEMORY.md").read_bytes() == before
    assert mem.journal.list(BOT) == []


def test_read_write_with_the_hash_and_a_stale_hash_refused(mem, ws):
    ok(mem, "memory_write", {"filename": "memory/launch.md", "content": "# Launch\n\nFriday.\n"})
    r = json.loads(ok(mem, "memory_read", {"file": "memory/launch.md"}))
    assert r["text"] == "# Launch\n\nFriday.\n"
    stale = r["hash"]
    ok(mem, "memory_write", {"path": "memory/launch.md", "text": "# Launch\n\nMonday.\n", "expectedHash": stale})
    err, text = one(mem, "memory_write", {"path": "memory/launch.md", "text": "# Launch\n\nSunday.\n",
                                          "hash": stale})
    assert err and text.startswith("conflict: memory/launch.md changed since it was opened")
    assert (ws / "memory" / "launch.md").read_text() == "# Launch\n\nMonday.\n"
    err, text = one(mem, "memory_write", {"path": "memory/launch.md", "text": "x"})
    assert err and "expected_hash" in text


def test_reads_load_recall_search_journal(mem, ws):
    (ws / "MEMORY.md").write_text(entry("2026-10-01", "Ships on Fridays") + "\n")
    (ws / "memory" / "billing.md").write_text("# Billing\n\nInvoices are reconciled by Milind every Monday.\n")
    assert "Ships on Fridays" in ok(mem, "memory_load", {})
    assert "reconciled by Milind" in ok(mem, "memory_recall", {"prompt": "who reconciles the invoices?"})
    hits = json.loads(ok(mem, "session_search", {"q": "Fridays"}))
    assert hits[0]["file"] == "MEMORY.md"
    assert json.loads(ok(mem, "session_search", {"words": ["invoices", "Monday"]}))[0]["file"] == "memory/billing.md"
    ok(mem, "memory_update", {"action": "remember", "text": "Standup at nine"})
    rows = json.loads(ok(mem, "memory_journal", {"n": 1}))
    assert len(rows) == 1 and rows[0]["how"] == "mcp" and "earlier_text" not in rows[0]


# ----- as real processes over stdio


class StdioClient:
    """A bare JSON-RPC client over a `botmemory mcp` process's pipes (what a host does)."""

    def __init__(self, root: Path, name: str) -> None:
        self.p = subprocess.Popen([*CLI, "--root", str(root), "--today", TODAY, "mcp", BOT],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.n = 0
        r = self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": name, "version": "1"}})
        assert "result" in r, r
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict[str, Any]) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        assert self.p.stdout is not None
        while True:
            line = self.p.stdout.readline()
            assert line, self.p.stderr.read() if self.p.stderr else "no answer"
            msg: dict[str, Any] = json.loads(line)
            if msg.get("id") == self.n:
                return msg

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.ask("tools/call", {"name": name, "arguments": args})["result"]
        return result

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        self.p.wait(timeout=30)
        for f in (self.p.stdout, self.p.stderr):
            if f is not None:
                f.close()


def test_over_stdio_list_call_refuse_and_exit_when_the_client_closes(mem, ws):
    c = StdioClient(mem.home.root, "Claude Desktop")
    try:
        names = {t["name"] for t in c.ask("tools/list", {})["result"]["tools"]}
        assert "memory_update" in names and "memory_write" in names
        r = c.call("memory_update", {"action": "remember", "text": "Ships on Fridays"})
        assert not r.get("isError"), r
        r = c.call("memory_write", {"path": "memory/log/2026-10-15.md", "text": "x"})
        assert r["isError"] and "daily log" in r["content"][0]["text"]
    finally:
        c.close()
    assert c.p.returncode == 0
    assert entry(TODAY, "Ships on Fridays", "Claude Desktop") in (ws / "MEMORY.md").read_text()


def test_an_unknown_bot_is_refused_before_serving(tmp_path):
    p = subprocess.run([*CLI, "--root", str(tmp_path), "mcp", "nobody"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    assert p.returncode == 2 and "nobody" in p.stderr and p.stdout == ""


def test_four_processes_writing_at_once_lose_nothing(tmp_path):
    root = tmp_path / "home"
    open_home(root).store.init(BOT)
    clients = [StdioClient(root, f"agent{i}") for i in range(4)]
    try:
        for c in clients:   # each remembers its notes and rewrites one shared topic, pipelined
            for k in range(5):
                c.n += 1
                c.send({"jsonrpc": "2.0", "id": c.n, "method": "tools/call", "params": {
                    "name": "memory_update", "arguments": {"action": "remember", "text": f"{c.p.pid} note {k}"}}})
        for c in clients:
            for _ in range(5):
                assert c.p.stdout is not None
                msg = json.loads(c.p.stdout.readline())
                assert not msg["result"].get("isError"), msg
        for c in clients:   # read-modify-write of one topic with the hash: retry on conflict
            while True:
                r = c.call("memory_read", {"path": "memory/team.md"})
                cur = json.loads(r["content"][0]["text"]) if not r.get("isError") else {"text": "", "hash": None}
                args = {"path": "memory/team.md", "text": cur["text"] + f"- {c.p.pid}\n"}
                if cur["hash"]:
                    args["expected_hash"] = cur["hash"]
                if not c.call("memory_write", args).get("isError"):
                    break
    finally:
        for c in clients:
            c.close()
    text = (root / "workspaces" / BOT / "MEMORY.md").read_text()
    team = (root / "workspaces" / BOT / "memory" / "team.md").read_text()
    for c in clients:
        for k in range(5):
            assert f"{c.p.pid} note {k}" in text
        assert f"- {c.p.pid}\n" in team
    rows = open_home(root).journal.list(BOT, limit=None)
    assert sum(1 for r in rows if r.file == "MEMORY.md") == 20
    assert {r.chat for r in rows} == {f"agent{i}" for i in range(4)}


def test_the_cli_does_not_import_the_sdk_for_other_commands(tmp_path):
    code = ("import sys; from botmemory.core.faces import cli; cli.main(['--root', sys.argv[1], 'bots']);"
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("[]")


def test_cli_help_lists_mcp():
    out = subprocess.run([*CLI, "--help"], capture_output=True, text=True, env={**os.environ}, check=True)
    assert "mcp" in out.stdout


def test_the_sdks_own_client_over_stdio(mem, ws):
    """The SDK's client launching `botmemory mcp` (whichever protocol version it negotiates)."""
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "botmemory.core.faces.cli", "--root", str(mem.home.root), "--today", TODAY,
                                         "mcp", BOT], env=dict(os.environ))

    async def go() -> tuple[set[str], Any, Any]:
        async with Client(params, client_info=Implementation(name="Cursor", version="1")) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            ok = await c.call_tool("memory_update", {"action": "remember", "text": "Ships on Fridays"})
            bad = await c.call_tool("memory_write", {"path": "MEMORY.md", "text": "x"})
            return names, ok, bad

    names, good, bad = asyncio.run(go())
    assert "memory_journal" in names
    assert not good.is_error and bad.is_error and "expected_hash" in _result_text(bad)
    assert entry(TODAY, "Ships on Fridays", "Cursor") in (ws / "MEMORY.md").read_text()
    assert mem.journal.list(BOT, limit=1)[0].how == "mcp"


@pytest.mark.parametrize("kind", ["openmausbot", "claude-code", "openclaw", "hermes"])
def test_memory_load_over_mcp_is_what_botmemory_load_prints_for_every_kind(env, kind, capsys):
    """memory_load once returned the OpenMausBot-shaped block for a Claude Code folder: the tool and the CLI
    now read through the same operation, so they agree for every kind."""
    from botmemory.core.faces.cli import main
    from botmemory.core.ops import track

    from ..agent_fixtures import claude_code, hermes, openclaw

    root = env / "bm"
    mem = Memory.open(str(root), TODAY)
    if kind == "openmausbot":
        mem.store.init(BOT)
        (mem.home.workspace(BOT) / "MEMORY.md").write_text(memory_text(12), encoding="utf-8")
        bot = BOT
    else:
        folder = {"claude-code": lambda: claude_code(env / "user", 260),
                  "openclaw": lambda: openclaw(env / "user", 900, max_chars=4000),
                  "hermes": lambda: hermes(env / "user")}[kind]()
        bot = track(mem, path=str(folder), agent=kind).id
    assert main(["--root", str(root), "--today", TODAY, "load", bot]) == 0
    printed = capsys.readouterr().out
    served = calls(Memory.open(str(root), TODAY), ("memory_load", {}), bot=bot)[0]
    assert served == (False, printed.removesuffix("\n")) or served == (False, printed)
