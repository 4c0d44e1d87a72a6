"""hermes-agent's own code as the oracle: ``oracles/hermes_oracle.py --serve`` in Hermes' venv."""
from __future__ import annotations

from pathlib import Path

from .install import Agents
from .oracle import HERE, Server, clean_env

KIND = "hermes"


def start(agents: Agents, home: Path) -> Server:
    env = clean_env(home)
    env["HERMES_MANAGED_DIR"] = str(home / "no-managed-scope")   # /etc/hermes of this machine stays out
    return Server([agents.hermes_python, str(HERE / "oracles" / "hermes_oracle.py"), "--serve"], env)
