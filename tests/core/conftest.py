"""The core tests' fixtures are the shared ones (tests/conftest.py); these names are re-exported for the tests.

Here too: ``env``, a tmp folder whose ``user/`` is HOME, with no agent's own folder variable set
(the agent-folder tests).
"""
from __future__ import annotations

import pytest

from ..conftest import BOT, TODAY, d, entry

__all__ = ["BOT", "TODAY", "d", "entry"]


@pytest.fixture
def env(tmp_path, monkeypatch):
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    for k in ("CLAUDE_CONFIG_DIR", "OPENCLAW_STATE_DIR", "HERMES_HOME", "OPENMAUSBOT_HOME"):
        monkeypatch.delenv(k, raising=False)
    return tmp_path
