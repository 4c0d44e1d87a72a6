"""`botmemory mcp BOT` against hostile input: raw bytes written to a real process's stdin (issues 22 and 23).

Every line gets a JSON-RPC answer (an error where it is bad: -32700 with id null when it cannot be
read, -32600 for a message that is not a request, -32602 naming the argument), and the server goes
on serving. Each test spawns the real command, as Claude Code does.
"""
from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from botmemory.core import Memory

from ..conftest import BOT, TODAY

CLI = [sys.executable, "-m", "botmemory.core.faces.cli"]
WAIT_S = 60.0    # a bound so that a silent server fails the test instead of hanging it (not a speed check)


class Raw:
    """A `botmemory mcp` process fed raw bytes; answers read one line at a time."""

    def __init__(self, root: Path, *, initialize: bool = True) -> None:
        self.p = subprocess.Popen([*CLI, "--root", str(root), "--today", TODAY, "mcp", BOT],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""
        if initialize:
            self.send(b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18",'
                      b'"capabilities":{},"clientInfo":{"name":"Raw","version":"1"}}}\n')
            assert "result" in self.answer(), "initialize"
            self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def send(self, data: bytes) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def answer(self) -> dict[str, Any]:
        assert self.p.stdout is not None
        fd = self.p.stdout.fileno()
        deadline = time.monotonic() + WAIT_S
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            assert left > 0, "no answer"
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                assert chunk, "the server closed stdout: " + (self.p.stderr.read().decode() if self.p.stderr else "")
                self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        msg: dict[str, Any] = json.loads(line)
        return msg

    def ask(self, data: bytes) -> dict[str, Any]:
        self.send(data)
        return self.answer()

    def still_serving(self) -> None:
        r = self.ask(b'{"jsonrpc":"2.0","id":"alive","method":"tools/list"}\n')
        assert r["id"] == "alive" and len(r["result"]["tools"]) == 7

    def close(self) -> int:
        assert self.p.stdin is not None
        self.p.stdin.close()
        code = self.p.wait(timeout=WAIT_S)
        for f in (self.p.stdout, self.p.stderr):
            if f is not None:
                f.close()
        return code


@pytest.fixture
def raw(mem: Memory):
    r = Raw(mem.home.root)
    yield r
    if r.p.poll() is None:
        r.close()


def call_line(args: str, name: str = "memory_update", id_: int = 7) -> bytes:
    return (f'{{"jsonrpc":"2.0","id":{id_},"method":"tools/call","params":{{"name":"{name}",'
            f'"arguments":{args}}}}}\n').encode()


@pytest.mark.parametrize("line, code, says", [
    (b"hello\n", -32700, "not JSON"),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/list"\n', -32700, "not JSON"),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/li\n', -32700, "not JSON"),
    (b"\xff\xfe garbage\n", -32700, "UTF-8"),
    (b'[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]\n', -32600, "batch"),
    (b"[]\n", -32600, "batch"),
    (b'"just a string"\n', -32600, "object"),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}\n', -32600, "id"),
    (b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}\n', -32600, "id"),
    (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}\n', -32600, "id"),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}\n', -32600, "id"),
    (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}\n', -32600, "id"),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/list","params":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
     -32700, "nested"),
])
def test_a_line_that_cannot_be_a_request_gets_an_error_with_id_null(raw: Raw, line: bytes, code: int, says: str) -> None:
    r = raw.ask(line)
    assert r["jsonrpc"] == "2.0" and r["id"] is None and r["error"]["code"] == code, r
    assert says in r["error"]["message"], r
    raw.still_serving()


