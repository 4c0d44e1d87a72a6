"""The line grammar of memory files: dated entries, struck entries, hand-written lines.

One entry is a bullet line::

    - YYYY-MM-DD · SOURCE [(noticed)] · TEXT [· until YYYY-MM-DD] [· moved YYYY-MM-DD]

with the lines indented under it, or a fenced code block right below it,
belonging to it. The bullet may be ``- `` or ``* `` (markdown allows both).
A struck entry is ``- ~~ORIGINAL~~ · superseded YYYY-MM-DD``. About me's
learned lines, ``- YYYY-MM-DD · learned by BOT · TEXT``, are entries whose
source is ``learned by BOT``. Every other line is hand-written. Parsing never
fails: any text is a document, and ``render(parse(text)) == text`` for every text.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from datetime import date
from enum import Enum

from ..base.record import field, record, replace

DOT = " · "
MAX_ENTRY_CHARS = 1000
MAX_ENTRY_LINES = 20

BULLETS = ("- ", "* ")   # an entry's bullet, and a hand-written list line's
_DATE = r"(\d{4}-\d{2}-\d{2})"
_STRUCK = re.compile(rf"^[-*] ~~(.*)~~ · superseded {_DATE}((?: · moved \d{{4}}-\d{{2}}-\d{{2}})?)\s*$")
_HEAD = re.compile(rf'^[-*] {_DATE} · (?:(from (?:chat|room) "[^"\n]*"|from [\w.-]+|learned by [\w.-]+)( \(noticed\))? · )?'
                   r'(.*)$')
"""An entry's first line: date, source (optional), `` (noticed)``, the rest."""
_SOURCE_TITLE = re.compile(r'from (?:chat|room) "([^"\n]*)"')
_SUFFIX = re.compile(rf"^(.*?) · (until|moved) {_DATE}\s*$", re.DOTALL)
_FENCE = re.compile(r"^\s*(```|~~~)")
_WS = re.compile(r"\s+")

HEALTH_STEMS: tuple[str, ...] = (
    "allerg", "anaphyla", "epipen", "diet", "vegan", "vegetarian", "pescatarian", "halal",
    "kosher", "gluten", "coeliac", "celiac", "lactose", "intoleran", "diabet", "insulin",
    "medicat", "medicine", "prescription", "health", "medical", "disab", "epilep", "seizure",
    "asthma", "inhaler", "pregnan", "blood type", "emergency contact", "nut-free", "peanut",
    "shellfish", "wheelchair", "hearing aid", "blind", "deaf", "dementia", "cardiac",
    "pacemaker", "heart condition", "migraine", "dialysis", "chemo", "cancer", "therapy",
    "therapist", "psychiatr", "antidepress", "mental health", "sobriety", "sober",
    "alcohol-free", "dyslexi", "adhd", "autis", "hiv", "hepatitis", "anticoagul",
    "blood thinner", "do not resuscitate",
)
"""Health and safety facts: word stems matched at the start of a word, case-insensitively.

The budget mover never moves an entry that mentions one; the fixed list is the
rule, not a model's judgement.
"""


@functools.cache
def _health() -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(s) for s in HEALTH_STEMS) + r")", re.IGNORECASE)


Day = date
"""An alias, because Block has a field named ``date``."""


class BlockKind(Enum):
    ENTRY = "entry"      # a dated bullet with its own lines
    STRUCK = "struck"    # a struck-through, superseded entry
    TEXT = "text"        # a hand-written line (never moved or removed by upkeep)
    BLANK = "blank"


