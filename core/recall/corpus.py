"""What recall ranks: the index, or — while the index is being built — the index and, read directly, the topic
files it does not cover yet.

:func:`.query._query` asks a corpus for the message's postings, the counts BM25 needs and the files' rows, and
ranks them the one way (:mod:`.ranking`). :class:`IndexCorpus` answers from the SQLite index. :class:`Mixed`
answers as the finished index would: it leaves out what the index holds of files that changed or went since
they were indexed, and reads every topic file the index does not cover (new or changed ones) as the builder
would parse it (:func:`.build._parse`), giving its passages the ids the builder would give them (after every id
the index holds, in the order of the files' names). The counts, the postings and so the ranking are those of
the finished index: its answer is the warm one. Only a *deadline* can stop the reading early; the answer is then
ranked over what was read (:attr:`Direct.complete` is False).
"""
from __future__ import annotations

import sqlite3
import time
from array import array
from bisect import bisect_right
from collections import namedtuple
from collections.abc import Collection, Sequence

from ..disk.paths import Home
from .build import Postings, _joined, _parse, _reread_topic, decode, passage_columns
from .passages import StemMemo, _Key, _Topic

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time

if TYPE_CHECKING:
    from typing import NamedTuple

    class Row(NamedTuple):
        """A topic file as recall reads it (the index's files table, :data:`_ROW`'s columns in order)."""

        name: str
        names: str          # its name stems, " a b "
        first_pid: int      # its first passage's id (its passages' ids are consecutive)
        n: int              # how many passages it has
        opening: int        # 1: it has an opening (shown when its name matches and fewer passages do)
        day: int            # its modification day (an ordinal)
        hash: str           # the SHA-256 of the bytes it was indexed from
        secret: int         # 1: it holds a secret (a note of it is redacted before it is shown)

    class _Extra(NamedTuple):
        """What :class:`Direct` keeps of a file read directly beside its :class:`Row` (the rest of the row
        the builder would write)."""

        length: int             # its passages' words in all
        days: bytes             # each passage's day (array('i') of ordinals)
        untils: bytes | None    # each passage's end date (0: none); None when none has one
        links: str | None       # "i<TAB>target" lines; None when no passage links anywhere

    class Stale(NamedTuple):
        """An indexed file that changed or went since it was indexed: what :class:`Mixed` leaves out."""

        first_pid: int
        n: int          # its passages
        length: int     # their words in all
else:   # the same named tuples without importing typing
    Row = namedtuple("Row", ("name", "names", "first_pid", "n", "opening", "day", "hash", "secret"))
    _Extra = namedtuple("_Extra", ("length", "days", "untils", "links"))
    Stale = namedtuple("Stale", ("first_pid", "n", "length"))

_ROW = "name, names, first_pid, n, opening, day, hash, secret"
"""The files table's columns a :class:`Row` holds, in its order (the on-disk schema is :mod:`.index`'s)."""
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _row(r: Sequence[object]) -> Row:
    """A :class:`Row` from the columns :data:`_ROW` names, as SQLite gives them."""
    name, names, first_pid, n, opening, day, digest, secret = r
    return Row(str(name), str(names), int(str(first_pid)), int(str(n)), int(str(opening)), int(str(day)),
               str(digest), int(str(secret)))


