"""Agents' I/O speed (MCP server, Claude Code hook), as ratios against `python -c pass` measured in the same run.

    python benchmarks/bench_agents_io.py [--runs N] [--tiny]

1. ``botmemory mcp``: process start to the ``initialize`` answer — target
   ≤ 500 ms (issue 22; 986 ms when the SDK answered it after its import): the
   wire (core/faces/mcp_wire.py) answers it before the SDK loads. Beside it the
   same with the SDK answering (the server run by ``MCPServer.run("stdio")``,
   as before the wire), then start to the first answered ``tools/list``
   (initialize, initialized, tools/list) — target ≤ 1 s; the peer basic-memory
   took 10.2 s — and ``python -c "from mcp.server import MCPServer"``: the
   SDK's own import, which is most of that.
2. a ``memory_update`` (remember) round trip on a running server.
3. ``botmemory hook claude-code`` for UserPromptSubmit as a whole process over a
   project folder of 2,000 topic files: p50 / p95 — target p95 ≤ 300 ms.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import sized, tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

BIN = Path(sys.executable).parent
BOTMEMORY = [str(BIN / "botmemory")] if (BIN / "botmemory").exists() else [sys.executable, "-m", "botmemory.core.faces.cli"]
BOT = "scout"
WORDS = ("invoice launch travel billing flight standup deploy budget review agency contract payroll hiring "
         "roadmap design support release metrics security vendor").split()


def p(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


CPU: dict[str, list[float]] = {}
"""CPU seconds (user + system) of the measured processes, per row: less sensitive than wall time to a busy machine."""


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def proc_cpu(pid: int) -> float | None:
    """A running process's CPU seconds so far (Linux /proc), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def python_c(code: str, runs: int, label: str) -> list[float]:
    out = []
    for _ in range(runs):
        c = children_cpu()
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        out.append(time.perf_counter() - t)
        CPU.setdefault(label, []).append(children_cpu() - c)
    return out


SDK_STDIO = ("import sys; from botmemory.core import Memory; from botmemory.core.faces.mcp_server import build;"
             "build(Memory.open(sys.argv[1]), sys.argv[2]).run('stdio')")
"""The server as it ran before the wire: the SDK's own stdio transport, which answers initialize after its import."""


class Server:
    def __init__(self, root: Path, sdk_stdio: bool = False) -> None:
        cmd = [sys.executable, "-c", SDK_STDIO, str(root), BOT] if sdk_stdio else [*BOTMEMORY, "--root", str(root), "mcp", BOT]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        self.n = 0

    def ask(self, method: str, params: dict[str, object] | None = None, notify: bool = False) -> dict[str, object]:
        assert self.proc.stdin and self.proc.stdout
        msg: dict[str, object] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.n += 1
            msg["id"] = self.n
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        if notify:
            return {}
        while True:
            answer: dict[str, object] = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.n:
                return answer

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(30)


def mcp_start(root: Path, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        s = Server(root)
        s.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "bench", "version": "1"}})
        s.ask("notifications/initialized", notify=True)
        tools = s.ask("tools/list", {})
        out.append(time.perf_counter() - t)
        cpu = proc_cpu(s.proc.pid)
        if cpu is not None:
            CPU.setdefault("start", []).append(cpu)
        assert len(tools["result"]["tools"]) == 7  # type: ignore[index]
        s.close()
    return out


def mcp_initialize(root: Path, runs: int, sdk_stdio: bool = False) -> list[float]:
    """Process start to the initialize answer (the time a client waits before it can list tools)."""
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        s = Server(root, sdk_stdio)
        r = s.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
        out.append(time.perf_counter() - t)
        assert r["result"]["serverInfo"]["name"] == "botmemory", r  # type: ignore[index]
        s.close()
    return out


def mcp_update(root: Path, runs: int) -> list[float]:
    s = Server(root)
    s.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "1"}})
    s.ask("notifications/initialized", notify=True)
    out = []
    for i in range(runs):
        t = time.perf_counter()
        r = s.ask("tools/call", {"name": "memory_update",
                                 "arguments": {"action": "remember", "text": f"Benchmark fact number {i}"}})
        out.append(time.perf_counter() - t)
        assert not r["result"].get("isError"), r  # type: ignore[union-attr]
    s.close()
    return out


