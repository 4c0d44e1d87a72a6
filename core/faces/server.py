"""``botmemory serve``: the spec's routes over HTTP, on loopback, for the owner only.

DESIGN. The server is the standard library's ``http.server.ThreadingHTTPServer``.
The routes are a dozen JSON endpoints for one person on one computer; a
framework (aiohttp, Starlette + uvicorn, Flask) would add a dependency, an
event loop or a WSGI layer and 50-200 ms of imports to ``serve``'s start-up
without adding anything these routes need. What a framework would give us we
do here in a few lines, and test: one thread per request (the core's
workspace lock serialises writes, across threads and processes), a hard cap
on request bodies, a socket timeout so a stalled client cannot hold a thread,
and JSON in and out. Starting takes a few milliseconds (benchmarks/bench_serve.py).

Who may ask:

- it binds ``127.0.0.1`` and, when the computer has IPv6, ``::1`` on the same
  port — never another address;
- every request needs ``Authorization: Bearer <token>``, the token kept in
  ``<home>/botmemory/api-token`` (mode 0600, created on the first ``serve``,
  outside every workspace) and compared in constant time;
- a request whose ``Host`` is not a loopback name (``localhost``,
  ``127.0.0.1``, ``[::1]``, with this port) is refused 403, so a web page
  cannot reach it through DNS rebinding; one that carries an ``Origin`` (or a
  ``Sec-Fetch-Site`` other than ``none``) comes from a web page and is refused
  403 too, so no page can make the owner's browser send one (CSRF);
- bodies are JSON (``Content-Type: application/json``), at most 2 MB (413);
  at most 16 requests run at once, each socket read bounded by a 15 s timeout.

Paths name memory files only through the core's path rules (``classify``):
no directory listing, nothing outside the workspace, no symbolic link.
"""
from __future__ import annotations

import errno
import hmac
import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .. import ops
from ..base.log import get_logger
from ..ops import BadInput, Memory

logger = get_logger(__name__)

DEFAULT_PORT = 8721
MAX_BODY = 2 * 1024 * 1024
MAX_CLIENTS = 16
REQUEST_TIMEOUT_S = 15.0
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


# ----- the token: ops.serving keeps it (ensure_token, token_path)

ensure_token = ops.ensure_token
token_path = ops.token_path


# ----- the request checks


def host_ok(host: str | None, port: int) -> bool:
    """Is *host* (a Host header) a loopback name, with no port or this one?"""
    if not host:
        return False
    host = host.strip().lower()
    for name in LOOPBACK_NAMES:
        if host == name or host == f"{name}:{port}":
            return True
    return False


def bearer_ok(header: str | None, token: str) -> bool:
    if not header:
        return False
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(value.strip().encode("utf-8", "replace"), token.encode("ascii"))


