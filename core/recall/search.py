"""Session search over memory (``session_search``): every word, within a date range, read from the files.

:mod:`.query` describes the matching (whole words, plural ``s`` folded, Chinese and Japanese as written).

Search reads every memory file on each call, so it is built to cost little more than reading them:

- one listing pass: the workspace, ``memory/`` and ``memory/log/`` are each opened once without
  following a link (:func:`.safeio.open_dir_nofollow`) and every file is read relative to its
  folder's descriptor as bytes (no path walk, no hash, no decoding per file); a daily log outside
  the date range is not read at all;
- a file is rejected before it is decoded when one of the words (ASCII) is not in its lowercased
  bytes — the plural fold needs nothing more, ``flights`` holds ``flight``. Lowercasing bytes
  touches ASCII only; the two characters whose lowercase or NFC form holds an ASCII letter
  (``İ`` → ``i̇``, the Kelvin sign → ``k``) send a file holding them to the text test;
- in a file that passes, only the lines holding the (longest ASCII) word are looked at: each is
  decoded on its own, the unit holding it found (walking up over an entry's indented lines and
  fenced blocks, exactly as :func:`.entries.scan` groups them), and only that unit is parsed and
  matched. The common line — not indented, no fence above it, an entry with no further lines
  (the next line's first byte says so) — is read by :func:`.entries.head_fields` without making a
  Block. A file whose units cannot be found that way (no ASCII word to look for, or one of the
  two characters above) and a search by date alone are scanned whole, the straightforward way
  (:func:`_scan_units`): a word that is not ASCII is looked for in the decoded text.
- a word is matched as a token by looking at the characters around it (:func:`_has_token`), not
  by splitting the unit into tokens.

The results are the same as scanning every file whole (tests/core/test_search_fast.py compares
both on a generated home).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from datetime import date, timedelta

from ..base.errors import BadInput, BotMemoryError, HardLinkRefused
from ..base.log import get_logger
from ..base.record import record, replace
from ..disk.nofollow import Dir, open_dir_nofollow
from ..disk.paths import LOG_DIR, MEMORY_FILE, FileKind, Home, classify, parse_day
from ..disk.safeio import read_bytes_in, say_hard_link
from ..text.entries import _FENCE, BULLETS, Block, BlockKind, head_fields, parse_block_head, scan, search_text, search_text_of
from ..text.words import cjk_runs, is_cjk_token, normalize
from .passages import _DAY, _REL_WHEN, Hit, _local_day, _words, fold

logger = get_logger(__name__)


def parse_when(text: str, today: date, what: str) -> date:
    """A day from ``24h`` (today and yesterday), ``3d`` (three days before today), ``yesterday``,
    ``today`` or ``YYYY-MM-DD``. ``Nh`` is rounded up to whole days."""
    t = text.strip().lower()
    try:
        if t == "today":
            return today
        if t == "yesterday":
            return today - timedelta(days=1)
        m = _REL_WHEN.fullmatch(t)
        if m:
            n = int(m.group(1))
            days = n if m.group(2) == "d" else -(-n // 24)
            return today - timedelta(days=days)
    except OverflowError:
        raise BadInput(f"bad {what} {text!r}: that is before the first day there is") from None
    if _DAY.fullmatch(t):
        return parse_day(t, what)
    raise BadInput(f"bad {what} {text!r}: use 24h, 3d, yesterday, today or a date YYYY-MM-DD")


def _search_keys(words: Sequence[str]) -> set[str]:
    keys: set[str] = set()
    for w in words:
        found = _words(w)
        if not found:
            raise BadInput(f"bad search word {w!r}: it has no letters or digits")
        keys.update(fold(x) for x in found)
    return keys


def _joins(ch: str) -> bool:
    """A letter or digit that is not CJK: next to one, a word is not a whole token (see :func:`.words.tokens`)."""
    return ch.isalnum() and not is_cjk_token(ch)


def _has_token(low: str, key: str, plural: bool) -> bool:
    """Whether *low* (normalized) holds *key* (a non-CJK word) as a whole token, or with one ``s`` when
    *plural* (``flights`` folds to ``flight``)."""
    n = len(key)
    at = low.find(key)
    while at >= 0:
        if at == 0 or not _joins(low[at - 1]):
            end = at + n
            if end == len(low) or not _joins(low[end]):
                return True
            if plural and low[end] == "s" and (end + 1 == len(low) or not _joins(low[end + 1])):
                return True
        at = low.find(key, at + 1)
    return False

_SPECIALS: dict[str, tuple[bytes, bytes]] = {"i": (b"\xb0", "\u0130".encode()), "k": (b"\xaa", "\u212a".encode())}
"""Characters whose lowercase NFC form holds an ASCII letter (``İ`` → ``i̇``, Kelvin sign → ``k``), by that
letter: lowercasing a file's bytes misses them (the only two; tests/core/test_search_fast.py checks). Each with
its last byte, looked for first (one ``memchr``)."""


@record(frozen=True)
class _Query:
    """The words of one search, prepared for matching."""

    keys: frozenset[str]               # every word folded: each must be in a unit's text
    runs: tuple[str, ...]              # Chinese or Japanese words of 3+ characters: in the text as written
    tokens: tuple[tuple[str, bool], ...]   # non-CJK words: as a whole token (or with one plural s when True)
    inside: tuple[str, ...]            # CJK words (bigrams, one character): inside the text is enough
    ascii: tuple[bytes, ...]           # the ASCII keys, for the byte test
    other: tuple[str, ...]             # the other keys and runs: tested on the decoded text
    anchor: bytes | None               # the longest ASCII word: the lines holding it are looked at
    specials: tuple[tuple[bytes, bytes], ...]   # characters that send a file to the text test (see _SPECIALS)

    @classmethod
    def of(cls, words: Sequence[str]) -> _Query:
        keys = _search_keys(words)
        runs = tuple(r for w in words for r in cjk_runs(w) if len(r) > 2)   # a CJK word matches as written
        tokens = []
        for k in sorted(keys):
            if is_cjk_token(k):
                # a bigram is a token wherever it is; one CJK character is a word (猫) but never a token (the
                # text's CJK runs are bigrams): inside the text is enough, as entries.whole_word has it
                continue
            tokens.append((k, len(k) >= 3 and k[-1] != "s"))   # fold: flights -> flight, never bus -> bu
        ascii_keys = sorted((k for k in keys if k.isascii()), key=lambda k: (-len(k), k))
        anchor = next((k for k in ascii_keys if not is_cjk_token(k)), None)
        letters = set("".join(ascii_keys))
        return cls(frozenset(keys), runs, tuple(tokens), tuple(k for k in sorted(keys) if is_cjk_token(k)),
                   tuple(k.encode() for k in ascii_keys),
                   tuple([k for k in sorted(keys) if not k.isascii()] + list(runs)),
                   anchor.encode() if anchor is not None else None,
                   tuple(b for ch, b in sorted(_SPECIALS.items()) if ch in letters))

    def matches(self, text: str) -> bool:
        """Whether a unit's search text holds every word (``normalize``d here)."""
        low = normalize(text)
        for k in self.inside:       # a token holds its word: the other keys need no test of their own
            if k not in low:
                return False
        for k, plural in self.tokens:
            if not _has_token(low, k, plural):
                return False
        return all(r in low for r in self.runs)

    def in_file(self, data: bytes, low: bytes) -> tuple[bool, bool]:
        """(may the file hold every word, may its lines be found by their bytes): the cheap tests first."""
        special = any(probe in data and s in data for probe, s in self.specials)
        for k in self.ascii:
            if k not in low and not special:
                return False, False
        if self.other:
            whole = normalize(data.decode("utf-8", errors="replace"))
            if not all(k in whole for k in self.other):
                return False, False
        return True, self.anchor is not None and not special


