"""Shadow copies: what the app last knew of every memory file, and their index.

Every memory file's last-known text is kept under
``<home>/botmemory/shadows/<bot>/`` (outside the workspace, 0600, redacted),
with the real file's hash, size, modification and change times and inode in one
``index.json`` per bot (the copies themselves in pack files). The app's own
writes update them right after their journal row, so they are never
mistaken for outside changes.

They are a cache of what the journal holds, so they are not fsynced (four fewer
fsyncs a write); the index is replaced atomically, and a pack is written in place
before the index names it: after a power cut, shadows that fell
behind are brought up to the journal's newest rows at the next start
(``Memory.repair``), a copy whose bytes were lost fails its hash and is read as
missing, and a damaged index is a new baseline.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..base.errors import BadInput, BotMemoryError, Refused
from ..base.log import get_logger
from ..disk.paths import LOG_DIR, MEMORY_FILE, Home, check_bot_id, classify
from ..disk.safeio import RACY_NS, Folders, WorkspaceLock, atomic_write, open_dir_nofollow, pread, read_file, sha256
from ..redact import contains_secret, redact
from .writer import Change

logger = get_logger(__name__)


@dataclass(frozen=True)
class Shadow:
    """What the app last knew of one memory file; its redacted copy is a slice of a pack file."""

    hash: str        # the real file's hash
    size: int
    mtime_ns: int
    ino: int
    at_ns: int       # when the file was looked at
    copy: str        # hash of the stored (redacted) copy: a damaged copy is noticed, never used
    secret: bool     # the real text held a credential: the copy is redacted
    valid: bool      # the real text was UTF-8
    pack: str
    offset: int
    length: int
    ctime_ns: int = -1   # the inode's change time (-1: not known, an index written before it was kept)

    def same_stat(self, st: os.stat_result) -> bool:
        """The file is as it was looked at, by its status alone: size, modification and change times and
        inode all the same, and the change time old enough to be trusted. An edit in place that keeps the
        size and puts the old modification time back still moves the change time (only the kernel sets it);
        anything doubtful is hashed."""
        return (st.st_size == self.size and st.st_mtime_ns == self.mtime_ns and st.st_ino == self.ino
                and st.st_ctime_ns == self.ctime_ns
                and max(self.mtime_ns, self.ctime_ns) < self.at_ns - RACY_NS)

    @property
    def lost(self) -> bool:
        """Only the file's hash is known (its row could not rebuild the text): no copy to compare or restore."""
        return self.copy == ""

    def seen_again(self, st: os.stat_result) -> Shadow:
        """The same text, looked at again now (its time stamps may be trusted from here on)."""
        return replace(self, size=st.st_size, mtime_ns=st.st_mtime_ns, ino=st.st_ino, ctime_ns=st.st_ctime_ns,
                       at_ns=time.time_ns())

    def dump(self) -> list[Any]:
        return [self.hash, self.size, self.mtime_ns, self.ino, self.at_ns, self.copy, self.secret, self.valid,
                self.pack, self.offset, self.length, self.ctime_ns]

    @classmethod
    def load(cls, v: object) -> Shadow | None:
        if not (isinstance(v, list) and len(v) in (11, 12)):
            return None
        h, size, mtime, ino, at, copy, secret, valid, pack, offset, length = v[:11]
        ctime = v[11] if len(v) == 12 else -1
        if not (isinstance(h, str) and isinstance(copy, str) and isinstance(pack, str)
                and isinstance(secret, bool) and isinstance(valid, bool)
                and all(isinstance(x, int) and not isinstance(x, bool)
                        for x in (size, mtime, ino, at, offset, length, ctime))):
            return None
        return cls(h, size, mtime, ino, at, copy, secret, valid, pack, offset, length, ctime)


