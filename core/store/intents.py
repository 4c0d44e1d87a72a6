"""Intents: the rows of a write, kept before its files are replaced, until the rows are in the journal.

A write replaces its files, then journals their rows, then updates their shadows. A process killed
after a rename and before its row would leave a change nobody recorded as its own: the next scan
could only call it "changed outside the app" (thirty killed writes, one outside row). So once every
new text of a batch is on disk beside its file (a temp file) and before the first rename, the rows it
will journal are appended here (``<home>/botmemory/intents/<bot>.ndjson``, fsynced, redacted like the
journal), each with the name of its temp file, and cleared once the journal and the shadows have them.

At the next start (:meth:`Memory.repair`), an intent whose row the journal lacks is journaled as it was
meant — by its own author, in its own chat — when its write happened, and dropped when it did not. What
tells: a mark written after the renames when the journal could not take the rows (``done``), a mark
written when a rename failed (``undone``), the file itself (its hash is the intent's after-hash), and the
temp file (still there: the rename never happened; gone: it did — the repair runs before stale temp
files are cleaned).
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..base.log import get_logger
from ..disk.paths import Home, check_bot_id
from ..disk.safeio import FILE_MODE, atomic_write, open_dir_nofollow
from .journal import Row

logger = get_logger(__name__)

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@dataclass
class Pending:
    """What the intents file of a bot holds: the rows meant, in order, the temp file of each (a
    replacement's), and the ids marked done (renamed) and undone (the rename failed)."""

    rows: list[Row] = field(default_factory=list)
    temps: dict[str, str] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)
    undone: set[str] = field(default_factory=set)


def _line(row: Row, temp: str | None) -> bytes:
    """The row's journal line, with the name of its temp file added last (the journal writes the same line
    without it: it is made once)."""
    line = row.line()
    if temp is None:
        return line
    return line[:-2] + b',"temp":' + json.dumps(temp, ensure_ascii=False).encode("utf-8") + b"}\n"


class Intents:
    """The intents of one home's bots (under each bot's workspace lock, which the caller holds)."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.dir = home.state_dir / "intents"
        # bot -> (inode, size, ids): the file holds exactly the rows *ids*, as this process appended them to
        # an empty file (under the workspace lock, which every writer of it holds): cleared without a read
        self._only: dict[str, tuple[int, int, frozenset[str]]] = {}

    def path(self, bot: str) -> Path:
        return self.dir / f"{check_bot_id(bot)}.ndjson"

    def add(self, bot: str, rows: Sequence[Row], temps: Sequence[str | None]) -> None:
        """Append *rows* (each with its temp file's name, None for a deletion) and fsync: they are on disk
        before any file of theirs is replaced."""
        if rows:
            self._append(bot, b"".join(_line(r, t) for r, t in zip(rows, temps)), frozenset(r.id for r in rows))

    def mark(self, bot: str, key: str, ids: Sequence[str]) -> None:
        """Mark intents ``done`` (their files were replaced; the journal could not take their rows) or
        ``undone`` (their rename failed: the file was never replaced)."""
        if ids:
            self._append(bot, (json.dumps({key: list(ids)}) + "\n").encode("utf-8"))

    def _append(self, bot: str, data: bytes, ids: frozenset[str] | None = None) -> None:
        self._only.pop(bot, None)
        with open_dir_nofollow(self.home.root, self.dir, create=True) as d:
            fd = d.open(self.path(bot).name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, FILE_MODE)
            try:
                empty = not os.fstat(fd).st_size
                if not empty:
                    data = b"\n" + data   # after a torn line, a line of our own (an empty line is skipped)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
                if empty and ids is not None:
                    st = os.fstat(fd)
                    self._only[bot] = (st.st_ino, st.st_size, ids)
            finally:
                os.close(fd)

    def clear_journaled(self, bot: str, journaled: set[str]) -> None:
        """Clear the intents once the journal holds every one of them (*journaled*: the ids of the rows it
        took); an intent of a write that failed before its rename is left for the repair, which drops it.
        Read only when the file may hold more than this process's last :meth:`add`."""
        only = self._only.pop(bot, None)
        if only is not None:
            try:
                st = os.stat(self.path(bot), follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                return
            if (st.st_ino, st.st_size) == only[:2]:
                if only[2] <= journaled:
                    self.clear(bot)
                return
        if all(r.id in journaled for r in self.read(bot).rows):
            self.clear(bot)

    def read(self, bot: str) -> Pending:
        """What is pending (a torn or damaged line is skipped)."""
        out = Pending()
        try:
            with open_dir_nofollow(self.home.root, self.dir) as d:
                fd = d.open(self.path(bot).name, os.O_RDONLY | _NOFOLLOW)
        except (FileNotFoundError, NotADirectoryError):
            return out
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(fd)
        for line in b"".join(chunks).split(b"\n"):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if not isinstance(d, dict):
                continue
            marked = False
            for key, into in (("done", out.done), ("undone", out.undone)):
                if isinstance(d.get(key), list):
                    into.update(i for i in d[key] if isinstance(i, str))
                    marked = True
            if marked:
                continue
            row = Row.from_dict(d)
            if row is not None:
                out.rows.append(row)
                if isinstance(d.get("temp"), str):
                    out.temps[row.id] = d["temp"]
        return out

    def pending(self, bot: str) -> bool:
        try:
            return os.stat(self.path(bot), follow_symlinks=False).st_size > 0
        except (FileNotFoundError, NotADirectoryError):
            return False

    def keep_only(self, bot: str, pending: Pending, ids: set[str]) -> None:
        """Leave only the intents *ids* of *pending* (the write in progress); none: clear."""
        self._only.pop(bot, None)
        rows = [r for r in pending.rows if r.id in ids]
        if not rows:
            self.clear(bot)
            return
        atomic_write(self.path(bot), b"".join(_line(r, pending.temps.get(r.id)) for r in rows), self.home.root)

    def clear(self, bot: str) -> None:
        """Forget every intent of *bot* (their rows are journaled, or their writes never happened)."""
        self._only.pop(bot, None)
        try:
            with open_dir_nofollow(self.home.root, self.dir) as d:
                d.unlink(self.path(bot).name)
        except (FileNotFoundError, NotADirectoryError):
            pass


__all__ = ["Intents", "Pending"]
