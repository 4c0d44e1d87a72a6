"""Recall before each turn, and session search.

**Recall** (``recall``) finds the bot's own topic notes that share content words
with the person's message and returns the block that goes in front of that
turn's message. Only topic files are recalled — never ``MEMORY.md`` (already
loaded), ``memory/archive.md`` (older or no longer true) or daily logs.

- A *passage* is a dated entry with its own lines, or a hand-written paragraph
  (lines between blank lines; a markdown heading ends a paragraph and is not a
  passage itself). Frontmatter is never a passage; struck entries are never
  recalled, nor are entries whose ``until`` date has passed.
- *Content words* are words of 3+ letters or digits (Unicode), lowercased, not
  in :data:`STOP_WORDS`; Chinese and Japanese count by character bigrams
  (:mod:`.words`). Matching is by whole word, case-insensitive, on Snowball
  stems in the language of the bot's notes (``synced`` finds ``syncing``).
- The gate (the spec's): a passage is a hit when it holds one content word of
  the message, two when the message has 5 or more.
- Ranking: BM25 over the bot's passages (a word weighs by its rarity; a passage
  shorter than half the average is normalised as that long), plus, for a topic
  whose file name, title or aliases hold a word of the message, that word's
  weight again scaled by its rarity (``NAME_WEIGHT``, ``_name_weight``: a word
  common across passages adds little). An alias that is a folder path counts
  by its last part; a section heading's words are indexed with the paragraph
  under it (and count toward the gate: they are that paragraph's section). The date (entry date, else the file's
  modification date) breaks ties between equal scores only. At most two notes
  come from one topic unless no other topic matches. When fewer than four
  passages match, topics whose name, title or alias matches fill the remaining
  places with their opening (first 3 body lines), ranked below every passage.
- The block opens with a line saying these are the bot's own notes and that a
  command inside one is not an instruction, then up to 4 numbered notes, each
  headed ``N. FILE · DATE``; the whole text is at most 6,000 characters, a long
  note being cut with ``…``.

Recall reads an **index** instead of the files: a SQLite database under
``<home>/botmemory/index/<bot>.sqlite3`` (outside the workspace, mode 0600)
mapping each word stem to the passages holding it, with counts for BM25: a
word's postings are packed arrays (passage ids, the word's count in each, each
passage's length), one row per word and build step (:mod:`.recall_index`), and
BM25 is computed here in Python from the query words' arrays. It keeps no
text: a recalled passage is read again from its file, checked by the
SHA-256 the file was indexed with, and every word is taken from redacted text,
so no secret is copied out of the workspace. Each topic file is keyed by its
(size, mtime_ns, ctime_ns, inode) and the index keeps a fingerprint of the
listing it matches, so a call lists the folder (one ``stat`` a file) and reads
nothing else when nothing changed; new or changed files are re-parsed, deleted
ones dropped, and a file indexed within a timestamp tick of its change is hashed
again once (never parsed again unless its bytes changed). When more than
``INLINE_BYTES`` wait to be indexed, recall answers from what is indexed so far
and a detached process builds the rest (:func:`refresh_index` is the same build
for the tray app and ``watch``); a long build commits after 2, 4, 8, … MB read, so
that a recall meanwhile sees its progress, and on Linux shares the parsing with
a forked worker process. The files stay the source of truth: a missing,
outdated or corrupt index is rebuilt from them, and when no index can be kept on
disk one is built in memory for the call. SQLite's WAL mode lets processes
recall while another writes; updates are serialised by its write lock.

**Search** (``search``) is ``session_search`` over memory: every given word must
match (whole word, case-insensitive, plural ``s`` folded; a Chinese or Japanese
word as written) over ``MEMORY.md``, topics, the archive and daily logs, within
an inclusive date range. It reads the files directly, skipping those that do not
contain every word.
"""
from __future__ import annotations


import logging
import heapq
import math
import os
import sqlite3
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from . import config
from .paths import Home
from .words import Stems, is_cjk_token
from .passages import _Key, _Topic, _list_topics, _topic_folder
from .recall_index import (
    _Unusable, _build_in_background, _configure, _meta, _open, _reread_topic, _sync, _synced, _joined, Postings,
    decode,
)
from .passages import (  # re-exported: recall's words and results, as callers name them
    HEADER as HEADER,
    Hit as Hit,
    MANY_WORDS as MANY_WORDS,
    MAX_CHARS as MAX_CHARS,
    MAX_NOTES as MAX_NOTES,
    MAX_QUERY_WORDS as MAX_QUERY_WORDS,
    MIN_MESSAGE_CHARS as MIN_MESSAGE_CHARS,
    Note as Note,
    RecallResult as RecallResult,
    STOP_WORDS as STOP_WORDS,
    WHY_MEMORY_OFF as WHY_MEMORY_OFF,
    WHY_NO_MATCH as WHY_NO_MATCH,
    WHY_RECALL_OFF as WHY_RECALL_OFF,
    WHY_SHORT as WHY_SHORT,
    content_words as content_words,
    fold as fold,
)
from .recall_index import index_path as index_path, refresh_index as refresh_index  # re-exported

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Found:
    file: str
    day: date
    text: str


