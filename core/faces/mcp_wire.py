"""``botmemory mcp BOT``'s wire: every stdin line checked, and answered when bad, before the SDK sees it.

The SDK's stdio transport reads a line, validates it, and drops what does not validate with a log
line and no answer: a client that sent a non-JSON line, a truncated one, a batch, an object id or a
lone surrogate (``"\\ud800"``, which its JSON parser refuses) waits for an answer that never comes
(Claude Code waited 97 s). It also decodes stdin with ``errors="replace"``, so invalid UTF-8 would be
stored as U+FFFD. This module owns the process's stdin and stdout instead:

- a thread reads raw lines and checks each one (:func:`check`): not UTF-8 and not JSON, not JSON,
  nested too deeply → ``-32700`` with id null; a batch, not an object, an id that is not a string
  or an integer → ``-32600`` with id null; a wrong ``jsonrpc``, a missing method → ``-32600`` with
  its id; params that are not an object, a string argument that is not valid UTF-8 or holds a lone
  surrogate → ``-32602`` naming the argument, in the CLI's words. The answer goes out at once,
  whatever the SDK is doing, and the next line is read;
- a line the checks let through is checked once more by the SDK's own validator as soon as the SDK
  has loaded (:class:`Lines`), so nothing it would drop goes unanswered, and only then handed to it;
- ``initialize`` is answered at once, before the SDK is imported (most of a second: the SDK's
  types for every protocol version), with the answer the SDK itself gives (a test compares the
  two); the SDK is then handed the same request under an id of ours and its answer is dropped
  (:class:`Answers`), so its session knows the client as usual;
- as the SDK's transport does, file descriptor 0 reads from the null device and 1 writes to
  stderr while serving, so stray output never corrupts the wire;
- Ctrl-C (SIGINT) ends the server: the reader is a daemon thread, and the queue the SDK reads is
  closed on the way out, so no thread blocked on stdin holds the process.

This module imports no SDK: :mod:`mcp_server` does, after the first answer went out.
"""
from __future__ import annotations

import io
import json
import os
import queue
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from ..base.log import get_logger
from .jsoncheck import depth, lone_surrogate, shown