def search(home: Home, bot: str, words: Sequence[str], since: date | None, until: date | None, *,  # noqa: C901
           include_memory: bool = True) -> list[Hit]:
    """Session search over memory: units holding every word, dated within [since, until].

    Units: each line of a daily log (an entry with its own lines) dated by the
    log's day; dated entries (struck too) with their own lines, by their date;
    every other line, by the file's modification date. Newest first, then by file.
    ``include_memory=False`` (memory switched off) finds nothing.
    """
    home.require_bot(bot)
    query = _Query.of(words) if words else None
    if since is not None and until is not None and since > until:
        raise BadInput(f"since {since.isoformat()} is after until {until.isoformat()}: nothing can match")
    if query is None and since is None and until is None:
        raise BadInput("search needs words, a since or an until")
    if not include_memory:
        return []

    def in_range(day: date) -> bool:
        return (since is None or day >= since) and (until is None or day <= until)

    found: list[tuple[int, str, int, Hit]] = []
    for rel, kind, data, mtime in _read_files(home, bot, in_range):
        log_day = date.fromisoformat(rel[-13:-3]) if kind is FileKind.LOG else None
        units: Iterator[tuple[int, date | None, tuple[str, ...], str]]
        if query is None:
            units = _scan_units(_decoded_body(data, kind), None)
        else:
            low = data.lower()
            maybe, by_lines = query.in_file(data, low)
            if not maybe:
                continue
            if by_lines:
                assert query.anchor is not None
                units = _line_units(data, low, query.anchor, kind)
            else:
                units = _scan_units(_decoded_body(data, kind), query)
        mday: date | None = None
        for order, unit_day, lines, matched in units:
            day = log_day or unit_day
            if day is None:
                if mday is None:
                    mday = _local_day(mtime)
                day = mday
            if since is not None and day < since or until is not None and day > until:
                continue
            if query is not None and not query.matches(matched):
                continue
            shown = lines[0].strip() if len(lines) == 1 else " ".join(s for s in (ln.strip() for ln in lines) if s)
            found.append((-day.toordinal(), rel, order, Hit(rel, day, shown)))
    for rel, day, shown in team_units(home, bot):     # the accepted notes of the bot's teams
        if in_range(day) and (query is None or query.matches(shown)):
            found.append((-day.toordinal(), rel, 0, Hit(rel, day, shown)))
    found.sort(key=lambda t: t[:3])
    return [t[3] for t in found]