@record(frozen=True)
class Block:
    """One entry with the lines that belong to it, or one other line."""

    kind: BlockKind
    lines: tuple[str, ...]
    date: Day | None = None        # entry date; for a struck entry, the superseded date
    text: str = ""                  # TEXT of an entry (the struck part for a struck entry)
    source: str | None = None
    noticed: bool = False
    until: Day | None = None
    moved: Day | None = None

    @property
    def first_line(self) -> str:
        return self.lines[0]

    @property
    def dated(self) -> bool:
        return self.kind in (BlockKind.ENTRY, BlockKind.STRUCK) and self.date is not None

    def expired(self, today: Day) -> bool:
        return self.until is not None and self.until < today

    def body(self) -> str:
        """The fact: TEXT plus its own lines, never the date, source or suffixes.

        What forget and the forgotten-words check judge (``fact_text``). A
        hand-written line is judged by its whole text.
        """
        if self.kind in (BlockKind.ENTRY, BlockKind.STRUCK):
            return "\n".join((self.text, *self.lines[1:]))
        return "\n".join(self.lines)

    def with_suffix(self, word: str, day: Day) -> Block:
        """The block with `` · WORD DATE`` appended to its bullet line."""
        first = f"{self.lines[0].rstrip()}{DOT}{word} {day.isoformat()}"
        parsed = parse_block_head(first)
        return replace(parsed, lines=(first, *self.lines[1:]))


@record()
class Document:
    """A memory file as blocks. ``render()`` gives back the exact text."""

    blocks: list[Block] = field(default_factory=list)
    trailing_newline: bool = True

    def render(self) -> str:
        lines = [line for b in self.blocks for line in b.lines]
        if not lines:
            return ""
        return "\n".join(lines) + ("\n" if self.trailing_newline else "")

    def entries(self) -> list[Block]:
        return [b for b in self.blocks if b.kind in (BlockKind.ENTRY, BlockKind.STRUCK)]


@functools.lru_cache(maxsize=4096)     # a file's entries share few dates (a date is immutable)
def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


@functools.lru_cache(maxsize=1024)   # a file is parsed again at every write, its lines mostly the same (a Block is frozen)
def parse_block_head(line: str) -> Block:
    """Classify one line as the head of a block (entry, struck, text or blank)."""
    if not line.strip():
        return Block(BlockKind.BLANK, (line,))
    f = head_fields(line)
    if f is None:
        return Block(BlockKind.TEXT, (line,))
    kind, day, text, source, noticed, until, moved = f
    return Block(kind, (line,), day, text, source, noticed, until, moved)


HeadFields = tuple[BlockKind, date, str, str | None, bool, date | None, date | None]
"""An entry's first line read (:func:`head_fields`): kind (ENTRY or STRUCK), date, text, source, noticed,
until, moved — a :class:`Block`'s fields."""


def head_fields(line: str) -> HeadFields | None:
    """The fields of an entry's (or a struck entry's) first line, None for any other line: what
    :func:`parse_block_head` makes a Block of (session search and recall's indexer read them without
    making one). An entry's line is read by one regex (:data:`_HEAD`), the first of any other
    line's characters after the bullet say it can be none (no regex run for it)."""
    third = line[2:3]
    if third == "~":
        m = _STRUCK.match(line) if line[3:4] == "~" else None
        if m:
            day = _day(m.group(2))
            if day is not None:
                inner, moved_at = m.group(1, 3)
                moved = _day(moved_at[-10:]) if moved_at else None
                original = head_fields("- " + inner)
                text = original[2] if original is not None and original[0] is BlockKind.ENTRY else inner
                return BlockKind.STRUCK, day, text, original[3] if original is not None else None, False, None, moved
        return None
    if not third.isdecimal():      # (what the date's first \d needs)
        return None
    m = _HEAD.match(line)
    if m:
        at, source, noticed, rest = m.groups()
        day = _day(at)
        if day is not None:
            rest, until, moved = _suffixes(rest)
            return BlockKind.ENTRY, day, rest.strip(), source, noticed is not None, until, moved
    return None


def _suffixes(rest: str) -> tuple[str, date | None, date | None]:
    """An entry's text without its `` · until DATE`` and `` · moved DATE`` ends, and those dates."""
    until = moved = None
    while " · until " in rest or " · moved " in rest:    # (what _SUFFIX needs: no search otherwise)
        xm = _SUFFIX.match(rest)
        if not xm:
            break
        d = _day(xm.group(3))
        if d is None:
            break
        if xm.group(2) == "until" and until is None:
            until = d
        elif xm.group(2) == "moved" and moved is None and until is None:
            moved = d
        else:
            break
        rest = xm.group(1)
    return rest, until, moved