logger = get_logger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
MAX_LINE = 64 * 1024 * 1024       # a memory_write of a 16 MB file, escaped, fits
MAX_DEPTH = 64                    # tool arguments are flat; the SDK's parser gives up far deeper
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the SDK negotiates in ``initialize`` (``mcp_types.version``; a test checks)."""
OUR_INIT_ID = "botmemory-wire-initialize"
EOF_WAIT_S = 60.0                 # after stdin ends, the requests still running get this long to answer
_ANSWER_ID = re.compile(r'\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|-?\d+),"(?:result|error)"')

_MISSING = object()


def _error(id_: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def _json_type(v: Any) -> str:
    return {dict: "an object", list: "an array", bool: "a boolean", float: "a fraction", type(None): "null",
            str: "a string", int: "an integer"}.get(type(v), type(v).__name__)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _first_bad_byte(raw: bytes) -> int:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return raw[e.start]
    return 0


def _argument_problem(value: str, invalid_utf8: bool) -> str:
    """What is wrong with a string, as the CLI says it (``is not valid UTF-8 (byte 0xff in "…")``)."""
    for i, ch in enumerate(value):
        c = ord(ch)
        if 0xD800 <= c <= 0xDFFF:
            if invalid_utf8 and 0xDC80 <= c <= 0xDCFF:   # an undecodable byte, kept by surrogateescape
                text = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                return f'is not valid UTF-8 (byte 0x{c - 0xDC00:02x} in "{shown(text)}")'
            return f'is not valid Unicode (a lone surrogate \\u{c:04x} at character {i + 1} in "{shown(value)}")'
    return "is not valid Unicode"


def check(line: bytes) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:  # noqa: C901
    """One stdin line: ``(message, None)`` to hand on, ``(None, answer)`` to answer at once, or
    ``(None, None)`` for a line to drop silently (blank, or a bad notification: it gets no answer)."""
    raw = line.strip()
    if not raw:
        return None, None
    invalid_utf8 = False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        invalid_utf8 = True
        text = raw.decode("utf-8", "surrogateescape")   # to find the id, and the argument the bytes are in
    try:
        msg = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        return None, _error(None, PARSE_ERROR, f"Parse error: nested too deeply (at most {MAX_DEPTH} levels)")
    except ValueError as e:
        if invalid_utf8:
            return None, _error(None, PARSE_ERROR, f"Parse error: not valid UTF-8 (byte 0x{_first_bad_byte(raw):02x})"
                                                   " and not JSON; send one JSON-RPC message a line")
        return None, _error(None, PARSE_ERROR, f"Parse error: not JSON ({e}); send one JSON-RPC message a line")
    if isinstance(msg, list):
        return None, _error(None, INVALID_REQUEST, "Invalid Request: a batch (a JSON array) is not accepted; "
                                                   "send one message a line")
    if not isinstance(msg, dict):
        return None, _error(None, INVALID_REQUEST, f"Invalid Request: a message is a JSON object, not {_json_type(msg)}")
    id_ = msg.get("id", _MISSING)
    if id_ is not _MISSING and not (isinstance(id_, str) or (isinstance(id_, int) and not isinstance(id_, bool))):
        return None, _error(None, INVALID_REQUEST, f"Invalid Request: the id must be a string or an integer, "
                                                   f"not {_json_type(id_)}")
    answer_id = None if id_ is _MISSING else id_
    is_request = id_ is not _MISSING

    def refuse(code: int, message: str) -> tuple[None, dict[str, Any] | None]:
        if not is_request:      # a notification gets no answer, even an error (JSON-RPC 2.0)
            logger.warning("dropped a notification: %s", message)
            return None, None
        return None, _error(answer_id, code, message)

    if msg.get("jsonrpc") != "2.0":
        return refuse(INVALID_REQUEST, f'Invalid Request: "jsonrpc" must be "2.0", not {json.dumps(msg.get("jsonrpc"))}')
    d = depth(msg)
    if d > MAX_DEPTH:
        return refuse(INVALID_REQUEST, f"Invalid Request: nested {d} levels deep; at most {MAX_DEPTH}")
    method = msg.get("method", _MISSING)
    if method is _MISSING:
        if not is_request or ("result" in msg) == ("error" in msg):
            return refuse(INVALID_REQUEST, 'Invalid Request: a request needs a "method"; an answer an id and '
                                           'a "result" or an "error"')
    elif not isinstance(method, str):
        return refuse(INVALID_REQUEST, f'Invalid Request: "method" must be a string, not {_json_type(method)}')
    elif "params" in msg and not isinstance(msg["params"], dict):
        return refuse(INVALID_PARAMS, f'Invalid params: "params" must be an object, not {_json_type(msg["params"])}')
    bad = lone_surrogate(msg)
    if bad is not None:
        return refuse(INVALID_PARAMS, _unicode_message(msg, bad, invalid_utf8))
    return msg, None


def _unicode_message(msg: dict[str, Any], bad: str, invalid_utf8: bool) -> str:
    """``memory_update: argument 'text' is not valid UTF-8 (byte 0xff in "…"); nothing was written``."""
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    assert isinstance(params, dict)
    args = params.get("arguments")
    tool = params.get("name") if isinstance(params.get("name"), str) and lone_surrogate(params.get("name")) is None \
        else None
    if bad.startswith("params.arguments.") and isinstance(args, dict):
        name = bad.removeprefix("params.arguments.").split(".")[0].split("[")[0].removesuffix(" (a key)")
        value = args.get(name) if name in args else None
        if isinstance(value, str):
            return f"Invalid params: {tool + ': ' if tool else ''}argument '{name}' " \
                   f"{_argument_problem(value, invalid_utf8)}; nothing was written"
        return f"Invalid params: {tool + ': ' if tool else ''}argument '{shown(name)}' holds text that is not " \
               f"valid {'UTF-8' if invalid_utf8 else 'Unicode'}; nothing was written"
    return f"Invalid params: {bad} is not valid {'UTF-8' if invalid_utf8 else 'Unicode (a lone surrogate)'}; " \
           "nothing was done"


def initialize_answer(msg: dict[str, Any], title: str, instructions: str) -> dict[str, Any] | None:
    """The SDK's own answer to an ``initialize`` request, or None when the SDK should answer it (odd params)."""
    params = msg.get("params")
    if not isinstance(params, dict):
        return None
    version, caps, info = params.get("protocolVersion"), params.get("capabilities"), params.get("clientInfo")
    if not (isinstance(version, str) and isinstance(caps, dict) and isinstance(info, dict)
            and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
        return None
    return {"jsonrpc": "2.0", "id": msg["id"], "result": {
        "capabilities": {"prompts": {"listChanged": False},
                         "resources": {"listChanged": False, "subscribe": False},
                         "tools": {"listChanged": False}},
        "instructions": instructions,
        "protocolVersion": version if version in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
        "serverInfo": {"name": "botmemory", "title": title, "version": ""}}}


class Wire:
    """The process's stdin and stdout for one MCP session: lines read and checked in a thread,
    answers written whole under one lock (from that thread and from the SDK's writer)."""

    def __init__(self, inp: BinaryIO, out: BinaryIO, *, early_initialize: Callable[[dict[str, Any]], dict[str, Any] | None]
                 | None = None) -> None:
        self.inp = inp
        self.out = out
        self.lock = threading.Lock()
        self.lines: queue.Queue[tuple[dict[str, Any], str] | None] = queue.Queue()
        self.early_initialize = early_initialize
        self.ours: set[str] = set()     # ids of requests we made for the SDK: their answers are dropped
        self.pending: set[str | int] = set()   # the client's requests handed on and not answered yet
        self.thread = threading.Thread(target=self._read, name="botmemory-mcp-wire", daemon=True)

    def start(self) -> Wire:
        self.thread.start()
        return self

    def close(self) -> None:
        """The SDK reads no more lines (its reader is woken if it waits)."""
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message, ensure_ascii=False).encode("utf-8", "backslashreplace") + b"\n")

    def write(self, data: bytes) -> None:
        with self.lock:
            try:
                self.out.write(data)
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError) as e:   # the client left: nobody to answer
                logger.info("could not answer: %s", e)

    def _read(self) -> None:
        try:
            while True:
                line = self.inp.readline(MAX_LINE + 1)
                if not line:
                    break
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    while True:             # the rest of that message, up to its end
                        more = self.inp.readline(1 << 20)
                        if not more or more.endswith(b"\n"):
                            break
                    self.send(_error(None, PARSE_ERROR, f"Parse error: a message longer than {MAX_LINE:,} bytes"))
                    continue
                self.take(line)
        except (OSError, ValueError) as e:
            logger.info("stdin closed: %s", e)
        finally:
            self.close()

    def take(self, line: bytes) -> None:
        msg, answer = check(line)
        if answer is not None:
            self.send(answer)
        if msg is None:
            return
        if msg.get("method") == "initialize" and self.early_initialize is not None and "id" in msg:
            early, self.early_initialize = self.early_initialize(msg), None
            if early is not None:
                self.send(early)
                msg = {**msg, "id": OUR_INIT_ID}
                self.ours.add(OUR_INIT_ID)
        self.lines.put((msg, line.decode("utf-8").strip()))


