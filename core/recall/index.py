"""Recall's index: the SQLite database of word stems to passages under ``<home>/botmemory/index/``.

:mod:`.query` describes what it keeps (no text; files keyed by stat, checked by hash) and when it is
rebuilt; ``python -m botmemory.core.recall.index --build HOME BOT`` is the background build. What a build
parses, gathers and packs (and its worker processes) is :mod:`.build`.
"""
from __future__ import annotations

import gc
import os
import sqlite3
import stat
import time
from array import array
from collections import namedtuple
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from itertools import chain
from pathlib import Path

from ..base.errors import BotMemoryError
from ..base.log import get_logger
from ..disk.paths import Folder, Home
from ..disk.safeio import FILE_MODE, make_dirs, read_file
from ..text.words import Stems, guess_language
from .build import (
    PARALLEL_BYTES,
    PID_LIMIT,
    _Batch,
    _can_fork,
    _file_hash,
    _is_racy,
    _parse_all,
    _parse_into,
    _parse_shipped,
    _parts,
    _Shipped,
    _worker,
    _workers,
    reserve,
)
from .passages import StemMemo, _Key, _list_topics, _topic_folder

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

logger = get_logger(__name__)


# ----- the index

SCHEMA_VERSION = 16
"""Bump whenever the schema, the word rules, the stop list or the listing fingerprint (:func:`_digest`) change:
an index of another version is rebuilt."""

_SCHEMA = (
    "CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL)",
    # one row a topic file: its change key (racy: read again next time, see RACY_NS), the SHA-256 of its
    # bytes, modification day, name stems (" a b "), whether it has an opening, whether it holds a secret
    # (a recalled passage of it is redacted before it is shown), its passages: their words in all (length),
    # each one's day and end date (array('i') of day ordinals, in order; untils NULL when none has one, else 0
    # for none), the topics they link to (links: "i<TAB>target" lines, i the passage's number in the file,
    # target as passages.link_targets gives it; NULL when none), their ids (first_pid, n: passages of one
    # file have consecutive ids), and the ids of the words it holds (for dropping its postings).
    # No text: a passage is found again in its file (checked by the file's hash) when it is recalled
    "CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, ino INTEGER NOT NULL, racy INTEGER NOT NULL,"
    " hash TEXT NOT NULL, day INTEGER NOT NULL, names TEXT NOT NULL, opening INTEGER NOT NULL,"
    " secret INTEGER NOT NULL, length INTEGER NOT NULL, days BLOB NOT NULL, untils BLOB, links TEXT,"
    " first_pid INTEGER NOT NULL, n INTEGER NOT NULL, wids BLOB NOT NULL)",
    "CREATE TABLE words(wid INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE)",
    # word -> passages, packed (see encode): each row a run of postings in pid order; *start* is at most
    # its first pid and above every pid of the word's row before
    "CREATE TABLE postings(wid INTEGER NOT NULL, start INTEGER NOT NULL, data BLOB NOT NULL)",
    "CREATE UNIQUE INDEX postings_word ON postings(wid, start)",
    # a link's target is looked up by the file name lower-cased (SQLite's lower(): ASCII letters only)
    "CREATE INDEX files_lower_name ON files(lower(name))",
)


def index_path(home: Home, bot: str) -> Path:
    """Where the recall index of *bot* lives (outside the workspace)."""
    home.workspace(bot)  # checks the bot id
    return home.state_dir / "index" / f"{bot}.sqlite3"


class _Unusable(Exception):
    """The index on disk cannot be used for this call (locked, read-only, …): use one in memory."""


def _open(path: Path, root: Path | None = None) -> sqlite3.Connection:
    make_dirs(path.parent, root)   # never created through a link below the home
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
        os.close(fd)
    else:
        if not stat.S_ISREG(st.st_mode):
            raise _Unusable(f"{path} is not a regular file")
    return _configure(sqlite3.connect(str(path), timeout=60.0, isolation_level=None))


def _configure(conn: sqlite3.Connection) -> sqlite3.Connection:
    try:
        if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() not in ("wal", "memory"):
            conn.execute("PRAGMA journal_mode = WAL")  # readers never wait for a writer
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute("PRAGMA cache_size = -32000")
    except BaseException:
        conn.close()
        raise
    return conn


def _ensure_schema(conn: sqlite3.Connection) -> None:
    if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            tables = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
            for t in tables:
                conn.execute(f'DROP TABLE IF EXISTS "{t}"')
            for sql in _SCHEMA:
                conn.execute(sql)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    if conn.execute("PRAGMA page_count").fetchone()[0] > 16:
        conn.execute("VACUUM")   # an index of an older version leaves its pages behind


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
    return str(row[0]) if row else None