def make_project(claude: Path, project: Path, files: int) -> None:
    key = "".join(c if c.isalnum() else "-" for c in str(project))
    folder = claude / "projects" / key / "memory"
    folder.mkdir(parents=True)
    index = []
    for i in range(files):
        a, b, c = WORDS[i % len(WORDS)], WORDS[(i * 7) % len(WORDS)], WORDS[(i * 13) % len(WORDS)]
        name = f"note-{i:04d}-{a}.md"
        (folder / name).write_text(f"---\ntype: project\n---\n# {a.title()} {i}\n\nThe {a} for {b} is tracked "
                                   f"with {c} number {i}.\n\nMore about {b} and {c}: see the shared doc.\n")
        index.append(f"- [{a} {i}]({name})")
    (folder / "MEMORY.md").write_text("\n".join(index[:150]) + "\n")


def hook(root: Path, project: Path, env: dict[str, str], runs: int) -> tuple[list[float], int]:
    event = json.dumps({"session_id": "bench", "transcript_path": "/dev/null", "cwd": str(project),
                        "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
                        "prompt": "What did we decide about the invoice for the launch review?"})
    out = []
    size = 0
    for _ in range(runs):
        c = children_cpu()
        t = time.perf_counter()
        r = subprocess.run([*BOTMEMORY, "--root", str(root), "hook", "claude-code", "--bot", BOT], input=event,
                           capture_output=True, text=True, env=env)
        out.append(time.perf_counter() - t)
        CPU.setdefault("hook", []).append(children_cpu() - c)
        assert r.returncode == 0, r.stderr
        size = len(r.stdout)
    return out, size


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    n = tiny_defaults(ap, runs=1).parse_args().runs
    few = sized(3, 1)
    topics = sized(2000, 20)
    tmp = Path(tempfile.mkdtemp(prefix="bench-agents-"))
    try:
        root = tmp / "home"
        subprocess.run([*BOTMEMORY, "--root", str(root), "init", BOT], check=True, capture_output=True)
        claude, project = tmp / "claude", tmp / "work" / "proj"
        project.mkdir(parents=True)
        make_project(claude, project, topics)
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude)}

        load = os.getloadavg()[0]
        base = python_c("pass", n, "pass")
        sdk = python_c("from mcp.server import MCPServer", max(few, n // 4), "sdk")
        init = mcp_initialize(root, max(few, n // 2))
        init_sdk = mcp_initialize(root, max(few, n // 4), sdk_stdio=True)
        start = mcp_start(root, max(few, n // 4))
        update = mcp_update(root, n)
        hook(root, project, env, 1)                 # the first run builds the bound bot's recall index
        hooks, size = hook(root, project, env, n)
        b50 = statistics.median(base)
        rows = [
            ("python -c pass (baseline)", base, "pass", "", ""),
            ("SDK import alone", sdk, "sdk", "", ""),
            ("mcp: start to initialize answer", init, "", "<= 500 ms", ""),
            ("  the same, the SDK answering (before)", init_sdk, "", "", "(986 ms in issue 22)"),
            ("mcp: start to first tools/list", start, "start", "<= 1 s", ""),
            ("mcp: memory_update round trip", update, "", "", "(on a running server)"),
            (f"hook UserPromptSubmit, {topics:,} topics", hooks, "hook", "p95 <= 300 ms", f"(answer {size:,} chars)"),
        ]
        print(f"load average at the start: {load:.1f} on {os.cpu_count()} cores")
        print(f"{'what':38} {'p50 ms':>8} {'p95 ms':>8} {'p50/pass':>9} {'CPU p50 ms':>11}  target")
        for label, values, cpu_key, target, note in rows:
            cpu = f"{statistics.median(CPU[cpu_key]) * 1000:11.0f}" if CPU.get(cpu_key) else f"{'':>11}"
            print(f"{label:38} {statistics.median(values) * 1000:8.1f} {p(values, 0.95) * 1000:8.1f} "
                  f"{statistics.median(values) / b50:8.1f}x {cpu}  {target} {note}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
