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
    """The API token, created (mode 0600, never through a link) when there is none yet.

    Mode 0600 is enforced, and a warning says what was done: a token file that others could read
    (a group or other bit) or that another user owns is not reused (its token may have been read):
    a new token is written. Any other mode (0700, 0400) is set back to 0600, the token kept.
    """
    path = token_path(home)
    ft = read_file(path)
    if ft is not None and ft.valid:
        token = ft.text.strip()
        if len(token) >= 32 and token.isascii() and token.isprintable() and " " not in token:
            exposed, mode = _mode_of(path)
            if exposed:
                logger.warning("%s %s: its token may have been read, so a new token was written (mode 600); "
                               "clients need the new one", path, exposed)
            else:
                if mode is not None and mode != 0o600:
                    logger.warning("%s had mode %o: set back to 600 (the token is kept)", path, mode)
                    atomic_write(path, (token + "\n").encode("ascii"))
                return token
        else:
            logger.warning("%s holds no usable token; writing a new one", path)
    token = secrets.token_urlsafe(32)
    atomic_write(path, (token + "\n").encode("ascii"))
    return token


def _mode_of(path: Path) -> tuple[str, int | None]:
    """Why others may have read the token file at *path* ("" when nobody could), and its mode."""
    import os

    try:
        st = path.lstat()
    except OSError:
        return "", None
    mode = st.st_mode & 0o7777
    if mode & 0o077:
        return f"had mode {mode:o}, readable or writable by others", mode
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"belongs to user {st.st_uid}, not {os.getuid()}", mode
    return "", mode


def follow_today(mem: Memory) -> None:
    """A server left running past midnight dates entries by the day they are written."""
    mem.store.today = local_today()
