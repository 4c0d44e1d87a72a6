"""Reconciling what happens to memory files outside the app: shadow copies, scans, the watcher, turns.

**Shadow copies.** Every memory file's last-known text is kept under
``<home>/botmemory/shadows/<bot>/`` (outside the workspace, 0600, redacted),
with the real file's hash, size, modification time and inode in one
``index.json`` per bot (the copies themselves in pack files). The app's own
writes update them right after their journal row, so they are never
mistaken for outside changes.

**Scan** (``watch --once``): compare every memory file with its shadow — size,
modification time and inode first, the hash only when they differ or the file
changed too recently to trust its time stamp — and record a
``who: person, how: outside`` row for what changed, was created or was
deleted. A deleted and a created file with the same text are a rename. The
first scan of a workspace with no shadows records nothing: it takes the
baseline. A scan never writes a memory file.

**Turns.** ``turn_begin`` records what changed before the turn as outside
changes and notes the turn; until it ends, that bot's changes are the bot's
work. ``turn_end`` records what differs as ``who: bot, how: task`` in the
turn's chat and appends the day's log line. Of two open turns of one bot,
a change lands under whichever ends first. A turn left open for
:data:`TURN_TIMEOUT_S` ends by itself.

**Watcher.** :class:`Watcher` is the live ``watch``: watchdog events only mark
paths dirty; once the stream has been quiet for :data:`QUIET_S` (or
:data:`CAP_S` after the first event) the dirty files are compared with their
shadows. Every save pattern ends up as one comparison: in place, temp +
rename, vim's backup-rename, ``sed -i``. Editor droppings are ignored. It
rescans at start, when the inotify queue overflows, and every few minutes.
"""
from __future__ import annotations

import json
import logging
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from . import config
from .entries import DOT, chat_source
from .errors import BadInput, MemoryError_
from .journal import Row, make_row
from .paths import LOG_DIR, MEMORY_FILE, Home, check_bot_id, classify, log_path
from .redact import contains_secret, redact
from .errors import Refused
from .safeio import (
    TEMP_SUFFIX,
    Folders,
    LinkRefused,
    WorkspaceLock,
    atomic_write,
    make_dirs,
    open_dir_nofollow,
    pread,
    read_file,
    sha256,
)
from .store import Actor, Change, Write, new_change_id
from .update import append_text

if TYPE_CHECKING:
    from .service import Memory

logger = logging.getLogger(__name__)

OUTSIDE = Actor("person", "outside")
RACY_NS = 2_000_000_000
"""A file modified less than this before its shadow was taken is hashed again at the next scan:
its time stamp alone cannot tell a later write of the same size within the same clock tick."""
TURN_TIMEOUT_S = 30 * 60
QUIET_S = 0.25
CAP_S = 2.0
HELD_RECHECK_S = 2.0
SAFETY_RESCAN_S = 300.0
LOG_SAID_MAX = 300


# ----- shadow copies


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

    def same_stat(self, st: os.stat_result) -> bool:
        return (st.st_size == self.size and st.st_mtime_ns == self.mtime_ns and st.st_ino == self.ino
                and self.mtime_ns < self.at_ns - RACY_NS)

    def seen_again(self, st: os.stat_result) -> Shadow:
        """The same text, looked at again now (its time stamps may be trusted from here on)."""
        return replace(self, size=st.st_size, mtime_ns=st.st_mtime_ns, ino=st.st_ino, at_ns=time.time_ns())

    def dump(self) -> list[Any]:
        return [self.hash, self.size, self.mtime_ns, self.ino, self.at_ns, self.copy, self.secret, self.valid,
                self.pack, self.offset, self.length]

    @classmethod
    def load(cls, v: object) -> Shadow | None:
        if not (isinstance(v, list) and len(v) == 11):
            return None
        h, size, mtime, ino, at, copy, secret, valid, pack, offset, length = v
        if not (isinstance(h, str) and isinstance(copy, str) and isinstance(pack, str)
                and isinstance(secret, bool) and isinstance(valid, bool)
                and all(isinstance(x, int) for x in (size, mtime, ino, at, offset, length))):
            return None
        return cls(h, size, mtime, ino, at, copy, secret, valid, pack, offset, length)