class Lines:
    """The lines the SDK's stdio transport reads (``async for line in …``): checked by the SDK's own
    validator first, answered here when it refuses one, so none is dropped without an answer."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    def __aiter__(self) -> Lines:
        return self

    async def __anext__(self) -> str:
        import anyio
        from mcp_types import jsonrpc_message_adapter

        while True:
            item = await anyio.to_thread.run_sync(self.wire.lines.get, abandon_on_cancel=True)
            if item is None:    # stdin ended: the requests still running answer first
                with anyio.move_on_after(EOF_WAIT_S):
                    while self.wire.pending:
                        await anyio.sleep(0.02)
                raise StopAsyncIteration
            msg, text = item
            if msg.get("id") == OUR_INIT_ID:
                text = json.dumps(msg, ensure_ascii=False)
            try:
                jsonrpc_message_adapter.validate_json(text, by_name=False)
            except ValueError as e:     # pydantic's ValidationError is a ValueError
                if "id" in msg:
                    self.wire.send(_error(msg["id"], INVALID_REQUEST, _pydantic_message(e)))
                else:
                    logger.warning("dropped a notification the SDK refuses: %s", e)
                continue
            if "id" in msg and "method" in msg:
                self.wire.pending.add(msg["id"])
            elif msg.get("method") == "notifications/cancelled":
                params = msg.get("params") or {}
                self.wire.pending.discard(params.get("requestId"))   # a cancelled request gets no answer
            return text + "\n"


def _pydantic_message(e: ValueError) -> str:
    errors = getattr(e, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            loc = ".".join(str(x) for x in first.get("loc", ()) if not str(x).startswith("JSONRPC"))
            return f"Invalid Request: {loc + ': ' if loc else ''}{first.get('msg', 'not a JSON-RPC message')}"
        except (IndexError, TypeError, AttributeError):
            pass
    return "Invalid Request: not a JSON-RPC message the server takes"


class Answers:
    """Where the SDK's stdio transport writes (``await write(line)``, ``await flush()``): to stdout
    through the wire's lock, except the SDK's answers to requests we made for it."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    async def write(self, text: str) -> None:
        import anyio

        answered = self._answers(text)
        if answered is not None:
            self.wire.pending.discard(answered)
            if answered in self.wire.ours:
                self.wire.ours.discard(answered)
                return
        data = text.encode("utf-8", "backslashreplace")
        await anyio.to_thread.run_sync(self.wire.write, data)

    async def flush(self) -> None:
        """Every write is flushed already."""

    def _answers(self, text: str) -> str | int | None:
        """The id of the request *text* answers, or None (a request or a notification of the server's)."""
        if not self.wire.pending and not self.wire.ours:
            return None
        m = _ANSWER_ID.match(text)
        if m is not None:
            found: str | int = json.loads(m.group(1))
            return found
        try:
            msg = json.loads(text)
        except ValueError:
            return None
        if isinstance(msg, dict) and "method" not in msg and isinstance(msg.get("id"), (str, int)):
            return msg["id"]   # type: ignore[no-any-return]
        return None