def matcher(words: Sequence[str]) -> Callable[[str], bool]:
    """Whether a text holds every one of *words*, as search matches a unit (team notes use it)."""
    return _Query.of(words).matches


def team_units(home: Home, bot: str) -> Iterator[tuple[str, date, str]]:
    """(``team:<key>/<note>``, its day, its text) of each accepted note of the teams *bot* is a member of;
    nothing (and nothing imported) when the home has no ``teams`` folder."""
    if not (home.root / "teams").is_dir():
        return
    from ..team.loading import member_plans, note_line

    for team, p in member_plans(home, bot):
        for n in p.notes:
            try:
                day = date.fromisoformat(n.day)
            except ValueError:
                day = date(1970, 1, 1)
            yield f"team:{team.team}/{n.note}", day, " ".join(note_line(n)[2:].split())


# ----- reading the files


def _read_files(home: Home, bot: str, in_range: Callable[[date], bool]) -> Iterator[tuple[str, FileKind, bytes, float]]:
    """Every memory file of *bot* as (path, kind, bytes, mtime), folder by folder; a daily log outside
    the range is not read. A file that cannot be read (a link, too large, gone) is skipped and logged."""
    root = home.trust_root(bot)
    ws = home.workspace(bot)
    listing: list[tuple[str, list[tuple[str, FileKind]] | None]]   # None: list the folder here
    if home.is_tracked(bot):
        folders: dict[str, list[tuple[str, FileKind]] | None] = {}
        for rel in home.memory_files(bot):
            folder, _, name = rel.rpartition("/")
            names = folders.setdefault(folder, [])
            assert names is not None
            names.append((name, home.classify(bot, rel)))
        listing = list(folders.items())
    else:
        listing = [("", [(MEMORY_FILE, FileKind.MEMORY)]), ("memory", None), (LOG_DIR, None)]
    for folder, known in listing:
        try:
            with open_dir_nofollow(root, ws / folder if folder else ws) as d:
                for name, kind in known if known is not None else _listed(d, folder):
                    rel = f"{folder}/{name}" if folder else name
                    if kind is FileKind.LOG and not in_range(date.fromisoformat(rel[-13:-3])):
                        continue
                    try:
                        got = read_bytes_in(d, name, rel)
                    except HardLinkRefused as e:    # a file with another name: left out, said once
                        say_hard_link(e)
                        continue
                    except (BotMemoryError, OSError) as e:
                        logger.info("search skips %s: %s", rel, e)
                        continue
                    if got is not None:
                        yield rel, kind, got[0], got[1].st_mtime
        except FileNotFoundError:
            continue
        except (BotMemoryError, OSError) as e:
            logger.info("search skips %s: %s", folder or ws.name, e)


