"""The team tests' fixtures: a home with three bots (``mem``), the team operations, a person and a bot."""
from __future__ import annotations

import pytest

from botmemory.core.store.writer import Actor

from ..conftest import BOT, TODAY

__all__ = ["BOT", "OTHER", "THIRD", "TODAY", "PERSON", "BOT_ACTOR"]

OTHER = "ledger"
THIRD = "quill"
PERSON = Actor.person("cli")
BOT_ACTOR = Actor.bot("Plans", "mcp")


@pytest.fixture
def home_bots():
    return (BOT, OTHER, THIRD)
