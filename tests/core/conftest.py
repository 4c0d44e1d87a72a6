"""The core tests' fixtures are the shared ones (tests/conftest.py); these names are re-exported for the tests."""
from __future__ import annotations

from ..conftest import BOT, TODAY, d, entry

__all__ = ["BOT", "TODAY", "d", "entry"]