def _listed(d: Dir, folder: str) -> list[tuple[str, FileKind]]:
    """The memory files of a workspace folder (``memory`` or its ``log``), as ``Home.memory_files`` lists them:
    regular files (no links) whose path is a valid memory path."""
    out = []
    with os.scandir(d.fd if d.fd is not None else d.path) as it:
        for e in it:
            name = e.name
            if folder == "memory" and not name.endswith(".md"):
                continue
            if e.is_file(follow_symlinks=False):
                try:
                    out.append((name, classify(f"{folder}/{name}")))
                except BadInput:
                    continue
    return sorted(out)


def _decoded_body(data: bytes, kind: FileKind) -> str:
    """A file's body as text (a topic's without its frontmatter), invalid UTF-8 replaced."""
    return data[_body_start(data, kind):].decode("utf-8", errors="replace")


# ----- units


def _scan_units(text: str, query: _Query | None) -> Iterator[tuple[int, date | None, tuple[str, ...], str]]:
    """Every unit of *text* (a file's body) that may match: the straightforward way, every block parsed."""
    keys = query.keys if query is not None else ()
    for i, block in enumerate(scan(text)):
        if isinstance(block, str):     # a hand-written or blank line: no Block made unless it matches
            if not block.strip():
                continue
            if keys:
                low = block.lower() if block.isascii() else normalize(block)
                if not all(k in low for k in keys):
                    continue    # the cheap test first
            yield i, None, (block,), block     # a line's search text is the line (entries.search_text)
        else:
            yield i, block.date, block.lines, search_text(block) if keys else ""    # no words: nothing to match


