"""The real Claude Code for tests, offline: installed with npm into a cache, and a loopback fake of the API.

- :func:`claude` — the ``claude`` program of ``@anthropic-ai/claude-code@VERSION``, installed with npm into
  ``$BOTMEMORY_AGENT_CACHE/claude-code-VERSION`` (default ``<repo>/.cache/agents``, never the home folder) the
  first time; :class:`Unavailable` says in one line what is missing (npm, the registry).
- :class:`FakeModel` — the Anthropic Messages API on 127.0.0.1 (a thread of this process): every request is
  kept, each answered with one text reply (streamed when asked), so ``claude -p`` runs with no network.
- :func:`run` — ``claude -p`` as a person runs it, offline: the fake's address, no telemetry or updates.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

VERSION = "2.1.332"
ROOT = Path(__file__).resolve().parents[1]
OFFLINE = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
           "DISABLE_ERROR_REPORTING": "1", "ANTHROPIC_API_KEY": "test-key-not-a-secret"}


class Unavailable(RuntimeError):
    """Claude Code cannot be installed here: what is missing, in one line."""


def cache_dir() -> Path:
    given = os.environ.get("BOTMEMORY_AGENT_CACHE", "").strip()
    return Path(given) if given else ROOT / ".cache" / "agents"


def claude(version: str = VERSION) -> Path:
    """The ``claude`` program of *version*, installed into the cache on first use."""
    prefix = cache_dir() / f"claude-code-{version}"
    program = prefix / "node_modules" / ".bin" / "claude"
    if program.exists():
        return program
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is missing: it installs Claude Code for the plugin's test (Debian: apt-get install npm)")
    prefix.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "npm_config_cache": str(cache_dir() / "npm")}   # npm's own cache: not in the home folder
    p = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
                        f"@anthropic-ai/claude-code@{version}"], capture_output=True, text=True, env=env,
                       timeout=1200)
    if p.returncode != 0 or not program.exists():
        last = (p.stderr.strip().splitlines() or ["no output"])[-1]
        raise Unavailable(f"could not install @anthropic-ai/claude-code@{version} with npm: {last}")
    return program


class FakeModel:
    """A loopback stand-in for the Anthropic Messages API; ``requests`` holds every JSON body it was sent."""

    def __init__(self, reply: str = "Done.") -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def _json(self, code: int, obj: object) -> None:
                data = json.dumps(obj).encode("utf-8")
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_HEAD(self) -> None:  # noqa: N802 - the HTTP verb
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:  # noqa: N802
                self._json(200, {"data": [], "has_more": False})

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {}
                if not self.path.split("?")[0].endswith("/v1/messages"):
                    self._json(200, {"input_tokens": 1})
                    return
                fake.requests.append(body)
                message = {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
                           "model": body.get("model", "claude"), "content": [{"type": "text", "text": fake.reply}],
                           "stop_reason": "end_turn", "stop_sequence": None,
                           "usage": {"input_tokens": 10, "output_tokens": 3}}
                if not body.get("stream"):
                    self._json(200, message)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()

                def event(name: str, data: object) -> None:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

                event("message_start", {"type": "message_start", "message": {**message, "content": []}})
                event("content_block_start", {"type": "content_block_start", "index": 0,
                                              "content_block": {"type": "text", "text": ""}})
                event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                              "delta": {"type": "text_delta", "text": fake.reply}})
                event("content_block_stop", {"type": "content_block_stop", "index": 0})
                event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                        "usage": {"output_tokens": 3}})
                event("message_stop", {"type": "message_stop"})
                self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, name="fake-anthropic", daemon=True)

    def texts(self) -> list[str]:
        """Every text the model was sent: system blocks and message contents."""
        out: list[str] = []
        for body in self.requests:
            system = body.get("system") or []
            out += [system] if isinstance(system, str) else [b.get("text", "") for b in system if isinstance(b, dict)]
            for m in body.get("messages") or []:
                content = m.get("content")
                if isinstance(content, str):
                    out.append(content)
                elif isinstance(content, list):
                    out += [b.get("text", "") for b in content if isinstance(b, dict)]
        return out

    @contextmanager
    def running(self) -> Iterator[FakeModel]:
        self._thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()
            self._thread.join(10)


def run(program: Path, prompt: str, *, cwd: Path, home: Path, port: int, path: str | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``claude -p PROMPT`` in *cwd* as the person whose home is *home*, against the fake on *port*."""
    env = {"PATH": path if path is not None else os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "LANG": "C.UTF-8", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", **OFFLINE}
    return subprocess.run([str(program), "-p", prompt, "--model", "claude-sonnet-4-5-20250929"], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
