"""Tracked agent folders at scale: 50 Claude Code projects × 30 topics against a single home of the same size.

    .venv/bin/python benchmarks/bench_agents.py            # about a minute
    .venv/bin/python benchmarks/bench_agents.py --quick    # fewer runs, a shorter idle window
    .venv/bin/python benchmarks/bench_agents.py --tiny     # 3 projects × 3 topics, one run, a 0.5 s idle window

Both homes are measured in the same run:
- baseline: one OpenMausBot home with 50 workspaces × (MEMORY.md + 30 topics), nothing tracked;
- agents:   an empty home tracking 50 Claude Code project folders × (MEMORY.md + 30 topic files).
Measured: the desktop app's start to the event loop (median), its idle RSS, and
`botmemory watch --once` (a scan with nothing changed, and one after 10 % of the
files changed), per file. Targets (issue 10): start ≤ 1.5×, idle RSS ≤ 1.3×,
watch --once ≤ 2× per file.
Runs headless (QT_QPA_PLATFORM=offscreen) unless a display is set. Linux: reads /proc.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
from _common import desktop_args, run_child, sized, verdict  # noqa: E402 - the benchmarks' shared helpers
from bench_desktop import child_start  # noqa: E402 - the same start measurement as the desktop benchmark

PROJECTS = sized(50, 3)
TOPICS = sized(30, 3)
TARGETS = {"start": 1.5, "rss": 1.3, "watch": 2.0}


def child_idle(root: str) -> None:
    from botmemory.desktop import app as appmod

    appmod.launch(["--root", root, "--no-tray"])
    qt = appmod.qt_app()
    print(json.dumps({"ready": True}), flush=True)
    qt.exec()


def topic(i: int, j: int) -> str:
    return (f"---\ntype: project\nmodified: 2026-11-30T10:00:00Z\n---\n"
            f"Project {i} topic {j}: the deploy runs on CI; staging is at host-{j}.internal.\n"
            + "".join(f"- detail {k} of topic {j} in project {i}\n" for k in range(8)))


def index(i: int) -> str:
    return "".join(f"- [Topic {j}](topic-{j}.md) — project {i} topic {j}\n" for j in range(TOPICS))


def build(folder: Path) -> tuple[Path, Path, Path, Path]:
    """The baseline home, the agents' home, the fake user home holding ~/.claude, and a one-bot home."""
    from botmemory.core.disk.paths import Home
    from botmemory.core.kinds import tracked

    base = folder / "base"
    for i in range(PROJECTS):
        ws = base / "workspaces" / f"bot{i:02d}"
        (ws / "memory").mkdir(parents=True)
        (ws / "MEMORY.md").write_text(index(i))
        for j in range(TOPICS):
            (ws / "memory" / f"topic-{j}.md").write_text(topic(i, j))
    user = folder / "user"
    for i in range(PROJECTS):
        d = user / ".claude" / "projects" / f"-src-project-{i:02d}" / "memory"
        d.mkdir(parents=True)
        (d / "MEMORY.md").write_text(index(i))
        for j in range(TOPICS):
            (d / f"topic-{j}.md").write_text(topic(i, j))
    agents = folder / "agents"
    os.environ["HOME"] = str(user)
    home = Home.locate(str(agents))
    found, _ = tracked.discover(home)
    for c in found:
        tracked.track(home, c.id)
    for root in (base, agents):   # the first-run offer is not part of a start
        (root / "botmemory").mkdir(parents=True, exist_ok=True)
        (root / "botmemory" / "agents-offered.json").write_text("{}")
    one = folder / "one"
    ws = one / "workspaces" / "bot00"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text(index(0))
    for j in range(TOPICS):
        (ws / "memory" / f"topic-{j}.md").write_text(topic(0, j))
    (one / "botmemory").mkdir(parents=True, exist_ok=True)
    (one / "botmemory" / "agents-offered.json").write_text("{}")
    return base, agents, user, one


def env(user: Path) -> dict[str, str]:
    e = dict(os.environ)
    e["HOME"] = str(user)
    e.pop("CLAUDE_CONFIG_DIR", None)
    if not e.get("DISPLAY") and not e.get("WAYLAND_DISPLAY"):
        e["QT_QPA_PLATFORM"] = "offscreen"
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    return e


def bench_start(root: Path, user: Path, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.time()
        p = subprocess.run([sys.executable, str(HERE), "--child", "start", str(root), str(t0)],
                           capture_output=True, text=True, env=env(user), timeout=120, check=False)
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
        if p.returncode != 0 or not line:
            raise RuntimeError(f"start failed: {p.stderr[-2000:]}")
        out.append(json.loads(line[-1])["start_s"])
    return out


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("VmRSS:"))) / 1024