@dataclass
class Index:
    """A bot's shadow index: an entry per file, and the size of each pack file."""

    files: dict[str, Shadow] = field(default_factory=dict)
    packs: dict[str, int] = field(default_factory=dict)

    def copy(self) -> Index:
        return Index(dict(self.files), dict(self.packs))


@dataclass(frozen=True)
class Seen:
    """A memory file as just read, to be kept as its shadow."""

    rel: str
    text: str
    hash: str
    valid: bool = True
    st: os.stat_result | None = None


_PACK = re.compile(r"[0-9a-f]{20}\.pack")


class Shadows:
    """The shadow copies of one home. Thread-safe; writes happen under the bot's workspace lock.

    ``shadows/<bot>/index.json`` holds an entry per file; the redacted copies
    are slices of pack files (``packs/*.pack``), one written per update, so
    recording 1,000 files costs two safe writes, not 1,000. A pack no entry
    uses is deleted; packs mostly superseded are compacted into one.
    """

    def __init__(self, home: Home) -> None:
        self.home = home
        self.root = home.state_dir / "shadows"
        self._cache: dict[str, tuple[tuple[int, int, int], Index]] = {}
        self._guard = threading.Lock()

    def folder(self, bot: str) -> Path:
        return self.root / check_bot_id(bot)

    def _index_path(self, bot: str) -> Path:
        return self.folder(bot) / "index.json"

    def _pack_path(self, bot: str, pack: str) -> Path:
        return self.folder(bot) / "packs" / f"{pack}.pack"

    def _lock(self, bot: str) -> WorkspaceLock:
        return WorkspaceLock.for_file(self.home.lock_file(bot))

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
        except MemoryError_ as e:
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
        with self._guard:
            self._cache[bot] = (sig, index)
        return index.copy()

    def save(self, bot: str, index: Index) -> None:
        """Write the index, then delete the packs it no longer uses (compacting mostly dead ones)."""
        live: dict[str, int] = {}
        for sh in index.files.values():
            live[sh.pack] = live.get(sh.pack, 0) + sh.length
        index.packs = {p: n for p, n in index.packs.items() if p in live}
        dead = sum(index.packs.values()) - sum(live.values())
        if len(live) > 1 and dead > 256 * 1024 and dead > sum(live.values()):
            self._compact(bot, index)
        path = self._index_path(bot)
        data = {"version": 2, "files": {rel: sh.dump() for rel, sh in sorted(index.files.items())},
                "packs": index.packs}
        atomic_write(path, json.dumps(data, separators=(",", ":")).encode("utf-8"), self.home.root)
        st = os.stat(path)
        with self._guard:
            self._cache[bot] = ((st.st_ino, st.st_mtime_ns, st.st_size), index.copy())
        try:
            with open_dir_nofollow(self.home.root, self.folder(bot) / "packs") as d:
                for name in d.listdir():
                    if _PACK.fullmatch(name) and name[:-5] not in index.packs:
                        try:
                            d.unlink(name)
                        except FileNotFoundError:
                            pass
        except (FileNotFoundError, NotADirectoryError):
            return

    def _read_copy(self, bot: str, sh: Shadow) -> bytes | None:
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
            logger.warning("the shadow copy of %s/%s is missing or damaged", bot, rel)
            return None
        return data.decode("utf-8")

    def _write_pack(self, bot: str, index: Index, copies: Sequence[tuple[str, bytes]]) -> dict[str, tuple[str, int]]:
        """Write *copies* as one pack; returns where each landed (pack, offset)."""
        pack = f"{time.time_ns():016x}{secrets.token_hex(2)}"
        where: dict[str, tuple[str, int]] = {}
        offset = 0
        for rel, data in copies:
            where[rel] = (pack, offset)
            offset += len(data)
        atomic_write(self._pack_path(bot, pack), b"".join(data for _, data in copies), self.home.root)
        index.packs[pack] = offset
        return where

    def keep(self, bot: str, index: Index, seen: Sequence[Seen]) -> None:
        """Store redacted copies of *seen* in one pack and enter them in *index* (the caller saves it)."""
        copies: list[tuple[str, bytes]] = []
        meta: list[tuple[Seen, bool, str]] = []
        for s in seen:
            secret = contains_secret(s.text)
            data = (redact(s.text) if secret else s.text).encode("utf-8")
            copies.append((s.rel, data))
            meta.append((s, secret, sha256(data)))
        if not copies:
            return
        where = self._write_pack(bot, index, copies)
        now = time.time_ns()
        ws = self.home.workspace(bot)
        for (s, secret, copy_hash), (_, data) in zip(meta, copies):
            st = s.st if s.st is not None else _stat(ws / s.rel)
            if st is None or (s.valid and st.st_size != len(s.text.encode("utf-8"))):
                size, mtime, ino = -1, -1, -1   # the file moved on already: compare by hash next time
            else:
                size, mtime, ino = st.st_size, st.st_mtime_ns, st.st_ino
            pack, offset = where[s.rel]
            index.files[s.rel] = Shadow(s.hash, size, mtime, ino, now, copy_hash, secret, s.valid,
                                        pack, offset, len(data))

    def _compact(self, bot: str, index: Index) -> None:
        copies: list[tuple[str, bytes]] = []
        for rel, sh in sorted(index.files.items()):
            data = self._read_copy(bot, sh)
            copies.append((rel, data if data is not None else b""))
        index.packs = {}
        where = self._write_pack(bot, index, copies)
        for rel, sh in list(index.files.items()):
            pack, offset = where[rel]
            index.files[rel] = replace(sh, pack=pack, offset=offset)

    def update(self, bot: str, changes: Sequence[Change], touched: Mapping[str, Shadow] | None = None) -> None:
        """Bring the shadows up to date with *changes* (and *touched*: entries re-checked unchanged)."""
        if not changes and not touched:
            return
        with self._lock(bot).held():
            index = self.load(bot)
            if index is None:
                self.baseline(bot)
                return
            seen: list[Seen] = []
            for c in changes:
                if c.appended:   # only the appended part is known: the shadow is the file as it is now
                    got = self._reread(bot, c.file)
                    if got is None:
                        index.files.pop(c.file, None)
                    else:
                        seen.append(got)
                elif c.after is None or c.after_hash is None:
                    index.files.pop(c.file, None)
                else:
                    seen.append(Seen(c.file, c.after, c.after_hash))
            self.keep(bot, index, seen)
            index.files.update(touched or {})
            self.save(bot, index)

    def _reread(self, bot: str, rel: str) -> Seen | None:
        """A file as it is now, to shadow; None when it cannot be read (too large: a scan skips it too)."""
        path = self.home.workspace(bot) / rel
        try:
            with Folders(self.home.root) as folders:
                st = folders.lstat(path)
                ft = folders.read(path)
        except (OSError, MemoryError_) as e:
            logger.info("no shadow for %s/%s: %s", bot, rel, e)
            return None
        if ft is None or st is None:
            return None
        return Seen(rel, ft.text, ft.hash, ft.valid, st)

    def keep_before(self, bot: str, changes: Sequence[Change]) -> None:
        """The rows of *changes* could not be written: make sure the shadows still show the files as
        they were before, so the next scan records the changes (a first write has no shadows yet)."""
        with self._lock(bot).held():
            if self.load(bot) is not None:
                return   # they still hold the earlier state: update() did not run
            self.baseline(bot)
            index = self.load(bot) or Index()
            seen: list[Seen] = []
            for c in changes:
                if c.before is None or c.before_hash is None:
                    index.files.pop(c.file, None)
                else:
                    seen.append(Seen(c.file, c.before, c.before_hash, c.before_valid))
            self.keep(bot, index, seen)
            self.save(bot, index)

    def baseline(self, bot: str) -> int:
        """Take every memory file of *bot* as known, recording nothing. Returns how many files."""
        with self._lock(bot).held():
            ws = self.home.workspace(bot)
            seen: list[Seen] = []
            with Folders(self.home.root) as folders:
                for rel in memory_files(ws, folders):
                    path = ws / rel
                    try:
                        st = folders.lstat(path)
                        ft = folders.read(path)
                    except (OSError, MemoryError_) as e:
                        logger.warning("baseline of %s skipped %s: %s", bot, rel, e)
                        continue
                    if ft is not None and st is not None:
                        seen.append(Seen(rel, ft.text, ft.hash, ft.valid, st))
            index = Index()
            self.keep(bot, index, seen)
            self.save(bot, index)
            return len(index.files)


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
            logger.warning("skipping %s: %s", folder.relative_to(ws.parent.parent), e)
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