_synced: dict[str, tuple[str, dict[str, _Key]]] = {}
"""Per index file, in this process: the generation last seen and the topic listing it matched.

A refresh writes a new random generation, so when the generation and the listing
are both unchanged the index is known to match the files without reading its
file table.
"""




if TYPE_CHECKING:
    from typing import NamedTuple

    class _KnownFile(NamedTuple):
        """A file the index holds, as a refresh compares it with the listing."""

        id: int         # its row's id
        key: _Key       # its change key when it was indexed
        racy: int       # 1: it could have changed without its key changing (hashed again next time)
        hash: str       # the SHA-256 of the bytes it was indexed from
else:   # the same named tuple without importing typing
    _KnownFile = namedtuple("_KnownFile", ("id", "key", "racy", "hash"))

_Known = dict[str, _KnownFile]
"""The files the index holds, by name."""


def _known(conn: sqlite3.Connection) -> _Known:
    return {str(name): _KnownFile(int(fid), _Key(size, mtime_ns, ctime_ns, ino), int(racy), str(digest))
            for name, fid, size, mtime_ns, ctime_ns, ino, racy, digest in conn.execute(
                "SELECT name, id, size, mtime_ns, ctime_ns, ino, racy, hash FROM files")}


def _up_to_date(known: _Known, listing: dict[str, _Key]) -> bool:
    return len(known) == len(listing) and all(
        name in known and known[name].key == key and not known[name].racy for name, key in listing.items())


INLINE_BYTES = 8_000_000
"""Topics to (re)index up to this many bytes are indexed before answering; more are indexed by a
background process while recall answers from what is indexed so far."""
LANGUAGE_SAMPLE = 400_000
"""Characters of the largest topics a new index tells the notes' language from (function words are
frequent: a few pages settle it; more only delays the build)."""
COMMIT_BYTES = 4_000_000
"""A long build commits every this many bytes read, so that other processes see its progress."""


def _pending(known: _Known, listing: dict[str, _Key]) -> int:
    """Bytes of the topics a refresh would read (new, changed; racy ones are only hashed)."""
    return sum(key.size for name, key in listing.items() if name not in known or known[name].key != key)


