"""The journal: one row for every change to a memory file (``Memory.undo`` puts a row's earlier text back).

Rows are JSON objects, one a line, in ``<home>/memory-journal/`` — outside the
workspace, so a bot's file tools cannot edit its own record:

- ``<bot>.ndjson`` is the active segment. Rows are appended under the
  workspace lock (appenders from two processes never interleave), with the
  full earlier text inline. A torn last line after a crash is skipped when
  read, and the next append starts on a fresh line.
- When the active segment passes :data:`ACTIVE_MAX_BYTES` it is closed:
  renamed to ``<bot>/<seq>.ndjson`` and compressed with ``lzma`` to
  ``<bot>/<seq>_<first>_<last>.ndjson.xz`` (first/last: the range of row-id
  times inside, so undo finds a row without opening every segment). A segment
  holds consecutive versions of the same few files, so lzma keeps about one
  earlier text per segment plus what changed: every row stays undoable at
  about 1.4 % of the bytes of full texts inline, the active segment included
  (``benchmarks/bench_journal.py``: 10,000 edits of a 24 KB MEMORY.md).
- Listing newest first reads the active segment backwards from its end, then
  closed segments newest first, one at a time; the newest rows cost the same
  however long the journal is.

What a row stores outside the workspace is redacted; the hashes are the real
files'. Beside its earlier text a row keeps its own lines (``edits``: the
complete edit script from the earlier text to the text it left, see
``text.merge``), so an undo reverses that change's lines against the file as
it is now (``store.undo``); the lines of its earlier text that held a
credential are named (``secret_lines``: kept redacted, they never come back).
A row whose earlier text was larger than the limit (:data:`EARLIER_TEXT_MAX_BYTES`,
or ``memory.journalKeepMB`` in ``config.json``) or not UTF-8 says so and cannot be undone.
"""
from __future__ import annotations

import builtins
import functools
import itertools
import json
import lzma
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC
from pathlib import Path
from typing import Any

from ..base.errors import BadInput
from ..base.log import get_logger
from ..base.wording import counted
from ..disk.paths import ARCHIVE_FILE, Home, check_bot_id
from ..disk.safeio import FILE_MODE, WorkspaceLock, atomic_write, fsync_dir, make_dirs, open_dir_nofollow, text_hash
from ..redact import contains_secret, redact
from ..text.diff import DIFF_MAX_CHARS as DIFF_MAX_CHARS  # re-exported: the journal's diff is built there
from ..text.diff import WORDS_FILTER_MAX_BYTES as WORDS_FILTER_MAX_BYTES
from ..text.diff import Diff as Diff
from ..text.diff import WordFilter, build_diff, diff_counts, diff_lines
from ..text.diff import make_diff as make_diff
from ..text.entries import MOVED_MARK, clean_title, whole_word
from ..text.merge import Hunk, apply_script, edit_script, join_lines, split_lines
from ..text.merge import _blocks as _matching
from .writer import Actor, Change

logger = get_logger(__name__)

ACTIVE_MAX_BYTES = 2 * 1024 * 1024
"""The active segment is closed and compressed once it is this large."""
EARLIER_TEXT_MAX_BYTES = 64 * 1024 * 1024
"""Earlier texts up to this size are kept by default (``memory.journalKeepMB`` in ``config.json`` sets it,
:func:`keep_limit`); a larger one makes its row not undoable. Closed segments keep them xz-compressed."""
HOME = "@home"
"""The home's own journal (About me, ``profile-learned.json``): ``<home>/memory-journal/@home.ndjson``. Not a
bot id (``check_bot_id`` refuses ``@``), so it can never be a bot's journal."""
LZMA_PRESET = 3
"""Preset 3 (hc4 match finder, 4 MB dictionary): a whole closed segment fits the dictionary, so
consecutive versions compress to their differences; ten times faster than preset 6 for the same size."""
_READ_BLOCK = 64 * 1024

UNDO_ACTOR = Actor("person", "undo")
REASON_SECRET = ("its earlier text held a credential: the journal keeps it redacted, and restoring it "
                 "would write the redaction marker into the bot's memory")
REASON_TOO_LARGE = f"its earlier text was larger than {EARLIER_TEXT_MAX_BYTES // (1024 * 1024)} MB, too large to keep"
_MARKER = re.compile(r"«redacted \d+ chars»")
REASON_NOT_UTF8 = "its earlier text was not valid UTF-8, so the journal could not keep it exactly"