@dataclass
class Index:
    """A bot's shadow index: an entry per file, the size of each pack file, and the id of the newest
    journal row it reflects (``row``: a journal whose newest row is another has rows the shadows missed)."""

    files: dict[str, Shadow] = field(default_factory=dict)
    packs: dict[str, int] = field(default_factory=dict)
    row: str | None = None

    def copy(self) -> Index:
        return Index(dict(self.files), dict(self.packs), self.row)


@dataclass(frozen=True)
class Seen:
    """A memory file as just read, to be kept as its shadow."""

    rel: str
    text: str
    hash: str
    valid: bool = True
    st: os.stat_result | None = None
    secret: bool | None = None   # the text is a copy already redacted (True) or not (False); None: find out
    fresh: bool = True           # the text is the file as it is now (False: rebuilt from a row, compare by hash)


_PACK = re.compile(r"[0-9a-f]{20}\.pack")
PACK_BYTES = 8 * 1024 * 1024
"""A pack holds copies up to this many bytes; more go in further packs (one write is at most 16 MB)."""


def _write_new(path: Path, data: bytes, root: Path) -> None:
    """Write a new file that nothing refers to yet (a pack, entered in the index only after): created
    exclusively, in place — no temp file and rename, since a crash leaves a pack no index names, deleted
    at a later save. Not fsynced (see the module's note)."""
    with open_dir_nofollow(root, path.parent, create=True) as d:
        fd = d.open(path.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
        except BaseException:
            try:
                d.unlink(path.name)
            except OSError:
                pass
            raise


class Shadows:
    """The shadow copies of one home. Thread-safe; writes happen under the bot's workspace lock.

    ``shadows/<bot>/index.json`` holds an entry per file; the redacted copies
    are slices of pack files (``packs/*.pack``), one written per update, so
    recording 1,000 files costs two writes, not 1,000. A pack no entry
    uses is deleted; packs mostly superseded are compacted into one.
    """

    def __init__(self, home: Home) -> None:
        self.home = home
        self.root = home.state_dir / "shadows"
        self._cache: dict[str, tuple[tuple[int, int, int], Index]] = {}
        self._packs_seen: dict[str, set[str]] = {}   # bot: the packs of its index at this process's last save
        self._guard = threading.Lock()

    def folder(self, bot: str) -> Path:
        return self.root / check_bot_id(bot)

    def _index_path(self, bot: str) -> Path:
        return self.folder(bot) / "index.json"

    def _pack_path(self, bot: str, pack: str) -> Path:
        return self.folder(bot) / "packs" / f"{pack}.pack"

    def _lock(self, bot: str) -> WorkspaceLock:
        return WorkspaceLock.for_file(self.home.lock_file(bot), self.home.root)

    def load(self, bot: str) -> Index | None:
        """The bot's shadow index (a copy to change freely), or None when no baseline was taken."""
        path = self._index_path(bot)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        sig = (st.st_ino, st.st_mtime_ns, st.st_size)
        with self._guard:
            cached = self._cache.get(bot)
            if cached is not None and cached[0] == sig:
                return cached[1].copy()
        try:
            ft = read_file(path, self.home.root)
        except BotMemoryError as e:
            logger.warning("cannot read the shadow index of %s: %s", bot, e)
            return None
        try:
            data = json.loads(ft.text) if ft else None
        except (ValueError, RecursionError):
            data = None
        if not (isinstance(data, dict) and isinstance(data.get("files"), dict)
                and isinstance(data.get("packs"), dict)):
            logger.warning("the shadow index of %s is damaged; a new baseline will be taken", bot)
            return None
        index = Index()
        for rel, v in data["files"].items():
            sh = Shadow.load(v)
            if isinstance(rel, str) and sh is not None:
                index.files[rel] = sh
        index.packs = {k: v for k, v in data["packs"].items() if isinstance(k, str) and isinstance(v, int)}
        row = data.get("row")
        index.row = row if isinstance(row, str) else None
        with self._guard:
            self._cache[bot] = (sig, index)
        return index.copy()

    def save(self, bot: str, index: Index) -> None:
        """Write the index, then delete the packs it no longer uses (compacting mostly dead ones): those it
        dropped now, and at this process's first save of *bot* any other (a crash's, never entered)."""
        had = self._packs_seen.get(bot, set()) | set(index.packs)
        live: dict[str, int] = {}
        for sh in index.files.values():
            if not sh.lost:
                live[sh.pack] = live.get(sh.pack, 0) + sh.length
        index.packs = {p: n for p, n in index.packs.items() if p in live}
        dead = sum(index.packs.values()) - sum(live.values())
        if len(live) > 1 and dead > 256 * 1024 and dead > sum(live.values()):
            self._compact(bot, index)
        path = self._index_path(bot)
        data = {"version": 2, "files": {rel: sh.dump() for rel, sh in sorted(index.files.items())},
                "packs": index.packs, "row": index.row}
        atomic_write(path, json.dumps(data, separators=(",", ":")).encode("utf-8"), self.home.root, durable=False)
        st = os.stat(path)
        with self._guard:
            self._cache[bot] = ((st.st_ino, st.st_mtime_ns, st.st_size), index.copy())
            listed = bot in self._packs_seen
            self._packs_seen[bot] = set(index.packs)
        try:
            with open_dir_nofollow(self.home.root, self.folder(bot) / "packs") as d:
                names = d.listdir() if not listed else [f"{p}.pack" for p in had]
                for name in names:
                    if _PACK.fullmatch(name) and name[:-5] not in index.packs:
                        try:
                            d.unlink(name)
                        except FileNotFoundError:
                            pass
        except (FileNotFoundError, NotADirectoryError):
            return

    def _read_copy(self, bot: str, sh: Shadow) -> bytes | None:
        if sh.lost:
            return None
        path = self._pack_path(bot, sh.pack)
        try:
            with open_dir_nofollow(self.home.root, path.parent) as d:
                fd = d.open(path.name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            try:
                data = pread(fd, sh.length, sh.offset)
            finally:
                os.close(fd)
        except (OSError, Refused):
            return None
        return data if len(data) == sh.length and sha256(data) == sh.copy else None

    def text(self, bot: str, rel: str, sh: Shadow) -> str | None:
        """The kept copy of a file's last-known text, or None when it is missing or damaged."""
        data = self._read_copy(bot, sh)
        if data is None:
            if sh.lost:
                logger.info("no copy of %s/%s was kept (only its hash, from its row)", bot, rel)
            else:
                logger.warning("the shadow copy of %s/%s is missing or damaged", bot, rel)
            return None
        return data.decode("utf-8")

    def _write_pack(self, bot: str, index: Index, copies: Sequence[tuple[str, bytes]]) -> dict[str, tuple[str, int]]:
        """Write *copies* as packs of at most :data:`PACK_BYTES` each (a larger copy gets a pack of its own:
        a memory of any total size is kept, every write within the file limit); returns where each landed
        (pack, offset). Packs written before a crash and never entered in the index are deleted by the next
        :meth:`save`."""
        where: dict[str, tuple[str, int]] = {}
        batch: list[tuple[str, bytes]] = []
        size = 0

        def flush() -> None:
            nonlocal size
            pack = f"{time.time_ns():016x}{secrets.token_hex(2)}"
            while pack in index.packs:      # the clock did not move since the last one
                pack = f"{time.time_ns():016x}{secrets.token_hex(2)}"
            offset = 0
            for rel, data in batch:
                where[rel] = (pack, offset)
                offset += len(data)
            _write_new(self._pack_path(bot, pack), b"".join(data for _, data in batch), self.home.root)
            index.packs[pack] = offset
            batch.clear()
            size = 0

        for rel, data in copies:
            if batch and size + len(data) > PACK_BYTES:
                flush()
            batch.append((rel, data))
            size += len(data)
        if batch:
            flush()
        return where

    def keep(self, bot: str, index: Index, seen: Sequence[Seen]) -> None:
        """Store redacted copies of *seen* in one pack and enter them in *index* (the caller saves it)."""
        copies: list[tuple[str, bytes]] = []
        meta: list[tuple[Seen, bool, str]] = []
        for s in seen:
            if s.secret is None:
                secret = contains_secret(s.text)
                data = (redact(s.text) if secret else s.text).encode("utf-8")
            else:   # a copy as the shadows keep it already (rebuilt from a row)
                secret, data = s.secret, s.text.encode("utf-8")
            copies.append((s.rel, data))
            meta.append((s, secret, sha256(data)))
        if not copies:
            return
        where = self._write_pack(bot, index, copies)
        now = time.time_ns()
        ws = self.home.workspace(bot)
        for (s, secret, copy_hash), (_, data) in zip(meta, copies):
            st = (s.st if s.st is not None else _stat(ws / s.rel)) if s.fresh else None
            if st is None or (s.valid and st.st_size != len(s.text.encode("utf-8"))):
                size, mtime, ino, ctime = -1, -1, -1, -1   # the file moved on already: compare by hash next time
            else:
                size, mtime, ino, ctime = st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns
            pack, offset = where[s.rel]
            index.files[s.rel] = Shadow(s.hash, size, mtime, ino, now, copy_hash, secret, s.valid,
                                        pack, offset, len(data), ctime)

    def _compact(self, bot: str, index: Index) -> None:
        copies: list[tuple[str, bytes]] = []
        for rel, sh in sorted(index.files.items()):
            if sh.lost:
                continue
            data = self._read_copy(bot, sh)
            copies.append((rel, data if data is not None else b""))
        index.packs = {}
        where = self._write_pack(bot, index, copies)
        for rel, sh in list(index.files.items()):
            if sh.lost:
                continue
            pack, offset = where[rel]
            index.files[rel] = replace(sh, pack=pack, offset=offset)

    def update(self, bot: str, changes: Sequence[Change], touched: Mapping[str, Shadow] | None = None, *,
               row: str | None = None) -> None:
        """Bring the shadows up to date with *changes* (and *touched*: entries re-checked unchanged);
        *row*: the id of the newest journal row they now reflect (the rows of *changes* were written)."""
        if not changes and not touched and row is None:
            return
        with self._lock(bot).held():
            index = self.load(bot)
            if index is None:
                self.baseline(bot, row=row)
                return
            if row is not None:
                index.row = row
            final: dict[str, Seen | None] = {}   # a file changed twice in one batch: its last change decides
            for c in changes:
                if c.appended or c.cut is not None:   # only the end is known: the shadow is the file as it is now
                    final[c.file] = self._reread(bot, c.file)
                elif c.after is None or c.after_hash is None:
                    final[c.file] = None
                else:
                    final[c.file] = Seen(c.file, c.after, c.after_hash)
            for rel, got in final.items():
                if got is None:
                    index.files.pop(rel, None)
            self.keep(bot, index, [got for got in final.values() if got is not None])
            index.files.update(touched or {})
            self.save(bot, index)

    def _reread(self, bot: str, rel: str) -> Seen | None:
        """A file as it is now, to shadow; None when it cannot be read (too large: a scan skips it too)."""
        path = self.home.workspace(bot) / rel
        try:
            with Folders(self.home.trust_root(bot)) as folders:
                st = folders.lstat(path)
                ft = folders.read(path)
        except (OSError, BotMemoryError) as e:
            logger.info("no shadow for %s/%s: %s", bot, rel, e)
            return None
        if ft is None or st is None:
            return None
        return Seen(rel, ft.text, ft.hash, ft.valid, st)

    def keep_before(self, bot: str, changes: Sequence[Change], *, row: str | None = None) -> None:
        """The rows of *changes* could not be written: make sure the shadows still show the files as
        they were before, so the next scan records the changes (a first write has no shadows yet;
        *row*: the newest row of the journal, which the baseline then reflects)."""
        with self._lock(bot).held():
            if self.load(bot) is not None:
                return   # they still hold the earlier state: update() did not run
            self.baseline(bot, row=row)
            index = self.load(bot) or Index()
            first: dict[str, Seen | None] = {}   # a file changed twice in one batch: as it was before the first
            for c in changes:
                if c.file not in first:
                    first[c.file] = (None if c.before is None or c.before_hash is None
                                     else Seen(c.file, c.before, c.before_hash, c.before_valid))
            for rel, got in first.items():
                if got is None:
                    index.files.pop(rel, None)
            self.keep(bot, index, [got for got in first.values() if got is not None])
            self.save(bot, index)

    def bring_up_to(self, bot: str, seen: Sequence[Seen], gone: Sequence[str],
                    lost: Mapping[str, tuple[str, bool]], row: str | None) -> None:
        """Repair after a gap: enter *seen* (rebuilt or read again), drop *gone*, keep only the hash of
        *lost* (hash, valid: a file whose newest row cannot rebuild its text and which moved on since), and
        note *row* as the newest journal row reflected."""
        with self._lock(bot).held():
            index = self.load(bot)
            if index is None:
                return
            self.keep(bot, index, seen)
            for rel in gone:
                index.files.pop(rel, None)
            now = time.time_ns()
            for rel, (h, valid) in lost.items():
                index.files[rel] = Shadow(h, -1, -1, -1, now, "", False, valid, "", 0, 0)
            index.row = row
            self.save(bot, index)

    def baseline(self, bot: str, *, row: str | None = None) -> int:
        """Take every memory file of *bot* as known, recording nothing (*row*: the newest journal row,
        which the files as they are now stand for). Returns how many files."""
        with self._lock(bot).held():
            ws = self.home.workspace(bot)
            seen: list[Seen] = []
            with Folders(self.home.trust_root(bot)) as folders:
                for rel in folder_files(self.home, bot, ws, folders):
                    path = ws / rel
                    try:
                        st = folders.lstat(path)
                        ft = folders.read(path)
                    except (OSError, BotMemoryError) as e:
                        logger.warning("baseline of %s skipped %s: %s", bot, rel, e)
                        continue
                    if ft is not None and st is not None:
                        seen.append(Seen(rel, ft.text, ft.hash, ft.valid, st))
            index = Index(row=row)
            self.keep(bot, index, seen)
            self.save(bot, index)
            return len(index.files)


def folder_files(home: Home, bot: str, ws: Path, folders: Folders) -> list[str]:
    """The memory files of *bot*'s folder by its kind's layout (a workspace's, or a tracked agent's)."""
    layout = home.layout(bot)
    return memory_files(ws, folders) if layout is None else layout.memory_files(ws)


def memory_files(ws: Path, folders: Folders) -> list[str]:
    """The memory files of a workspace (``MEMORY.md``, ``memory/*.md``, ``memory/log/*.md``), no links.

    The same set as :meth:`Home.memory_files`, listed with ``os.scandir`` to keep a
    scan of thousands of files fast. A folder that is (or is reached through) a
    symbolic link is skipped and logged, never looked into.
    """
    out: list[str] = []
    for folder, prefix in ((ws, ""), (ws / "memory", "memory/"), (ws / LOG_DIR, f"{LOG_DIR}/")):
        try:
            entries = folders.list(folder)
        except Refused as e:
            logger.warning("skipping %s: %s", folder, e)
            continue
        except OSError as e:
            logger.warning("cannot list %s: %s", folder, e)
            continue
        for name, is_file in entries:
            if not name.endswith(".md") or not is_file:
                continue
            rel = prefix + name
            if prefix == "" and rel != MEMORY_FILE:
                continue
            try:
                classify(rel)
            except BadInput:
                continue
            out.append(rel)
    return sorted(out)


def _stat(path: Path | str) -> os.stat_result | None:
    """A regular file's stat, or None when it is missing, a link or not a regular file."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st if stat.S_ISREG(st.st_mode) else None


__all__ = ["Index", "Seen", "Shadow", "Shadows", "folder_files", "memory_files"]