@pytest.mark.parametrize("line, code, says", [
    (b'{"jsonrpc":"1.0","id":5,"method":"tools/list"}\n', -32600, "jsonrpc"),
    (b'{"id":5,"method":"tools/list"}\n', -32600, "jsonrpc"),
    (b'{"jsonrpc":"2.0","id":5,"method":7}\n', -32600, "method"),
    (b'{"jsonrpc":"2.0","id":5}\n', -32600, "method"),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1,2]}\n', -32602, "params"),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/list","params":' + b'{"a":' * 80 + b"1" + b"}" * 80 + b"}\n",
     -32600, "nested"),
])
def test_a_request_that_is_not_well_formed_is_answered_with_its_id(raw: Raw, line: bytes, code: int, says: str) -> None:
    r = raw.ask(line)
    assert r["id"] == 5 and r["error"]["code"] == code and says in r["error"]["message"], r
    raw.still_serving()


def test_a_lone_surrogate_in_an_argument_is_invalid_params_naming_it(raw: Raw, mem: Memory) -> None:
    before = (mem.home.workspace(BOT) / "MEMORY.md").read_bytes()
    r = raw.ask(call_line('{"action":"remember","text":"x \\ud800 y"}'))
    assert r["id"] == 7 and r["error"]["code"] == -32602, r
    assert "'text'" in r["error"]["message"] and "surrogate" in r["error"]["message"]
    r = raw.ask(call_line('{"action":"remember","text":"ok","chat":"\\udfff"}', id_=8))
    assert r["id"] == 8 and r["error"]["code"] == -32602 and "'chat'" in r["error"]["message"], r
    r = raw.ask(call_line('{"action":"remember","text":"a pair \\ud83d\\ude00 is fine"}', id_=9))
    assert r["id"] == 9 and not r["result"].get("isError"), r
    assert b"a pair \xf0\x9f\x98\x80 is fine" in (mem.home.workspace(BOT) / "MEMORY.md").read_bytes()
    assert b"\xef\xbf\xbd" not in (mem.home.workspace(BOT) / "MEMORY.md").read_bytes() and before != b"x"
    raw.still_serving()


def test_invalid_utf8_in_an_argument_is_refused_as_the_cli_refuses_it(raw: Raw, mem: Memory) -> None:
    memory_md = mem.home.workspace(BOT) / "MEMORY.md"
    before = memory_md.read_bytes()
    r = raw.ask(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_update",'
                b'"arguments":{"action":"remember","text":"bad \xff\xfe bytes"}}}\n')
    assert r["id"] == 7 and r["error"]["code"] == -32602, r
    msg = r["error"]["message"]
    assert "'text' is not valid UTF-8 (byte 0xff in" in msg and "nothing was written" in msg
    assert memory_md.read_bytes() == before and "\ufffd" not in memory_md.read_text()
    assert mem.journal.list(BOT, limit=None) == []
    raw.still_serving()


def test_a_request_the_sdk_would_drop_is_answered(raw: Raw) -> None:
    r = raw.ask(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5,"arguments":{}}}\n')
    assert r["id"] == 5 and "error" in r or r["result"].get("isError"), r
    raw.still_serving()


def test_a_malformed_expected_hash_is_bad_input_not_a_conflict(raw: Raw, mem: Memory) -> None:
    r = raw.ask(call_line('{"path":"MEMORY.md","text":"x","expected_hash":"zzz"}', "memory_write"))
    text = r["result"]["content"][0]["text"]
    assert r["result"]["isError"] and "expected_hash" in text and "conflict" not in text, r
    assert "64 hex" in text
    assert mem.journal.list(BOT, limit=None) == []


def test_a_tool_error_says_what_failed(raw: Raw) -> None:
    for args, name, says in [('{"path":"../x.md"}', "memory_read", "../x.md"),
                             ('{"limit":"²"}', "memory_journal", "'limit'"),
                             ('{"action":"remember"}', "memory_update", "'text'"),
                             ('{}', "no_such_tool", "no_such_tool")]:
        r = raw.ask(call_line(args, name))
        text = r["result"]["content"][0]["text"] if "result" in r else r["error"]["message"]
        assert says in text, r
        assert "result" not in r or r["result"]["isError"], r
    raw.still_serving()


def test_the_server_ends_on_sigint(mem: Memory) -> None:
    r = Raw(mem.home.root)
    r.still_serving()
    r.p.send_signal(signal.SIGINT)
    assert r.p.wait(timeout=WAIT_S) in (0, 130)
    assert r.p.stderr is not None and b"Traceback" not in r.p.stderr.read()