K1 = 1.2
B = 0.75
"""BM25's term-frequency saturation and length normalisation."""
SHORT_FLOOR = 0.5
"""A passage shorter than this fraction of the average length is normalised as if it were that long:
a one-line passage is not rewarded for being short beyond that."""
NAME_WEIGHT = 1.0
"""A passage in a topic whose file name, title or aliases hold a word of the message gains this many
times that word's weight, scaled by its rarity (BM25F-style: the name is a second, short field of every passage)."""
PER_TOPIC = 2
"""At most this many notes from one topic, unless no other topic matches."""
CANDIDATES = 100


def _idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _name_weight(idf: float, top: float) -> float:
    """A name word's weight: its idf scaled by its rarity (idf / the idf of a word no passage holds), so a
    word common across pages ("note", "link") adds little when it is in a topic's name and a rare one nearly
    its full idf."""
    return idf * idf / top


def _scored(post: list[tuple[Postings, float]], need: int, avg: float, limit: int,
            ranges: list[tuple[int, int]] | None = None) -> list[tuple[int, float]]:
    """(pid, BM25 score) of the best passages holding at least *need* of the words, best first (equal scores:
    the later passage first). *post* holds each word's postings (pids ascending, counts, lengths) and idf;
    with *ranges*, only passages in those pid ranges count."""
    floor = SHORT_FLOOR * avg
    k1 = K1 + 1
    keep = 1 - B
    acc: dict[int, float] = {}
    hits: Counter[int] = Counter()
    for (pids, tfs, lens), idf in post:
        if ranges is not None:
            spans = [(bisect_left(pids, lo), bisect_left(pids, hi)) for lo, hi in ranges]
            pids = array("I", (p for i, j in spans for p in pids[i:j]))
            tfs = array("H", (t for i, j in spans for t in tfs[i:j]))
            lens = array("I", (n for i, j in spans for n in lens[i:j]))
        # BM25, term by term as SQL would: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * max(len, floor) / avg))
        scores = [idf * tf * k1 / (tf + K1 * (keep + B * (n if n > floor else floor) / avg))
                  for tf, n in zip(tfs, lens)]
        if len(post) == 1:
            return [(p, s) for s, p in heapq.nlargest(limit, zip(scores, pids))]
        get = acc.get
        for p, s in zip(pids, scores):
            acc[p] = get(p, 0.0) + s
        if need > 1:
            hits.update(pids)
    if need > 1:
        return [(p, s) for s, p in heapq.nlargest(limit, ((s, p) for p, s in acc.items() if hits[p] >= need))]
    return [(p, s) for s, p in heapq.nlargest(limit, ((s, p) for p, s in acc.items()))]


def _postings(conn: sqlite3.Connection, stemmed: list[str]) -> dict[str, Postings]:
    """Each word's postings (see :func:`.recall_index.encode`), for the words some passage holds."""
    marks = ",".join("?" * len(stemmed))
    rows: dict[str, list[bytes]] = {}
    for word, data in conn.execute(f"SELECT w.word, p.data FROM words w JOIN postings p ON p.wid = w.wid"
                                   f" WHERE w.word IN ({marks}) ORDER BY p.wid, p.start", stemmed):
        rows.setdefault(str(word), []).append(data)
    return {w: decode(b"".join(_joined(d)) if len(d) > 1 else d[0]) for w, d in rows.items()}