class _Lines:
    """The lines of a file's bytes, reached by offset (a line starts at 0 or after a newline), each decoded
    on its own when looked at; *start* is where the body begins (after a topic's frontmatter)."""

    def __init__(self, data: bytes, start: int) -> None:
        self.data = data
        self.start = start
        self.end = len(data) - 1 if data.endswith(b"\n") else len(data)   # scan drops one final newline
        self._text: dict[int, tuple[str, int]] = {}
        self._fences: list[tuple[int, int]] | None = None
        self.marks = [(m, data.find(m, start, self.end)) for m in (b"```", b"~~~")]   # each fence mark's first
        self.first_mark = min((p for _, p in self.marks if p >= 0), default=self.end + 1)
        self._heads: dict[int, Block | None] = {}

    def head(self, pos: int) -> Block | None:
        """The line at *pos* parsed as an entry's first line (a struck one too), else None."""
        if pos in self._heads:
            return self._heads[pos]
        block: Block | None = None
        if self.data[pos:pos + 2] in _BULLETS:
            b = parse_block_head(self.at(pos)[0])
            if b.kind is BlockKind.ENTRY or b.kind is BlockKind.STRUCK:
                block = b
        self._heads[pos] = block
        return block

    def at(self, pos: int) -> tuple[str, int]:
        """The line starting at *pos* and where it ends (its newline, or the end)."""
        got = self._text.get(pos)
        if got is None:
            nl = self.data.find(b"\n", pos, self.end)
            stop = self.end if nl < 0 else nl
            got = self._text[pos] = (self.data[pos:stop].decode("utf-8", errors="replace"), stop)
        return got

    def line_of(self, pos: int) -> int:
        return self.data.rfind(b"\n", self.start, pos) + 1 or self.start

    def before(self, pos: int) -> int | None:
        """The start of the line before the one at *pos*, or None at the body's first line."""
        if pos <= self.start:
            return None
        return self.data.rfind(b"\n", self.start, pos - 1) + 1 or self.start

    def after(self, pos: int) -> int | None:
        """The start of the line after the one at *pos*, or None at the last line."""
        stop = self.at(pos)[1]
        return stop + 1 if stop < self.end else None

    def fence_end(self, pos: int) -> int | None:
        """For a fence line at *pos*: the start of the line closing it (``entries._fence_end``), or None."""
        m = _FENCE.match(self.at(pos)[0])
        assert m is not None
        mark = m.group(1).encode()
        search = self.at(pos)[1]
        while True:
            hit = self.data.find(mark, search, self.end)
            if hit < 0:
                return None
            line = self.line_of(hit)
            text, stop = self.at(line)
            if text.strip().startswith(m.group(1)):
                return line
            search = stop

    def fences(self) -> list[tuple[int, int]]:
        """The fenced blocks an entry takes in (opening line, closing line), in order."""
        if self._fences is None:
            found: list[tuple[int, int]] = []
            opens = sorted({self.line_of(p) for mark, first in self.marks if first >= 0
                            for p in _finditer(self.data, mark, first, self.end)})
            for pos in opens:
                if found and pos <= found[-1][1]:
                    continue            # inside a block an entry took in
                if pos - 1 <= self.start or self.data[pos - 2] == 10:
                    continue            # the first line, or right below a blank one: not an entry's
                if not _fence_opens(self.at(pos)[0]):
                    continue
                prev = self.before(pos)
                if prev is None or self._head_above(prev, found) is None:
                    continue            # not right below an entry's lines: an ordinary line
                end = self.fence_end(pos)
                if end is not None:
                    found.append((pos, end))
            self._fences = found
        return self._fences

    def _head_above(self, pos: int, fences: list[tuple[int, int]]) -> int | None:
        """The entry whose own lines end with the line at *pos* (its first line's offset), or None."""
        while True:
            block = _inside(fences, pos)
            if block is not None:
                prev = self.before(block[0])    # a block an entry took in: that entry's
                assert prev is not None
                pos = prev
                continue
            if self.head(pos) is not None:
                return pos
            if not self.own(pos):
                return None
            prev = self.before(pos)
            if prev is None:
                return None
            pos = prev

    def own(self, pos: int) -> bool:
        """Whether the line at *pos* is indented and not blank (:func:`_is_own`), its first byte looked at first."""
        return self.data[pos] in (32, 9) and _is_own(self.at(pos)[0])

    def unit(self, pos: int) -> tuple[int, int, tuple[str, ...], Block | None] | None:
        """The unit holding the line at *pos*: (its first line, its end, its lines, the entry or None for a
        line of its own); None for a blank line."""
        fences = self.fences()
        block = _inside(fences, pos)
        head: int | None
        if block is not None:
            prev = self.before(block[0])
            assert prev is not None
            head = self._head_above(prev, fences)
        else:
            if self.head(pos) is not None:
                head = pos
            elif self.own(pos):
                prev = self.before(pos)
                head = self._head_above(prev, fences) if prev is not None else None
            else:
                head = None
            if head is None:
                text = self.at(pos)[0]
                if not text.strip():
                    return None
                return pos, self.at(pos)[1], (text,), None
        assert head is not None
        own = [self.at(head)[0]]
        cur = self.after(head)
        while cur is not None:           # entries.scan's own lines: indented ones and fenced blocks
            if not _MAY_JOIN[self.data[cur]]:
                break                    # the first byte says it is neither (no line decoded)
            text = self.at(cur)[0]
            if _fence_opens(text):
                end = self.fence_end(cur)
                if end is None:
                    break
                while True:
                    own.append(self.at(cur)[0])
                    if cur == end:
                        break
                    nxt = self.after(cur)
                    assert nxt is not None
                    cur = nxt
                cur = self.after(end)
                continue
            if _is_own(text):
                own.append(text)
                cur = self.after(cur)
                continue
            break
        stop = self.end if cur is None else cur - 1
        entry = self.head(head)
        assert entry is not None
        return head, stop, tuple(own), entry if len(own) == 1 else replace(entry, lines=tuple(own))