# ----- comparing a workspace with its shadows


@dataclass
class _Found:
    change: Change
    secret: bool = False
    lost: bool = False
    renamed_from: str | None = None
    renamed_to: str | None = None


def _pair_renames(found: list[_Found]) -> None:
    """A deleted file and a created file with the same text are one rename."""
    deleted: dict[str, list[_Found]] = {}
    for f in found:
        if f.change.after is None and f.change.before_hash is not None:
            deleted.setdefault(f.change.before_hash, []).append(f)
    for f in found:
        c = f.change
        if c.before is None and c.after_hash is not None and deleted.get(c.after_hash):
            gone = deleted[c.after_hash].pop(0)
            f.renamed_from, gone.renamed_to = gone.change.file, c.file


def reconcile_bot(mem: Memory, bot: str, actor: Actor = OUTSIDE, *,
                  only: Iterable[str] | None = None) -> list[Row]:
    """Record what differs between *bot*'s memory files and their shadows, as *actor*'s changes.

    *only*: the workspace-relative paths to compare (default: every memory file
    and every shadow). With no shadows yet this takes the baseline silently.
    """
    ws = mem.home.workspace(bot)
    with mem.store.locked(bot):
        index = mem.shadows.load(bot)
        if index is None:
            if ws.is_dir():
                n = mem.shadows.baseline(bot)
                logger.info("took the baseline of %s: %d file(s)", bot, n)
            return []
        folders = Folders(mem.home.root)
        with folders:
            return _compare(mem, bot, actor, ws, index, only, folders)