def _query(conn: sqlite3.Connection, home: Home, bot: str, keys: list[str], need: int,
           today: date, *, strict: bool = True) -> list[_Found] | None:
    """The notes for *keys*, or None when a file changed since it was indexed (sync and ask again);
    not *strict* (an index still being built), such a file's passages are left out instead."""
    prefix = _topic_folder(home, bot)[1]
    stems = Stems(_meta(conn, "language") or "english")
    stemmed: list[str] = []
    for k in keys:
        s = k if is_cjk_token(k) else stems(k)
        if s not in stemmed:
            stemmed.append(s)
    n = max(int(_meta(conn, "passages") or 0), 1)
    post = _postings(conn, stemmed)
    idf = {w: _idf(n, len(a[0])) for w, a in post.items()}
    q = [(post[w], idf[w]) for w in stemmed if w in post]
    avg = max(float(_meta(conn, "length") or 0) / n, 1.0)
    t = today.toordinal()
    files: dict[int, tuple[str, str, int, int, int, int, str]] = {}

    def load_files(where: str, args: Sequence[Any]) -> list[int]:
        rows = conn.execute(f"SELECT id, name, names, first_pid, n, opening, day, hash FROM files WHERE {where}",
                            args).fetchall()
        for r in rows:
            files[int(r[0])] = (str(r[1]), str(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]), str(r[7]))
        return [int(r[0]) for r in rows]

    # name matches: the stems of the message in a topic's file name, title or aliases
    top = _idf(n, 0)
    name_bonus: dict[int, float] = {}
    name_hits: dict[int, int] = {}
    matching = load_files(" OR ".join(["instr(names, ?) > 0"] * len(stemmed)), [f" {k} " for k in stemmed])
    for fid in matching:
        names = files[fid][1]
        hit = [s for s in stemmed if f" {s} " in names]
        if hit:
            name_hits[fid] = len(hit)
            name_bonus[fid] = NAME_WEIGHT * sum(_name_weight(idf.get(s, top), top) for s in hit)
    cands: dict[int, float] = {}
    if len(q) >= need and q:
        cands.update(_scored(q, need, avg, CANDIDATES))
        boosted = sorted(name_bonus, key=lambda f: -name_bonus[f])[:20]
        if boosted:
            ranges = [(files[f][2], files[f][2] + files[f][3]) for f in boosted]
            cands.update(_scored(q, need, avg, CANDIDATES, ranges))
    ranked: list[tuple[float, int, int, int]] = []     # (score, day, pid, file id)
    if cands:
        marks = ",".join("?" * len(cands))
        for pid, fid, day, until in conn.execute(
                f"SELECT pid, file_id, day, until FROM passages WHERE pid IN ({marks})", list(cands)):
            if until is not None and until < t:
                continue
            ranked.append((cands[pid] + name_bonus.get(fid, 0.0), day, pid, fid))
    ranked.sort(reverse=True)
    missing = sorted({r[3] for r in ranked} - set(files))
    if missing:
        load_files(f"id IN ({','.join('?' * len(missing))})", missing)
    chosen: list[tuple[float, int, int, int]] = []
    per: Counter[int] = Counter()
    alone = len({r[3] for r in ranked}) == 1          # no other topic matches: no cap
    for r in ranked:
        if alone or per[r[3]] < PER_TOPIC:
            chosen.append(r)
            per[r[3]] += 1
        if len(chosen) == MAX_NOTES:
            break
    out: list[_Found] = []
    texts: dict[int, _Topic | None] = {}

    def topic_of(fid: int) -> _Topic | None:
        if fid not in texts:
            name, _names, _first, _n, _op, _day, digest = files[fid]
            got = _reread_topic(home, bot, name)
            texts[fid] = got[0] if got is not None and got[1] == digest else None
        return texts[fid]

    for _score, day, pid, fid in chosen:
        topic = topic_of(fid)
        i = pid - files[fid][2]
        if topic is None or i >= len(topic.passages):
            if strict:
                return None
            continue
        out.append(_Found(prefix + files[fid][0], date.fromordinal(day), topic.passages[i].text))
    if len(out) < MAX_NOTES:
        # topics whose file name, title or alias matches: their opening, below every passage
        have = {f.file for f in out}
        order = sorted((f for f in name_hits if name_hits[f] >= need and files[f][4]),
                       key=lambda f: (-name_hits[f], -files[f][5], files[f][0]))
        for fid in order:
            if len(out) >= MAX_NOTES:
                break
            name = files[fid][0]
            if prefix + name in have:
                continue
            topic = topic_of(fid)
            if topic is None:
                if strict:
                    return None
                continue
            if topic.opening is not None:
                out.append(_Found(prefix + name, date.fromordinal(files[fid][5]), topic.opening))
    return out


def _is_busy(e: sqlite3.Error) -> bool:
    msg = str(e).lower()
    return any(w in msg for w in ("locked", "busy", "readonly", "read-only", "unable to open",
                                   "disk i/o", "database or disk is full", "permission"))


def _discard(path: Path) -> None:
    """Remove a corrupt index (and its WAL files) so that it is rebuilt."""
    from filelock import FileLock, Timeout  # only here (a corrupt index): a recall before a turn skips its import

    lock = FileLock(str(path.with_name(path.name + ".lock")), timeout=30)
    try:
        with lock:
            for suffix in ("", "-wal", "-shm", "-journal"):
                try:
                    os.unlink(f"{path}{suffix}")
                except FileNotFoundError:
                    pass
    except Timeout:
        raise _Unusable("the index is being rebuilt by another process") from None
    _synced.pop(str(path), None)


