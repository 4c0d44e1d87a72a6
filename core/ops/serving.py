"""What serving the routes needs of core: the owner's API token and the date a long-running server writes by.

The token lives in ``<home>/botmemory/api-token`` (mode 0600, outside every workspace, never through a link),
created on the first ``serve`` and reused after; delete the file to get a new one.
"""
from __future__ import annotations

import secrets
from pathlib import Path

from ..base.log import get_logger
from ..disk.paths import Home
from ..disk.paths import today as local_today
from ..disk.safeio import atomic_write, read_file
from ..store.memory import Memory

logger = get_logger(__name__)

TOKEN_FILE = "api-token"


def token_path(home: Home) -> Path:
    return home.state_dir / TOKEN_FILE


def ensure_token(home: Home) -> str:
    """The API token, created (mode 0600, never through a link) when there is none yet."""
    path = token_path(home)
    ft = read_file(path)
    if ft is not None and ft.valid:
        token = ft.text.strip()
        if len(token) >= 32 and token.isascii() and token.isprintable() and " " not in token:
            return token
        logger.warning("%s holds no usable token; writing a new one", path)
    token = secrets.token_urlsafe(32)
    atomic_write(path, (token + "\n").encode("ascii"))
    return token


def follow_today(mem: Memory) -> None:
    """A server left running past midnight dates entries by the day they are written."""
    mem.store.today = local_today()
