"""The recent-work brief, timed (issue 27), with ratios against a baseline measured in the same run.

    python benchmarks/bench_brief.py [--runs N] [--keep] [--tiny]

1. A workspace with 200 conversations and 30 days of daily logs (a turn line of every conversation each day,
   6,000 lines): ``ops.brief`` warm — target <= 100 ms.
2. A Claude Code project with 500 session transcripts, 2 GB in all (400 at the project's root, 100 in a
   subfolder; each a real session's lines around a 4 MB tool output, written sparsely so the set is made in
   seconds and takes no disk; mtimes over 30 days, 40 in the brief's two days; one in five of those ends with
   a tool output after Claude's answer): ``ops.brief`` of the tracked folder warm — target <= 100 ms; the same
   with other projects' sessions (5 more projects of 20 transcripts each).
3. ``botmemory hook claude-code`` for SessionStart as Claude Code starts it (``/bin/sh -c`` with the command
   ``connect`` writes, the event on stdin), the brief switched on: p50 / p95 — target p95 <= 300 ms; beside it
   the same hook with the brief off, and ``python -c pass``. The bytes one hook process reads (its
   ``/proc/self/io`` ``rchar``) against the transcripts' 2 GB: only the newest transcripts' ends are read.
4. ``search ID --since 24h`` (no words) and ``search ID WORD`` over all 500 transcripts, for the record.

Each process row also gives its CPU time (user + system), which a busy machine disturbs less than wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import sized, tiny_defaults  # noqa: E402 - the benchmarks' shared helpers
from bench_agents_io import BOTMEMORY, CPU, children_cpu, p, python_c  # noqa: E402

BOT = "scout"
TRANSCRIPTS, SUBFOLDER, TOOL_BYTES, RECENT = sized((500, 100, 4 * 1024 * 1024, 40), (12, 3, 64 * 1024, 10))
OTHERS, PER_OTHER = sized((5, 20), (2, 3))         # other projects, and their transcripts
CONVERSATIONS, DAYS = sized((200, 30), (5, 3))      # the workspace's daily logs


def _ts(at: datetime) -> str:
    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _j(d: dict) -> bytes:
    return json.dumps(d, separators=(",", ":")).encode() + b"\n"


def write_transcript(path: Path, cwd: str, at: datetime, i: int, unanswered: bool) -> None:
    """One session: its prompt, a tool call, a 4 MB tool output (a hole: sparse), Claude's answer; with
    *unanswered*, the answer comes before the tool output (the session went on)."""
    sid = path.stem
    common = {"userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.328", "timestamp": _ts(at)}
    prompt = f"Fix issue {i}: the invoice export rounds totals wrongly"
    head = (_j({"type": "queue-operation", "operation": "enqueue", "timestamp": _ts(at), "sessionId": sid,
                "content": prompt})
            + _j({"parentUuid": None, "isSidechain": False, "type": "user", "message": {"role": "user",
                                                                                         "content": prompt}, **common})
            + _j({"isSidechain": False, "type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "make test"}}]}, **common}))
    answer = _j({"isSidechain": False, "type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": f"Issue {i}: totals are now rounded once, at the end; 412 tests pass."}]},
        **common}) + _j({"type": "last-prompt", "lastPrompt": prompt, "sessionId": sid})
    tool_open = json.dumps({"isSidechain": False, "type": "user", "message": {"role": "user", "content": [
        {"tool_use_id": f"t{i}", "type": "tool_result", "content": "@@"}]}}, separators=(",", ":")).encode()
    before, after = tool_open.split(b"@@")
    with open(path, "wb") as f:
        f.write(head)
        if unanswered:
            f.write(answer)
        f.write(before)
        f.seek(TOOL_BYTES, os.SEEK_CUR)           # the tool's output: a hole, read back as NUL bytes
        f.write(after[:-1] + b',"toolUseResult":{"stdout":"(above)"}}\n')
        if not unanswered:
            f.write(answer)
    stamp = at.timestamp()
    os.utime(path, (stamp, stamp))


def make_claude(tmp: Path, today: date) -> tuple[Path, Path, Path, int]:
    """(claude dir, project, its memory folder, the transcripts' total size)."""
    from botmemory.core.kinds.claude_code_paths import sanitized

    claude, project = tmp / "claude", tmp / "work" / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "web").mkdir()
    memory = claude / "projects" / sanitized(str(project)) / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- [Billing](billing.md) — invoices\n")
    now = datetime.combine(today, datetime.min.time()).astimezone() + timedelta(hours=18)
    total = 0

    def put(cwd: Path, n: int, first: int, hours_apart: float, recent_from: int) -> None:
        nonlocal total
        folder = claude / "projects" / sanitized(str(cwd))
        folder.mkdir(parents=True, exist_ok=True)
        for k in range(n):
            i = first + k
            at = now - timedelta(hours=(k * hours_apart if k < recent_from else 48 + k * 1.4))
            path = folder / f"{uuid.UUID(int=i)}.jsonl"
            write_transcript(path, str(cwd), at, i, unanswered=k < recent_from and k % 5 == 4)
            total += path.stat().st_size

    put(project, TRANSCRIPTS - SUBFOLDER, 0, 1.0, RECENT - 8)
    put(project / "web", SUBFOLDER, 10_000, 1.3, 8)
    for j in range(OTHERS):                              # other projects (for the brief across projects)
        other = tmp / "work" / f"other{j}"
        (other / ".git").mkdir(parents=True)
        put(other, PER_OTHER, 20_000 + 100 * j, 2.0, 10)
    return claude, project, memory, total