def scan(text: str) -> Iterator[Block | str]:
    """:func:`parse`'s blocks in order, except that a hand-written or blank line comes as its plain
    string (no Block made for it: what a reader that only wants entries and lines, like recall's
    indexer, needs)."""
    if text == "":
        return
    lines = (text[:-1] if text.endswith("\n") else text).split("\n")
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        i += 1
        if line[:2] not in BULLETS:          # neither an entry nor a struck one can start otherwise
            yield line
            continue
        head = parse_block_head(line)
        if head.kind is not BlockKind.ENTRY and head.kind is not BlockKind.STRUCK:
            yield line
            continue
        own = [line]
        while i < n:
            line = lines[i]
            if ("```" in line or "~~~" in line) and _FENCE.match(line) and line[:1] not in (" ", "\t"):
                # the older form: a fenced code block right below the entry
                end = _fence_end(lines, i)
                if end is None:
                    break
                own.extend(lines[i:end + 1])
                i = end + 1
                continue
            if line[:1] in (" ", "\t") and line.strip():
                own.append(line)
                i += 1
                continue
            break
        yield replace(head, lines=tuple(own)) if len(own) > 1 else head


def parse(text: str) -> Document:
    """Split text into blocks. Indented lines and a fence right below an entry join it."""
    if text == "":
        return Document([], True)
    blocks = [b if isinstance(b, Block) else Block(BlockKind.TEXT if b.strip() else BlockKind.BLANK, (b,))
              for b in scan(text)]
    return Document(blocks, text.endswith("\n"))


def _fence_end(lines: list[str], start: int) -> int | None:
    m = _FENCE.match(lines[start])
    assert m is not None
    mark = m.group(1)
    for j in range(start + 1, len(lines)):
        if lines[j].strip().startswith(mark):
            return j
    return None


def format_entry(day: date, source: str, text: str, *, until: date | None = None,
                 noticed: bool = False) -> str:
    """One entry as it is written: the bullet line, further lines indented under it."""
    parts = text.strip("\n").split("\n")
    head = f"- {day.isoformat()}{DOT}{source}{' (noticed)' if noticed else ''}{DOT}{parts[0].strip()}"
    if until is not None:
        head += f"{DOT}until {until.isoformat()}"
    rest = [("  " + p.strip()) if p.strip() else "  " for p in parts[1:]]
    return "\n".join([head, *rest])


def clean_title(title: str) -> str:
    """A chat title as it is stored everywhere (entry source, journal row, daily log, open turn):
    redacted, on one line, without a ``"``.

    Credentials become redaction markers (before the line is joined, so a key
    block spread over lines is still found); newlines and other control
    characters become spaces, so a title can never start a second entry line;
    a ``"`` becomes ``'``, so ``from chat "T"`` reads back as exactly T; text
    that is not Unicode (undecodable bytes kept as lone surrogates) becomes
    U+FFFD. Idempotent.
    """
    from ..redact import redact

    text = "".join("\ufffd" if unicodedata.category(ch) == "Cs" else ch for ch in title)
    text = redact(text)
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else "'" if ch == '"' else ch
                   for ch in text).strip()


def chat_source(chat: str | None, word: str) -> str:
    """``from chat "T"`` for a chat (its title cleaned: :func:`clean_title`), else ``from WORD``."""
    if chat is not None:
        return f'from chat "{clean_title(chat)}"'
    return f"from {word}"


def strike(block: Block, day: date) -> str:
    """The struck form of an entry: ``- ~~ORIGINAL~~ · superseded DATE``."""
    first = block.first_line
    bullet = first[:2] if first[:2] in BULLETS else "- "
    original = first[2:] if first[:2] in BULLETS else first
    return f"{bullet}~~{original}~~{DOT}superseded {day.isoformat()}"


def fact_text(block: Block) -> str:
    """The words a note is judged by: an entry's TEXT and the lines under it, a hand-written line whole.

    Never the date, the source (``from chat "Berlin trip"``, ``learned by scout``),
    ``(noticed)``, ``· until``, ``· moved``, ``· superseded`` or the ``~~`` of a struck one.
    """
    return block.body()