def _compare(mem: Memory, bot: str, actor: Actor, ws: Path, index: Index, only: Iterable[str] | None,
             folders: Folders) -> list[Row]:
    """reconcile_bot's comparison, reading every file through *folders* (never through a link)."""
    if only is None:
        candidates = set(memory_files(ws, folders)) | set(index.files)
    else:
        candidates = set()
        for rel in only:
            try:
                classify(rel)
            except BadInput:
                continue
            candidates.add(rel)
    found: list[_Found] = []
    touched: dict[str, Shadow] = {}
    for rel in sorted(candidates):
        path = ws / rel
        try:
            st = folders.lstat(path)
        except Refused as e:  # a linked folder: neither read nor taken as deleted
            logger.warning("not comparing %s/%s: %s", bot, rel, e)
            continue
        except OSError as e:
            logger.warning("could not look at %s/%s: %s", bot, rel, e)
            continue
        sh = index.files.get(rel)
        if st is None:
            if sh is not None:
                before = mem.shadows.text(bot, rel, sh)
                at = datetime.now(UTC)
                found.append(_Found(Change(bot, rel, before or "", sh.hash, None, None, actor, at,
                                           before_valid=sh.valid, id=new_change_id(at)),
                                    sh.secret, before is None))
            continue
        if sh is not None and sh.same_stat(st):
            continue
        try:
            ft = folders.read(path)
        except (OSError, MemoryError_) as e:
            logger.warning("could not read %s/%s: %s", bot, rel, e)
            continue
        if ft is None:
            continue
        if sh is not None and ft.hash == sh.hash:
            touched[rel] = sh.seen_again(st)
            continue
        # when it happened: the file's time stamp (a change made while nothing watched keeps its time)
        at = min(datetime.now(UTC), datetime.fromtimestamp(st.st_mtime_ns / 1e9, UTC))
        before = mem.shadows.text(bot, rel, sh) if sh is not None else None
        lost = sh is not None and before is None
        found.append(_Found(Change(bot, rel, "" if lost else before, sh.hash if sh else None, ft.text, ft.hash,
                                   actor, at, before_valid=sh.valid if sh else True, id=new_change_id(at)),
                            sh.secret if sh else False, lost))
    known: list[Change] = []
    if found:
        # a row was written but its shadow update failed: the journal has this change already
        latest = mem.journal.latest_hashes(bot, [f.change.file for f in found])
        known = [f.change for f in found if latest.get(f.change.file, "") == f.change.after_hash]
        found = [f for f in found if f.change not in known]
    _pair_renames(found)
    found.sort(key=lambda f: f.renamed_from is not None)   # a rename reads "from" as the newer row
    rows = [_row(f) for f in found]
    mem.commit(bot, [f.change for f in found] + known, rows, touched=touched)
    return rows


