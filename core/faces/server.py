"""``botmemory serve``: the memory routes over HTTP, on loopback, for the owner only.

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
  one ``Content-Length`` (two are 400), no absolute-form target naming another
  host (400);
- slow clients cannot starve the owner: the request line and headers must
  arrive within 10 s and a body within 10 s plus one second per 64 KB (else
  408 and the connection closes); a connection only waiting for its request
  holds no request slot, and a client (an address) keeps at most 8 such
  connections (a ninth lets its oldest waiting one go), 64 connections in all;
  at most 16 requests run at once, the next one waits for a slot.

Reads answer with an ``ETag`` (the file's hash); a write or delete with
``If-Match`` is refused 412 with the current text when the file changed since.

Paths name memory files only through the core's path rules (``classify``):
no directory listing, nothing outside the workspace, no symbolic link.
"""
from __future__ import annotations

import errno
import hmac
import io
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .. import ops
from ..base.log import get_logger
from ..ops import BadInput, Memory
from .jsoncheck import lone_surrogate

logger = get_logger(__name__)

DEFAULT_PORT = 8721
MAX_BODY = 2 * 1024 * 1024
MAX_CLIENTS = 16                 # requests running at once
MAX_CONNECTIONS = 64             # open connections, waiting or running
MAX_WAITING_PER_CLIENT = 8       # connections of one address still waiting for their request
REQUEST_TIMEOUT_S = 15.0         # any one socket read or write
HEADER_TIMEOUT_S = 10.0          # the request line and headers, from the moment one is awaited
BODY_TIMEOUT_S = 10.0            # a body: this, plus a second per BODY_RATE bytes
BODY_RATE = 64 * 1024
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


# ----- the token: ops.serving keeps it (ensure_token, token_path)

ensure_token = ops.ensure_token
token_path = ops.token_path


# ----- the request checks


def host_ok(host: str | None, port: int) -> bool:
    """Is *host* (a Host header, or an absolute target's authority) a loopback name with this port?

    Without a port only when the port is 80, where HTTP leaves it out (README: "with this port").
    """
    if not host:
        return False
    host = host.strip().lower()
    return any(host == f"{name}:{port}" or (port == 80 and host == name) for name in LOOPBACK_NAMES)


def split_target(target: str, port: int) -> tuple[str, str]:
    """A request target's path and query; an absolute-form target must name this server (else 400)."""
    if target.startswith("/"):
        path, _, query = target.partition("?")
        return path, query
    if target[:7].lower() == "http://":
        parts = urlsplit(target)
        if parts.username is not None or parts.password is not None or not host_ok(parts.netloc, port):
            raise _Refuse(400, "the request target names another host; send the path alone")
        return parts.path or "/", parts.query
    raise _Refuse(400, "the request target must be a path (/api/...)")


def etag_hashes(value: str) -> str | None:
    """``If-Match``: ``*`` or the one strong ETag (a file's hash) it names; 400 for anything else.

    A weak ETag (``W/"…"``) never matches a strong comparison: it is refused rather than ignored.
    """
    v = value.strip()
    if v == "*":
        return v
    if v.startswith('"') and v.endswith('"') and len(v) >= 2:
        v = v[1:-1]
    if len(v) == 64 and all(c in "0123456789abcdefABCDEF" for c in v):
        return v.lower()
    raise _Refuse(400, "If-Match must be one ETag as a read answered it (\"<64 hex digits>\") or *")


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


# ----- connections: deadlines, and the per-client cap


class _Conn:
    """One open connection: its client's address, and whether it is still waiting for a request."""

    __slots__ = ("sock", "client", "waiting", "since", "dropped")

    def __init__(self, sock: socket.socket, client: str) -> None:
        self.sock = sock
        self.client = client
        self.waiting = True
        self.since = time.monotonic()
        self.dropped = False