_ROW_ID = re.compile(r"[0-9a-f]{12}-[0-9a-f]{6}")
_CLOSED = re.compile(r"(\d{8})(?:_([0-9a-f]{12})_([0-9a-f]{12}))?\.ndjson(\.xz)?")
_ROW_START = re.compile(rb'^\{"id":"([0-9a-f]{12})-[0-9a-f]{6}"', re.MULTILINE)


@dataclass(frozen=True)
class Row:
    """One journal row, as docs/RULES.md "The journal" lists its fields."""

    id: str
    at: str                      # ISO 8601 UTC
    bot: str
    who: str                     # bot | person | upkeep | import
    how: str                     # task | panel | cli | outside | undo | tidy-up | …
    chat: str | None
    file: str
    before_hash: str | None      # None: the file was created
    after_hash: str | None       # None: the file was deleted
    diff: str
    earlier_text: str | None
    undoable: bool
    reason: str | None
    renamed_from: str | None = None   # an outside rename: the created file's old name
    renamed_to: str | None = None     # … and the deleted file's new name
    added: int | None = None          # the true counts of changed lines, also when the diff is cut
    removed: int | None = None        # (None in rows written before they were kept: counted from the diff)
    words: str | None = None          # a cut diff's word filter: every changed line's words (WordFilter)
    edits: tuple[Hunk, ...] | None = None   # the change's own lines: earlier text -> the text it left (None: not kept)
    secret_lines: tuple[int, ...] = ()      # lines of the earlier text (0-based) kept redacted: never written back
    undoes: str | None = None               # an undo: the row it undid
    from_bot: str | None = None             # a row of the home's journal: the bot that made the change
    learned: dict[str, Any] | None = None   # a row of the home's journal: profile-learned.json entries added/dropped
    host: str | None = None           # the other computer a synced change came from (``how: sync``)
    after: list[Any] | None = None    # how to rebuild the text after the change from the earlier one (:func:`splice`)

    def as_dict(self, *, stored: bool = False) -> dict[str, Any]:
        """The row as docs/RULES.md "The journal" lists its fields; *stored*: also what only the journal keeps (``after``)."""
        d: dict[str, Any] = {
            "id": self.id, "at": self.at, "bot": self.bot, "who": self.who, "how": self.how,
            "chat": self.chat, "file": self.file, "before_hash": self.before_hash,
            "after_hash": self.after_hash, "diff": self.diff, "earlier_text": self.earlier_text,
            "undoable": self.undoable, "reason": self.reason,
        }
        if self.renamed_from is not None:
            d["renamed_from"] = self.renamed_from
        if self.renamed_to is not None:
            d["renamed_to"] = self.renamed_to
        if self.added is not None and self.removed is not None:
            d["added"], d["removed"] = self.added, self.removed
        if self.words is not None:
            d["words"] = self.words
        if self.edits is not None:
            d["edits"] = [h.dump() for h in self.edits]
        if self.secret_lines:
            d["secret_lines"] = list(self.secret_lines)
        if self.undoes is not None:
            d["undoes"] = self.undoes
        if self.from_bot is not None:
            d["from_bot"] = self.from_bot
        if self.learned is not None:
            d["learned"] = self.learned
        if self.host is not None:
            d["host"] = self.host
        if stored and self.after is not None:
            d["after"] = self.after
        return d

    @classmethod
    def from_dict(cls, d: object) -> Row | None:
        """A row read back, or None when *d* is not one (a damaged line is skipped, never fatal)."""
        if not isinstance(d, dict):
            return None
        strs = ("id", "at", "bot", "who", "how", "file", "diff")
        opt = ("chat", "before_hash", "after_hash", "earlier_text", "reason", "renamed_from", "renamed_to")
        if not all(isinstance(d.get(k), str) for k in strs) or not isinstance(d.get("undoable"), bool):
            return None
        if not all(d.get(k) is None or isinstance(d.get(k), str) for k in (*opt, "words", "host")):
            return None
        counts = (d.get("added"), d.get("removed"))
        if not all(n is None or (type(n) is int and n >= 0) for n in counts):
            return None
        edits: tuple[Hunk, ...] | None = None
        if isinstance(d.get("edits"), list):
            hunks = [Hunk.load(h) for h in d["edits"]]
            edits = tuple(h for h in hunks if h is not None) if all(h is not None for h in hunks) else None
        secret = d.get("secret_lines")
        secret_lines = tuple(i for i in secret if type(i) is int) if isinstance(secret, list) else ()
        undoable, reason, earlier = d["undoable"], d.get("reason"), d.get("earlier_text")
        if not undoable and reason == REASON_SECRET and isinstance(earlier, str):
            # a row written before undo went by lines: its lines come back, those that may hold a credential aside
            undoable, reason = True, None
            secret_lines = marker_lines(earlier)
        extra = {k: d.get(k) if isinstance(d.get(k), str) else None for k in ("undoes", "from_bot")}
        learned = d.get("learned") if isinstance(d.get("learned"), dict) else None
        after = d.get("after")
        if after is not None and not _is_splice(after):
            after = None    # damaged: the row stands, its after-text cannot be rebuilt
        return cls(d["id"], d["at"], d["bot"], d["who"], d["how"], d.get("chat"), d["file"],
                   d.get("before_hash"), d.get("after_hash"), d["diff"], earlier,
                   undoable, reason, d.get("renamed_from"), d.get("renamed_to"),
                   counts[0], counts[1], d.get("words"), edits, secret_lines, extra["undoes"], extra["from_bot"],
                   learned, d.get("host") if isinstance(d.get("host"), str) else None, after)

    def after_text(self) -> tuple[str, bool] | None:
        """The text after this change as the shadows keep it (redacted when it held a credential), and
        whether it was redacted; rebuilt from the earlier text and :attr:`after` (or, when the row keeps no
        ``after``, its own lines: :meth:`later_text`), checked against its hash. None when the row cannot
        tell (a deletion, an append, an older row, a damaged one)."""
        if self.after_hash is None:
            return None
        if self.after is None:
            later = self.later_text()
            return (later, False) if later is not None and text_hash(later) == self.after_hash else None
        base = self.earlier_text or ""
        keep, tail, middle = self.after[0], self.after[1], self.after[2]
        if keep + tail > len(base):
            return None
        text = base[:keep] + middle + base[len(base) - tail:]
        want = self.after[3] if len(self.after) > 3 else self.after_hash
        if text_hash(text) != want:
            return None
        return text, len(self.after) > 3

    def line(self) -> bytes:
        """The row as the journal stores it: one line of JSON (made once: the intents write it first)."""
        made: bytes | None = self.__dict__.get("_line")
        if made is None:
            made = (json.dumps(self.as_dict(stored=True), ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            object.__setattr__(self, "_line", made)   # not a field: equality, repr and replace() never see it
        return made

    def changed_lines(self) -> Iterator[str]:
        """The diff's added and removed lines (what ``--grep`` searches, with :attr:`words` past a cut)."""
        for _, line in diff_lines(self.diff):
            yield line

    def counts(self) -> tuple[int, int]:
        """How many lines the change added and removed: the kept counts, else the diff's."""
        if self.added is not None and self.removed is not None:
            return self.added, self.removed
        return diff_counts(self.diff)

    def archived(self) -> int:
        """How many entries this change moved into ``memory/archive.md`` (each marked ``· moved DATE``):
        0 for another file, a deletion or an undo. What the app's "moved to the archive" notice says."""
        if self.file != ARCHIVE_FILE or self.after_hash is None or self.how == "undo":
            return 0
        return sum(1 for tag, line in diff_lines(self.diff) if tag == "+" and MOVED_MARK in line)

    def later_text(self) -> str | None:
        """The text this change left (redacted as the row keeps it): its earlier text with its own lines
        applied; None when the row does not keep them (a deletion leaves "")."""
        if self.edits is None:
            return None
        if self.before_hash is not None and self.earlier_text is None:
            return None
        try:
            return join_lines(apply_script(split_lines(self.earlier_text or ""), self.edits))
        except ValueError:   # a damaged row
            return None

    def summary(self) -> str:
        plus, minus = self.counts()
        what = ("created" if self.before_hash is None else "deleted" if self.after_hash is None
                else f"+{plus} -{minus}")
        if self.renamed_from:
            what = f"renamed from {self.renamed_from}"
        elif self.renamed_to:
            what = f"renamed to {self.renamed_to}"
        if self.undoes:
            what += f"  (undo of {self.undoes})"
        by = f"{self.who}/{self.how}" + (f' chat "{self.chat}"' if self.chat else "") + (
            f" from {self.host}" if self.host else "")
        if self.from_bot:
            by += f" by {self.from_bot}"
        tail = "" if self.undoable else f"  (cannot be undone: {self.reason})"
        if self.undoable and self.secret_lines:
            tail = f"  ({counted(len(self.secret_lines), 'line')} held a credential: undo cannot bring it back)"
        return f"{self.id}  {self.at[:19].replace('T', ' ')}  {by}  {self.file}  {what}{tail}"


def keep_limit(home: Home) -> int:
    """How large an earlier text the journal keeps, in bytes: ``memory.journalKeepMB`` in ``config.json``."""
    from ..disk.config import journal_keep_bytes

    return journal_keep_bytes(home)


def too_large_reason(size: int, limit: int) -> str:
    return (f"its earlier text was {_mb(size)}, too large to keep: the journal keeps earlier texts up to "
            f"{_mb(limit)} (memory.journalKeepMB in config.json)")


def _mb(n: int) -> str:
    mb = n / (1024 * 1024)
    return f"{mb:.0f} MB" if mb >= 10 or mb == int(mb) else f"{mb:.1f} MB" if mb >= 0.1 else f"{n:,} bytes"


def _journal_name(bot: str) -> str:
    """A journal's file name: a bot's id, or :data:`HOME` for the home's own."""
    return bot if bot == HOME else check_bot_id(bot)


def marker_lines(text: str) -> tuple[int, ...]:
    """The lines of a redacted copy that hold a redaction marker: where the credentials were, when the copy
    does not say which markers were in the real text already (the conservative reading)."""
    if "«redacted" not in text:
        return ()
    return tuple(i for i, line in enumerate(split_lines(text)) if _MARKER.search(line))


def secret_lines_of(real: str, kept: str) -> tuple[int, ...]:
    """The lines of *kept* (the redacted copy of *real*) that differ from the real text's: the credentials."""
    a, b = split_lines(real), split_lines(kept)
    if len(a) == len(b):
        return tuple(i for i in range(len(b)) if a[i] != b[i])
    same = {i + k for i, _, n in _matching(b, a) for k in range(n)}   # a block redacted whole (a private key)
    return tuple(i for i in range(len(b)) if i not in same)


def _edits(before: str | None, after: str | None) -> tuple[Hunk, ...]:
    return tuple(edit_script(split_lines(before or ""), split_lines(after or "")))


# ----- building rows


def _iso(change: Change) -> str:
    return change.at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _clean(text: str | None) -> str | None:
    """*text* as it may be kept outside the workspace."""
    if text is None or not contains_secret(text):
        return text
    return redact(text)


def _is_splice(v: object) -> bool:
    return (isinstance(v, list) and len(v) in (3, 4) and type(v[0]) is int and type(v[1]) is int
            and v[0] >= 0 and v[1] >= 0 and isinstance(v[2], str) and (len(v) == 3 or isinstance(v[3], str)))


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo = 0
    step = 4096
    while lo + step <= n and a[lo:lo + step] == b[lo:lo + step]:   # whole blocks first, compared in C
        lo += step
    while lo < n and a[lo] == b[lo]:
        lo += 1
    return lo


def splice(base: str, after: str) -> tuple[int, int, str]:
    """(kept from the start, kept from the end, the text between): ``after`` is
    ``base[:k] + middle + base[len(base) - t:]``. One span is enough for the shadows: a change is mostly
    one place (a line added, a few entries moved), and the span holds the whole text at worst."""
    k = _common_prefix(base, after)
    limit = min(len(base), len(after)) - k
    t = _common_prefix(base[::-1][:limit], after[::-1][:limit]) if limit > 0 else 0
    return k, t, after[k:len(after) - t]


def make_row(change: Change, *, earlier_secret: bool = False, diff: str | None = None,
             renamed_from: str | None = None, renamed_to: str | None = None) -> Row:
    """The journal row of *change*: redacted texts, the real hashes, and whether undo can restore it.

    *earlier_secret*: the earlier text is a copy that was redacted before it got
    here (a shadow), and the file it came from held a credential.
    """
    before = change.before
    earlier: str | None = None
    undoable, reason = True, None
    secret_lines: tuple[int, ...] = ()
    if before is not None:
        secret = earlier_secret or contains_secret(before)
        stored = redact(before) if secret else before
        if len(before.encode("utf-8", errors="replace")) > EARLIER_TEXT_MAX_BYTES:
            undoable, reason = False, REASON_TOO_LARGE
        else:
            earlier = stored
            if not change.before_valid:
                undoable, reason = False, REASON_NOT_UTF8
            elif earlier_secret:   # a copy redacted before it got here: any marker may stand for a credential
                secret_lines = marker_lines(stored)
            elif secret:
                secret_lines = secret_lines_of(before, stored)
        before = stored
    added = removed = None
    words = None
    edits: tuple[Hunk, ...] | None = None
    if change.unkept is not None:  # the earlier text was never read (too large, or an append)
        undoable, reason, earlier = False, change.unkept, None
    elif undoable and not change.appended and change.cut is None:
        edits = _edits(before, _clean(change.after))
    if diff is None and change.appended:  # only the appended lines: the earlier text was never read
        d = build_diff(change.file, "", _clean(change.after))
        diff = f"appended to {change.file}:\n{d.text}"[:DIFF_MAX_CHARS]
        added, removed, words = d.added, d.removed, d.words
    if diff is None and change.cut is not None:  # only the lines cut off the end: the rest was never read
        d = build_diff(change.file, _clean(change.cut), "")
        diff = f"cut from the end of {change.file}:\n{d.text}"[:DIFF_MAX_CHARS]
        added, removed, words = d.added, d.removed, d.words
    if diff is None:
        d = build_diff(change.file, before, _clean(change.after))
        diff, added, removed, words = d.text, d.added, d.removed, d.words
    chat = clean_title(change.actor.chat) if change.actor.chat is not None else None
    return Row(change.id, _iso(change), change.bot, change.actor.who, change.actor.how, chat, change.file,
               change.before_hash, change.after_hash, diff, earlier, undoable, reason,
               renamed_from, renamed_to, added, removed, words, edits, secret_lines, change.undoes,
               host=change.actor.host, after=_after(change, earlier, edits))


def _after(change: Change, earlier: str | None, edits: Sequence[Hunk] | None = None) -> list[Any] | None:
    """What a row keeps to rebuild the text after *change* (:meth:`Row.after_text`): the span between the
    earlier text (as the row keeps it) and the text after (redacted as the shadows keep it), and the hash
    of that redacted text when redaction changed it. None for a deletion, an append or a cut (only their
    end is known), or when the span is larger than an earlier text the journal keeps; and None when the
    row's own lines (*edits*) rebuild the text after it, unredacted: the span would repeat them, and it is
    most of the text when a change touches both ends (an entry added at the end of MEMORY.md and the
    oldest moved to the archive), which would double the row."""
    if change.after is None or change.after_hash is None or change.appended or change.cut is not None:
        return None
    stored = _clean(change.after)
    assert stored is not None
    if (edits is not None and stored == change.after
            and join_lines(apply_script(split_lines(earlier or ""), edits)) == stored):
        return None
    k, t, middle = splice(earlier or "", stored)
    if len(middle) > EARLIER_TEXT_MAX_BYTES:
        return None
    out: list[Any] = [k, t, middle]
    if stored != change.after:
        out.append(text_hash(stored))
    return out


# ----- storage


def _parse(line: bytes) -> Row | None:
    try:
        return Row.from_dict(json.loads(line))
    except (ValueError, RecursionError):
        return None


_FILE_KEY = b',"file":"'


def _file_of(line: bytes) -> str | None:
    """A row's file, read from its line without parsing the rest: rows are written compact, and no earlier
    field's value can hold ``,"file":"`` unescaped. None for a line that is no row."""
    i = line.find(_FILE_KEY)
    if i < 0 or not line.startswith(b'{"id":'):
        return None
    try:
        text = line.decode("utf-8")
        value, _end = json.decoder.scanstring(text, len(line[:i + len(_FILE_KEY)].decode("utf-8")))  # type: ignore[attr-defined]
    except (UnicodeDecodeError, ValueError):
        return None
    return str(value)


def _lines_backward(f: Any, end: int) -> Iterator[bytes]:
    """The lines of the first *end* bytes of *f*, last first; the last line is yielded even unterminated."""
    pos = end
    tail = b""
    while pos > 0:
        n = min(_READ_BLOCK, pos)
        pos -= n
        f.seek(pos)
        chunk = f.read(n) + tail
        parts = chunk.split(b"\n")
        tail = parts[0]
        for line in reversed(parts[1:]):
            if line:
                yield line
    if tail:
        yield tail


@dataclass(frozen=True)
class Segment:
    """A closed segment: its number, the range of row-id times inside (when known) and its file."""

    seq: int
    path: Path
    first: str | None = None
    last: str | None = None

    def may_hold(self, row_id: str) -> bool:
        if self.first is None or self.last is None:
            return True
        return self.first <= row_id[:12] <= self.last

    def read(self) -> bytes:
        data = self.path.read_bytes()
        return lzma.decompress(data) if self.path.name.endswith(".xz") else data



@dataclass(frozen=True)
class RowFilter:
    """Which rows to list: one file (a rename counts for both names), one author, words in the diff.

    Words match whole, case-insensitively, every one of them in one added or
    removed line (as written, a chat title included) — so a person can see
    when a fact appeared or disappeared.
    """

    file: str | None = None
    who: str | None = None
    words: tuple[str, ...] = ()

    @functools.cached_property
    def patterns(self) -> list[tuple[str, re.Pattern[str]]]:
        return [(w, whole_word(w)) for w in self.words if w]

    def matches(self, row: Row) -> bool:
        if self.file is not None and self.file not in (row.file, row.renamed_from):
            return False
        if self.who is not None and row.who != self.who:
            return False
        if self.patterns:
            if any(all(p.search(line) for _, p in self.patterns) for line in row.changed_lines()):
                return True
            # the lines the cut diff leaves out: the filter knows their words, not which line holds them
            past_cut = WordFilter.load(row.words) if row.words else None
            return past_cut is not None and all(past_cut.may_hold(w) for w, _ in self.patterns)
        return True

class Journal:
    """The journal of every bot of one home. Thread-safe; appends hold the bot's workspace lock."""

    def __init__(self, home: Home, *, durable: bool = True) -> None:
        self.home = home
        self.dir = home.journal_dir
        self.durable = durable   # fsync each append (benchmarks that build big journals turn it off)
        self._newest: dict[str, tuple[tuple[int, int, int], str | None]] = {}
        """Each bot's newest row id, by the active segment's inode, size and modification time when read."""

    def active(self, bot: str) -> Path:
        return self.dir / f"{_journal_name(bot)}.ndjson"

    def segment_dir(self, bot: str) -> Path:
        return self.dir / _journal_name(bot)

    def _lock(self, bot: str) -> WorkspaceLock:
        if bot == HOME:   # the lock About me is written under
            return WorkspaceLock.for_file(self.home.state_dir / "locks" / "_home.lock", self.home.root)
        return WorkspaceLock.for_file(self.home.lock_file(bot), self.home.root)

    def keep_limit(self) -> int:
        """How large an earlier text the journal keeps, in bytes (``memory.journalKeepMB``, :func:`keep_limit`)."""
        return keep_limit(self.home)

    def within_limit(self, rows: Sequence[Row]) -> list[Row]:
        """*rows* as the journal keeps them: an earlier text over :meth:`keep_limit` is dropped, and its row
        says it cannot be undone."""
        limit: int | None = None
        out: list[Row] = []
        for row in rows:
            text = row.earlier_text
            if text is not None:
                limit = self.keep_limit() if limit is None else limit
                size = len(text) if len(text) * 4 <= limit else len(text.encode("utf-8", errors="replace"))
                if size > limit:
                    after = row.after
                    if after is None and row.edits is not None:   # its own lines rebuilt the text after it
                        later = row.after_text()
                        after = [0, 0, later[0]] if later is not None and len(later) <= limit else None
                    row = replace(row, earlier_text=None, edits=None, secret_lines=(), undoable=False,
                                  reason=too_large_reason(size, limit), after=after)
            out.append(row)
        return out

    # ----- writing

    def append(self, bot: str, rows: Sequence[Row]) -> None:
        """Append *rows* in one write under the workspace lock; close the segment when it is full."""
        if not rows:
            return
        data = b"".join(r.line() for r in rows)
        with self._lock(bot).held():
            with open_dir_nofollow(self.home.root, self.dir, create=True) as d:   # never through a link
                fd = d.open(self.active(bot).name, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0),
                            FILE_MODE)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data   # a torn last line: start on a line of our own
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if self.durable:
                    os.fsync(fd)
                size += len(data)
                st = os.fstat(fd)   # the newest row is known now: the next newest_id need not read it back
                self._newest[bot] = ((st.st_ino, st.st_size, st.st_mtime_ns), rows[-1].id)
            finally:
                os.close(fd)
            if size >= ACTIVE_MAX_BYTES:
                try:
                    self._rotate(bot)
                except OSError as e:  # the rows are written; the next append tries again
                    logger.warning("could not close the journal segment of %s: %s", bot, e)

    def _rotate(self, bot: str) -> None:
        """Close the active segment: rename it into the segment folder, then compress it."""
        folder = self.segment_dir(bot)
        make_dirs(folder, self.home.root)
        seq = max((s.seq for s in self.segments(bot)), default=0) + 1
        plain = folder / f"{seq:08d}.ndjson"
        os.replace(self.active(bot), plain)
        if self.durable:
            fsync_dir(folder)
            fsync_dir(self.dir)
        for seg in self.segments(bot):  # this one, and any a crash left uncompressed
            if not seg.path.name.endswith(".xz"):
                self._compress(seg)

    def _compress(self, seg: Segment) -> None:
        data = seg.path.read_bytes()
        ids = [m.group(1).decode() for m in _ROW_START.finditer(data)]
        name = f"{seg.seq:08d}_{min(ids)}_{max(ids)}.ndjson.xz" if ids else f"{seg.seq:08d}.ndjson.xz"
        atomic_write(seg.path.with_name(name), lzma.compress(data, preset=LZMA_PRESET))
        os.unlink(seg.path)
        if self.durable:
            fsync_dir(seg.path.parent)

    # ----- reading

    def segments(self, bot: str) -> list[Segment]:
        """Closed segments, oldest first (a compressed copy wins over a plain one of the same number)."""
        folder = self.segment_dir(bot)
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            return []
        by_seq: dict[int, Segment] = {}
        for name in names:
            m = _CLOSED.fullmatch(name)
            if not m:
                continue
            seg = Segment(int(m.group(1)), folder / name, m.group(2), m.group(3))
            if seg.seq not in by_seq or name.endswith(".xz"):
                by_seq[seg.seq] = seg
        return [by_seq[k] for k in sorted(by_seq)]

    def files_named(self, bot: str, limit: int) -> set[str]:
        """The files the newest *limit* rows of *bot* name (deleted ones included), read without parsing
        whole rows: what a view's file filter lists, from a 100,000-row journal in a fraction of the time."""
        out: set[str] = set()
        n = 0
        for line in self._lines(bot):
            name = _file_of(line)
            if name is None:
                row = _parse(line)   # written otherwise (by hand, by an older version): read it whole
                if row is None:
                    continue
                name = row.file
            out.add(name)
            n += 1
            if n >= limit:
                break
        return out

    def _lines(self, bot: str) -> Iterator[bytes]:
        """Every line of *bot*'s journal, newest first: the active segment's, then each closed segment's."""
        self._check_folders(bot)
        yield from self._active_lines(bot)
        for seg in reversed(self.segments(bot)):
            yield from self._segment_lines(bot, seg)

    def _check_folders(self, bot: str) -> None:
        """The journal's folders are never read through a link (Refused, naming it)."""
        for folder in (self.dir, self.segment_dir(bot)):
            try:
                with open_dir_nofollow(self.home.root, folder):
                    pass
            except (FileNotFoundError, NotADirectoryError):
                pass

    def _active_lines(self, bot: str) -> Iterator[bytes]:
        try:
            f = open(self.active(bot), "rb")  # noqa: SIM115 — closed below; kept open while iterating
        except FileNotFoundError:
            return
        except OSError as e:   # unreadable (a folder in its place…): the closed segments still read
            logger.warning("could not read the journal of %s: %s", bot, e)
            return
        with f:
            yield from _lines_backward(f, os.fstat(f.fileno()).st_size)

    def _active_rows(self, bot: str) -> Iterator[Row]:
        for line in self._active_lines(bot):
            row = _parse(line)
            if row is None:
                logger.warning("skipped a damaged line in the journal of %s", bot)
                continue
            yield row

    def _segment_lines(self, bot: str, seg: Segment) -> Iterator[bytes]:
        try:
            data = seg.read()
        except FileNotFoundError:  # compressed meanwhile: read the compressed copy
            again = [s for s in self.segments(bot) if s.seq == seg.seq and s.path != seg.path]
            if not again:
                return
            data = again[0].read()
        except (OSError, lzma.LZMAError) as e:
            logger.warning("could not read journal segment %s: %s", seg.path.name, e)
            return
        yield from (line for line in reversed(data.split(b"\n")) if line)

    def _segment_rows(self, bot: str, seg: Segment) -> Iterator[Row]:
        for line in self._segment_lines(bot, seg):
            row = _parse(line)
            if row is not None:
                yield row

    def rows(self, bot: str, *, segments: int | None = None, row_id: str | None = None) -> Iterator[Row]:
        """Every row of *bot*, newest first; *segments* caps how many closed segments are read.

        The active segment is opened before the closed ones are listed, so a
        rotation meanwhile can only repeat rows (dropped by id), never hide them.
        """
        self._check_folders(bot)
        seen: set[str] = set()
        active = self._active_rows(bot)
        for row in active:
            seen.add(row.id)
            yield row
        closed = list(reversed(self.segments(bot)))
        if segments is not None:
            closed = closed[:segments]
        for seg in closed:
            if row_id is not None and not seg.may_hold(row_id):
                continue
            for row in self._segment_rows(bot, seg):
                if row.id not in seen:
                    seen.add(row.id)
                    yield row

    def matching(self, bot: str, flt: RowFilter) -> Iterator[Row]:
        """The rows *flt* lets through, newest first (lazily: stop reading whenever you like)."""
        for row in self.rows(bot):
            if flt.matches(row):
                yield row

    def list(self, bot: str, *, limit: int | None = 50, file: str | None = None,
             grep: Sequence[str] = (), who: str | None = None) -> list[Row]:
        """The newest rows first, at most *limit*, optionally of one file or author, or whose diff mentions every word."""
        if limit is not None and limit <= 0:
            return []
        if limit is not None and limit > sys.maxsize:  # more rows than any journal holds: all of them
            limit = None
        return list(itertools.islice(self.matching(bot, RowFilter(file, who, tuple(grep))), limit))

    def find(self, bot: str, row_id: str) -> Row:
        if not _ROW_ID.fullmatch(row_id):
            raise BadInput(f"bad row id {row_id!r}: row ids look like 0192f3a4b5c6-1a2b3c "
                           f"(`botmemory journal {'--home' if bot == HOME else bot}` lists them)")
        for row in self.rows(bot, row_id=row_id):
            if row.id == row_id:
                return row
        if bot == HOME:
            raise BadInput(f"no row {row_id} in About me's journal (`botmemory journal --home` lists them)")
        raise BadInput(f"no row {row_id} in the journal of {bot} (`botmemory journal {bot}` lists them)")

    def latest_hashes(self, bot: str, files: Iterable[str]) -> dict[str, str | None]:
        """The newest after-hash the journal holds for each of *files*, from its recent rows only
        (the active segment and the newest closed one); files with no recent row are left out."""
        want = set(files)
        out: dict[str, str | None] = {}
        if not want:
            return out
        for row in self.rows(bot, segments=1):
            if row.file in want and row.file not in out:
                out[row.file] = row.after_hash
                if len(out) == len(want):
                    break
        return out

    def newest_id(self, bot: str) -> str | None:
        """The id of the newest row of *bot* (a torn last line is no row), or None for an empty journal;
        reads the end of the active segment only, unless it is empty (just closed); not again while the active
        segment is unchanged (a write asks three times: the repair's check, the shadows' and the commit's)."""
        try:
            st = os.lstat(self.active(bot))
            sig: tuple[int, int, int] | None = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            sig = None
        hit = self._newest.get(bot)
        if sig is not None and hit is not None and hit[0] == sig:
            return hit[1]
        newest = next((row.id for row in self.rows(bot)), None)
        if sig is not None:
            self._newest[bot] = (sig, newest)   # read after the look: at least as new as the file it was keyed by
        return newest

    def rows_after(self, bot: str, row_id: str | None) -> builtins.list[Row]:
        """The rows newer than *row_id*, oldest first, from the recent rows (the active segment and the
        newest closed one); every recent row when *row_id* is not among them (or None)."""
        out: builtins.list[Row] = []
        for row in self.rows(bot, segments=1):
            if row.id == row_id:
                break
            out.append(row)
        out.reverse()
        return out

    def has_rows(self, bot: str, ids: Iterable[str]) -> set[str]:
        """Which of *ids* the recent rows hold (the active segment and the newest closed one)."""
        want = set(ids)
        found: set[str] = set()
        if not want:
            return found
        for row in self.rows(bot, segments=1):   # ids sort by time, rows in a file need not (outside rows
            if row.id in want:                    # are dated when the file changed): no early stop
                found.add(row.id)
                if found == want:
                    break
        return found

    def bytes_on_disk(self, bot: str) -> int:
        total = 0
        for p in [self.active(bot), *(s.path for s in self.segments(bot))]:
            try:
                total += p.stat().st_size
            except FileNotFoundError:
                pass
        return total
