"""Claude Code's part of the differential suite: the pinned ``claude`` binary (installed with the other agents
by ``install.py``, or one line saying what is missing) and botmemory's CLI run in-process (``../conftest.py``).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from .. import conftest as shared
from ..install import Agents

botmemory = shared.botmemory
botmemory_json = shared.botmemory_json
environment = shared.environment


@pytest.fixture(scope="session")
def claude(agents: Agents) -> Path:
    return Path(agents.claude)


def track(root: Path, folder: Path, env: Mapping[str, str]) -> str:
    """Track a Claude Code memory folder in the botmemory home *root*: its id."""
    return shared.track(root, folder, "claude-code", env)
