"""OpenClaw's own code as the oracle: ``oracles/openclaw_oracle.mjs --serve`` under node 24."""
from __future__ import annotations

from pathlib import Path

from .install import Agents
from .oracle import HERE, Server, clean_env

KIND = "openclaw"


def start(agents: Agents, home: Path) -> Server:
    env = clean_env(home)
    env["OPENCLAW_PKG"] = agents.openclaw_pkg
    return Server([agents.node, str(HERE / "oracles" / "openclaw_oracle.mjs"), "--serve"], env)
