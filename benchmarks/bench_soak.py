"""A bounded soak: mixed writers (the CLI, an MCP server over stdio, the routes on loopback) with random
SIGKILLs, then the checks of issue 23.

    python benchmarks/bench_soak.py [--minutes 30] [--seed 2026] [--kill 0.35] [--keep DIR] [--tiny]

``--tiny``: 5 seconds of writers and an undo sample of 5 (a test of the script; the checks are the same).

One writer process at a time — a ``botmemory`` command (remember, save, forget, rm, undo, a bot's turn), a
``botmemory mcp`` server given a few tool calls, or ``botmemory serve`` (loopback only) sent a few PUTs —
and about a third of them SIGKILLed at a random moment. Between writers, now and then an edit in another
editor (a line appended in place, or a topic replaced by a rename) and a ``watch --once``. Every write adds
a word of its own (``soakNNNNN``); a write its client saw acknowledged, and every outside edit, must end up
in a row. At the end, after one last ``watch --once``:

- **0 forks**: each file's rows form one chain (a row's before-hash is the previous row's after-hash);
- **0 lost rows**: every acknowledged write and every outside edit is in a row, and each file's newest row
  is the file as it is;
- **every row's undo works or says why**: an undoable row's earlier text is exactly the text before it (its
  hash is the row's before-hash), any other row gives its reason; and undo run on a copy of the home, for a
  sample of rows, either changes the file or refuses with a named error (a conflict, a rule) — never an
  unexpected one — and leaves the chain whole.

Two cores are shared: the soak runs one writer at a time and sleeps between them. Prints one table.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from botmemory.core.disk.safeio import text_hash  # noqa: E402
from botmemory.core.store.journal import RowFilter  # noqa: E402
from botmemory.core.store.memory import Memory  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

BOT = "scout"
TODAY = "2026-10-15"
CLI = [sys.executable, "-m", "botmemory.core.faces.cli"]
TOPICS = [f"memory/topic-{i}.md" for i in range(6)]


class Soak:
    def __init__(self, root: Path, rng: random.Random, kill: float) -> None:
        self.root, self.rng, self.kill_rate = root, rng, kill
        self.n = 0
        self.acked: list[str] = []          # words of writes their client saw done
        self.outside: list[str] = []        # words of outside edits
        self.forgotten: list[str] = []      # words an acknowledged forget removed
        self.stats: Counter[str] = Counter()

    # ----- helpers

    def word(self) -> str:
        self.n += 1
        return f"soak{self.n:05d}"

    def ws(self) -> Path:
        return self.root / "workspaces" / BOT

    def cli(self, *args: str, stdin: str | None = None, kill: bool = False) -> subprocess.CompletedProcess[str] | None:
        """Run one command; with *kill*, SIGKILL it after a random moment (None when it was killed)."""
        p = subprocess.Popen([*CLI, "--root", str(self.root), "--today", TODAY, *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if kill:
            threading.Timer(self.rng.uniform(0.05, 0.6), _kill, (p,)).start()
        out, err = p.communicate(stdin)
        if p.returncode == -signal.SIGKILL:
            self.stats["killed"] += 1
            return None
        if "Traceback" in err:
            raise AssertionError(f"a traceback from {args}: {err}")
        return subprocess.CompletedProcess(p.args, p.returncode, out, err)

    # ----- writers

    def cli_writer(self, kill: bool) -> None:
        what = self.rng.choice(["remember", "remember", "save", "save", "forget", "rm", "undo", "turn"])
        self.stats[f"cli {what}"] += 1
        w = self.word()
        if what == "remember":
            r = self.cli("remember", BOT, f"fact {w} for the soak", kill=kill)
            self._ack(r, w)
        elif what == "save":
            topic = self.rng.choice(TOPICS)
            r = self.cli("save", BOT, topic, stdin=f"# Topic\n- 2026-10-0{self.rng.randint(1, 9)} · from cli · {w}\n",
                         kill=kill)
            self._ack(r, w)
        elif what == "forget" and self.acked:
            old = self.rng.choice(self.acked[-40:])
            r = self.cli("forget", BOT, old, "--json", kill=kill)
            if r is not None and r.returncode == 0 and json.loads(r.stdout or "{}").get("removed"):
                self.forgotten.append(old)
        elif what == "rm":
            topic = self.rng.choice(TOPICS)
            if (self.ws() / topic).exists():
                self.cli("rm", BOT, topic, kill=kill)
        elif what == "undo":
            r = self.cli("journal", BOT, "--json", "--limit", "20")
            rows = json.loads(r.stdout) if r is not None and r.returncode == 0 else []
            if rows:
                r = self.cli("undo", BOT, self.rng.choice(rows)["id"], kill=kill)
                if r is not None:
                    self.stats[f"undo exit {r.returncode}"] += 1
        elif what == "turn":
            r = self.cli("turn", "begin", BOT, "--chat", "Soak")
            if r is None or r.returncode != 0:
                return
            turn = r.stdout.strip()
            path = self.ws() / self.rng.choice(TOPICS)   # the bot edits with its own file tools: a line added
            old = path.read_text(encoding="utf-8") if path.exists() else "# Topic\n"
            path.write_text(old + f"- the bot wrote {w} in its turn\n", encoding="utf-8")
            r = self.cli("turn", "end", BOT, turn, "--said", f"wrote {w}", kill=kill)
            self._ack(r, w)

    def mcp_writer(self, kill: bool) -> None:  # noqa: C901
        self.stats["mcp server"] += 1
        p = subprocess.Popen([*CLI, "--root", str(self.root), "--today", TODAY, "mcp", BOT], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if kill:
            threading.Timer(self.rng.uniform(0.2, 2.5), _kill, (p,)).start()
        n = 0

        def ask(method: str, params: dict[str, object]) -> dict[str, object] | None:
            nonlocal n
            n += 1
            try:
                assert p.stdin is not None and p.stdout is not None
                p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
                p.stdin.flush()
                while True:
                    line = p.stdout.readline()
                    if not line:
                        return None
                    msg = json.loads(line)
                    if msg.get("id") == n:
                        return msg
            except (BrokenPipeError, OSError, ValueError):
                return None

        try:
            if ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "soak", "version": "1"}}) is None:
                return
            assert p.stdin is not None
            p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
            p.stdin.flush()
            for _ in range(self.rng.randint(1, 5)):
                w = self.word()
                if self.rng.random() < 0.5:
                    m = ask("tools/call", {"name": "memory_update",
                                           "arguments": {"action": "remember", "text": f"mcp fact {w}"}})
                else:
                    topic = self.rng.choice(TOPICS)
                    got = ask("tools/call", {"name": "memory_read", "arguments": {"path": topic}})
                    if got is None:
                        break
                    res = got.get("result", {})
                    h = json.loads(res["content"][0]["text"])["hash"] if not res.get("isError") else None
                    m = ask("tools/call", {"name": "memory_write",
                                           "arguments": {"path": topic, "text": f"# Topic\n- mcp {w}\n",
                                                         "expected_hash": h}})
                if m is None:
                    break
                if not m.get("result", {}).get("isError"):
                    self.acked.append(w)
        finally:
            try:
                if p.stdin is not None:
                    p.stdin.close()
            except OSError:
                pass
            p.wait()
            if p.returncode == -signal.SIGKILL:
                self.stats["killed"] += 1
            for f in (p.stdout, p.stderr):
                if f is not None:
                    f.close()

    def http_writer(self, kill: bool) -> None:
        self.stats["http server"] += 1
        p = subprocess.Popen([*CLI, "--root", str(self.root), "--today", TODAY, "serve", "--port", "0", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert p.stdout is not None
            line = p.stdout.readline()
            if not line:
                return
            info = json.loads(line)
            if kill:
                threading.Timer(self.rng.uniform(0.05, 1.5), _kill, (p,)).start()
            for _ in range(self.rng.randint(1, 5)):
                w = self.word()
                topic = self.rng.choice(TOPICS)
                body = json.dumps({"path": topic, "text": f"# Topic\n- http {w}\n"}).encode()
                url = f"{info['url']}/api/bots/{BOT}/memory/file"
                if not url.startswith("http://127.0.0.1:") and not url.startswith("http://[::1]:"):
                    raise AssertionError(f"not a loopback address: {url}")
                req = urllib.request.Request(url, data=body, method="PUT",  # noqa: S310 - loopback http only
                                             headers={"Authorization": f"Bearer {info['token']}",
                                                      "Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(req, timeout=20) as resp:  # noqa: S310 - checked above
                        if resp.status == 200:
                            self.acked.append(w)
                except urllib.error.HTTPError as e:
                    self.stats[f"http {e.code}"] += 1
                except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                    break
        finally:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
            p.wait()
            if p.returncode == -signal.SIGKILL:
                self.stats["killed"] += 1
            for f in (p.stdout, p.stderr):
                if f is not None:
                    f.close()

    def outside_edit(self) -> None:
        """A person's editor, between writers: a line appended in place, or a topic saved the way most
        editors save (a new file renamed over it) with a line added — never an earlier edit taken out before
        anything looked (that one would be the person's own loss, not botmemory's)."""
        w = self.word()
        if self.rng.random() < 0.5:
            path = self.ws() / "MEMORY.md"
            with open(path, "a", encoding="utf-8") as f:
                f.write(f"- 2026-10-02 · from cli · typed in an editor {w}\n")
        else:
            path = self.ws() / self.rng.choice(TOPICS)
            old = path.read_text(encoding="utf-8") if path.exists() else "# Topic\n"
            tmp = path.with_name(f".{path.name}.swp")
            tmp.write_text(old + f"- edited in another editor {w}\n", encoding="utf-8")
            os.replace(tmp, path)
        self.outside.append(w)
        self.stats["outside edits"] += 1
        if self.rng.random() < 0.5:
            self.cli("watch", "--once")

    def _ack(self, r: subprocess.CompletedProcess[str] | None, w: str) -> None:
        if r is not None and r.returncode == 0:
            self.acked.append(w)
        elif r is not None:
            self.stats[f"exit {r.returncode}"] += 1

    # ----- the run

    def run(self, seconds: float) -> None:
        assert self.cli("init", BOT) is not None
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            kill = self.rng.random() < self.kill_rate
            self.rng.choice([self.cli_writer, self.cli_writer, self.cli_writer, self.mcp_writer,
                             self.http_writer])(kill)
            self.stats["writers"] += 1
            if self.rng.random() < 0.25:
                self.outside_edit()
            time.sleep(self.rng.uniform(0.02, 0.15))    # leave the other core to the others
        # a killed `turn end` leaves its turn open (it would end by itself after 30 minutes): the harness ends
        # what it began, then one last scan
        turns = self.root / "botmemory" / "turns" / BOT
        for f in sorted(turns.glob("*.json")) if turns.is_dir() else []:
            self.cli("turn", "end", BOT, f.stem, "--said", "the soak is over")
            self.stats["open turns ended at the end"] += 1
        self.cli("watch", "--once")


def _kill(p: subprocess.Popen[str]) -> None:
    if p.poll() is None:
        try:
            p.send_signal(signal.SIGKILL)
        except ProcessLookupError:
            pass


# ----- the checks


def check(root: Path, soak: Soak, undo_sample: int, rng: random.Random) -> dict[str, int]:  # noqa: C901
    mem = Memory.open(str(root), TODAY)
    rows = mem.journal.list(BOT, limit=None)[::-1]        # oldest first
    figures: Counter[str] = Counter(rows=len(rows))
    last: dict[str, str | None] = {}
    for r in rows:
        if r.file in last and r.before_hash != last[r.file]:
            figures["forks"] += 1
        last[r.file] = r.after_hash
        if r.undoable:
            if r.before_hash is not None and (r.earlier_text is None or text_hash(r.earlier_text) != r.before_hash):
                figures["undo would restore another text"] += 1
        elif not r.reason:
            figures["not undoable without a reason"] += 1
        else:
            figures["rows that say why they cannot be undone"] += 1
        figures[f"rows {r.who}/{r.how}"] += 1
    ws = root / "workspaces" / BOT
    for rel, h in last.items():
        p = ws / rel
        now = text_hash(p.read_text(encoding="utf-8")) if p.exists() else None
        if now != h:
            figures["files whose newest row is not the file"] += 1
    for p in [ws / "MEMORY.md", *ws.glob("memory/*.md")]:
        rel = p.relative_to(ws).as_posix()
        if rel not in last:
            figures["files with no row"] += 1
    for name, words in (("acknowledged writes", soak.acked), ("outside edits", soak.outside)):
        figures[name] = len(words)
        for w in words:
            if not any(RowFilter(words=(w,)).matches(r) for r in rows):
                figures[f"lost: {name}"] += 1
                where = [p.relative_to(ws).as_posix() for p in [ws / "MEMORY.md", *ws.glob("memory/*.md")]
                         if w in p.read_text(encoding="utf-8")]
                print(f"lost ({name}): {w}, now in {where or 'no file'}", file=sys.stderr)
    # undo on a copy: works, or refuses with a named error; the chain stays whole
    copy = root.parent / "undo-copy"
    shutil.copytree(root, copy)
    sample = rng.sample(rows, min(undo_sample, len(rows)))
    for r in sample:
        p = subprocess.run([*CLI, "--root", str(copy), "--today", TODAY, "undo", BOT, r.id], capture_output=True,
                           text=True)
        if p.returncode == 0:
            figures["undo: done"] += 1
        elif p.returncode in (3, 4) and p.stderr.startswith("botmemory: ") and "Traceback" not in p.stderr:
            figures[f"undo: refused, saying why (exit {p.returncode})"] += 1
        else:
            figures["undo: failed"] += 1
            print(f"undo {r.id} ({r.who}/{r.how} {r.file}): exit {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
    m2 = Memory.open(str(copy), TODAY)
    last = {}
    for r in m2.journal.list(BOT, limit=None)[::-1]:
        if r.file in last and r.before_hash != last[r.file]:
            figures["forks after the undos"] += 1
        last[r.file] = r.after_hash
    for key in ("forks", "files whose newest row is not the file", "lost: acknowledged writes",
                "lost: outside edits", "undo would restore another text", "undo: failed", "forks after the undos"):
        figures.setdefault(key, 0)
    return dict(figures)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--kill", type=float, default=0.35, help="the share of writers SIGKILLed (default 0.35)")
    ap.add_argument("--undo-sample", type=int, default=150)
    ap.add_argument("--keep", metavar="DIR", help="run in DIR and keep it (default: a temp folder, removed)")
    args = tiny_defaults(ap, minutes=5 / 60, undo_sample=5).parse_args()
    rng = random.Random(args.seed)
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="botmemory-soak-"))
    root = tmp / "home"
    t0 = time.monotonic()
    soak = Soak(root, rng, args.kill)
    try:
        soak.run(args.minutes * 60)
        ran = time.monotonic() - t0
        figures = check(root, soak, args.undo_sample, rng)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"soak: {ran / 60:.1f} min, seed {args.seed}, kill share {args.kill}")
    for k, v in sorted(soak.stats.items()):
        print(f"  {k:<48} {v:>7}")
    print("checks:")
    for k, v in sorted(figures.items()):
        print(f"  {k:<48} {v:>7}")
    bad = sum(figures[k] for k in ("forks", "files whose newest row is not the file", "lost: acknowledged writes",
                                   "lost: outside edits", "undo would restore another text", "undo: failed",
                                   "forks after the undos"))
    bad += figures.get("files with no row", 0) + figures.get("not undoable without a reason", 0)
    print("verdict:", "OK" if bad == 0 else f"{bad} violation(s)")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