class _DeadlineReader(io.RawIOBase):
    """The socket's reads for the handler's ``rfile``, each bounded by the handler's current deadline.

    A socket timeout bounds one read only: a client sending a byte now and then would never trip it.
    The deadline bounds the whole request line and headers (and then the body): every read is given
    what is left of it, and none starts after it passed.
    """

    def __init__(self, handler: Handler) -> None:
        super().__init__()
        self.handler = handler

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        h = self.handler
        left = REQUEST_TIMEOUT_S if h.deadline is None else min(REQUEST_TIMEOUT_S, h.deadline - time.monotonic())
        if left <= 0:
            h.timed_out = True
            raise TimeoutError("the request did not arrive in time")
        h.connection.settimeout(left)
        try:
            n: int = h.connection.recv_into(b)
        except TimeoutError:
            h.timed_out = True
            raise
        h.got += n
        return n


# ----- the handler


class Handler(BaseHTTPRequestHandler):
    server_version = "botmemory"
    timeout = REQUEST_TIMEOUT_S     # a stalled client cannot hold a thread for longer
    server: _Server
    deadline: float | None = None   # when the part being read must have arrived (time.monotonic)
    timed_out = False
    got = 0                         # bytes read since the deadline was set
    conn: _Conn | None = None

    def setup(self) -> None:
        super().setup()
        self.rfile = io.BufferedReader(_DeadlineReader(self))
        self.conn = self.server.conn_of(self.connection)

    def handle_one_request(self) -> None:
        """Wait for the next request, at most HEADER_TIMEOUT_S for its line and headers (then 408)."""
        self._await(HEADER_TIMEOUT_S, waiting=True)
        super().handle_one_request()
        if self.timed_out and self.got and not self.answered:   # a part of a request, then too slow
            self._timeout_answer()

    answered = False

    def _await(self, seconds: float | None, *, waiting: bool) -> None:
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.timed_out, self.got, self.answered = False, 0, False
        if self.conn is not None:
            self.server.set_waiting(self.conn, waiting)

    def _timeout_answer(self) -> None:
        self.close_connection = True
        if not self.request_version or self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.0"
        self._send(408, {"error": "the request did not arrive in time: send it whole, at once"}, {})

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.forget(self.connection)

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        logger.debug("%s " + format, self.address_string(), *args)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's own refusals (a bad request line, 414, 431, 501) as JSON too."""
        self.close_connection = True
        if self.conn is not None and self.conn.dropped:   # let go to make room: nobody to answer
            return
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

    def _check(self) -> tuple[str, str]:
        """Who asks, and what: the target's path and query, once every check passed."""
        api = self.server.api
        path, query = split_target(self.path, api.port)
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
        if len(self.headers.get_all("Content-Length") or []) > 1:
            raise _Refuse(400, "more than one Content-Length header")
        if len(self.headers.get_all("If-Match") or []) > 1:
            raise _Refuse(400, "more than one If-Match header")
        return path, query

    def _read_body(self) -> Any:
        if self.headers.get("Transfer-Encoding") is not None:
            raise _Refuse(411, "send the body with a Content-Length (no chunked bodies)")
        raw = self.headers.get("Content-Length")
        if raw is None:
            return None
        raw = raw.strip()
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
            raise _Refuse(400, f"bad Content-Length {raw[:20]!r}: give the body's length in bytes")
        n = int(raw)
        if n > MAX_BODY:
            raise _Refuse(413, f"the body is {n:,} bytes; at most {MAX_BODY:,}")
        if n == 0:
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise _Refuse(415, "the body must be application/json")
        self._await(BODY_TIMEOUT_S + n / BODY_RATE, waiting=False)
        data = self.rfile.read(n)
        if len(data) < n:
            if self.timed_out:
                raise TimeoutError("the body did not arrive in time")
            raise ConnectionAbortedError("the client left mid-body")
        self._await(None, waiting=False)
        try:
            body = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise _Refuse(400, f"the body is not valid UTF-8 (byte 0x{data[e.start]:02x} at {e.start})") from None
        except (ValueError, RecursionError) as e:
            raise _Refuse(400, f"the body is not valid JSON: {e}" if isinstance(e, ValueError)
                          else "the body is not valid JSON: nested too deeply") from None
        where = lone_surrogate(body)
        if where is not None:
            raise _Refuse(400, f"the body's {where} is not valid Unicode (a lone surrogate); nothing was written")
        return body

    def _handle(self) -> None:
        from . import routes

        try:
            path, raw_query = self._check()
            if self.conn is not None and not self.server.trust(self.conn):
                raise ConnectionAbortedError("let go to make room for another connection")
            if_match = self.headers.get("If-Match")
            condition = etag_hashes(if_match) if if_match is not None else None
            try:
                query = parse_qs(raw_query, keep_blank_values=True, errors="strict", max_num_fields=50)
            except UnicodeDecodeError:
                raise _Refuse(400, "the query is not valid UTF-8") from None
            except ValueError:
                raise _Refuse(400, "too many query fields") from None
            if self.command in ("PUT", "POST", "PATCH", "DELETE"):
                body = self._read_body()
            else:
                body = None
                if (self.headers.get("Content-Length") or "0").strip() != "0":
                    self.close_connection = True   # a body nobody reads: never parse it as the next request
        except _Refuse as r:
            self.close_connection = True
            self._send(r.status, {"error": str(r)}, r.headers)
            return
        except TimeoutError:
            logger.info("client %s was too slow sending its request", self.address_string())
            self._timeout_answer()
            return
        except (ConnectionError, OSError) as e:
            logger.info("client %s left mid-request: %s", self.address_string(), e)
            self.close_connection = True
            return
        api = self.server.api
        with self.server.slots:   # at most MAX_CLIENTS requests run at once
            if api.follow_date:  # a server left running past midnight dates entries by the day they are written
                ops.follow_today(api.mem)
            resp = routes.dispatch(api.mem, self.command, path, query, body,
                                   api.opener if api.opener is not None else routes.default_opener,
                                   if_match=condition)
            self._send(resp.status, resp.body, resp.headers)

    def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
        self.answered = True
        data = json.dumps(body, ensure_ascii=False).encode("utf-8", "backslashreplace")
        try:
            self.connection.settimeout(REQUEST_TIMEOUT_S)
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (ConnectionError, TimeoutError, OSError) as e:
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
        self.conns: dict[socket.socket, _Conn] = {}
        self.conns_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Every connection is taken at once (a slot is held only while a request runs), within the caps:
        a client with MAX_WAITING_PER_CLIENT connections still waiting for their request lets its oldest
        go; with MAX_CONNECTIONS open, the oldest waiting one anywhere goes, or (none waits) this one."""
        client = str(client_address[0])
        with self.conns_lock:
            waiting = [c for c in self.conns.values() if c.waiting and not c.dropped]
            mine = [c for c in waiting if c.client == client]
            if len(mine) >= MAX_WAITING_PER_CLIENT:
                self._drop(min(mine, key=lambda c: c.since))
            elif len(self.conns) >= MAX_CONNECTIONS:
                if not waiting:
                    logger.warning("%d connections are open; refusing one from %s", len(self.conns), client)
                    self.shutdown_request(request)
                    return
                self._drop(min(waiting, key=lambda c: c.since))
            self.conns[request] = _Conn(request, client)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.forget(request)
            raise

    def _drop(self, c: _Conn) -> None:
        """Let a waiting connection go (its thread then reads the end of the stream and finishes)."""
        c.dropped = True
        logger.info("letting a waiting connection from %s go: too many open", c.client)
        try:
            c.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def conn_of(self, sock: socket.socket) -> _Conn | None:
        with self.conns_lock:
            return self.conns.get(sock)

    def set_waiting(self, c: _Conn, waiting: bool) -> None:
        with self.conns_lock:
            if waiting and not c.waiting:
                c.since = time.monotonic()
            c.waiting = waiting

    def trust(self, c: _Conn) -> bool:
        """The connection passed the checks: it is no longer a waiting one that may be let go (False: it was)."""
        with self.conns_lock:
            if c.dropped:
                return False
            c.waiting = False
            return True

    def forget(self, sock: Any) -> None:
        with self.conns_lock:
            self.conns.pop(sock, None)

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
