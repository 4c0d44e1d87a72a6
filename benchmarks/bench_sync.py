"""Sync: how soon a change reaches the other computer, what a sync with nothing to do costs, and what many synced
folders add to an idle schedule. Ratios against the issue's targets and against baselines of the same run.

    python benchmarks/bench_sync.py [--changes N] [--rounds N] [--folders N] [--idle S] [--skip-latency] [--tiny]

1. **A change on A, visible on B.** Two homes, each running ``botmemory watch`` (its own schedule, the default
   timings: a round 2 s after a change has been quiet, the remote asked every 4 s while the computer was used
   in the last 10 minutes), a loopback ``git daemon`` as the remote. ``botmemory remember`` on A returns at
   t0; B's MEMORY.md is read every 50 ms until it holds the note. N changes, a few seconds apart. Target: 10 s.
2. **A sync with nothing to do.** CPU time (user + system of this process and the git processes it waits
   for) of ``sync now`` in this process — what the tray and ``watch`` pay — on a home syncing 1, 10 and 100
   folders, over the daemon (the remote's side is the daemon's, not ours) and over ``file://`` (git's
   upload-pack runs as our child there, so it is counted too); and the whole ``botmemory sync now``
   command, against ``python -c pass`` and ``botmemory bots`` (the interpreter and the CLI's own start).
   Target: 100 ms.
3. **Idle.** The schedule (the tray's sync thread: one watch of the journal folder, the remote asked every
   4 s) of a home syncing 0 and then 1,000 folders, after its first round, for S seconds: CPU of that
   process. The ratio is what 1,000 folders add to an idle tray.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import sized, tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

BOT = "scout"
CLI = [sys.executable, "-m", "botmemory.core.faces.entry"]


def cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def env_for(root: Path, host: str) -> dict[str, str]:
    # bytecode is written and read (as an installed package's is): PYTHONDONTWRITEBYTECODE would compile every run
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(root / "user"), BOTMEMORY_HOST=host)
    (root / "user").mkdir(parents=True, exist_ok=True)
    return env


def cli(root: Path, host: str, *args: str) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([*CLI, "--root", str(root / "home"), *args], capture_output=True, text=True,
                       env=env_for(root, host), timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"{args} exited {r.returncode}: {r.stderr}")
    return r


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Daemon:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.port = free_port()
        self.proc = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
                                      f"--base-path={base}", "--listen=127.0.0.1", f"--port={self.port}", str(base)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("git daemon did not start (is git's daemon installed?)")

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def bare(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


# ----- 1. latency


def latency(tmp: Path, daemon: Daemon, changes: int) -> list[float]:
    bare(daemon.base / "latency.git")
    homes = [(tmp / "lat-laptop", "laptop"), (tmp / "lat-desktop", "desktop")]
    for root, host in homes:
        cli(root, host, "init", BOT)
        cli(root, host, "sync", "setup", daemon.url("latency.git"))
        cli(root, host, "sync", "add", BOT)
    watchers = [subprocess.Popen([*CLI, "--root", str(root / "home"), "watch"], env=env_for(root, host),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
                for root, host in homes]
    out = []
    try:
        time.sleep(sized(3, 1))     # both schedules start and take their first round
        b_memory = homes[1][0] / "home" / "workspaces" / BOT / "MEMORY.md"
        for i in range(changes):
            note = f"Latency probe number {i}"
            cli(*homes[0], "remember", BOT, note)
            t0 = time.monotonic()
            while note not in b_memory.read_text(encoding="utf-8"):
                if time.monotonic() - t0 > 120:
                    raise SystemExit(f"change {i} did not arrive in 120 s")
                time.sleep(0.05)
            out.append(time.monotonic() - t0)
            time.sleep(sized(1.0 + (i % 3), 0.0))   # changes at different points of B's schedule
    finally:
        for w in watchers:
            os.killpg(w.pid, signal.SIGTERM)
            w.wait(60)
    return out


# ----- 2. a sync with nothing to do


def home_with(root: Path, remote: str, folders: int, host: str = "laptop") -> None:
    from botmemory.core import Actor, Memory
    from botmemory.core.ops import operations, sync

    mem = Memory.open(str(root / "home"))
    bots = [f"bot{i:04d}" for i in range(folders)]
    for b in bots:
        mem.store.init(b)
        operations.remember(mem, b, f"A note of {b}", Actor.person("cli"))
    sync.setup(mem, remote, host=host)
    for b in bots:
        sync.add(mem, b, sync=False)
    sync.now(mem)


def noop_inprocess(root: Path, rounds: int) -> float:
    from botmemory.core import Memory
    from botmemory.core.ops import sync

    mem = Memory.open(str(root / "home"))
    sync.now(mem)       # warm: imports, the redaction rules
    costs = []
    for _ in range(rounds):
        c = cpu()
        r = sync.now(mem)
        costs.append(cpu() - c)
        assert all(f.came_in == 0 and f.went_out == 0 for f in r.folders)
    return statistics.median(costs)


def process_cpu(args: list[str], env: dict[str, str], repeat: int) -> float:
    costs = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(args, env=env, capture_output=True, check=True, timeout=120)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        costs.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(costs)


# ----- 3. idle


IDLE_CHILD = r"""
import json, resource, sys, time
from botmemory.core import Memory
from botmemory.core.ops import sync
mem = Memory.open(sys.argv[1])
s = sync.scheduler(mem)
s.start()
deadline = time.monotonic() + 600
while s.rounds < 1 and time.monotonic() < deadline:
    time.sleep(0.1)