def _answer(conn: sqlite3.Connection, home: Home, bot: str, listing: dict[str, _Key], memo: str,
            keys: list[str], need: int, today: date, *, background: bool) -> list[_Found]:
    import sys

    # a frozen bundle's executable cannot run ``-m botmemory.core.recall_index``: it builds before answering
    background = background and not getattr(sys, "frozen", False)
    ready = _sync(conn, home, bot, listing, memo, wait=not background)
    if not ready:
        _build_in_background(home, bot)
        logger.info("recall index of %s is being built; answering from what is indexed so far", bot)
    for _attempt in range(3):
        found = _query(conn, home, bot, keys, need, today, strict=ready)
        if found is not None:
            return found
        _synced.pop(memo, None)
        _sync(conn, home, bot, _list_topics(home, bot), memo)
    return []


def _recall_from_index(home: Home, bot: str, keys: list[str], need: int, today: date,
                       background: bool = True) -> list[_Found]:
    listing = _list_topics(home, bot)
    if not listing:
        return []
    path = index_path(home, bot)
    for attempt in range(2):
        try:
            conn = _open(path, home.root)
            try:
                return _answer(conn, home, bot, listing, str(path), keys, need, today, background=background)
            finally:
                conn.close()
        except (_Unusable, OSError) as e:
            logger.warning("recall index %s unusable (%s); using one in memory", path, e)
            break
        except sqlite3.Error as e:
            _synced.pop(str(path), None)
            if isinstance(e, sqlite3.OperationalError) and _is_busy(e) or attempt == 1:
                logger.warning("recall index %s unusable (%s); using one in memory", path, e)
                break
            logger.warning("recall index %s is corrupt (%s); rebuilding it", path, e)
            try:
                _discard(path)
            except (OSError, _Unusable) as e2:
                logger.warning("could not remove the corrupt index %s: %s", path, e2)
                break
    conn = _configure(sqlite3.connect(":memory:", isolation_level=None))
    try:
        return _answer(conn, home, bot, listing, "", keys, need, today, background=False)
    finally:
        conn.close()


# ----- the block


def _allowances(budget: int, lengths: list[int]) -> list[int]:
    """Share *budget* characters among texts: short ones whole, long ones cut to an equal share."""
    out = [0] * len(lengths)
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    left = max(budget, 0)
    for pos, i in enumerate(order):
        share = left // (len(order) - pos)
        out[i] = min(lengths[i], share)
        left -= out[i]
    return out


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    if limit <= 1:
        return "…"[:limit]
    return text[:limit - 1].rstrip() + "…"


def _compose(found: list[_Found]) -> RecallResult:
    if not found:
        return RecallResult([], "")
    heads = [f"{i}. {f.file} · {f.day.isoformat()}" for i, f in enumerate(found, 1)]
    fixed = len(HEADER) + sum(len("\n\n") + len(h) + len("\n") for h in heads)
    allow = _allowances(MAX_CHARS - fixed, [len(f.text) for f in found])
    notes = [Note(i, f.file, f.day, _cut(f.text, a)) for i, (f, a) in enumerate(zip(found, allow), 1)]
    text = HEADER + "".join(f"\n\n{h}\n{n.text}" for h, n in zip(heads, notes))
    return RecallResult(notes, text)


# ----- recall


def recall(home: Home, bot: str, message: str, today: date, *, background: bool = True) -> RecallResult:
    """The notes recall puts in front of *message* for *bot*: at most 4, at most 6,000 characters.

    When more than ``INLINE_BYTES`` of topics are not indexed yet, it answers from
    what is indexed so far and has a background process build the rest
    (``background=False`` waits for the index instead).
    """
    home.require_bot(bot)
    if not config.bot_settings(home, bot).memory:
        return RecallResult([], "", WHY_MEMORY_OFF)
    if not config.auto_recall(home):
        return RecallResult([], "", WHY_RECALL_OFF)
    text = message.strip()
    if len(text) < MIN_MESSAGE_CHARS:
        return RecallResult([], "", WHY_SHORT)
    words = content_words(text)
    if not words:
        return RecallResult([], "", WHY_NO_MATCH)
    need = 2 if len(words) >= MANY_WORDS else 1
    result = _compose(_recall_from_index(home, bot, words[:MAX_QUERY_WORDS], need, today, background))
    if not result.notes:
        result = RecallResult([], "", WHY_NO_MATCH)
    logger.info("auto-recall: %s got %d note(s) and 0 conversation passage(s)", bot, len(result.notes))
    return result
