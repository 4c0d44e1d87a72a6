"""Recall's index: the SQLite database of word stems to passages under ``<home>/botmemory/index/``.

:mod:`.recall` describes what it keeps (no text; files keyed by stat, checked by hash) and when it is
rebuilt; ``python -m botmemory.core.recall_index --build HOME BOT`` is the background build.
"""
from __future__ import annotations


import hashlib
import logging
import os
import sqlite3
import stat
import time
import zlib
from array import array
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from .errors import BotMemoryError
from .paths import Folder, Home
from .safeio import FILE_MODE, RACY_NS, make_dirs, read_file
from .words import Stems, guess_language
from .passages import (
    _Key, _Passage, _Topic, _analyse_topic, _index_words, _list_topics, _mday, _stem_counts, _topic_folder,
    link_targets,
)

logger = logging.getLogger(__name__)


# ----- the index

SCHEMA_VERSION = 12
"""Bump whenever the schema, the word rules or the stop list change: an index of another version is rebuilt."""

_SCHEMA = (
    "CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL)",
    # one row a topic file: its change key (racy: read again next time, see RACY_NS), the SHA-256 of its
    # bytes, modification day, name stems (" a b "), whether it has an opening, its passages (first_pid,
    # n: passages of one file have consecutive ids) and the words it holds (for dropping its postings)
    "CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, ino INTEGER NOT NULL, racy INTEGER NOT NULL,"
    " hash TEXT NOT NULL, day INTEGER NOT NULL, names TEXT NOT NULL, opening INTEGER NOT NULL,"
    " first_pid INTEGER NOT NULL, n INTEGER NOT NULL, wids BLOB NOT NULL)",
    # no text: a passage is found again in its file (checked by the file's hash) when it is recalled
    # links: the topics the passage links to (``[[wikilinks]]``: lower-cased targets, one a line), or NULL
    "CREATE TABLE passages(pid INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, day INTEGER NOT NULL,"
    " until INTEGER, len INTEGER NOT NULL, links TEXT)",
    "CREATE TABLE words(wid INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE, df INTEGER NOT NULL)",
    # word -> passages, with the word's count in the passage and the passage's length (for BM25)
    "CREATE TABLE postings(wid INTEGER NOT NULL, pid INTEGER NOT NULL, tf INTEGER NOT NULL,"
    " len INTEGER NOT NULL, PRIMARY KEY(wid, pid)) WITHOUT ROWID",
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


def _pack(wids: list[int], counts: list[int]) -> bytes:
    """A file's sorted word ids (as gaps, which compress well) and its count of passages for each."""
    gaps = [b - a for a, b in zip([0, *wids], wids)]
    return zlib.compress(array("I", gaps + counts).tobytes(), 6)


def _unpack(blob: bytes) -> tuple[list[int], list[int]]:
    a = array("I")
    a.frombytes(zlib.decompress(blob))
    half = len(a) // 2
    wids: list[int] = []
    w = 0
    for gap in a[:half]:
        w += gap
        wids.append(w)
    return wids, list(a[half:])


def _drop_file(conn: sqlite3.Connection, file_id: int, df: Counter[int]) -> None:
    row = conn.execute("SELECT first_pid, n, wids FROM files WHERE id = ?", (file_id,)).fetchone()
    first, n, blob = int(row[0]), int(row[1]), bytes(row[2])
    wids, counts = _unpack(blob)
    conn.executemany("DELETE FROM postings WHERE wid = ? AND pid >= ? AND pid < ?",
                     [(w, first, first + n) for w in wids])
    for w, c in zip(wids, counts):
        df[w] -= c
    conn.execute("DELETE FROM passages WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def _read_topic(home: Home, bot: str, name: str) -> tuple[_Topic, str, str] | None:
    """A topic read to be indexed: see :func:`_load_topic`."""
    return _load_topic(home, bot, name)


def _load_topic(home: Home, bot: str, name: str, names: bool = True) -> tuple[_Topic, str, str] | None:
    """A topic's passages, the hash of its bytes and its text; an empty topic when it cannot be read;
    None when it is gone."""
    folder, prefix = _topic_folder(home, bot)
    try:
        ft = read_file(folder / name, home.trust_root(bot))
    except (BotMemoryError, OSError) as e:
        logger.info("recall skips %s%s: %s", prefix, name, e)
        return _Topic([], set(), None), "", ""
    if ft is None:
        return None
    if not ft.valid:
        logger.info("recall reads %s%s with replacement characters: it is not valid UTF-8", prefix, name)
    return _analyse_topic(name, ft.text, names), ft.hash, ft.text


def _reread_topic(home: Home, bot: str, name: str) -> tuple[_Topic, str, str] | None:
    """A topic read again for a recalled passage's text (checked against the hash it was indexed with)."""
    return _load_topic(home, bot, name, names=False)


def _file_hash(home: Home, bot: str, name: str) -> str | None:
    try:
        ft = read_file(_topic_folder(home, bot)[0] / name, home.trust_root(bot))
    except (BotMemoryError, OSError):
        return None
    return ft.hash if ft is not None else None


_BATCH = 250_000

TICK_NS = 50_000_000
"""How long after a file's last change a same-size edit could keep its timestamp on a file system
with fine timestamps (the kernel stamps files from a clock that ticks every few milliseconds)."""
COARSE_TICK_NS = 2_000_000_000
"""The same for file systems with whole-second (or FAT's two-second) timestamps."""


def _is_racy(key: _Key, now: int) -> bool:
    """Whether *key* could still change without its timestamps changing (git's "racy" files)."""
    latest = max(key[1], key[2])
    tick = COARSE_TICK_NS if key[1] % 1_000_000_000 == 0 else TICK_NS
    return now - latest < min(tick, RACY_NS)


_Known = dict[str, tuple[int, _Key, int, str]]
"""name -> (file id, stored change key, racy, hash)."""


def _known(conn: sqlite3.Connection) -> _Known:
    return {str(r[0]): (int(r[1]), (r[2], r[3], r[4], r[5]), int(r[6]), str(r[7])) for r in conn.execute(
        "SELECT name, id, size, mtime_ns, ctime_ns, ino, racy, hash FROM files")}


def _up_to_date(known: _Known, listing: dict[str, _Key]) -> bool:
    return len(known) == len(listing) and all(
        name in known and known[name][1] == key and not known[name][2] for name, key in listing.items())


VACUUM_AFTER = 1_000_000
"""A build from an empty index that read more than this many bytes packs the database afterwards."""
INLINE_BYTES = 8_000_000
"""Topics to (re)index up to this many bytes are indexed before answering; more are indexed by a
background process while recall answers from what is indexed so far."""
COMMIT_BYTES = 2_000_000
"""A long build commits every this many bytes read, so that other processes see its progress."""


def _pending(known: _Known, listing: dict[str, _Key]) -> int:
    """Bytes of the topics a refresh would read (new, changed; racy ones are only hashed)."""
    return sum(key[0] for name, key in listing.items() if name not in known or known[name][1] != key)


def _refresh(conn: sqlite3.Connection, home: Home, bot: str, listing: dict[str, _Key],
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
    words_cache: dict[str, int] = {}
    df: Counter[int] = Counter()
    new_words: dict[str, int] = {}
    conn.execute("BEGIN IMMEDIATE")
    try:
        language = _meta(conn, "language")
        known = _known(conn)
        if language is None or not known:
            language = guess_language(_sample_texts(home, bot, listing))
            conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('language', ?)", (language,))
        stems = Stems(language)
        keymap: dict[str, str] = {}
        next_wid = int(conn.execute("SELECT COALESCE(MAX(wid), 0) + 1 FROM words").fetchone()[0])
        for name, (file_id, key, _r, _h) in known.items():
            if name not in listing:
                _drop_file(conn, file_id, df)
        postings: list[tuple[int, int, int, int]] = []
        read = total = 0

        def flush() -> None:
            # sorted in key order first: the rows go down the B-tree in one pass, no temporary table
            postings.sort()
            conn.executemany("INSERT INTO postings VALUES (?, ?, ?, ?)", postings)
            postings.clear()

        def wid_of(words: set[str]) -> dict[str, int]:
            nonlocal next_wid
            missing = [w for w in words if w not in words_cache]
            for i in range(0, len(missing), 500):
                chunk = missing[i:i + 500]
                words_cache.update((str(r[1]), int(r[0])) for r in conn.execute(
                    f"SELECT wid, word FROM words WHERE word IN ({','.join('?' * len(chunk))})", chunk))
            for w in missing:
                if w not in words_cache:
                    words_cache[w] = new_words[w] = next_wid
                    next_wid += 1
            return words_cache

        def save_words() -> None:
            conn.executemany("INSERT INTO words(wid, word, df) VALUES (?, ?, 0)",
                             [(wid, w) for w, wid in new_words.items()])
            new_words.clear()
            conn.executemany("UPDATE words SET df = df + ? WHERE wid = ?",
                             [(d, w) for w, d in df.items() if d])
            df.clear()

        now = time.time_ns()
        for name in sorted(listing):
            key = listing[name]
            old = known.get(name)
            if old is not None and old[1] == key and not old[2]:
                continue
            if old is not None and old[1] == key:       # racy: the same bytes are the same file
                h = _file_hash(home, bot, name)
                if h == old[3]:
                    still = _is_racy(key, now)
                    racy = racy or still
                    conn.execute("UPDATE files SET racy = ? WHERE id = ?", (int(still), old[0]))
                    continue
            if old is not None:
                _drop_file(conn, old[0], df)
            got = _read_topic(home, bot, name)
            if got is None:
                continue
            topic, digest, text = got
            from .redact import contains_secret, redact   # on first use: a warm recall never needs it

            if contains_secret(text):   # nothing of a secret reaches the index: words come from redacted text
                topic = _Topic([_Passage(p.day, p.until, redact(p.text), redact(p.heading)) for p in topic.passages],
                               {w for t in topic.names for w in _index_words(redact(t))}, topic.opening)
            read += key[0]
            total += key[0]
            mday = _mday(key).toordinal()
            is_racy = _is_racy(key, now)
            racy = racy or is_racy
            # a paragraph's words and its section heading's (the heading counts toward the gate too)
            per_passage = [_stem_counts(f"{p.heading}\n{p.text}" if p.heading else p.text, stems, keymap)
                           for p in topic.passages]
            vocab: set[str] = set()
            for c in per_passage:
                vocab.update(c)
            ids = wid_of(vocab)
            first = int(conn.execute("SELECT COALESCE(MAX(pid), 0) + 1 FROM passages").fetchone()[0])
            file_words: Counter[int] = Counter()
            rows = []
            for i, (p, counts) in enumerate(zip(topic.passages, per_passage)):
                pid = first + i
                day = p.day.toordinal() if p.day else mday
                length = sum(counts.values())
                rows.append((pid, day, p.until.toordinal() if p.until else None, length,
                             "\n".join(link_targets(p.text)) or None))
                for w, tf in counts.items():
                    wid = ids[w]
                    postings.append((wid, pid, tf, length))
                    file_words[wid] += 1
            wids = sorted(file_words)
            names = " ".join(sorted({stems(k) for k in topic.names}))
            cur = conn.execute(
                "INSERT INTO files(name, size, mtime_ns, ctime_ns, ino, racy, hash, day, names, opening,"
                " first_pid, n, wids) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, *key, int(is_racy), digest, mday, f" {names} ", int(topic.opening is not None),
                 first, len(rows), _pack(wids, [file_words[w] for w in wids])))
            new_id = cur.lastrowid
            assert new_id is not None
            conn.executemany("INSERT INTO passages(pid, file_id, day, until, len, links) VALUES (?, ?, ?, ?, ?, ?)",
                             [(pid, new_id, day, until, ln, lk) for pid, day, until, ln, lk in rows])
            df.update(file_words)
            if len(postings) >= _BATCH:
                flush()
            if commit_bytes and read >= commit_bytes:
                flush()
                save_words()
                _finish(conn)
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
                read = 0
        flush()
        save_words()
        generation = _finish(conn, "" if racy else _digest(listing))
        conn.execute("COMMIT")
        if not known and total > VACUUM_AFTER:
            conn.execute("VACUUM")      # a build from nothing: pack its pages (about a tenth smaller)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return generation, racy


def _digest(listing: dict[str, _Key]) -> str:
    """A fingerprint of a topic listing: equal when every file's change key is."""
    return hashlib.blake2b(repr(sorted(listing.items())).encode("utf-8"), digest_size=16).hexdigest()


def _finish(conn: sqlite3.Connection, listing: str = "") -> str:
    """Close a refresh: a new generation, the counts BM25 needs, and the listing the index now matches
    (empty while it is partial or holds a racy file)."""
    conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('listing', ?)", (listing,))
    generation = os.urandom(8).hex()
    conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('generation', ?)", (generation,))
    conn.execute("INSERT OR REPLACE INTO meta(k, v) SELECT 'passages', COUNT(*) FROM passages")
    conn.execute("INSERT OR REPLACE INTO meta(k, v) SELECT 'length', COALESCE(SUM(len), 0) FROM passages")
    return generation


def _sample_texts(home: Home, bot: str, listing: dict[str, _Key]) -> Iterator[str]:
    """Texts to tell the notes' language from: the topics, largest first (as much as guess_language reads)."""
    folder = _topic_folder(home, bot)[0]
    for name in sorted(listing, key=lambda n: -listing[n][0])[:200]:
        try:
            ft = read_file(folder / name, home.trust_root(bot))
        except (BotMemoryError, OSError):
            continue
        if ft is not None:
            yield ft.text


def _sync(conn: sqlite3.Connection, home: Home, bot: str, listing: dict[str, _Key], memo: str, *,
          wait: bool = True) -> bool:
    """Make sure the index matches *listing*, re-reading only new and changed files.

    With ``wait=False``, when more than ``INLINE_BYTES`` would have to be read,
    nothing is read and False is returned (the caller answers from the index as it
    is and has it built in the background).
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
        if not wait and _pending(known, listing) > INLINE_BYTES:
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
    return [sys.executable, "-m", "botmemory.core.recall_index", "--build", str(home.root), bot, *where]


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
    """``python -m botmemory.core.recall_index --build ROOT BOT [PATH KIND]``: build the index unless another
    builder is. With PATH and KIND, BOT is that folder of that kind (tracked, or the hook's untracked one)."""
    home = Home(Path(root))
    if path is not None and kind is not None:
        from . import kinds

        home = Home(home.root, _OneFolder(Folder(bot, Path(path), path, kinds.get(kind))))
    with _build_lock(home, bot, wait=False) as got:
        if got:
            _refresh_now(home, bot)
    return 0


if __name__ == "__main__":
    import sys

    if len(sys.argv) in (4, 6) and sys.argv[1] == "--build":
        sys.exit(_build_main(*sys.argv[2:]))
    sys.stderr.write("usage: python -m botmemory.core.recall_index --build HOME BOT [PATH KIND]\n")
    sys.exit(2)