_BULLETS = tuple(b.encode() for b in BULLETS)
_MAY_JOIN = bytes(1 if b in b" \t`~\x0b\x0c\r\x1c\x1d\x1e\x1f" or b >= 0x80 else 0 for b in range(256))
"""The first bytes of a line that may belong to the entry above it: indented, or a fence (``\\s*`` then
a fence mark; whitespace other than ASCII starts with a byte from 0x80)."""


def _finditer(data: bytes, needle: bytes, start: int, end: int) -> Iterator[int]:
    pos = data.find(needle, start, end)
    while pos >= 0:
        yield pos
        pos = data.find(needle, pos + len(needle), end)


def _inside(fences: list[tuple[int, int]], pos: int) -> tuple[int, int] | None:
    for b in fences:
        if b[0] <= pos <= b[1]:
            return b
        if b[0] > pos:
            break
    return None


def _fence_opens(line: str) -> bool:
    return line[:1] not in (" ", "\t") and _FENCE.match(line) is not None


def _is_own(line: str) -> bool:
    """An indented, not blank line: it belongs to an entry right above it."""
    return line[:1] in (" ", "\t") and bool(line.strip())


def _body_start(data: bytes, kind: FileKind) -> int:
    """Where a file's body begins in its bytes: after a topic's frontmatter (:func:`.frontmatter.split`'s rule),
    else 0; ``len(data)`` when nothing follows the frontmatter."""
    if kind is not FileKind.TOPIC or not (data.startswith(b"---\n") or data.startswith(b"---\r\n")):
        return 0
    pos = data.find(b"\n") + 1
    while True:
        nl = data.find(b"\n", pos)
        if data[pos:nl if nl >= 0 else len(data)].rstrip(b"\r") in (b"---", b"..."):
            return nl + 1 if nl >= 0 else len(data)
        if nl < 0:
            return 0        # never closed: no frontmatter
        pos = nl + 1


def _line_units(data: bytes, low: bytes, anchor: bytes,
                kind: FileKind) -> Iterator[tuple[int, date | None, tuple[str, ...], str]]:
    """The units holding a line with *anchor* in its lowercased bytes, each once, in order."""
    start = _body_start(data, kind)
    lines = _Lines(data, start)
    end = lines.end
    fence = lines.first_mark
    hit = low.find(anchor, start, end)
    while hit >= 0:
        pos = data.rfind(b"\n", start, hit) + 1 or start
        nl = data.find(b"\n", hit, end)
        stop = end if nl < 0 else nl
        if data[pos] not in (32, 9) and (stop < fence or _inside(lines.fences(), pos) is None):
            # the common case: not indented, not in a fenced block an entry took in
            text = data[pos:stop].decode("utf-8", errors="replace")
            head = head_fields(text) if data[pos:pos + 2] in _BULLETS else None
            if head is None:
                yield pos, None, (text,), text          # a line's search text is the line (entries.search_text)
                hit = low.find(anchor, stop + 1, end)
                continue
            if stop == end or not _MAY_JOIN[data[stop + 1]]:
                yield pos, head[1], (text,), search_text_of(head[3], head[2])    # an entry without more lines
                hit = low.find(anchor, stop + 1, end)
                continue
        unit = lines.unit(pos)       # the general way: an indented line, a fence near, an entry with more lines
        if unit is None:        # a blank line: no unit
            hit = low.find(anchor, stop + 1, end)
            continue
        first, done, own, entry = unit
        if entry is None:
            yield first, None, own, own[0]       # a line's search text is the line (entries.search_text)
        else:
            yield first, entry.date, own, search_text(entry)
        hit = low.find(anchor, max(done, stop) + 1, end)     # the next unit's (the unit holds the line)