class IndexCorpus:
    """The index as it is (see :mod:`.index` for what it keeps)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def sizes(self) -> tuple[int, float]:
        """How many passages there are, and their words in all."""
        return int(self.meta("passages") or 0), float(self.meta("length") or 0)

    def postings(self, stemmed: Sequence[str]) -> dict[str, Postings]:
        """Each word's postings (its rows joined in pid order), for the words some passage holds."""
        rows: dict[str, list[bytes]] = {}
        for word, data in self.conn.execute(
                f"SELECT w.word, p.data FROM words w JOIN postings p ON p.wid = w.wid"
                f" WHERE w.word IN ({_marks(len(stemmed))}) ORDER BY p.wid, p.start", list(stemmed)):
            rows.setdefault(str(word), []).append(data)
        return {w: decode(b"".join(_joined(d)) if len(d) > 1 else d[0]) for w, d in rows.items()}

    def spans(self) -> list[tuple[int, int, int]]:
        """(first pid, passages, file id) of every file."""
        return [(int(a), int(b), int(c)) for a, b, c in self.conn.execute("SELECT first_pid, n, id FROM files")]

    def named(self, stemmed: Sequence[str]) -> dict[int, Row]:
        """The files whose name stems hold one of *stemmed* (or may: the caller checks)."""
        return {int(r[0]): _row(r[1:]) for r in self.conn.execute(
            f"SELECT id, {_ROW} FROM files WHERE " + " OR ".join(["instr(names, ?) > 0"] * len(stemmed)),
            [f" {k} " for k in stemmed])}

    def rows(self, fids: Collection[int]) -> dict[int, Row]:
        ids = list(fids)
        return {int(r[0]): _row(r[1:]) for r in self.conn.execute(
            f"SELECT id, {_ROW} FROM files WHERE id IN ({_marks(len(ids))})", ids)} if ids else {}

    def lengths(self, fids: Collection[int]) -> dict[int, int]:
        ids = list(fids)
        return {int(f): int(n) for f, n in self.conn.execute(
            f"SELECT id, length FROM files WHERE id IN ({_marks(len(ids))})", ids)} if ids else {}

    def links(self, fids: Collection[int]) -> list[tuple[int, str]]:
        """(first pid, "i<TAB>target" lines) of the files among *fids* whose passages link somewhere."""
        ids = list(fids)
        return [(int(a), str(b)) for a, b in self.conn.execute(
            f"SELECT first_pid, links FROM files WHERE id IN ({_marks(len(ids))}) AND links IS NOT NULL", ids)]

    def by_name(self, lowered: Collection[str]) -> dict[str, int]:
        """File ids by their name lower-cased (ASCII letters only, as SQLite's ``lower()``)."""
        names = list(lowered)
        return {str(nm): int(fid) for fid, nm in self.conn.execute(     # by the index on lower(name)
            f"SELECT id, lower(name) FROM files WHERE lower(name) IN ({_marks(len(names))})", names)}

    def days(self, fids: Collection[int]) -> list[tuple[int, int, bytes, bytes | None]]:
        """(file id, first pid, its passages' days, their end dates or None) of *fids*."""
        ids = list(fids)
        return [(int(f), int(a), bytes(d), None if u is None else bytes(u)) for f, a, d, u in self.conn.execute(
            f"SELECT id, first_pid, days, untils FROM files WHERE id IN ({_marks(len(ids))})", ids)]

    def topic(self, home: Home, bot: str, row: Row) -> _Topic | None:
        """A recalled file read again (None when it changed since it was indexed)."""
        got = _reread_topic(home, bot, row.name)
        if got is None:
            return None
        topic, digest, _text = got
        return topic if digest == row.hash else None


class Direct:
    """Topic files read directly, as the builder would index them, for the message's stems only: each file's
    row, its passages' ids (from *base*, in the order given) and lengths, and the stems' postings."""

    def __init__(self, stemmed: Sequence[str], base_pid: int, base_fid: int) -> None:
        self.stemmed = list(stemmed)
        self.next_pid = base_pid
        self.base_fid = self.next_fid = base_fid
        self.files: dict[int, Row] = {}
        self.extra: dict[int, _Extra] = {}
        self.post: dict[str, list[tuple[int, int, int]]] = {s: [] for s in self.stemmed}   # (pid, tf, length)
        self.passages = 0
        self.length = 0
        self.complete = True

    def read(self, home: Home, bot: str, todo: Sequence[tuple[str, _Key]], memo: StemMemo,
             deadline: float | None = None) -> None:
        """Read *todo* in order (each file as :func:`.build._parse` parses it); stop at *deadline*
        (``time.monotonic()``), leaving :attr:`complete` False."""
        now = time.time_ns()
        for name, key in todo:
            if deadline is not None and time.monotonic() >= deadline:
                self.complete = False
                return
            got = _parse(home, bot, name, key, now, memo)
            if got is None:     # gone meanwhile
                continue
            first = pid = self.next_pid
            total = 0
            for counts in got.per_passage:
                length = sum(counts.values())
                total += length
                for s in self.stemmed:
                    tf = counts.get(s)
                    if tf:
                        self.post[s].append((pid, tf, length))
                pid += 1
            passages = got.topic.passages
            mday = got.day
            days, untils, links = passage_columns(passages, mday)
            fid = self.next_fid
            self.files[fid] = Row(name, got.names, first, pid - first, int(got.opening), mday, got.digest,
                                  int(got.secret))
            self.extra[fid] = _Extra(total, days.tobytes(), untils.tobytes() if untils else None,
                                     "\n".join(links) or None)
            self.next_fid += 1
            self.next_pid = pid
            self.passages += pid - first
            self.length += total