def _row(f: _Found) -> Row:
    c = f.change
    diff = None
    if f.renamed_from is not None:
        diff = f"renamed from {f.renamed_from} (same text)\n"
    elif f.renamed_to is not None:
        diff = f"renamed to {f.renamed_to} (same text)\n"
    row = make_row(c, earlier_secret=f.secret, diff=diff, renamed_from=f.renamed_from, renamed_to=f.renamed_to)
    if f.lost:
        row = replace(row, earlier_text=None, undoable=False,
                      reason="the app's copy of its earlier text was lost, so it cannot be put back")
    return row


def scan(mem: Memory, bots: Sequence[str] | None = None) -> list[Row]:
    """``watch --once``: record outside changes in every workspace (or *bots*).

    Turns left open too long end first; a bot with a turn open is skipped (its
    changes are the turn's).
    """
    rows: list[Row] = []
    for bot in (bots if bots is not None else mem.home.bots()):
        try:
            rows += reconcile_outside(mem, bot) or []
        except MemoryError_ as e:
            logger.warning("could not reconcile %s: %s", bot, e)
    return rows


def reconcile_outside(mem: Memory, bot: str, only: Iterable[str] | None = None) -> list[Row] | None:
    """Record *bot*'s outside changes; None (recording nothing) while a turn of *bot* is open.

    Turns open too long end first. The check and the recording hold the
    workspace lock together, so a turn cannot begin in between.
    """
    with mem.store.locked(bot):
        rows = expire_turns(mem, bot)
        if open_turns(mem, bot):
            return None
        return rows + reconcile_bot(mem, bot, OUTSIDE, only=only)


# ----- turns


@dataclass(frozen=True)
class Turn:
    id: str
    bot: str
    chat: str
    began: float     # seconds since the epoch

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "bot": self.bot, "chat": self.chat, "began": self.began}


_TURN_ID = re.compile(r"[0-9a-f]{12}-[0-9a-f]{6}")


def _turn_dir(home: Home, bot: str) -> Path:
    return home.state_dir / "turns" / check_bot_id(bot)


def open_turns(mem: Memory, bot: str) -> list[Turn]:
    """The turns of *bot* that began and have not ended, oldest first."""
    folder = _turn_dir(mem.home, bot)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    out: list[Turn] = []
    for name in names:
        if not name.endswith(".json") or not _TURN_ID.fullmatch(name[:-5]):
            continue
        try:
            ft = read_file(folder / name, mem.home.root)
        except MemoryError_ as e:
            logger.warning("cannot read the turn record %s of %s: %s", name, bot, e)
            continue
        try:
            d = json.loads(ft.text) if ft else None
            if not isinstance(d, dict):
                raise TypeError("not a turn record")
            out.append(Turn(str(d["id"]), bot, str(d["chat"]), float(d["began"])))
        except (ValueError, TypeError, KeyError, RecursionError):
            logger.warning("removing an unreadable turn record %s of %s", name, bot)
            _remove_turn(mem.home, bot, name[:-5])
    return sorted(out, key=lambda t: (t.began, t.id))


def turn_open(mem: Memory, bot: str) -> bool:
    """True while a turn of *bot* is open (upkeep waits for it)."""
    return bool(open_turns(mem, bot))


def _remove_turn(home: Home, bot: str, turn_id: str) -> None:
    try:
        with open_dir_nofollow(home.root, _turn_dir(home, bot)) as d:
            d.unlink(f"{turn_id}.json")
    except (FileNotFoundError, NotADirectoryError):
        pass


def turn_begin(mem: Memory, bot: str, chat: str) -> str:
    """A turn of *bot* in *chat* begins: what changed before it is recorded as outside changes."""
    chat = chat.strip()
    if not chat:
        raise BadInput("a turn needs the chat it belongs to (--chat T)")
    mem.store.ensure(bot)  # the workspace is created the first time the bot runs a turn
    with mem.store.locked(bot):
        expire_turns(mem, bot)
        if not open_turns(mem, bot):  # with another turn open, changes since are that turn's
            reconcile_bot(mem, bot, OUTSIDE)
        now = time.time()
        turn = Turn(new_change_id(datetime.now(UTC)), bot, chat, now)
        atomic_write(_turn_dir(mem.home, bot) / f"{turn.id}.json", json.dumps(turn.as_dict()).encode("utf-8"),
                     mem.home.root)
    return turn.id


