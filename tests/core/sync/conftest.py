"""Two (or three) homes on one machine stand for two computers, syncing through a real git remote.

``Computer`` is one home opened in this process (the operations called directly, as the tray calls them),
with ``cli`` for the same home through the ``botmemory`` command line (``HOME`` and ``BOTMEMORY_HOST`` set for
that computer). The remotes are real: a bare repository over ``file://``, a ``git daemon`` on 127.0.0.1, and
``git http-backend`` behind a loopback HTTP server that can refuse (401).
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from botmemory.core.ops import operations, sync
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor

from ..conftest import BOT, TODAY

BOTMEMORY = [sys.executable, "-m", "botmemory.core.faces.entry"]


@pytest.fixture(autouse=True)
def _no_host_from_the_environment(monkeypatch):
    """Each computer's name comes from its settings (``setup --host``), not from the test's environment."""
    monkeypatch.delenv("BOTMEMORY_HOST", raising=False)


def bare(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


class Computer:
    """One home as one computer."""

    def __init__(self, root: Path, host: str) -> None:
        self.root = root
        self.host = host
        (root / "user").mkdir(parents=True, exist_ok=True)
        self.mem = Memory.open(str(root / "home"), TODAY)

    # ----- set-up

    def setup(self, remote: str, bot: str = BOT, key: str = "scout", init: bool = True) -> None:
        if init:
            self.mem.store.init(bot)
        sync.setup(self.mem, remote, host=self.host)
        sync.add(self.mem, bot, name=key, sync=False)

    # ----- what a person or a bot does

    def remember(self, text: str, bot: str = BOT) -> None:
        operations.remember(self.mem, bot, text, Actor.person("cli"))

    def save(self, path: str, text: str, bot: str = BOT) -> None:
        operations.save(self.mem, bot, path, text, Actor.person("cli"))

    def outside(self, path: str, text: str, bot: str = BOT) -> None:
        """An edit made in another editor (recorded by the next scan or sync)."""
        p = self.mem.home.workspace(bot) / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")

    def text(self, path: str = "MEMORY.md", bot: str = BOT) -> str:
        p = self.mem.home.workspace(bot) / path
        return p.read_text(encoding="utf-8") if p.exists() else ""

    def files(self, bot: str = BOT) -> dict[str, str]:
        return {rel: self.text(rel, bot) for rel in self.mem.home.memory_files(bot)}

    def sync(self, *ids: str) -> sync.RoundResult:
        return sync.now(self.mem, list(ids) if ids else None)

    def rows(self, bot: str = BOT) -> list:
        return list(self.mem.journal.rows(bot))

    # ----- the command line

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(HOME=str(self.root / "user"), BOTMEMORY_HOST=self.host, BOTMEMORY_TODAY=TODAY)
        return env

    def cli(self, *args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*BOTMEMORY, "--root", str(self.root / "home"), *args], input=stdin,
                              capture_output=True, text=True, timeout=timeout, env=self.env())

    def ok(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        r = self.cli(*args, stdin=stdin)
        assert r.returncode == 0, f"{args} exited {r.returncode}\n{r.stdout}\n{r.stderr}"
        return r

    def state(self) -> dict:
        return json.loads((self.root / "home" / "botmemory" / "sync" / "state.json").read_text())


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare(tmp_path / "memory.git")


@pytest.fixture
def two(tmp_path: Path, remote: Path) -> tuple[Computer, Computer]:
    a, b = Computer(tmp_path / "laptop", "laptop"), Computer(tmp_path / "desktop", "desktop")
    for c in (a, b):
        c.setup(remote.as_uri())
    return a, b


def remote_log(remote: Path, branch: str = "main", fmt: str = "%an|%ae|%s") -> list[str]:
    out = subprocess.run(["git", "--git-dir", str(remote), "log", f"--format={fmt}", branch],
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


class Daemon:
    """``git daemon`` serving a folder of bare repositories on 127.0.0.1 (push allowed)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"git://127.0.0.1:{self.port}/"

    def start(self) -> None:
        if subprocess.run(["git", "daemon", "--help"], capture_output=True).returncode not in (0,):
            pytest.fail("git daemon is missing: install git's daemon (Debian: the git package's git-daemon) "
                        "to run the loopback remote tests")
        log = open(self.base.parent / "daemon.log", "ab")   # noqa: SIM115 — handed to the process
        self.proc = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
                                      "--informative-errors", f"--base-path={self.base}", "--listen=127.0.0.1",
                                      f"--port={self.port}", str(self.base)], stdout=log, stderr=log,
                                     start_new_session=True)
        log.close()
        wait_port(self.port)

    def stop(self) -> None:
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, 9)
            except ProcessLookupError:
                pass
            self.proc.wait(10)
            self.proc = None


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    base = tmp_path / "served"
    base.mkdir()
    d = Daemon(base)
    d.start()
    try:
        yield d
    finally:
        d.stop()


class HttpRemote:
    """``git http-backend`` behind a loopback HTTP server; ``refuse = True`` answers every request 401."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.refuse = False
        remote = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: object) -> None:
                pass

            def do_GET(self) -> None:
                self._cgi()

            def do_POST(self) -> None:
                self._cgi()

            def _cgi(self) -> None:
                if remote.refuse:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="memory"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                path, _, query = self.path.partition("?")
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                env = {"GIT_PROJECT_ROOT": str(remote.root), "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path,
                       "QUERY_STRING": query, "REQUEST_METHOD": self.command, "REMOTE_USER": "priya",
                       "REMOTE_ADDR": "127.0.0.1", "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                       "CONTENT_LENGTH": str(len(body)), "GATEWAY_INTERFACE": "CGI/1.1",
                       "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
                if self.headers.get("Content-Encoding"):
                    env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
                out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
                sep = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
                head, _, rest = out.partition(sep)
                status = 200
                headers = []
                for line in head.decode("latin-1").splitlines():
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(rest)))
                self.end_headers()
                self.wfile.write(rest)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{name}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@pytest.fixture
def http_remote(tmp_path: Path) -> Iterator[HttpRemote]:
    root = tmp_path / "http"
    root.mkdir()
    r = HttpRemote(root)
    r.start()
    try:
        yield r
    finally:
        r.stop()


def copy_world(src: Path, dst: Path) -> None:
    """Copy a whole world (remote and homes), pointing the copies at the copied remote."""
    shutil.copytree(src, dst, symlinks=True)
    for settings in dst.glob("*/home/botmemory/sync/settings.json"):
        d = json.loads(settings.read_text())
        d["remote"] = d["remote"].replace(src.as_uri(), dst.as_uri())
        settings.write_text(json.dumps(d))


__all__ = ["BOT", "BOTMEMORY", "Computer", "Daemon", "HttpRemote", "TODAY", "bare", "copy_world", "free_port",
           "remote_log", "wait_port"]