def _refresh(conn: sqlite3.Connection, home: Home, bot: str, listing: dict[str, _Key],  # noqa: C901
             commit_bytes: int = 0) -> tuple[str, bool]:
    """Bring the index in line with the topic folder, under SQLite's write lock.

    Returns the new generation and whether a file was too fresh to trust its key.
    Re-checked inside the write transaction, so when two processes find the same
    change only the first re-reads the file. A file that changes while it is read
    is caught by the next call (its key no longer matches). A file changed within
    a timestamp tick could change again without its key changing, so it is marked
    *racy*; the next refresh reads it once more and, when its bytes hash the same,
    keeps it without parsing it again.

    With *commit_bytes*, the work is committed every that many bytes read (a long
    build that others can follow); otherwise it is one transaction.
    """
    racy = False
    collecting = gc.isenabled()
    gc.disable()        # a build makes millions of small objects and no cycles: the collector would only rescan them
    conn.execute("BEGIN IMMEDIATE")
    pool: Executor | None = None
    try:
        language = _meta(conn, "language")
        known = _known(conn)
        if language is None or not known:
            language = guess_language(_sample_texts(home, bot, listing), LANGUAGE_SAMPLE)
            conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('language', ?)", (language,))
        memo = StemMemo(Stems(language))
        batch = _Batch(conn)
        for name, held in known.items():
            if name not in listing:
                batch.drop(held.id)
        now = time.time_ns()
        todo: list[tuple[str, _Key]] = []
        for name in sorted(listing):
            key = listing[name]
            old = known.get(name)
            if old is not None and old.key == key and not old.racy:
                continue
            if old is not None and old.key == key:       # racy: the same bytes are the same file
                h = _file_hash(home, bot, name)
                if h == old.hash:
                    still = _is_racy(key, now)
                    racy = racy or still
                    conn.execute("UPDATE files SET racy = ? WHERE id = ?", (int(still), old.id))
                    continue
            if old is not None:
                batch.drop(old.id)
            todo.append((name, key))
        if batch.gather.base + reserve(todo) >= PID_LIMIT:
            # passage ids only grow (a file indexed again takes new ones): after very many rebuilds, start over
            logger.info("recall's index starts over: its passage ids reach %d", batch.gather.base)
            for table in ("files", "words", "postings"):
                conn.execute(f"DELETE FROM {table}")
            batch = _Batch(conn)
            todo = sorted(listing.items())
        # the files up to each commit: after 4, 8, 16, … MB (each commit adds a row per word), then in
        # steps of half of what is left (at least COMMIT_BYTES, the last one with what remains), so that
        # the last step, written after everything is parsed, is a small one. A large build is parsed by
        # forked processes (one a core), each step in as many parts as there are processes, handed out
        # as they free up; this one gathers their results in order and writes a step while they parse
        # the next ones
        steps: list[list[tuple[str, _Key]]] = []
        total = i = 0
        everything = sum(k.size for _n, k in todo)
        while i < len(todo):
            limit = min(max(commit_bytes, total), max(commit_bytes, (everything - total) // 2)) \
                if commit_bytes else everything
            if everything - total - limit < commit_bytes:     # no small step left over at the end
                limit = everything
            j, size = i, 0
            while j < len(todo) and (size < limit or j == i):
                size += todo[j][1].size
                j += 1
            steps.append(todo[i:j])
            total += size
            i = j
        parts: list[list[list[tuple[str, _Key]]]] = [[step] for step in steps]
        futures: list[list[Future[_Shipped]]] = []
        bases: list[list[int]] = []
        if everything > PARALLEL_BYTES and _can_fork():
            workers = _workers()
            parts = [_parts(step, workers) for step in steps]
            # each part's first passage id, set aside in advance (what a worker sends is written as it is;
            # the ids stay below PID_LIMIT, see above)
            pid = batch.gather.base
            for split in parts:
                bases.append([])
                for part in split:
                    bases[-1].append(pid)
                    pid += reserve(part)
            pool = _worker(home, bot, now, language, workers)
            futures = [[pool.submit(_parse_all, part, base) for part, base in zip(split, at)]
                       for split, at in zip(parts, bases)]
        for n, split in enumerate(parts):
            g = batch.gather
            for k, part in enumerate(split):
                if not futures:
                    _parse_into(g, part, home, bot, now, memo)
                    continue
                from concurrent.futures.process import BrokenProcessPool  # loaded with the pool

                try:
                    got = futures[n][k].result()
                except (BrokenProcessPool, OSError) as e:
                    logger.info("recall's index worker failed (%s): parsing its files here", e)
                    got = _parse_shipped(part, bases[n][k], home, bot, now, memo)
                g.absorb(got)
            racy = racy or g.racy
            if n < len(steps) - 1:
                batch.flush()
                _finish(conn)
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
                batch.restart()
        batch.flush()
        generation = _finish(conn, "" if racy else _digest(listing))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if collecting:
            gc.enable()
    return generation, racy


def _digest(listing: dict[str, _Key]) -> str:
    """A fingerprint of a topic listing: equal when every file's change key is.

    BLAKE2b of the sorted names (NUL-separated) and then their keys packed as 64-bit integers (a key
    past that range, as a huge inode number could be, is hashed as text instead): a recall computes it
    on every call, so it avoids ``repr`` of the listing and loading OpenSSL through :mod:`hashlib`.
    """
    try:
        from _blake2 import blake2b  # hashlib's own BLAKE2 (CPython's built-in module)
    except ImportError:               # pragma: no cover - another Python
        from hashlib import blake2b
    names = sorted(listing)
    h = blake2b("\0".join(names).encode("utf-8", "surrogatepass"), digest_size=16)
    try:
        h.update(array("q", chain.from_iterable(map(listing.__getitem__, names))).tobytes())
    except OverflowError:
        h.update(b"\0" + repr([tuple(listing[n]) for n in names]).encode("ascii"))   # as before _Key was named
    return str(h.hexdigest())


def _finish(conn: sqlite3.Connection, listing: str = "") -> str:
    """Close a refresh: a new generation, the counts BM25 needs, and the listing the index now matches
    (empty while it is partial or holds a racy file)."""
    conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('listing', ?)", (listing,))
    generation = os.urandom(8).hex()
    conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('generation', ?)", (generation,))
    conn.execute("INSERT OR REPLACE INTO meta(k, v) SELECT 'passages', COALESCE(SUM(n), 0) FROM files")
    conn.execute("INSERT OR REPLACE INTO meta(k, v) SELECT 'length', COALESCE(SUM(length), 0) FROM files")
    return generation


def _sample_texts(home: Home, bot: str, listing: dict[str, _Key]) -> Iterator[str]:
    """Texts to tell the notes' language from: the topics, largest first (as much as guess_language reads)."""
    folder, _prefix = _topic_folder(home, bot)
    for name in sorted(listing, key=lambda n: -listing[n].size)[:200]:
        try:
            ft = read_file(folder / name, home.trust_root(bot))
        except (BotMemoryError, OSError):
            continue
        if ft is not None:
            yield ft.text


def _sync(conn: sqlite3.Connection, home: Home, bot: str, listing: dict[str, _Key], memo: str, *,
          wait: bool = True, limit: int | None = None) -> bool:
    """Make sure the index matches *listing*, re-reading only new and changed files.

    With ``wait=False``, when more than *limit* bytes (default ``INLINE_BYTES``) would have to be read,
    nothing is read and False is returned (the caller answers from the index as it is, with what it does
    not cover read directly, and has it built in the background).
    """
    _ensure_schema(conn)
    generation = _meta(conn, "generation")
    if generation is not None and _synced.get(memo) == (generation, listing):
        return True
    if generation is not None and _meta(conn, "listing") == _digest(listing):
        if memo:
            _synced[memo] = (generation, dict(listing))
        return True
    known = _known(conn)
    racy = False
    if not _up_to_date(known, listing) or generation is None:
        if not wait and _pending(known, listing) > (INLINE_BYTES if limit is None else limit):
            return False
        generation, racy = _refresh(conn, home, bot, listing)
    if memo and not racy:
        _synced[memo] = (generation, dict(listing))
    elif memo:
        _synced.pop(memo, None)
    return True


def refresh_index(home: Home, bot: str) -> None:
    """Bring *bot*'s recall index up to date with its topics now (the tray app and ``watch`` call this
    in the background, so that a turn's recall finds the index ready). One builder at a time: this
    waits for a build another process is running, then adds what that one did not see."""
    with _build_lock(home, bot, wait=True) as got:
        if got:
            _refresh_now(home, bot)


def _refresh_now(home: Home, bot: str) -> None:
    listing = _list_topics(home, bot)
    path = index_path(home, bot)
    conn = _open(path, home.root)
    try:
        _ensure_schema(conn)
        if _meta(conn, "generation") is not None and _meta(conn, "listing") == _digest(listing):
            return
        _refresh(conn, home, bot, listing, commit_bytes=COMMIT_BYTES)
    finally:
        conn.close()


@contextmanager
def _build_lock(home: Home, bot: str, *, wait: bool) -> Iterator[bool]:
    """The index builder's lock (an advisory lock on ``<bot>.build.lock`` beside the index): yields
    whether it was got (without *wait*, False when another process holds it)."""
    lock = index_path(home, bot).with_suffix(".build.lock")
    make_dirs(lock.parent, home.root)   # never created through a link below the home
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover (Windows): SQLite's write lock still serialises builds
            yield True
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def index_current(home: Home, bot: str) -> bool:
    """Whether *bot*'s recall index matches its topics now (one ``stat`` a topic and a read of the index's
    fingerprint; nothing is built): the tray app asks this before it starts a builder."""
    listing = _list_topics(home, bot)
    path = index_path(home, bot)
    try:
        make_dirs(path.parent, home.root)   # never read through a link below the home
        if not os.path.isfile(path) or os.path.islink(path):
            return not listing
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return False
            return _meta(conn, "generation") is not None and _meta(conn, "listing") == _digest(listing)
        finally:
            conn.close()
    except (sqlite3.Error, OSError, BotMemoryError):
        return False


def builder_command(home: Home, bot: str) -> list[str] | None:
    """The command line of a process that brings *bot*'s index up to date (one builder at a time: a second
    one exits at once), or None where this executable cannot run a module (a frozen bundle)."""
    import sys

    if getattr(sys, "frozen", False):
        return None
    f = home.folder(bot)      # a tracked (or the hook's one untracked) folder: the builder is told where it is
    where = [str(f.path), f.layout.name] if f is not None else []
    return [sys.executable, "-m", "botmemory.core.recall.index", "--build", str(home.root), bot, *where]


def _build_in_background(home: Home, bot: str) -> None:
    """Start a detached process that builds the index, unless one is at it."""
    import subprocess

    with _build_lock(home, bot, wait=False) as free:
        if not free:
            return
    command = builder_command(home, bot)
    if command is None:
        return
    try:
        subprocess.Popen(command,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError as e:
        logger.warning("could not start the recall index build in the background: %s", e)


class _OneFolder:
    """The folder source of a background build of a folder's index: the one folder it builds."""

    def __init__(self, folder: Folder) -> None:
        self._folders = {folder.id: folder}

    def folders(self) -> Mapping[str, Folder]:
        return self._folders


def _build_main(root: str, bot: str, path: str | None = None, kind: str | None = None) -> int:
    """``python -m botmemory.core.recall.index --build ROOT BOT [PATH KIND]``: build the index unless another
    builder is. With PATH and KIND, BOT is that folder of that kind (tracked, or the hook's untracked one)."""
    home = Home(Path(root))
    if path is not None and kind is not None:
        from .. import kinds

        home = Home(home.root, _OneFolder(Folder(bot, Path(path), path, kinds.get(kind))))
    with _build_lock(home, bot, wait=False) as got:
        if got:
            _refresh_now(home, bot)
    return 0


if __name__ == "__main__":
    import sys

    if len(sys.argv) in (4, 6) and sys.argv[1] == "--build":
        sys.exit(_build_main(*sys.argv[2:]))
    sys.stderr.write("usage: python -m botmemory.core.recall.index --build HOME BOT [PATH KIND]\n")
    sys.exit(2)