class Mixed:
    """The index less its *stale* files (changed or gone since indexed), plus the files read directly."""

    def __init__(self, index: IndexCorpus, stale: dict[int, Stale], direct: Direct, language: str) -> None:
        self.index = index
        self.language = language    # the notes' language, as the builder decides it
        self.stale = stale          # by file id
        self.direct = direct
        ranges = sorted((s.first_pid, s.first_pid + s.n) for s in stale.values() if s.n)
        self._lo = [a for a, _ in ranges]
        self._hi = [b for _, b in ranges]

    def _gone(self, pid: int) -> bool:
        i = bisect_right(self._lo, pid) - 1
        return i >= 0 and pid < self._hi[i]

    def _mine(self, fid: int) -> bool:
        return fid >= self.direct.base_fid

    def meta(self, key: str) -> str | None:
        return self.language if key == "language" else self.index.meta(key)

    def sizes(self) -> tuple[int, float]:
        n, length = self.index.sizes()
        return (n - sum(s.n for s in self.stale.values()) + self.direct.passages,
                length - sum(s.length for s in self.stale.values()) + self.direct.length)

    def postings(self, stemmed: Sequence[str]) -> dict[str, Postings]:
        out: dict[str, Postings] = {}
        got = self.index.postings(stemmed)
        for s in stemmed:
            pids, tfs, lens = got.get(s) or Postings(array("I"), array("H"), array("I"))
            if self.stale and pids:
                keep = [i for i, p in enumerate(pids) if not self._gone(p)]
                if len(keep) != len(pids):
                    pids = array("I", [pids[i] for i in keep])
                    tfs = array("H", [tfs[i] for i in keep])
                    lens = array("I", [lens[i] for i in keep])
            more = self.direct.post.get(s, [])
            if more:
                pids = pids + array("I", [pid for pid, _tf, _len in more])
                tfs = tfs + array("H", [min(tf, 0xFFFF) for _pid, tf, _len in more])
                lens = lens + array("I", [length for _pid, _tf, length in more])
            if pids:
                out[s] = Postings(pids, tfs, lens)
        return out

    def spans(self) -> list[tuple[int, int, int]]:
        return ([(first, n, fid) for first, n, fid in self.index.spans() if fid not in self.stale]
                + [(r.first_pid, r.n, fid) for fid, r in self.direct.files.items()])

    def named(self, stemmed: Sequence[str]) -> dict[int, Row]:
        out = {f: r for f, r in self.index.named(stemmed).items() if f not in self.stale}
        out.update((f, r) for f, r in self.direct.files.items() if any(f" {s} " in r.names for s in stemmed))
        return out

    def rows(self, fids: Collection[int]) -> dict[int, Row]:
        out = self.index.rows([f for f in fids if not self._mine(f)])
        out.update((f, self.direct.files[f]) for f in fids if self._mine(f))
        return out

    def lengths(self, fids: Collection[int]) -> dict[int, int]:
        out = self.index.lengths([f for f in fids if not self._mine(f)])
        out.update((f, self.direct.extra[f].length) for f in fids if self._mine(f))
        return out

    def links(self, fids: Collection[int]) -> list[tuple[int, str]]:
        out = self.index.links([f for f in fids if not self._mine(f)])
        out += [(self.direct.files[f].first_pid, lk) for f in fids if self._mine(f)
                for lk in [self.direct.extra[f].links] if lk is not None]
        return out

    def by_name(self, lowered: Collection[str]) -> dict[str, int]:
        out = {n: f for n, f in self.index.by_name(lowered).items() if f not in self.stale}
        want = set(lowered)
        for f, r in self.direct.files.items():
            low = r.name.translate(_ASCII_LOWER)
            if low in want:
                out[low] = f
        return out

    def days(self, fids: Collection[int]) -> list[tuple[int, int, bytes, bytes | None]]:
        out = self.index.days([f for f in fids if not self._mine(f)])
        out += [(f, self.direct.files[f].first_pid, x.days, x.untils)
                for f in fids if self._mine(f) for x in [self.direct.extra[f]]]
        return out

    def topic(self, home: Home, bot: str, row: Row) -> _Topic | None:
        return self.index.topic(home, bot, row)
