"""A loopback fake of Anthropic's Messages API: enough for a real ``claude -p`` to run offline, and a record of
every request it sends.

    with FakeModel() as model:               # listens on 127.0.0.1, a free port
        run claude with ANTHROPIC_BASE_URL=model.url
        model.requests                        # every request: {"method", "path", "body"}

``POST /v1/messages`` answers streamed (SSE, when the body asks) or whole: a canned text, or — for a request
that carries tools (the agent's main loop) — the *script*'s step *k*, *k* being the number of assistant turns
already in the conversation (step 0 answers the prompt, step 1 the first tool result, …). A step is
``{"text": …}`` or ``{"tool": NAME, "input": {…}}``; past the script's end, the canned text. A step can be
held until an event is set (*hold*), and :attr:`asked` says which steps were asked for: two sessions in step. ``count_tokens``,
``/v1/models`` and anything else (start-up probes) get a plausible small answer. Stdlib only.
"""
from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "Hello from the fake model."


class FakeModel:
    def __init__(self, script: Sequence[dict[str, Any]] = (), reply: str = REPLY,
                 hold: dict[int, threading.Event] | None = None) -> None:
        self.script = list(script)
        self.reply = reply
        self.hold = hold or {}         # step -> an event to wait for before answering it (two sessions in step)
        self.asked: dict[int, threading.Event] = {k: threading.Event() for k in range(len(self.script) + 1)}
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.model = self
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-model", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()     # joins the request threads
        self._thread.join(10)

    def record(self, method: str, path: str, body: object) -> None:
        with self._lock:
            self.requests.append({"method": method, "path": path, "body": body})

    def messages(self) -> list[dict[str, Any]]:
        """The bodies of every ``POST /v1/messages`` so far."""
        with self._lock:
            return [r["body"] for r in self.requests if r["method"] == "POST"
                    and r["path"].split("?")[0].endswith("/v1/messages") and isinstance(r["body"], dict)]

    def main_request(self) -> dict[str, Any] | None:
        """The agent's main turn: the last messages request that carries tools (else the last one)."""
        bodies = self.messages()
        with_tools = [b for b in bodies if b.get("tools")]
        return (with_tools or bodies or [None])[-1]

    def answer(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """The content blocks and stop reason for one messages request."""
        if self.script and body.get("tools"):
            k = sum(1 for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "assistant")
            if k in self.asked:
                self.asked[k].set()
            if k in self.hold:
                self.hold[k].wait(300)
            if k < len(self.script):
                step = self.script[k]
                if "tool" in step:
                    return [{"type": "tool_use", "id": f"toolu_fake_{k}_{uuid.uuid4().hex[:8]}",
                             "name": step["tool"], "input": step.get("input", {})}], "tool_use"
                return [{"type": "text", "text": str(step.get("text", self.reply))}], "end_turn"
        return [{"type": "text", "text": self.reply}], "end_turn"


class _Server(ThreadingHTTPServer):
    daemon_threads = False      # server_close() waits for every request thread
    model: FakeModel


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:   # quiet
        pass

    def _body(self) -> object:
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _json(self, code: int, obj: object) -> None:
        data = json.dumps(obj).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_fake_" + uuid.uuid4().hex[:12])
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self) -> None:
        self.server.model.record("HEAD", self.path, None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self.server.model.record("GET", self.path, None)
        path = self.path.split("?")[0]
        if path.endswith("/v1/models"):
            return self._json(200, {"data": [{"type": "model", "id": "claude-sonnet-4-5-20250929",
                                              "display_name": "Claude", "created_at": "2025-01-01T00:00:00Z"}],
                                    "has_more": False})
        return self._json(200, {})

    def do_POST(self) -> None:
        body = self._body()
        self.server.model.record("POST", self.path, body)
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            return self._json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
        if path.endswith("/v1/messages") and isinstance(body, dict):
            return self._messages(body)
        return self._json(200, {})

    def do_PUT(self) -> None:
        self.server.model.record("PUT", self.path, self._body())
        self._json(200, {})

    def do_DELETE(self) -> None:
        self.server.model.record("DELETE", self.path, None)
        self._json(200, {})

    def _messages(self, body: dict[str, Any]) -> None:
        blocks, stop = self.server.model.answer(body)
        model = str(body.get("model") or "claude-sonnet-4-5-20250929")
        msg_id = "msg_fake_" + uuid.uuid4().hex[:20]
        usage = {"input_tokens": max(1, len(json.dumps(body)) // 4), "output_tokens": 8,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream"):
            return self._json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                                    "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()

        def event(name: str, obj: dict[str, Any]) -> None:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode("utf-8"))

        event("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                event("content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": {"type": "text", "text": ""}})
                event("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "text_delta", "text": b["text"]}})
            else:
                event("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
                event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
            event("content_block_stop", {"type": "content_block_stop", "index": i})
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 8}})
        event("message_stop", {"type": "message_stop"})
        self.wfile.flush()
        self.close_connection = True