def bench_idle(root: Path, user: Path, seconds: float) -> float:
    p = subprocess.Popen([sys.executable, str(HERE), "--child", "idle", str(root), "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(user))
    try:
        assert p.stdout is not None
        json.loads(p.stdout.readline())
        time.sleep(seconds)
        return rss_mb(p.pid)
    finally:
        p.terminate()
        p.wait(20)


def cli(root: Path, user: Path, *args: str) -> float:
    bm = Path(sys.executable).with_name("botmemory")
    t = time.perf_counter()
    p = subprocess.run([str(bm), "--root", str(root), *args], capture_output=True, text=True, env=env(user),
                       timeout=600, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"{args} failed: {p.stderr[-2000:]}")
    return time.perf_counter() - t


def files_of(root: Path, user: Path) -> list[Path]:
    """The memory files a home serves: its workspaces' or its tracked folders'."""
    found = sorted((root / "workspaces").rglob("*.md")) if (root / "workspaces").is_dir() else []
    return found or sorted((user / ".claude" / "projects").rglob("*.md"))


def bench_watch(root: Path, user: Path, runs: int) -> dict[str, float]:
    cli(root, user, "watch", "--once")                 # the baseline of the shadows
    quiet = [cli(root, user, "watch", "--once") for _ in range(runs)]
    files = files_of(root, user)
    changed = []
    for r in range(runs):
        for k, f in enumerate(files):
            if k % 10 == r % 10:
                with open(f, "a") as fh:
                    fh.write(f"- changed in round {r}\n")
        changed.append(cli(root, user, "watch", "--once"))
    return {"files": len(files), "quiet_s": statistics.median(quiet), "changed_s": statistics.median(changed)}


def main() -> int:
    args = desktop_args()
    if args.child:
        return run_child(args.child, child_start, lambda root, _extra: child_idle(root))
    runs = sized(3 if args.quick else 9, 1)
    idle_s = sized(8.0 if args.quick else 20.0, 0.5)
    with tempfile.TemporaryDirectory(prefix="botmemory-bench-agents-") as tmp:
        t = time.perf_counter()
        base, agents, user, one = build(Path(tmp))
        built = time.perf_counter() - t
        res: dict[str, dict[str, float]] = {}
        homes = (("single home", base), ("tracked", agents), ("one bot", one))
        starts: dict[str, list[float]] = {name: [] for name, _ in homes}
        for _ in range(runs):   # interleaved, so a busy moment of the machine hits both alike
            for name, root in homes:
                starts[name] += bench_start(root, user, 1)
        for name, root in homes[:2]:
            watch = bench_watch(root, user, runs)
            res[name] = {"start_s": statistics.median(starts[name]), "rss_mb": bench_idle(root, user, idle_s),
                         **watch}
        o = {"start_s": statistics.median(starts["one bot"]), "rss_mb": bench_idle(one, user, idle_s)}
    b, a = res["single home"], res["tracked"]
    rows = [
        ("app start to the event loop (median)", b["start_s"], a["start_s"], "s", TARGETS["start"]),
        (f"idle RSS after {idle_s:g} s", b["rss_mb"], a["rss_mb"], "MB", TARGETS["rss"]),
        ("watch --once, nothing changed, per file", b["quiet_s"] / b["files"] * 1e6,
         a["quiet_s"] / a["files"] * 1e6, "µs", TARGETS["watch"]),
        ("watch --once, 10 % changed, per file", b["changed_s"] / b["files"] * 1e6,
         a["changed_s"] / a["files"] * 1e6, "µs", TARGETS["watch"]),
    ]
    w = max(len(r[0]) for r in rows)
    print(f"\n{PROJECTS} Claude Code projects × {TOPICS} topics tracked, against one home of "
          f"{PROJECTS} workspaces × {TOPICS} topics ({int(b['files'])} and {int(a['files'])} files; "
          f"built in {built:.1f} s)\n")
    print(f"{'measure'.ljust(w)}  {'single home':>12}  {f'{PROJECTS} tracked':>12}  {'ratio':>6}  {'target':>7}  ok")
    print("-" * (w + 56))
    ok_all = True
    for name, bv, av, unit, target in rows:
        ratio = av / bv if bv else float("inf")
        ok = ratio <= target
        ok_all &= ok
        print(f"{name.ljust(w)}  {bv:>9.2f} {unit:<2}  {av:>9.2f} {unit:<2}  {ratio:>5.2f}×  ≤ {target:.1f}×  "
              f"{'yes' if ok else 'NO'}")
    print(f"\nfor reference, a home of one bot with {TOPICS} topics: start {o['start_s']:.2f} s "
          f"({PROJECTS} tracked: {a['start_s'] / o['start_s']:.2f}×), idle RSS {o['rss_mb']:.1f} MB "
          f"({PROJECTS} tracked: {a['rss_mb'] / o['rss_mb']:.2f}×)")
    return verdict(ok_all)


if __name__ == "__main__":
    sys.exit(main())