def without_bullet(line: str) -> str:
    """*line* trimmed and without its ``- `` or ``* `` bullet: the text a list of lines shows."""
    t = line.strip()
    for b in BULLETS:
        if t.startswith(b):
            return t[len(b):].lstrip()
    return t


def source_title(block: Block) -> str | None:
    """The chat or room an entry came from, as its source names it (``from chat "Berlin trip"``), else None."""
    if block.source is None:
        return None
    m = _SOURCE_TITLE.fullmatch(block.source)
    return m.group(1) if m else None


def search_text(block: Block) -> str:
    """The words search matches a note by: its fact and the chat or room title it came from.

    Never the date or the fixed words around them (``from chat``, ``from cli``,
    ``(noticed)``, ``· until``, ``· moved``, ``· superseded``): a search for
    "chat" or "2026" would otherwise find every note. The hit still shows the
    whole line, so it names the chat. Forget judges :func:`fact_text` alone.
    """
    return search_text_of(block.source, block.body())


def search_text_of(source: str | None, body: str) -> str:
    """:func:`search_text` from an entry's source and body (its fact and own lines)."""
    m = _SOURCE_TITLE.fullmatch(source) if source is not None else None
    return body if m is None else f"{m.group(1)}\n{body}"


def whole_word(word: str) -> re.Pattern[str]:
    """*word* as a whole word, case-insensitively ("IST" is not in "dentist"): forget and --grep use it.

    Chinese and Japanese are written without spaces, so an end of *word* that is a
    Han, Hiragana or Katakana character needs no boundary (``東京`` is in
    ``東京に行く``), and a letter of another script next to such a character is at
    a word's end (``iPhone`` is in ``iPhoneを買った``).
    """
    from .words import CJK_CLASS

    other = rf"[^\W{CJK_CLASS}]"          # a letter, digit or _ that is not CJK
    cjk = re.compile(f"[{CJK_CLASS}]")
    left = "" if word and cjk.match(word[0]) else rf"(?<!{other})"
    right = "" if word and cjk.match(word[-1]) else rf"(?!{other})"
    return re.compile(f"{left}{re.escape(word)}{right}", re.IGNORECASE)


def is_health(text: str) -> bool:
    return _health().search(text) is not None


def fact_key(block: Block) -> str:
    """What "exactly the same fact" compares: TEXT with spacing folded and one final full stop dropped."""
    body = _WS.sub(" ", block.text).strip()
    if body.endswith("."):
        body = body[:-1].rstrip()
    extra = tuple(_WS.sub(" ", line).strip() for line in block.lines[1:])
    until = block.until.isoformat() if block.until else ""
    return "\n".join((body, *extra, until))


def check_entry_text(text: str) -> str | None:
    """Why TEXT cannot be an entry, or None when it can."""
    stripped = text.strip()
    if not stripped:
        return "the entry is empty"
    if len(text) > MAX_ENTRY_CHARS:
        return f"the entry is {len(text)} characters; one entry is at most {MAX_ENTRY_CHARS}"
    n = len(text.strip("\n").split("\n"))
    if n > MAX_ENTRY_LINES:
        return f"the entry is {n} lines; one entry is at most {MAX_ENTRY_LINES}"
    for i, ch in enumerate(text):   # an escape sequence in MEMORY.md would reach every terminal that shows it
        if ch not in "\t\n\r" and unicodedata.category(ch) == "Cc":
            return (f"the entry holds a control character (U+{ord(ch):04X} at character {i + 1}); "
                    "only tabs and line breaks are kept")
    return None


def join_blocks(blocks: Iterable[Block]) -> str:
    return "\n".join(line for b in blocks for line in b.lines)


def append_text(existing: str, addition: str) -> str:
    """*existing* with *addition* appended on lines of its own."""
    if not addition:
        return existing
    if existing and not existing.endswith("\n"):
        existing += "\n"
    return existing + addition + ("" if addition.endswith("\n") else "\n")


MOVED_MARK = f"{DOT}moved "
"""What marks a line moved to the archive (``· moved DATE``)."""


def archived_text(blocks: Sequence[Block], today: date) -> str:
    """Blocks as they go into the archive: each bullet line marked ``· moved DATE``."""
    return "\n".join(line for b in blocks for line in b.with_suffix("moved", today).lines)
