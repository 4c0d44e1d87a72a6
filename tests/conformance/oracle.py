"""A long-lived oracle process: one of the agents' own code, asked many questions (one JSON line each).

Each oracle script (``oracles/``) answers ``--serve``: a request is a line ``{"args": [...], "env": {...}}``
and its answer the next stdout line that starts with ``@@oracle@@``; anything else the agent's code prints
is passed over. Starting the agent's code once keeps a thousand cases within seconds.
"""
from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

HERE = Path(__file__).parent
MARK = "@@oracle@@"


class OracleError(RuntimeError):
    pass


class Server:
    def __init__(self, cmd: Sequence[str], env: Mapping[str, str]) -> None:
        self.cmd = list(cmd)
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, encoding="utf-8", env=dict(env),
                                     bufsize=1)
        self.lock = threading.Lock()

    def ask(self, args: Sequence[str], env: Mapping[str, str | None] | None = None) -> dict:
        with self.lock:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(json.dumps({"args": list(args), "env": dict(env or {})}) + "\n")
            self.proc.stdin.flush()
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    raise OracleError(f"the oracle {self.cmd[:2]} ended (exit {self.proc.poll()})")
                if line.startswith(MARK):
                    answer = json.loads(line[len(MARK):])
                    if "error" in answer:
                        raise OracleError(answer["error"])
                    return answer["ok"]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def clean_env(home: Path) -> dict[str, str]:
    """The environment an oracle starts in: no agent variable of this machine, a HOME of the test's, UTC."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENCLAW_", "HERMES_", "CLAUDE_", "BOTMEMORY_"))}
    env.update({"HOME": str(home), "TZ": "UTC", "PYTHONHASHSEED": "0", "NO_COLOR": "1"})
    return env