time.sleep(float(sys.argv[3]))   # settle
def cpu():
    a = resource.getrusage(resource.RUSAGE_SELF); b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
c0, t0, r0 = cpu(), time.monotonic(), s.rounds
time.sleep(float(sys.argv[2]))
used, took = cpu() - c0, time.monotonic() - t0
s.stop()
print(json.dumps({"cpu": used, "seconds": took, "rounds": s.rounds - r0}))
"""


def idle(root: Path, seconds: float) -> dict[str, float]:
    settle = sized(2.0, 0.2)
    p = subprocess.run([sys.executable, "-c", IDLE_CHILD, str(root / "home"), str(seconds), str(settle)],
                       capture_output=True, text=True, timeout=900, env=env_for(root, "laptop"))
    if p.returncode != 0:
        raise SystemExit(p.stderr)
    return dict(json.loads(p.stdout))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--changes", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--folders", type=int, default=1000)
    ap.add_argument("--idle", type=float, default=30.0)
    ap.add_argument("--skip-latency", action="store_true")
    args = tiny_defaults(ap, changes=1, rounds=1, folders=2, idle=0.5).parse_args()
    os.environ.pop("BOTMEMORY_HOST", None)
    tmp = Path(tempfile.mkdtemp(prefix="bench-sync-"))
    served = tmp / "served"
    served.mkdir()
    daemon = Daemon(served)
    try:
        if not args.skip_latency:
            lat = latency(tmp, daemon, args.changes)
            print("\n1. a change on A visible on B (both running `watch`, loopback git daemon)")
            print(f"{'changes':>8} {'min s':>7} {'median s':>9} {'max s':>7} {'target s':>9} {'max/target':>11}")
            print(f"{len(lat):>8} {min(lat):>7.2f} {statistics.median(lat):>9.2f} {max(lat):>7.2f} {10.0:>9.1f} "
                  f"{max(lat) / 10.0:>11.2f}")

        print("\n2. a sync with nothing to do: CPU per round (this process and its git children)")
        print(f"{'remote':>8} {'folders':>8} {'median ms':>10} {'target ms':>10} {'ratio':>6}")
        for folders in sized((1, 10, 100), (1, 2)):
            for kind in ("daemon", "file"):
                root = tmp / f"noop-{kind}-{folders}"
                remote = (daemon.url(bare(served / f"noop-{folders}.git").name) if kind == "daemon"
                          else bare(tmp / f"noop-{folders}-file.git").as_uri())
                home_with(root, remote, folders)
                ms = noop_inprocess(root, args.rounds) * 1000
                print(f"{kind:>8} {folders:>8} {ms:>10.1f} {100.0:>10.0f} {ms / 100:>6.2f}")
        root = tmp / "noop-daemon-1"
        env = env_for(root, "laptop")
        process_cpu([*CLI, "--root", str(root / "home"), "sync", "now"], env, 1)   # bytecode written
        repeat = sized(5, 1)
        base = process_cpu([sys.executable, "-c", "pass"], env, repeat)
        bots = process_cpu([*CLI, "--root", str(root / "home"), "bots"], env, repeat)
        whole = process_cpu([*CLI, "--root", str(root / "home"), "sync", "now"], env, repeat)
        print(f"\n   the whole command (1 folder, daemon), CPU of the process and its children, median of {repeat}")
        print(f"{'python -c pass':>22} {'botmemory bots':>15} {'botmemory sync now':>19} {'sync now - bots':>16}")
        print(f"{base * 1000:>19.0f} ms {bots * 1000:>12.0f} ms {whole * 1000:>16.0f} ms "
              f"{(whole - bots) * 1000:>13.0f} ms")

        print(f"\n3. idle: the sync schedule after its first round, {args.idle:.0f} s (remote asked every 4 s)")
        results = {}
        for folders in (0, args.folders):
            root = tmp / f"idle-{folders}"
            home_with(root, daemon.url(bare(served / f"idle-{folders}.git").name), folders)
            results[folders] = idle(root, args.idle)
        print(f"{'folders':>8} {'CPU ms':>8} {'CPU %':>7} {'rounds':>7}")
        for folders, r in results.items():
            print(f"{folders:>8} {r['cpu'] * 1000:>8.0f} {100 * r['cpu'] / r['seconds']:>7.3f} {r['rounds']:>7.0f}")
        a, b = results[0]["cpu"], results[args.folders]["cpu"]
        print(f"   {args.folders} folders / 0 folders: {b / a if a else float('nan'):.2f}x")
    finally:
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
