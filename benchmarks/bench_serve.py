"""``botmemory serve``: throughput and start-up, as ratios against baselines measured in the same run.

    python benchmarks/bench_serve.py [--requests N] [--seconds S] [--tiny]

1. Requests per second, loopback only, one request per connection (HTTP/1.0,
   as the server speaks), from 4 client threads, for the overview
   (``GET /api/bots/:id/memory``) and a file read (``GET …/memory/file?path=``)
   against a bare ``ThreadingHTTPServer`` answering a constant JSON body.
   Each run stops at N requests or S seconds, whichever comes first.
2. Start-up: ``botmemory serve --port 0`` until it listens (its first line,
   printed once the sockets are bound) and until it answers a first overview,
   against ``python -c pass`` (target: listening within 300 ms).
"""
from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from botmemory.core import Actor, ApiServer, Memory

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

BOT = "scout"
CLIENTS = 4


class _Const(BaseHTTPRequestHandler):
    body = json.dumps({"ok": True, "n": 1}).encode()

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def rate(port: int, path: str, token: str, requests: int, seconds: float) -> tuple[float, int]:
    """Requests per second from CLIENTS threads; (rate, requests done)."""
    done = [0] * CLIENTS
    stop_at = time.perf_counter() + seconds
    per = requests // CLIENTS

    def client(i: int) -> None:
        while done[i] < per and time.perf_counter() < stop_at:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", path, headers={"Authorization": f"Bearer {token}"})
            r = c.getresponse()
            r.read()
            c.close()
            if r.status != 200:
                raise SystemExit(f"{path}: {r.status}")
            done[i] += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    n = sum(done)
    return n / (time.perf_counter() - t0), n


def startup(cmd: list[str], ready: Callable[[subprocess.Popen[bytes]], None], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        ready(p)
        times.append(time.perf_counter() - t)
        p.terminate()
        p.wait()
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=7)
    a = tiny_defaults(ap, requests=8, seconds=2.0, repeat=1).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(str(Path(tmp) / "home"), "2026-10-15")
        mem.store.init(BOT)
        text = "".join(f'- 2026-10-{1 + i % 28:02d} · from chat "Plans" · fact {i} about the launch\n' for i in range(150))
        mem.store.write(BOT, "MEMORY.md", text, Actor.person("cli"))
        for i in range(20):
            mem.store.write(BOT, f"memory/topic-{i}.md", f"---\ntitle: Topic {i}\n---\n" + text[:2000], Actor.person("cli"))

        base = ThreadingHTTPServer(("127.0.0.1", 0), _Const)
        bt = threading.Thread(target=base.serve_forever, daemon=True)
        bt.start()
        api = ApiServer(mem, 0, opener=lambda target, folder: None).start()
        try:
            print(f"requests per second, loopback, {CLIENTS} clients, at most {a.requests} requests or {a.seconds:g} s")
            print(f"{'':34} {'req/s':>8} {'n':>6} {'vs bare':>8}")
            b_rate, b_n = rate(base.server_address[1], "/", "", a.requests, a.seconds)
            print(f"{'bare ThreadingHTTPServer, constant':34} {b_rate:8.0f} {b_n:6d} {1.0:7.2f}×")
            for label, path in (("overview", f"/api/bots/{BOT}/memory"),
                                ("file read (MEMORY.md, 150 lines)", f"/api/bots/{BOT}/memory/file?path=MEMORY.md")):
                r, n = rate(api.port, path, api.token, a.requests, a.seconds)
                print(f"{label:34} {r:8.0f} {n:6d} {b_rate / r:7.2f}× slower")
        finally:
            api.stop()
            base.shutdown()
            base.server_close()

        def first_line(p: subprocess.Popen[bytes]) -> None:
            assert p.stdout is not None
            p.stdout.readline()

        def answers(p: subprocess.Popen[bytes]) -> None:
            assert p.stdout is not None
            info = json.loads(p.stdout.readline())
            c = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=30)
            c.request("GET", f"/api/bots/{BOT}/memory", headers={"Authorization": f"Bearer {info['token']}"})
            c.getresponse().read()
            c.close()

        serve_cmd = [sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(mem.home.root), "serve", "--port", "0",
                     "--json"]
        py = startup([sys.executable, "-c", "print(1, flush=True)"], first_line, a.repeat)
        gauge = startup([sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(mem.home.root), "gauge", BOT],
                        first_line, a.repeat)
        listening = startup(serve_cmd, first_line, a.repeat)
        serve = startup(serve_cmd, answers, a.repeat)
        print(f"\nstart-up (median of {a.repeat}; target: serve listening within 300 ms)")
        print(f"{'python -c pass':34} {py * 1000:7.0f} ms {1.0:7.2f}×")
        print(f"{'botmemory gauge (for reference)':34} {gauge * 1000:7.0f} ms {gauge / py:7.2f}×")
        print(f"{'serve, until it listens':34} {listening * 1000:7.0f} ms {listening / py:7.2f}×  "
              f"({'within' if listening <= 0.3 else 'OVER'} 300 ms)")
        print(f"{'serve, until its first answer':34} {serve * 1000:7.0f} ms {serve / py:7.2f}×")


if __name__ == "__main__":
    main()
