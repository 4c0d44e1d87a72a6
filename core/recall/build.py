"""Building recall's index: topics parsed into passages and stem counts, postings gathered in memory and
packed into rows, and the worker processes that parse a large build.

:mod:`.index` keeps the database (schema, refresh, sync, the builder's lock and process) and calls
these; :mod:`.query` decodes the rows for :mod:`.ranking`. A passage here is exactly the passage
:func:`_reread_topic` finds again when it is recalled (one function, :func:`.passages._analyse_topic`).
"""
from __future__ import annotations

import os
import sqlite3
from array import array
from bisect import bisect_left
from collections import namedtuple
from collections.abc import Iterable, Sequence
from itertools import chain

from ..base.errors import BotMemoryError
from ..base.log import get_logger
from ..base.record import record
from ..disk.paths import Home
from ..disk.safeio import RACY_NS, read_file
from ..text.words import Stems
from .passages import (
    StemMemo,
    _analyse_topic,
    _index_words,
    _Key,
    _mday,
    _Passage,
    _stem_counts,
    _Topic,
    _topic_folder,
    link_targets,
)

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time

if TYPE_CHECKING:
    from concurrent.futures import Executor

logger = get_logger(__name__)


# ----- postings rows

if TYPE_CHECKING:
    from typing import NamedTuple

    class Postings(NamedTuple):
        """A word's postings, three arrays of one length (see :func:`encode`)."""

        pids: array[int]    # passage ids, ascending (array('I'))
        tfs: array[int]     # the word's count in each passage (array('H'))
        lens: array[int]    # each passage's length in words (array('I'))

    class _Parsed(NamedTuple):
        """A topic file parsed for the index (:func:`_parse`)."""

        name: str
        key: _Key
        racy: bool          # it could still change without its key changing: read again next time
        digest: str         # the SHA-256 of its bytes ("" when it changed while it was read)
        day: int            # its modification day (an ordinal)
        names: str          # its name stems, " a b "
        opening: bool       # it has an opening
        secret: bool        # it holds a secret
        topic: _Topic       # its passages
        per_passage: list[dict[str, int]]   # each passage's stem counts
else:   # the same named tuples without importing typing
    Postings = namedtuple("Postings", ("pids", "tfs", "lens"))
    _Parsed = namedtuple("_Parsed", ("name", "key", "racy", "digest", "day", "names", "opening", "secret",
                                     "topic", "per_passage"))

MAX_TF = 0xFFFF
"""A word's count in one passage is kept up to this (BM25 saturates long before)."""


def encode(pids: array[int], tfs: array[int], lens: array[int]) -> bytes:
    """One postings row: the pids and lengths (array('I')) then the counts (array('H')), native byte order."""
    if tfs.typecode != "H":
        try:
            tfs = array("H", tfs)
        except OverflowError:
            tfs = array("H", [min(t, MAX_TF) for t in tfs])
    return pids.tobytes() + lens.tobytes() + tfs.tobytes()


def decode(data: bytes) -> Postings:
    """The postings of rows joined in pid order (see :func:`encode`)."""
    n = len(data) // 10
    pids, tfs, lens = array("I"), array("H"), array("I")
    mv = memoryview(data)
    pids.frombytes(mv[:4 * n])
    lens.frombytes(mv[4 * n:8 * n])
    tfs.frombytes(mv[8 * n:])
    return Postings(pids, tfs, lens)


def _pack_wids(wids: list[int]) -> bytes:
    """A file's word ids (in no order): two bytes each (b'H') unless one is too large (b'I')."""
    try:
        return b"H" + array("H", wids).tobytes()
    except OverflowError:
        return b"I" + array("I", wids).tobytes()


def _unpack_wids(blob: bytes) -> array[int]:
    wids = array(chr(blob[0]))
    wids.frombytes(blob[1:])
    return wids