def turn_end(mem: Memory, bot: str, turn_id: str, said: str | None = None, *,
             tools: Sequence[str] = (), failed: bool = False) -> list[Row]:
    """The turn ends: what differs is the bot's work in its chat; then the day's log line."""
    if not _TURN_ID.fullmatch(turn_id):
        raise BadInput(f"bad turn id {turn_id!r}: `botmemory turn begin` prints it")
    mem.home.require_bot(bot)
    with mem.store.locked(bot):   # two calls ending the same turn: the second finds it gone
        turn = next((t for t in open_turns(mem, bot) if t.id == turn_id), None)
        if turn is None:
            raise BadInput(f"no open turn {turn_id} of {bot} (it ended already, or never began)")
        return _end(mem, turn, said, tools, failed)


def _end(mem: Memory, turn: Turn, said: str | None, tools: Sequence[str], failed: bool) -> list[Row]:
    bot = turn.bot
    link: LinkRefused | None = None
    with mem.capture_rows() as rows, mem.store.locked(bot):
        reconcile_bot(mem, bot, Actor.bot(turn.chat, "task"))
        _remove_turn(mem.home, bot, turn.id)
        if config.bot_settings(mem.home, bot).memory:
            try:
                _append_log(mem, bot, turn.chat, log_line(turn.chat, said, tools, failed))
            except LinkRefused as e:  # the turn is recorded; the log line is refused, and that is said
                link = e
            except MemoryError_ as e:  # the log line never fails a turn
                logger.warning("could not append the log line of %s: %s", bot, e)
    if link is not None:
        raise LinkRefused(f"{link} (the turn's changes were recorded; its log line was not written)")
    return list(rows)


def log_line(chat: str, said: str | None, tools: Sequence[str] = (), failed: bool = False,
             now: datetime | None = None) -> str:
    """``- HH:MM · chat "T" · what the bot said last [· tools: a, b] [· failed]``"""
    when = (now or datetime.now()).strftime("%H:%M")
    text = " ".join((said or "").split())
    if len(text) > LOG_SAID_MAX:
        text = text[:LOG_SAID_MAX - 1].rstrip() + "…"
    parts = [f"- {when}", chat_source(chat, "")[5:], redact(text) if text else "(said nothing)"]
    names = [t.strip() for t in tools if t.strip()]
    if names:
        parts.append("tools: " + ", ".join(names))
    if failed:
        parts.append("failed")
    return DOT.join(parts)


def _append_log(mem: Memory, bot: str, chat: str, line: str) -> None:
    rel = log_path(mem.today)
    ft = mem.store.read(bot, rel)
    text = append_text(ft.text if ft else "", line)
    mem.store.apply(bot, [Write(rel, text, ft.hash if ft else None, checked=True)], Actor.bot(chat),
                    allow_log=True)


def expire_turns(mem: Memory, bot: str, now: float | None = None) -> list[Row]:
    """End every turn of *bot* open for longer than :data:`TURN_TIMEOUT_S` (as failed turns)."""
    now = time.time() if now is None else now
    rows: list[Row] = []
    for turn in open_turns(mem, bot):
        if now - turn.began >= TURN_TIMEOUT_S:
            logger.info("turn %s of %s was open for 30 minutes: ending it", turn.id, bot)
            rows += _end(mem, turn, "(the turn did not end within 30 minutes)", (), True)
    return rows


# ----- the live watcher

_IGNORED = re.compile(r".*\.sw[a-p]|.*~|4913|.*\.tmp|\.#.*|.*" + re.escape(TEMP_SUFFIX) + r"|\..*")


def ignored(name: str) -> bool:
    """Editor droppings and temp files (vim swap/backup, ``4913``, ``*.tmp``, Emacs locks, ours)."""
    return bool(_IGNORED.fullmatch(name)) or not name.endswith(".md")