def make_home(root: Path, today: date) -> None:
    """A workspace with DAYS days of daily logs: each day a turn line of each of CONVERSATIONS conversations."""
    from botmemory.core import ops

    mem = ops.Memory.open(str(root), today.isoformat())
    mem.store.init(BOT)
    logs = root / "workspaces" / BOT / "memory" / "log"
    logs.mkdir(parents=True, exist_ok=True)
    for back in range(DAYS):
        day = today - timedelta(days=back)
        lines = [f'- {8 + c // 20:02d}:{(c * 3) % 60:02d} · {"room" if c % 7 == 0 else "chat"} "Conversation {c}" · '
                 f"Sent the report on item {c} and booked the follow-up for Thursday. · tools: mail"
                 for c in range(CONVERSATIONS)]
        (logs / f"{day.isoformat()}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def timed(fn, runs: int) -> list[float]:
    fn()                                                  # warm: imports, the page cache
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def run_hook(command: str, stdin: str, env: dict[str, str], label: str) -> tuple[float, str]:
    c = children_cpu()
    t = time.perf_counter()
    r = subprocess.run(["/bin/sh", "-c", command], input=stdin, capture_output=True, text=True, env=env)
    took = time.perf_counter() - t
    CPU.setdefault(label, []).append(children_cpu() - c)
    assert r.returncode == 0, r.stderr
    return took, r.stdout


READ_BYTES = ("import sys; from botmemory.core.faces.entry import main; sys.argv[1:] = sys.argv[2:]; main(); "
              "sys.stderr.write(open('/proc/self/io').read())")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--keep", action="store_true", help="keep the made-up home and transcripts (say where)")
    args = tiny_defaults(ap, runs=1).parse_args()
    n = args.runs
    tmp = Path(tempfile.mkdtemp(prefix="bench-brief-"))
    today = date.today()
    try:
        t = time.perf_counter()
        claude, project, memory, total = make_claude(tmp, today)
        made = time.perf_counter() - t
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "LANG": "C.UTF-8",
               "CLAUDE_CONFIG_DIR": str(claude), **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
        os.environ.update({"HOME": str(tmp), "CLAUDE_CONFIG_DIR": str(claude)})
        from botmemory.core import ops

        root = tmp / "home"
        make_home(root, today)
        mem = ops.Memory.open(str(root), today.isoformat())
        cc = ops.track(mem, None, path=str(memory), agent="claude-code").id
        load = os.getloadavg()[0]
        ws = timed(lambda: ops.brief(mem, BOT, "Conversation 3"), n)
        ws_lines = len(ops.brief(mem, BOT, "Conversation 3").lines)
        logs_read = timed(lambda: [(root / "workspaces" / BOT / "memory" / "log" / f"{d.isoformat()}.md").read_text()
                                   for d in (today, today - timedelta(days=1))], n)
        got = ops.brief(mem, cc, "x")
        own = timed(lambda: ops.brief(mem, cc, "x"), n)
        ops.set_brief_switch(mem.home, project, brief=True, across=True)
        across_lines = len(ops.brief(mem, cc, "x").lines)
        across = timed(lambda: ops.brief(mem, cc, "x"), n)
        ops.set_brief_switch(mem.home, project, across=False)

        command = shlex.join([*BOTMEMORY, "--root", str(root), "hook", "claude-code"])
        event = json.dumps({"session_id": "now", "transcript_path": str(tmp / "now.jsonl"), "cwd": str(project),
                            "hook_event_name": "SessionStart", "source": "startup"})
        base = python_c("pass", n, "pass")
        run_hook(command, event, env, "ignore")
        hook_on = [run_hook(command, event, env, "on")[0] for _ in range(n)]
        answer = run_hook(command, event, env, "ignore")[1]
        ops.set_brief_switch(mem.home, project, brief=False)
        hook_off = [run_hook(command, event, env, "off")[0] for _ in range(n)]
        ops.set_brief_switch(mem.home, project, brief=True)
        r = subprocess.run([sys.executable, "-c", READ_BYTES, "x", "--root", str(root), "hook", "claude-code"],
                           input=event, capture_output=True, text=True, env=env, check=True)
        rchar = int(next(ln.split()[1] for ln in r.stderr.splitlines() if ln.startswith("rchar:")))
        since = timed(lambda: ops.search(mem, cc, [], "24h"), max(sized(3, 1), n // 4))
        since_hits = len(ops.search(mem, cc, [], "24h").hits)
        words = timed(lambda: ops.search(mem, cc, ["rounded"]), sized(2, 1))
        words_hits = len(ops.search(mem, cc, ["rounded"]).hits)

        b50 = statistics.median(base)
        print(f"load average at the start: {load:.1f} on {os.cpu_count()} cores; the {TRANSCRIPTS} transcripts "
              f"({total / 1e9:.2f} GB, sparse) made in {made:.1f} s")
        print(f"{'what':52} {'p50 ms':>8} {'p95 ms':>8} {'ratio':>12} {'CPU p50':>8}  target")
        rows = [
            (f"workspace: {CONVERSATIONS} conversations, {DAYS} days of logs", ws, statistics.median(logs_read), "reading 2 logs",
             "", f"<= 100 ms ({ws_lines} lines)"),
            (f"Claude Code: {TRANSCRIPTS} transcripts, {total / 1e9:.2g} GB", own, None, "", "",
             f"<= 100 ms ({len(got.lines)} lines)"),
            (f"Claude Code, other projects too (+{OTHERS * PER_OTHER} transcripts)", across, None, "", "",
             f"<= 100 ms ({across_lines} lines)"),
            ("python -c pass", base, None, "", "pass", ""),
            ("hook SessionStart, brief off", hook_off, b50, "pass", "off", ""),
            ("hook SessionStart, brief on", hook_on, b50, "pass", "on",
             f"p95 <= 300 ms (answer {len(answer):,} chars)"),
            ("search --since 24h (no words)", since, None, "", "", f"({since_hits} hits)"),
            (f"search WORD, every transcript ({total / 1e9:.2g} GB)", words, None, "", "", f"({words_hits} hits, the cap)"),
        ]
        for label, values, against, what, key, target in rows:
            ratio = f"{statistics.median(values) / against:6.1f}x {what}" if against else ""
            cpu = f"{statistics.median(CPU[key]) * 1000:7.0f}" if key and CPU.get(key) else ""
            print(f"{label:52} {statistics.median(values) * 1000:8.1f} {p(values, 0.95) * 1000:8.1f} "
                  f"{ratio:>12} {cpu:>8}  {target}")
        print(f"bytes one SessionStart hook with the brief reads: {rchar / 1e6:.1f} MB of {total / 1e9:.2f} GB "
              f"({rchar / total:.2%})")
    finally:
        if args.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