FILE_COLUMNS = ("id", "name", "size", "mtime_ns", "ctime_ns", "ino", "racy", "hash", "day", "names", "opening",
                "secret", "length", "days", "untils", "links", "first_pid", "n", "wids")
"""The columns of a file's row, in the order :class:`_Gather` keeps them (after the id: see
recall_index's schema)."""


class _Gather:
    """Parsed files' passages and postings, in memory (no database: a worker process fills one too).

    *post* maps each word to flat (pid, tf, passage length) triples in pid order; a file's passages
    take consecutive pids from *next_pid*. *files* holds each file's row of the index's files table from
    its name on (see :data:`FILE_COLUMNS`: its passages' days, end dates and links packed in it), its
    first pid and number of passages last.
    """

    def __init__(self, base: int) -> None:
        self.base = self.next_pid = base
        self.post: dict[str, list[int]] = {}
        self.files: list[tuple[object, ...]] = []
        self.vocab: list[set[str] | tuple[list[str], array[int]]] = []   # each file's words (from a worker:
        # its word list and indices into it)
        self.shipped: list[_Shipped] = []    # what workers gathered
        self.racy = False

    def add(self, got: _Parsed) -> None:
        """A parsed file: its passages and their words' postings."""
        assert not self.shipped, "a file added after a worker's would break the pid order of the rows"
        per_passage = got.per_passage
        first = pid = self.next_pid
        post = self.post
        get = post.get
        lengths = list(map(sum, map(dict.values, per_passage)))
        for counts, length in zip(per_passage, lengths):
            for w, tf in counts.items():
                lst = get(w)
                if lst is None:
                    post[w] = [pid, tf, length]
                else:
                    lst += (pid, tf, length)
            pid += 1
        vocab: set[str] = set().union(*per_passage)
        passages = got.topic.passages
        total = sum(lengths)
        mday = got.day
        days, untils, links = passage_columns(passages, mday)
        key = got.key
        self.files.append((got.name, key.size, key.mtime_ns, key.ctime_ns, key.ino, int(got.racy), got.digest,
                           mday, got.names, int(got.opening), int(got.secret), total, days.tobytes(),
                           untils.tobytes() if untils else None, "\n".join(links) or None, first, pid - first))
        self.vocab.append(vocab)
        self.next_pid = pid
        self.racy = self.racy or got.racy

    def ship(self) -> _Shipped:
        """This gathering as bytes (cheap to send from the worker: no list of numbers to pickle): each
        word's postings row encoded here and its first pid, each file's words as indices into *words*."""
        words = list(self.post)
        index = {w: i for i, w in enumerate(words)}
        rows, firsts = _rows(list(self.post.values()))
        return _Shipped(self.base, self.next_pid, words, rows, firsts.tobytes(), self.files,
                        [array("I", map(index.__getitem__, v)).tobytes() for v in self.vocab if isinstance(v, set)],
                        self.racy)

    def absorb(self, other: _Shipped) -> None:
        """Add what a worker gathered (pids ``other.base`` to ``other.end``, above every pid this one holds:
        its files keep their pids and its rows are written as they are). Only a worker's are added after it."""
        assert not self.post and other.base >= self.next_pid, "a worker's rows would break the pid order"
        self.shipped.append(other)
        self.files.extend(other.files)
        for v in other.vocab:
            idx = array("I")
            idx.frombytes(v)
            self.vocab.append((other.words, idx))
        self.next_pid = other.end
        self.racy = self.racy or other.racy

    def rows(self) -> dict[str, tuple[int, bytes]]:
        """Each word's postings row (its first pid, the row): this process's postings, or the workers'
        rows joined in pid order."""
        if not self.shipped:
            rows, firsts = _rows(list(self.post.values()))
            return dict(zip(self.post, zip(firsts, rows)))
        out: dict[str, tuple[int, bytes]] = {}
        for other in self.shipped:
            firsts = array("I")
            firsts.frombytes(other.firsts)
            if not out:
                out = dict(zip(other.words, zip(firsts, other.rows)))
                continue
            get = out.get
            for w, first, data in zip(other.words, firsts, other.rows):
                had = get(w)
                if had is None:
                    out[w] = (first, data)
                else:
                    had_first, had_data = had
                    out[w] = (had_first, _concat([had_data, data]))
        return out