class _Overflow(logging.Handler):
    """watchdog says only in its log that the inotify queue overflowed: listen there."""

    def __init__(self, on_overflow: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self.on_overflow = on_overflow

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.on_overflow()


RowsCallback = Callable[[list[Row]], None]


@dataclass
class _Pending:
    paths: dict[str, set[str]] = field(default_factory=dict)    # bot -> dirty paths
    rescan: set[str] = field(default_factory=set)                # bots to rescan whole
    gone: set[str] = field(default_factory=set)                  # watched folders that went away
    everything: bool = False
    first: float = 0.0
    last: float = 0.0

    def empty(self) -> bool:
        return not (self.paths or self.rescan or self.everything or self.gone)


class Watcher:
    """The live ``watch``: records outside changes as they happen, in a thread of its own.

    ``start()`` rescans every workspace first (waiting for it unless
    ``wait=False``), ``stop()`` ends it. *on_rows* is called from the
    watcher's thread with the rows each batch recorded; it must not block
    (the desktop posts a queued signal). Nothing here touches Qt.
    """

    def __init__(self, mem: Memory, on_rows: RowsCallback | None = None, *, quiet: float = QUIET_S,
                 cap: float = CAP_S, held_recheck: float = HELD_RECHECK_S,
                 safety_rescan: float | None = SAFETY_RESCAN_S) -> None:
        self.mem = mem
        self.on_rows = on_rows
        self.quiet = quiet
        self.cap = cap
        self.held_recheck = held_recheck
        self.safety_rescan = safety_rescan
        self._cond = threading.Condition()
        self._pending = _Pending()
        self._held: dict[str, set[str] | None] = {}  # bots with a turn open: paths (None: all) for after it
        self._busy = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._observer: Any = None
        self._watches: dict[str, Any] = {}
        self._overflow = _Overflow(self.rescan)
        self._ready = threading.Event()
        self._held_due = 0.0
        self._next_safety = 0.0
        self.errors = 0

    # ----- control

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, wait: bool = True) -> None:
        from watchdog.observers import Observer

        if self._thread is not None:
            raise RuntimeError("the watcher is already running")
        make_dirs(self.mem.home.workspaces, self.mem.home.root)
        self._stopping = False
        self._next_safety = time.monotonic() + (self.safety_rescan or 0.0)
        self._observer = Observer()
        self._observer.schedule(_Handler(self), str(self.mem.home.workspaces), recursive=False)
        for bot in self.mem.home.bots():
            self._ensure_watches(bot)
        logging.getLogger("watchdog.observers").addHandler(self._overflow)
        self._observer.start()
        self.rescan()
        self._thread = threading.Thread(target=self._run, name="botmemory-watcher", daemon=True)
        self._thread.start()
        if wait:
            self._ready.wait()

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join()
            self._observer = None
        logging.getLogger("watchdog.observers").removeHandler(self._overflow)
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._watches.clear()
        self._ready.clear()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def rescan(self) -> None:
        """Compare every workspace with its shadows soon (at start, after an overflow)."""
        with self._cond:
            self._touch()
            self._pending.everything = True
            self._cond.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is pending or being recorded (held bots with a turn open aside)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and self._pending.empty(), timeout)

    # ----- events (watchdog's thread)

    def _touch(self) -> None:
        now = time.monotonic()
        if self._pending.empty():
            self._pending.first = now
        self._pending.last = now

    def on_path(self, path: str, is_dir: bool, gone: bool) -> None:
        root = self.mem.home.workspaces
        try:
            parts = Path(path).relative_to(root).parts
        except ValueError:
            return
        if not parts:
            return
        bot = parts[0]
        try:
            check_bot_id(bot)
        except BadInput:
            return
        rest = "/".join(parts[1:])
        with self._cond:
            if not rest or is_dir or rest in ("memory", LOG_DIR):
                if not rest or rest in ("memory", LOG_DIR):
                    self._touch()
                    self._pending.rescan.add(bot)
                    if gone:
                        self._pending.gone.add(path)
                    self._cond.notify_all()
                return
            if ignored(parts[-1]):
                return
            try:
                classify(rest)
            except BadInput:
                return
            self._touch()
            self._pending.paths.setdefault(bot, set()).add(rest)
            self._cond.notify_all()

    # ----- the watcher's thread

    def _ensure_watches(self, bot: str) -> None:
        ws = self.mem.home.workspace(bot)
        linked = False
        for folder in (ws, ws / "memory", ws / LOG_DIR):
            key = str(folder)
            linked = linked or folder.is_symlink()   # a link, or a folder reached through one
            if linked or not folder.is_dir():
                if linked and key in self._watches:
                    logger.warning("not watching %s: it is, or is reached through, a symbolic link", key)
                self._unwatch(key)
                continue
            if key not in self._watches:
                try:
                    self._watches[key] = self._observer.schedule(_Handler(self), key, recursive=False)
                except OSError as e:
                    logger.warning("cannot watch %s: %s", key, e)

    def _unwatch(self, key: str) -> None:
        watch = self._watches.pop(key, None)
        if watch is not None and self._observer is not None:
            try:
                self._observer.unschedule(watch)
            except (KeyError, ValueError):
                pass

    def _take(self) -> _Pending | None:
        """Wait for a quiet batch (or the cap), then take it. None when stopping."""
        with self._cond:
            while True:
                if self._stopping:
                    return None
                now = time.monotonic()
                if self.safety_rescan and now >= self._next_safety:
                    self._touch()
                    self._pending.everything = True
                    self._next_safety = now + self.safety_rescan
                if self._held and now >= self._held_due:  # bots whose turn was open: look again
                    self._touch()
                    for bot, paths in self._held.items():
                        if paths is None:
                            self._pending.rescan.add(bot)
                        else:
                            self._pending.paths.setdefault(bot, set()).update(paths)
                    self._held.clear()
                    self._pending.first = now - self.cap   # due at once
                deadlines = []
                if not self._pending.empty():
                    due = min(self._pending.last + self.quiet, self._pending.first + self.cap)
                    if self._pending.everything and not self._ready.is_set():
                        due = now   # the first scan runs at once
                    if now >= due:
                        batch, self._pending = self._pending, _Pending()
                        self._busy = True
                        return batch
                    deadlines.append(due)
                if self._held:
                    deadlines.append(self._held_due)
                if self.safety_rescan:
                    deadlines.append(self._next_safety)
                self._cond.wait(max(0.0, min(deadlines) - now) if deadlines else None)

    def _run(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                return
            try:
                rows = self._record(batch)
                if rows and self.on_rows is not None:
                    try:
                        self.on_rows(rows)
                    except Exception:
                        logger.exception("the watcher's row callback failed")
            except Exception:  # the watcher never dies of one bad batch; the next rescan retries
                self.errors += 1
                logger.exception("the watcher could not record a batch")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
                self._ready.set()

    def _record(self, batch: _Pending) -> list[Row]:
        mem = self.mem
        for key in batch.gone:
            self._unwatch(key)
        bots = set(batch.paths) | batch.rescan
        if batch.everything:
            bots |= set(mem.home.bots())
        rows: list[Row] = []
        for bot in sorted(bots):
            whole = batch.everything or bot in batch.rescan
            try:
                if whole and self._observer is not None:
                    self._ensure_watches(bot)
                if not mem.home.workspace(bot).is_dir():
                    continue
                got = reconcile_outside(mem, bot, None if whole else batch.paths.get(bot, set()))
                if got is not None:
                    rows += got
                    continue
                with self._cond:   # a turn is open: its changes are its own; look again once it has ended
                    if not self._held:
                        self._held_due = time.monotonic() + self.held_recheck
                    if whole or (bot in self._held and self._held[bot] is None):
                        self._held[bot] = None
                    else:
                        self._held[bot] = (self._held.get(bot) or set()) | batch.paths.get(bot, set())
            except MemoryError_ as e:
                logger.warning("could not reconcile %s: %s", bot, e)
        return rows


class _Handler:
    """The watchdog event handler: it only marks paths dirty."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def dispatch(self, event: Any) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write", "attrib") or (kind == "modified" and event.is_directory):
            return
        gone = kind in ("deleted", "moved")
        for p in (event.src_path, getattr(event, "dest_path", "")):
            if p:
                self.watcher.on_path(os.fsdecode(p), event.is_directory, gone and p == event.src_path)


__all__ = [
    "OUTSIDE", "Shadow", "Shadows", "Turn", "Watcher", "expire_turns", "ignored", "log_line", "open_turns",
    "reconcile_bot", "scan", "turn_begin", "turn_end", "turn_open",
]
