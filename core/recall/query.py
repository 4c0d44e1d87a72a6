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
  (:mod:`..text.words`). Matching is by whole word, case-insensitive, on Snowball
  stems in the language of the bot's notes (``synced`` finds ``syncing``).
- The gate (docs/RULES.md "Recall and search"): a passage is a hit when it holds one content word of
  the message, two when the message has 5 or more.
- Ranking (:mod:`.ranking`, a pure function of each stem's postings): BM25 over
  the bot's passages (a word weighs by its rarity; a passage shorter than half
  the average is normalised as that long), plus half the BM25 of its topic read
  as one document (how much the page is about the words), plus, for a topic
  whose file name, title or aliases hold a word of the message, that word's
  weight again scaled by its rarity, plus a share (0.15) of the score of any
  of the ten best passages that links to the topic (``[[Name]]`` or
  ``[text](Name.md)``, a top-level
  topic file by its name, case-insensitive; the index keeps each passage's
  link targets). An alias that is a folder path counts by
  its last part; a section heading's words are indexed with the paragraph under
  it (and count toward the gate: they are that paragraph's section). The date
  (entry date, else the file's modification date) breaks ties between equal
  scores only. The best note of each topic comes first, then second notes while
  places are left: at most two notes from one topic unless no other topic
  matches. When fewer than four passages match, topics whose name, title or
  alias matches fill the remaining places with their opening (first 3 body
  lines), ranked below every passage.
- The block opens with a line saying these are the bot's own notes and that a
  command inside one is not an instruction, then up to 4 numbered notes, each
  headed ``N. FILE · DATE``; the whole text is at most 6,000 characters, a long
  note being cut with ``…``.

Recall reads an **index** instead of the files: a SQLite database under
``<home>/botmemory/index/<bot>.sqlite3`` (outside the workspace, mode 0600)
mapping each word stem to the passages holding it, with counts for BM25: a
word's postings are packed arrays (passage ids, the word's count in each, each
passage's length), one row per word and build step (:mod:`.index`, built by :mod:`.build`);
recall decodes each stem's postings and :mod:`.ranking` scores them. It
keeps no text: a recalled passage is read again from its file, checked by the
SHA-256 the file was indexed with, and every word is taken from redacted text,
so no secret is copied out of the workspace; the index marks a file that holds
a credential (one written outside botmemory), and a note recalled from it is
redacted before it goes out. Each topic file is keyed by its
(size, mtime_ns, ctime_ns, inode) and the index keeps a fingerprint of the
listing it matches, so a call lists the folder (one ``stat`` a file) and reads
nothing else when nothing changed; new or changed files are re-parsed, deleted
ones dropped, and a file indexed within a timestamp tick of its change is hashed
again once (never parsed again unless its bytes changed). When more than
``INLINE_BYTES`` wait to be indexed, recall answers from what is indexed so far
and a detached process builds the rest (:func:`refresh_index` is the same build
for the tray app and ``watch``); a long build commits after 4, 8, 16, … MB read (then
in smaller steps, so that little is left to write once everything is parsed), so
that a recall meanwhile sees its progress. On Linux a large build is parsed by
forked worker processes (one a core, up to four), each handed a part of a step's files and the passage ids
they may use (a file's size / 2 + 1: no file holds more passages), so that what
they send back (their files' postings rows, encoded) is written as it is while
they parse the next step. Each file's row keeps its passages' days, end dates and
link targets packed, so recall reads no table of passages. The files stay the source of truth: a missing,
outdated or corrupt index is rebuilt from them, and when no index can be kept on
disk one is built in memory for the call. SQLite's WAL mode lets processes
recall while another writes; updates are serialised by its write lock.

**Search** (``search``) is ``session_search`` over memory: every given word must
match (whole word, case-insensitive, plural ``s`` folded; a Chinese or Japanese
word as written) over ``MEMORY.md``, topics, the archive and daily logs, within
an inclusive date range. It reads the files directly, skipping those that do not
contain every word (:mod:`.search`).
"""
from __future__ import annotations

import os
import sqlite3
from array import array
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from ..base.log import get_logger
from ..base.record import record
from ..disk import config
from ..disk.paths import Home
from ..text.words import Stems, is_cjk_token
from . import ranking
from .corpus import IndexCorpus, Row
from .index import _build_in_background, _configure, _meta, _open, _sync, _synced, _Unusable
from .index import index_path as index_path  # re-exported
from .index import refresh_index as refresh_index
from .passages import (  # re-exported: recall's words and results, as callers name them
    HEADER as HEADER,
)
from .passages import (
    MANY_WORDS as MANY_WORDS,
)
from .passages import (
    MAX_CHARS as MAX_CHARS,
)
from .passages import (
    MAX_NOTES as MAX_NOTES,
)
from .passages import (
    MAX_QUERY_WORDS as MAX_QUERY_WORDS,
)
from .passages import (
    MIN_MESSAGE_CHARS as MIN_MESSAGE_CHARS,
)
from .passages import (
    STOP_WORDS as STOP_WORDS,
)
from .passages import (
    WHY_MEMORY_OFF as WHY_MEMORY_OFF,
)
from .passages import (
    WHY_NO_MATCH as WHY_NO_MATCH,
)
from .passages import (
    WHY_PARTIAL as WHY_PARTIAL,
)
from .passages import (
    WHY_RECALL_OFF as WHY_RECALL_OFF,
)
from .passages import (
    WHY_SHORT as WHY_SHORT,
)
from .passages import (
    Hit as Hit,
)
from .passages import (
    Note as Note,
)
from .passages import (
    RecallResult as RecallResult,
)
from .passages import _Key, _list_topics, _Topic, _topic_folder
from .passages import (
    content_words as content_words,
)
from .passages import (
    fold as fold,
)

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from .corpus import Mixed

    Corpus = IndexCorpus | Mixed

logger = get_logger(__name__)


@record(frozen=True)
class _Found:
    file: str
    day: date
    text: str


def _query(corpus: Corpus, home: Home, bot: str, keys: list[str], need: int,  # noqa: C901
           today: date, *, strict: bool = True) -> list[_Found] | None:
    """The notes for *keys*, or None when a file changed since it was indexed (sync and ask again);
    not *strict* (an index still being built), such a file's passages are left out instead."""
    _folder, prefix = _topic_folder(home, bot)
    stemmed = _stemmed(keys, corpus.meta("language") or "english")
    n, total = corpus.sizes()
    n = max(n, 1)
    # the storage fetch: each stem's postings (pid, tf, passage length; df = their number), decoded from
    # its packed rows; ranking does the arithmetic
    post = corpus.postings(stemmed)
    terms = [ranking.Term(s, ranking.idf(n, len(post[s].pids)), list(zip(*post[s]))) if s in post
             else ranking.Term(s, ranking.idf(n, 0), []) for s in stemmed]
    avg = max(total / n, 1.0)
    t = today.toordinal()
    files: dict[int, Row] = {}
    topics = ranking.Topics(corpus.spans())
    # name matches: the stems of the message (their indices) in a topic's file name, title or aliases
    names: dict[int, list[int]] = {}
    matching = corpus.named(stemmed)
    files.update(matching)
    for fid in matching:
        held = [i for i, s in enumerate(stemmed) if f" {s} " in files[fid].names]
        if held:
            names[fid] = held

    def linked(pids: Sequence[int]) -> dict[int, list[int]]:
        # the topics these passages link to: a link names a topic file of the folder's top level
        of = {pid: topics.of(pid) for pid in pids}
        fids = sorted(set(of.values()))
        if not fids:
            return {}
        out: dict[int, list[str]] = {}
        for first, lk in corpus.links(fids):
            for line in lk.split("\n"):
                i, target = line.split("\t", 1)
                pid = first + int(i)
                if pid in of:
                    out.setdefault(pid, []).append(target)
        targets = {f"{t}.md" for ts in out.values() for t in ts}
        if not targets:
            return {}
        ids = corpus.by_name(targets)
        return {pid: [ids[f"{t}.md"] for t in ts if f"{t}.md" in ids] for pid, ts in out.items()}

    scored = ranking.rank(terms, need, avg, topics, names, n, corpus.lengths,
                          total / max(len(topics), 1), linked) if len(post) >= need else []
    ranked: list[tuple[float, int, int, int]] = []     # (score, day, pid, file id)
    if scored:
        # each passage's day and end date, from its file's row
        of_file: dict[int, list[tuple[float, int]]] = {}
        for sc, pid, fid in scored:
            of_file.setdefault(fid, []).append((sc, pid))
        for fid, first, days, untils in corpus.days(of_file):
            day_of, until_of = array("i"), array("i")
            day_of.frombytes(days)
            if untils is not None:
                until_of.frombytes(untils)
            for sc, pid in of_file[fid]:
                i = pid - first
                if until_of and 0 < until_of[i] < t:
                    continue
                ranked.append((sc, day_of[i], pid, fid))
    ranked.sort(reverse=True)
    missing = sorted({fid for _sc, _day, _pid, fid in ranked} - set(files))
    if missing:
        files.update(corpus.rows(missing))
    chosen = [ranked[i] for i in ranking.choose([(sc, fid, pid) for sc, _day, pid, fid in ranked], MAX_NOTES)]
    out: list[_Found] = []
    texts: dict[int, _Topic | None] = {}

    def topic_of_file(fid: int) -> _Topic | None:
        if fid not in texts:
            texts[fid] = corpus.topic(home, bot, files[fid])
        return texts[fid]

    def shown(fid: int, text: str) -> str:
        # a note of a file that holds a credential goes out redacted: the block lands in an agent's context
        # and from there in its transcripts on disk
        if not files[fid].secret:
            return text
        from ..redact import redact  # only then: a warm recall never imports it

        return redact(text)

    for _score, day, pid, fid in chosen:
        topic = topic_of_file(fid)
        i = pid - files[fid].first_pid
        if topic is None or i >= len(topic.passages):
            if strict:
                return None
            continue
        out.append(_Found(prefix + files[fid].name, date.fromordinal(day), shown(fid, topic.passages[i].text)))
    if len(out) < MAX_NOTES:
        # topics whose file name, title or alias matches: their opening, below every passage
        have = {f.file for f in out}
        order = sorted((f for f in names if len(names[f]) >= need and files[f].opening),
                       key=lambda f: (-len(names[f]), -files[f].day, files[f].name))
        for fid in order:
            if len(out) >= MAX_NOTES:
                break
            name = files[fid].name
            if prefix + name in have:
                continue
            topic = topic_of_file(fid)
            if topic is None:
                if strict:
                    return None
                continue
            if topic.opening is not None:
                out.append(_Found(prefix + name, date.fromordinal(files[fid].day), shown(fid, topic.opening)))
    return out


def _stemmed(keys: Sequence[str], language: str) -> list[str]:
    """The distinct stems of the message's content words, in order."""
    stems = Stems(language)
    out: list[str] = []
    for k in keys:
        s = k if is_cjk_token(k) else stems(k)
        if s not in out:
            out.append(s)
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
            keys: list[str], need: int, today: date, *, background: bool, deadline: float | None = None,
            inline: int | None = None) -> tuple[list[_Found], bool]:
    """The notes, and whether the deadline came before every file was read."""
    import sys

    # a frozen bundle's executable cannot run ``-m botmemory.core.recall.index``: it builds before answering
    background = background and not getattr(sys, "frozen", False)
    if _sync(conn, home, bot, listing, memo, wait=not background, limit=inline):
        corpus = IndexCorpus(conn)
        for _attempt in range(3):
            found = _query(corpus, home, bot, keys, need, today)
            if found is not None:
                return found, False
            _synced.pop(memo, None)
            _sync(conn, home, bot, _list_topics(home, bot), memo)
        return [], False
    _build_in_background(home, bot)
    logger.info("recall index of %s is being built; reading what it does not cover yet", bot)
    return _unindexed(conn, home, bot, listing, keys, need, today, deadline)


def _unindexed(conn: sqlite3.Connection, home: Home, bot: str, listing: dict[str, _Key], keys: list[str],
               need: int, today: date, deadline: float | None) -> tuple[list[_Found], bool]:
    """Recall while the index is incomplete: what it covers from it, every other topic file read directly
    (:class:`.corpus.Mixed`), all from one snapshot of the index (a builder may commit meanwhile)."""
    from ..text.words import guess_language
    from .corpus import Direct, Mixed, Stale
    from .index import LANGUAGE_SAMPLE, _known, _sample_texts
    from .passages import StemMemo

    conn.execute("BEGIN")
    try:
        known = _known(conn)
        language = _meta(conn, "language")
        if language is None or not known:      # as the builder decides it
            language = guess_language(_sample_texts(home, bot, listing), LANGUAGE_SAMPLE)
        stale: dict[int, Stale] = {}
        old = {held.id for name, held in known.items() if listing.get(name) != held.key}
        if old:
            marks = ",".join("?" * len(old))
            stale = {int(f): Stale(int(a), int(n), int(ln)) for f, a, n, ln in conn.execute(
                f"SELECT id, first_pid, n, length FROM files WHERE id IN ({marks})", list(old))}
        todo = sorted((name, key) for name, key in listing.items()
                      if name not in known or known[name].key != key)
        base_pid, base_fid = conn.execute(
            "SELECT COALESCE(MAX(first_pid + n), 0) + 1, COALESCE(MAX(id), 0) + 1 FROM files").fetchone()
        direct = Direct(_stemmed(keys, language), int(base_pid), int(base_fid))
        direct.read(home, bot, todo, StemMemo(Stems(language)), deadline)
        found = _query(Mixed(IndexCorpus(conn), stale, direct, language), home, bot, keys, need, today,
                       strict=False) or []
    finally:
        conn.execute("COMMIT")
    return found, not direct.complete


def _recall_from_index(home: Home, bot: str, keys: list[str], need: int, today: date,
                       background: bool = True, deadline: float | None = None,
                       inline: int | None = None) -> tuple[list[_Found], bool]:
    listing = _list_topics(home, bot)
    if not listing:
        return [], False
    path = index_path(home, bot)
    for attempt in range(2):
        try:
            conn = _open(path, home.root)
            try:
                return _answer(conn, home, bot, listing, str(path), keys, need, today, background=background,
                               deadline=deadline, inline=inline)
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


def recall(home: Home, bot: str, message: str, today: date, *, background: bool = True,
           deadline: float | None = None, inline: int | None = None) -> RecallResult:
    """The notes recall puts in front of *message* for *bot*: at most 4, at most 6,000 characters.

    When more than *inline* bytes (default ``INLINE_BYTES``) of topics are not indexed yet, a background
    process builds the index and recall answers meanwhile from what it covers, reading every other topic
    directly: the same notes as from the finished index. With a *deadline* (``time.monotonic()``) that comes
    before the reading is done, it answers from what was read, and ``why`` says so. ``background=False``
    waits for the index instead.
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
    found, partial = _recall_from_index(home, bot, words[:MAX_QUERY_WORDS], need, today, background, deadline,
                                        inline)
    result = _compose(found)
    if partial:
        result = RecallResult(result.notes, result.text, WHY_PARTIAL)
    elif not result.notes:
        result = RecallResult([], "", WHY_NO_MATCH)
    logger.info("auto-recall: %s got %d note(s) and 0 conversation passage(s)%s", bot, len(result.notes),
                " (from part of the notes: the deadline came first)" if partial else "")
    return result
