"""Run one sync round of a home and SIGKILL this process at its k-th point (tests/core/sync/test_kill.py).

Points, in order: every named step of the round (``engine.checkpoint``), every git call (before it, and
while it runs for the calls that write: the killed round's git runs on and finishes, or not) and every write
of what came in (before, after), a bot's or a team's. (After a git call is the same point as before the next one.) ``python kill_driver.py ROOT K`` kills
at point K; with K past the last point the round completes and the number of points is printed.
"""
from __future__ import annotations

import os
import signal
import sys
import threading

from botmemory.core.ops import sync
from botmemory.core.ops.team_sync import TeamFolder
from botmemory.core.store.memory import Memory
from botmemory.core.sync import engine
from botmemory.core.sync.folder import BotFolder
from botmemory.core.sync.git import Git

root, target = sys.argv[1], int(sys.argv[2])
points: list[str] = []


def hit(name: str, during: bool = False) -> None:
    points.append(name)
    if len(points) == target:
        if during:   # the git process is started and runs on; this process dies while it does
            threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGKILL)).start()
        else:
            os.kill(os.getpid(), signal.SIGKILL)


real_checkpoint, real_run, real_write = engine.checkpoint, Git.run, BotFolder.write
real_team_write = TeamFolder.write


def checkpoint(name: str) -> None:
    hit(f"step {name}")
    real_checkpoint(name)


WRITING = {"config", "init", "symbolic-ref", "fetch", "fast-import", "update-ref", "push"}


def run(self, *args, **kw):  # type: ignore[no-untyped-def]
    hit(f"before git {args[0]}")
    if args[0] in WRITING:
        hit(f"during git {args[0]}", during=True)
    return real_run(self, *args, **kw)


def write(self, writes, actor):  # type: ignore[no-untyped-def]
    hit("before write")
    n = real_write(self, writes, actor)
    hit("after write")
    return n


def team_write(self, writes, actor):  # type: ignore[no-untyped-def]
    hit("before write")
    n = real_team_write(self, writes, actor)
    hit("after write")
    return n


engine.checkpoint = checkpoint
Git.run = run  # type: ignore[method-assign]
BotFolder.write = write  # type: ignore[method-assign]
TeamFolder.write = team_write  # type: ignore[method-assign]
sync.now(Memory.open(root, "2026-10-15"))
print(len(points))
print("\n".join(points), file=sys.stderr)