def test_the_server_ends_on_sigint_while_it_still_loads(mem: Memory) -> None:
    r = Raw(mem.home.root)        # initialize is answered before the SDK has loaded
    r.p.send_signal(signal.SIGINT)
    assert r.p.wait(timeout=WAIT_S) in (0, 130)


def test_requests_written_all_at_once_then_closed_are_all_answered(mem: Memory) -> None:
    lines = [b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
             b'"capabilities":{},"clientInfo":{"name":"Batchless","version":"1"}}}',
             b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
             b"not json",
             call_line('{"action":"remember","text":"Ships on Fridays"}', id_=2).strip(),
             b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}']
    p = subprocess.run([*CLI, "--root", str(mem.home.root), "--today", TODAY, "mcp", BOT],
                       input=b"\n".join(lines), capture_output=True, timeout=WAIT_S)
    answers = [json.loads(x) for x in p.stdout.splitlines()]
    assert sorted((a["id"] is None, str(a["id"])) for a in answers) == [(False, "1"), (False, "2"), (False, "3"),
                                                                       (True, "None")]
    assert p.returncode == 0
    assert "Ships on Fridays" in (mem.home.workspace(BOT) / "MEMORY.md").read_text()
    row = mem.journal.list(BOT, limit=1)[0]
    assert row.chat == "Batchless"


@pytest.mark.parametrize("version", ["2025-06-18", "2024-11-05", "2025-11-25", "2026-07-28", "1999-01-01"])
def test_initialize_is_answered_as_the_sdk_answers_it(mem: Memory, version: str) -> None:
    """The early answer (before the SDK loads) is the SDK's own answer, for any version asked."""
    from mcp import Client, Implementation  # noqa: F401 - the SDK's own server, in-process, for the reference

    from botmemory.core.faces.mcp_server import build

    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "v", "version": "1"}}
    r = Raw(mem.home.root, initialize=False)
    try:
        ours = r.ask(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}).encode() + b"\n")
        r.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        r.still_serving()
    finally:
        r.close()

    async def sdk() -> dict[str, Any]:
        import anyio
        from mcp.shared.message import SessionMessage
        from mcp_types import JSONRPCRequest

        server = build(mem, BOT)
        to_server, server_in = anyio.create_memory_object_stream[Any](10)
        server_out, from_server = anyio.create_memory_object_stream[Any](10)
        async with anyio.create_task_group() as tg:
            tg.start_soon(server._lowlevel_server.run, server_in, server_out,
                          server._lowlevel_server.create_initialization_options())
            await to_server.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=1, method="initialize", params=params)))
            answer = await from_server.receive()
            tg.cancel_scope.cancel()
        return json.loads(answer.message.model_dump_json(by_alias=True, exclude_unset=True))

    theirs = asyncio.run(sdk())
    assert ours == theirs


def test_the_wire_knows_the_versions_the_sdk_negotiates() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from botmemory.core.faces.mcp_wire import HANDSHAKE_VERSIONS

    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


def test_the_wire_loads_no_sdk() -> None:
    code = ("import sys; import botmemory.core.faces.mcp_wire as w; w.check(b'{}');"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'pydantic', 'anyio')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("line, forwarded", [
    (b'{"jsonrpc":"2.0","id":"a","method":"tools/list"}\n', True),
    (b'{"jsonrpc":"2.0","method":"notifications/initialized"}\r\n', True),
    (b'{"jsonrpc":"2.0","id":3,"result":{}}\n', True),           # the client answering a request of ours
    (b"   \n", False),
    (b'{"jsonrpc":"2.0","method":"notifications/x","params":{"t":"\\ud800"}}\n', False),   # no answer to a notification
])
def test_check_hands_on_good_lines_and_drops_blank_ones(line: bytes, forwarded: bool) -> None:
    from botmemory.core.faces.mcp_wire import check

    msg, answer = check(line)
    assert answer is None and (msg is not None) == forwarded