def claim_stdio() -> tuple[BinaryIO, BinaryIO, Callable[[], None]]:
    """The wire's own copies of stdin and stdout; fd 0 then reads the null device and fd 1 writes to
    stderr (as the SDK's transport does), until the returned function puts them back."""
    saved_in, saved_out = os.dup(0), os.dup(1)
    wire_in = io.BufferedReader(io.FileIO(os.dup(0), "rb"), buffer_size=1 << 16)
    wire_out = io.FileIO(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        sys.stdout.flush()
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)

    def restore() -> None:
        try:
            os.dup2(saved_in, 0)
            os.dup2(saved_out, 1)
        finally:
            os.close(saved_in)
            os.close(saved_out)

    return wire_in, wire_out, restore


def serve(mem: Any, bot: str) -> None:
    """Answer MCP on stdin/stdout until the client closes stdin or Ctrl-C; ``initialize`` before the SDK loads."""
    from .mcp_tools import INSTRUCTIONS, server_title

    mem.home.require_bot(bot)
    wire_in, wire_out, restore = claim_stdio()
    title = server_title(bot)
    wire = Wire(wire_in, wire_out, early_initialize=lambda m: initialize_answer(m, title, INSTRUCTIONS)).start()
    try:
        from .mcp_server import serve_wire  # the SDK loads here, while the first answer is on its way

        serve_wire(mem, bot, Lines(wire), Answers(wire))
    finally:
        wire.close()
        restore()