class _Refuse(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


# ----- the handler


class Handler(BaseHTTPRequestHandler):
    server_version = "botmemory"
    timeout = REQUEST_TIMEOUT_S     # a stalled client cannot hold a thread for longer
    server: _Server

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        logger.debug("%s " + format, self.address_string(), *args)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's own refusals (a bad request line, 414, 431, 501) as JSON too."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # a request line without a version: answer with headers anyway
            self.request_version = "HTTP/1.0"
        self._send(code, {"error": message or self.responses.get(code, ("error",))[0]}, {})

    def do_GET(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def do_HEAD(self) -> None:
        self._send(405, {"error": "method not allowed"}, {"Allow": "GET, PUT, POST, DELETE"})

    def do_OPTIONS(self) -> None:
        self.do_HEAD()

    def _check(self) -> None:
        api = self.server.api
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1 or not host_ok(hosts[0], api.port):   # a second Host could be the one a proxy reads
            raise _Refuse(403, "refused: the Host is not this computer's loopback address")
        if self.headers.get("Origin") is not None:
            raise _Refuse(403, "refused: requests from web pages are not allowed")
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site.strip().lower() != "none":
            raise _Refuse(403, "refused: requests from web pages are not allowed")
        if not bearer_ok(self.headers.get("Authorization"), api.token):
            raise _Refuse(401, f"a valid 'Authorization: Bearer <token>' is needed (the token is in {api.token_file})",
                          {"WWW-Authenticate": 'Bearer realm="botmemory"'})

    def _read_body(self) -> Any:
        if self.headers.get("Transfer-Encoding") is not None:
            raise _Refuse(411, "send the body with a Content-Length (no chunked bodies)")
        raw = self.headers.get("Content-Length")
        if raw is None:
            return None
        if not raw.strip().isdigit():
            raise _Refuse(400, "bad Content-Length")
        n = int(raw)
        if n > MAX_BODY:
            raise _Refuse(413, f"the body is {n:,} bytes; at most {MAX_BODY:,}")
        if n == 0:
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise _Refuse(415, "the body must be application/json")
        data = self.rfile.read(n)
        if len(data) < n:
            raise ConnectionAbortedError("the client left mid-body")
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise _Refuse(400, "the body is not valid JSON") from None

    def _handle(self) -> None:
        from .routes import default_opener, dispatch

        try:
            self._check()
            body = self._read_body() if self.command in ("PUT", "POST", "PATCH", "DELETE") else None
        except _Refuse as r:
            self.close_connection = True
            self._send(r.status, {"error": str(r)}, r.headers)
            return
        except (ConnectionError, TimeoutError, OSError) as e:
            logger.info("client %s left mid-request: %s", self.address_string(), e)
            self.close_connection = True
            return
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        api = self.server.api
        if api.follow_date:  # a server left running past midnight dates entries by the day they are written
            ops.follow_today(api.mem)
        resp = dispatch(api.mem, self.command, parts.path, query, body, api.opener if api.opener is not None else default_opener)
        self._send(resp.status, resp.body, resp.headers)

    def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (ConnectionError, TimeoutError) as e:
            logger.info("client %s left before the answer: %s", self.address_string(), e)
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = False          # close() waits for the requests in flight
    block_on_close = True
    allow_reuse_address = True
    api: ApiServer

    def server_activate(self) -> None:
        super().server_activate()
        self.slots = threading.BoundedSemaphore(MAX_CLIENTS)

    def process_request(self, request: Any, client_address: Any) -> None:
        """At most MAX_CLIENTS requests at once; the next waits for a free slot (accepting pauses meanwhile)."""
        while not self.slots.acquire(timeout=0.5):
            if getattr(self, "_BaseServer__shutdown_request", False):
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.exception("request from %s failed", client_address)


class _Server6(_Server):
    address_family = socket.AF_INET6


@dataclass
class ApiServer:
    """The routes served on loopback; :meth:`start` binds and runs them in threads, :meth:`stop` ends them."""

    mem: Memory
    port: int = 0
    opener: Callable[[str, Path], None] | None = None
    follow_date: bool = False
    """True: each request takes today's date (no ``--today``); the tray app's session does that itself."""
    token: str = ""
    token_file: Path = field(default_factory=Path)
    addresses: list[str] = field(default_factory=list)
    _servers: list[_Server] = field(default_factory=list)
    _threads: list[threading.Thread] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ApiServer:
        """Bind 127.0.0.1 (and ::1 when there is IPv6) and serve; BadInput when the port is taken.

        When ``::1`` exists but its port is held by another program, nothing is served: a client
        asking ``localhost`` could reach that program first and hand it the token. With port 0 a
        pair of free ports is looked for a few times.
        """
        if not 0 <= self.port <= 65535:
            raise BadInput(f"bad port {self.port}: use 0-65535 (0 picks a free one)")
        self.token = ensure_token(self.mem.home)
        self.token_file = token_path(self.mem.home)
        for _ in range(5):
            self._bind()
            if self._servers:
                break
        else:
            raise BadInput("cannot find a port free on both 127.0.0.1 and [::1]; give one with --port")
        for s in self._servers:
            s.api = self
            t = threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.25},
                                 name=f"botmemory-serve-{'v6' if isinstance(s, _Server6) else 'v4'}", daemon=False)
            t.start()
            self._threads.append(t)
        return self

    def _bind(self) -> None:
        """Bind both loopback addresses on one port, or (port 0, ::1's port taken) neither, to try again."""
        try:
            v4 = _Server(("127.0.0.1", self.port), Handler)
        except OSError as e:
            raise BadInput(f"cannot listen on 127.0.0.1:{self.port}: {e.strerror or e}") from None
        port = v4.server_address[1]
        servers: list[_Server] = [v4]
        if socket.has_ipv6:
            try:
                servers.append(_Server6(("::1", port), Handler))
            except OSError as e:
                if e.errno != errno.EADDRINUSE:  # no IPv6 loopback here: 127.0.0.1 alone
                    logger.info("not listening on [::1]:%d: %s", port, e)
                else:
                    v4.server_close()
                    if self.port == 0:
                        return
                    raise BadInput(f"cannot listen on [::1]:{port}: another program holds it "
                                   "(a client asking for localhost could reach it instead)") from None
        self.port = port
        self._servers = servers
        self.addresses = [f"127.0.0.1:{port}"] + ([f"[::1]:{port}"] if len(servers) > 1 else [])

    def stop(self) -> None:
        """Stop listening, wait for the requests in flight, close the sockets."""
        stoppers = [threading.Thread(target=s.shutdown, name="botmemory-serve-stop") for s in self._servers]
        for t in stoppers:  # together: each waits up to one poll interval
            t.start()
        for t in stoppers + self._threads:
            t.join()
        for s in self._servers:
            s.server_close()
        self._servers.clear()
        self._threads.clear()