def _concat(rows: list[bytes]) -> bytes:
    """One postings row of several (each one's pids above the one's before): all pids, lengths, counts."""
    if len(rows) == 2:      # a step's parts are joined two at a time
        a, b = rows
        na, nb = len(a) // 10, len(b) // 10
        return b"".join((a[:4 * na], b[:4 * nb], a[4 * na:8 * na], b[4 * nb:8 * nb], a[8 * na:], b[8 * nb:]))
    ns = [len(r) // 10 for r in rows]
    return b"".join([r[:4 * n] for r, n in zip(rows, ns)] + [r[4 * n:8 * n] for r, n in zip(rows, ns)]
                    + [r[8 * n:] for r, n in zip(rows, ns)])


@record()
class _Shipped:
    """A worker's :class:`_Gather`, flattened: each word's postings row (see :func:`encode`; pids from
    *base*) and each file's words (as indices into *words*, array('I') bytes)."""

    base: int
    end: int        # the first pid after its passages
    words: list[str]
    rows: list[bytes]
    firsts: bytes   # each row's first pid (array('I'))
    files: list[tuple[object, ...]]
    vocab: list[bytes]
    racy: bool


def _parse(home: Home, bot: str, name: str, key: _Key, now: int, memo: StemMemo) -> _Parsed | None:
    """Read and parse one topic file for the index (None: it is gone). Nothing of a secret reaches the
    index: when the file holds one, its words are taken from redacted text."""
    got = _read_topic(home, bot, name)
    if got is None:
        return None
    topic, digest, text = got
    from ..redact import contains_secret, redact  # on first use: a warm recall never needs it

    secret = contains_secret(text)
    if secret:
        topic = _Topic([_Passage(p.day, p.until, redact(p.text), redact(p.heading)) for p in topic.passages],
                       {w for t in topic.names for w in _index_words(redact(t))}, topic.opening)
    grown = len(topic.passages) > key.size // 2 + 1     # more than its listed size can hold (see reserve)
    if grown:       # it changed while it was read: indexed empty, as racy with no hash (read again next time)
        logger.info("recall's index reads %s again next time: it changed while it was read", name)
        topic, digest = _Topic([], topic.names, topic.opening), ""
    # a paragraph's words and its section heading's (the heading counts toward the gate too)
    per_passage = [_stem_counts(f"{p.heading}\n{p.text}" if p.heading else p.text, memo) for p in topic.passages]
    names = " ".join(sorted({memo.stems(k) for k in topic.names}))
    return _Parsed(name=name, key=key, racy=grown or _is_racy(key, now), digest=digest,
                   day=_mday(key).toordinal(), names=f" {names} ", opening=topic.opening is not None,
                   secret=secret, topic=topic, per_passage=per_passage)


def _parse_into(g: _Gather, names: Iterable[tuple[str, _Key]], home: Home, bot: str, now: int,
                memo: StemMemo) -> None:
    """Parse *names* (see :func:`_parse`) into *g*; a file gone meanwhile is left out."""
    for name, key in names:
        got = _parse(home, bot, name, key, now, memo)
        if got is not None:
            g.add(got)


class _Batch:
    """The changes of one refresh between two commits, gathered in memory and written at :meth:`flush`.

    A word's postings are rows of packed (pid, tf, length) triples. Passages of one file have
    consecutive ids, and a file indexed again gets new ids above every existing one, so a flush
    cuts a dropped file's pid range out of the one row of each of its words that holds it
    (bisected, C-speed slicing) and appends one new row per word holding this batch's postings;
    a word with more than ``MAX_CHUNKS`` rows has them merged. A build from an empty index looks
    nothing up: every word is new.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.fresh = conn.execute("SELECT 1 FROM words LIMIT 1").fetchone() is None
        self.ids: dict[str, int] = {}
        self.new_words: list[tuple[int, str]] = []
        self.drops: dict[int, list[tuple[int, int]]] = {}
        self.restart()

    def restart(self) -> None:
        """Read the next free ids (at the start of each transaction)."""
        one = self.conn.execute
        self.next_wid = int(one("SELECT COALESCE(MAX(wid), 0) + 1 FROM words").fetchone()[0])
        self.next_fid = int(one("SELECT COALESCE(MAX(id), 0) + 1 FROM files").fetchone()[0])
        self.gather = _Gather(int(one("SELECT COALESCE(MAX(first_pid + n), 0) + 1 FROM files").fetchone()[0]))

    def drop(self, file_id: int) -> None:
        """Drop a file: its rows now, its postings at the flush."""
        conn = self.conn
        first_pid, passages, wids = conn.execute("SELECT first_pid, n, wids FROM files WHERE id = ?",
                                                 (file_id,)).fetchone()
        first, n = int(first_pid), int(passages)
        for w in _unpack_wids(bytes(wids)):
            self.drops.setdefault(w, []).append((first, first + n))
        conn.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def _word_ids(self, words: list[str]) -> dict[str, int]:
        ids = self.ids
        missing = [w for w in words if w not in ids]
        if not self.fresh:
            for i in range(0, len(missing), 500):
                chunk = missing[i:i + 500]
                ids.update((str(r[1]), int(r[0])) for r in self.conn.execute(
                    f"SELECT wid, word FROM words WHERE word IN ({','.join('?' * len(chunk))})", chunk))
        wid = self.next_wid
        for w in missing:
            if w not in ids:
                ids[w] = wid
                self.new_words.append((wid, w))
                wid += 1
        self.next_wid = wid
        return ids

    def _apply_drops(self) -> None:
        conn = self.conn
        for wid, ranges in self.drops.items():
            top = max(hi for _lo, hi in ranges)
            for start, data in conn.execute("SELECT start, data FROM postings WHERE wid = ? AND start < ?"
                                            " ORDER BY start", (wid, top)).fetchall():
                pids, tfs, lens = decode(data)
                cut = False
                for lo, hi in ranges:
                    i, j = bisect_left(pids, lo), bisect_left(pids, hi)
                    if i < j:
                        del pids[i:j], tfs[i:j], lens[i:j]
                        cut = True
                if not cut:
                    continue
                if pids:
                    conn.execute("UPDATE postings SET data = ? WHERE wid = ? AND start = ?",
                                 (encode(pids, tfs, lens), wid, start))
                else:
                    conn.execute("DELETE FROM postings WHERE wid = ? AND start = ?", (wid, start))
        self.drops.clear()

    def flush(self) -> None:
        """Write what was gathered (the caller commits)."""
        conn = self.conn
        if self.drops:
            self._apply_drops()
        g = self.gather
        rows = g.rows()
        ids = self._word_ids(list(rows))
        conn.executemany("INSERT INTO words(wid, word) VALUES (?, ?)", self.new_words)
        self.new_words.clear()
        fid = self.next_fid
        file_rows = []
        theirs: dict[int, list[int]] = {}      # a worker's word list -> the word ids
        for f, v in zip(g.files, g.vocab):
            if isinstance(v, set):
                wids = list(map(ids.__getitem__, v))
            else:
                words, idx = v
                if id(words) not in theirs:
                    theirs[id(words)] = list(map(ids.__getitem__, words))
                wids = list(map(theirs[id(words)].__getitem__, idx))
            file_rows.append((fid, *f, _pack_wids(wids)))
            fid += 1
        self.next_fid = fid
        conn.executemany(f"INSERT INTO files({', '.join(FILE_COLUMNS)}) VALUES ({', '.join('?' * len(FILE_COLUMNS))})",
                         file_rows)
        conn.executemany("INSERT INTO postings(wid, start, data) VALUES (?, ?, ?)",
                         sorted([(ids[w], start, data) for w, (start, data) in rows.items()]))
        if not self.fresh and rows:
            self._merge([ids[w] for w in rows])
        self.gather = _Gather(g.next_pid)

    def _merge(self, wids: list[int]) -> None:
        """Merge the rows of words that have more than ``MAX_CHUNKS`` into one."""
        conn = self.conn
        many: list[int] = []
        for i in range(0, len(wids), 500):
            chunk = wids[i:i + 500]
            many.extend(int(r[0]) for r in conn.execute(
                f"SELECT wid FROM postings WHERE wid IN ({','.join('?' * len(chunk))})"
                f" GROUP BY wid HAVING COUNT(*) > {MAX_CHUNKS}", chunk))
        for wid in many:
            rows = conn.execute("SELECT start, data FROM postings WHERE wid = ? ORDER BY start", (wid,)).fetchall()
            conn.execute("DELETE FROM postings WHERE wid = ?", (wid,))
            conn.execute("INSERT INTO postings(wid, start, data) VALUES (?, ?, ?)",
                         (wid, rows[0][0], b"".join(_joined(r[1] for r in rows))))


def _rows(flats: list[list[int]]) -> tuple[list[bytes], array[int]]:
    """Postings rows (see :func:`encode`) from flat (pid, tf, length) triples, and each row's first pid:
    all of them packed at once, then each row cut out of the three arrays (a word at a time costs far more)."""
    a = array("I", chain.from_iterable(flats))
    pids, tfs, lens = a[0::3], a[1::3], a[2::3]
    try:
        counts = array("H", tfs)
    except OverflowError:
        counts = array("H", [min(t, MAX_TF) for t in tfs])
    p, ln, c = pids.tobytes(), lens.tobytes(), counts.tobytes()
    rows = []
    at = 0
    for flat in flats:
        end = at + len(flat) // 3
        rows.append(b"".join((p[4 * at:4 * end], ln[4 * at:4 * end], c[2 * at:2 * end])))
        at = end
    return rows, array("I", [f[0] for f in flats])



def passage_columns(passages: Sequence[_Passage], mday: int) -> tuple[array[int], array[int] | None, list[str]]:
    """A topic's per-passage columns as the index keeps them: each passage's day (the file's, *mday*, when it
    names none), its last day true (None when no passage has one), and its links (``"i<TAB>target"``)."""
    days = array("i", [p.day.toordinal() if p.day else mday for p in passages])
    untils = array("i", [p.until.toordinal() if p.until else 0 for p in passages]) \
        if any(p.until for p in passages) else None
    links = [f"{i}\t{t}" for i, p in enumerate(passages) if "[[" in p.text or "](" in p.text
             for t in link_targets(p.text)]
    return days, untils, links


def _joined(rows: Iterable[bytes]) -> list[bytes]:
    """Postings rows (in pid order) as one row's parts: all pids, then all lengths, then all counts."""
    parts = [decode(r) for r in rows]
    return [p.pids.tobytes() for p in parts] + [p.lens.tobytes() for p in parts] + [p.tfs.tobytes() for p in parts]


MAX_CHUNKS = 8
"""A word with more postings rows than this (one is added by each refresh that indexes it) has them merged."""


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
        folder, _prefix = _topic_folder(home, bot)
        ft = read_file(folder / name, home.trust_root(bot))
    except (BotMemoryError, OSError):
        return None
    return ft.hash if ft is not None else None


TICK_NS = 50_000_000
"""How long after a file's last change a same-size edit could keep its timestamp on a file system
with fine timestamps (the kernel stamps files from a clock that ticks every few milliseconds)."""
COARSE_TICK_NS = 2_000_000_000
"""The same for file systems with whole-second (or FAT's two-second) timestamps."""


def _is_racy(key: _Key, now: int) -> bool:
    """Whether *key* could still change without its timestamps changing (git's "racy" files)."""
    latest = max(key.mtime_ns, key.ctime_ns)
    tick = COARSE_TICK_NS if key.mtime_ns % 1_000_000_000 == 0 else TICK_NS
    return now - latest < min(tick, RACY_NS)


PARALLEL_BYTES = 1_000_000
"""A build that reads more than this has forked processes parse its files (where a process can be
forked: Linux, not a frozen bundle, two cores or more) while this one writes; otherwise this one
parses them all."""
MAX_WORKERS = 4
"""At most this many parse processes for a large build (one a core: this process only gathers and writes what
they parsed, and its writing of a step overlaps their parsing of the next)."""


def _workers() -> int:
    """How many processes parse a large build: one for each core this process may run on, up to MAX_WORKERS."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):   # pragma: no cover
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def _parts(step: list[tuple[str, _Key]], n: int) -> list[list[tuple[str, _Key]]]:
    """A build step's files in *n* parts of about equal bytes (in order; fewer when it has fewer files),
    one for each parse process."""
    size = sum(k.size for _n, k in step)
    out: list[list[tuple[str, _Key]]] = []
    part: list[tuple[str, _Key]] = []
    got = 0
    for name, key in step:
        part.append((name, key))
        got += key.size
        if len(out) < n - 1 and got >= size * (len(out) + 1) / n:
            out.append(part)
            part = []
    if part:
        out.append(part)
    return out


_job: tuple[Home, str, int, StemMemo] | None = None
"""What the forked workers parse with: home, bot, the refresh's time and the word -> stem memo."""


def _can_fork() -> bool:
    """Whether a worker can be forked: on Linux, from a process running one thread (a lock another thread
    holds would stay held in the child), not a frozen bundle, with two cores or more."""
    import sys
    import threading

    if sys.platform != "linux" or getattr(sys, "frozen", False) or threading.active_count() > 1:
        return False
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except (AttributeError, OSError):   # pragma: no cover
        return (os.cpu_count() or 1) >= 2


def _worker(home: Home, bot: str, now: int, language: str, workers: int) -> Executor:
    """*workers* forked processes that parse files for this refresh (they inherit what they need: nothing
    is pickled but the names each is given and what it gathers)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .. import redact  # noqa: F401 - compiled once here: the forked workers inherit it

    global _job
    _job = (home, bot, now, StemMemo(Stems(language)))
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))


def _parse_all(names: list[tuple[str, _Key]], base: int) -> _Shipped:
    """In a worker: parse *names* into a gathering of pids from *base* (see :func:`reserve`)."""
    assert _job is not None
    home, bot, now, memo = _job
    return _parse_shipped(names, base, home, bot, now, memo)


def _parse_shipped(names: list[tuple[str, _Key]], base: int, home: Home, bot: str, now: int,
                   memo: StemMemo) -> _Shipped:
    g = _Gather(base)
    _parse_into(g, names, home, bot, now, memo)
    return g.ship()


def reserve(names: list[tuple[str, _Key]]) -> int:
    """The passage ids set aside for *names* in a build parsed by workers: each file's size in bytes / 2, +1.

    A passage takes at least one character and one line break, so no file holds more (and :func:`_parse`
    leaves out the passages of a file that grew past it since it was listed). A worker is handed the first
    id of its part, so that what it sends back is written as it is."""
    return sum(key.size // 2 + 1 for _n, key in names)


PID_LIMIT = 1 << 31
"""A build whose parts' ids would pass this starts the index over (passage ids are kept as 32-bit
numbers; the gaps a parallel build leaves add up only over hundreds of large rebuilds)."""
