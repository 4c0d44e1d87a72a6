"""What Claude Code loads of an auto memory folder's ``MEMORY.md``: exactly the text its request carries.

Read from Claude Code's own code (its bundled JavaScript) and proven against the real ``claude -p`` by
tests/conformance/claude_code. The text goes through these steps, each as Claude Code does it:

1. **The file.** Over 4 MiB (:data:`MAX_FILE_BYTES`) it is skipped whole; it is decoded as UTF-8, each bad
   sequence becoming U+FFFD.
2. **Frontmatter.** A leading ``---`` line (any white space after it, a BOM before it ignored) opens it, the
   first later ``---`` anywhere closes it, even mid-line, and all white space after the closer goes with it.
   There is no ``...`` closer. Without a match the text stays as it is (BOM included).
3. **HTML comments**, only when the text holds ``<!--``: the text (``\\r\\n`` and ``\\r`` made ``\\n``) is cut
   into the top-level blocks of Claude Code's markdown lexer (:class:`_Blocks`, a fork of *marked* with gfm
   off) and put together again, except that a block that is an HTML comment loses its comments (and goes
   when nothing else is left) and a link-reference definition (``[x]: url``) goes whole. A comment inside
   a fence, an indented code block, a list, a block quote, a paragraph or another HTML block stays.
   **From 2.1.332** only the comment blocks' own spans are edited: link-reference definitions stay, and a
   text with no top-level comment block is left as it is (its CRs too) though it holds ``<!--``.
4. **The cut.** The text is trimmed (JavaScript's white space: U+FEFF and U+3000 too) and measured in UTF-16
   code units, lines split at ``\\n`` only (a lone CR, a form feed or U+2028 does not end a line). Over 200
   lines the first 200 are kept; then over 25,000 units it is cut at the last ``\\n`` within them, or hard at
   25,000 when line 1 alone is longer. A warning paragraph saying what was cut is appended, in Claude Code's
   words (:func:`_warning`).
5. **Sanitizing**, twice: ``\\r\\n``, ``\\r``, U+2028 and U+2029 become ``\\n``; controls, format, private-use,
   unassigned and default-ignorable code points are dropped (:mod:`.claude_code_chars`); a ``<`` that opens
   one of Claude Code's reserved tags (``<system-reminder>``, ``</command-name>``, …) gets a backslash after it.
6. An empty result sends **no block** at all.

The rules are Claude Code 2.1.328's and 2.1.332's (:data:`RULES`; step 3 is the one that differs), each
proven against that version's own code. Text is handled as JavaScript holds it: a ``str`` whose characters
are UTF-16 code units (a character past U+FFFF is two surrogate characters), so lengths, slices and regular
expressions count as Claude Code's do.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from . import claude_code_chars

RULES = ("2.1.328", "2.1.332")
"""The Claude Code versions whose rules these are, oldest first (:mod:`.versions` chooses among them)."""
KEEPS_DEFINITIONS = "2.1.332"
"""From this version on, stripping comments edits only the comment blocks (link-reference definitions stay)."""

MAX_FILE_BYTES = 4 * 1024 * 1024
"""A MEMORY.md larger than this (in bytes) is not loaded at all."""
MAX_LINES = 200
MAX_UNITS = 25_000
"""The line and size budgets; the size in UTF-16 code units (what Claude Code's messages call bytes)."""

JS_SPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
            "\u2028\u2029\u202f\u205f\u3000\ufeff")
"""JavaScript's white space (``\\s``, ``trim``)."""
_S = "[" + re.escape(JS_SPACE) + "]"
_NS = "[^" + re.escape(JS_SPACE) + "]"
_DOT = "[^\n\r\u2028\u2029]"
"""JavaScript's ``.`` (no line terminator)."""
_A = re.ASCII   # [A-Z] with IGNORECASE, as JavaScript's non-unicode /i: ASCII letters only


# ----- JavaScript strings


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _pair(m: re.Match[str]) -> str:
    c = ord(m.group()) - 0x10000
    return chr(0xD800 + (c >> 10)) + chr(0xDC00 + (c & 0x3FF))


def to_units(s: str) -> str:
    """*s* as JavaScript holds it: every character past U+FFFF as its two surrogate code units."""
    return s if s.isascii() else _ASTRAL.sub(_pair, s)


def from_units(j: str) -> str:
    """The text of a string of code units (pairs joined again; a lone surrogate stays one)."""
    if j.isascii():
        return j
    return j.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def js_trim(j: str) -> str:
    return j.strip(JS_SPACE)


# ----- 2. frontmatter

_FRONTMATTER = re.compile("---" + _S + "*\n[\\s\\S]*?---" + _S + "*\n?")


def frontmatter_end(j: str) -> int:
    """Where the text after the frontmatter starts (0: none), as Claude Code strips it."""
    bom = 1 if j.startswith("\ufeff") else 0
    if j.find("---", bom + 3) < 0:
        return 0
    m = _FRONTMATTER.match(j, bom)
    return m.end() if m else 0


# ----- 3. HTML comments: the top-level blocks of Claude Code's markdown lexer

_HR = r"(?:-[\t ]*-[\t ]*-[-\t ]*|_[\t ]*_[\t ]*_[_\t ]*|\*[\t ]*\*[\t ]*\*[*\t ]*)(?![^\n])"
_ATX = "#{1,6}(?!" + _NS + ")"
_RAW_TAGS = ("script", "pre", "style", "textarea")
_BLOCK_TAGS = frozenset((
    "address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div "
    "dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe "
    "legend li link main menu menuitem meta nav noframes ol optgroup option p param search section summary "
    "table tbody td tfoot th thead title tr track ul").split())
_HTML_START = ("<(?:!--|" + "|".join(_RAW_TAGS) + "|/?(?:" + "|".join(sorted(_BLOCK_TAGS)) + r")(?:[\n >]|/>))")

_UP_TO_3 = re.compile(" {0,3}")
_BLANK = re.compile(r"(?:[\t\n ]*\Z|[\t ]*\n(?:[\t\n ]*\n)?)")
_CODE_LINE = re.compile(r" {0,3}\t| {4}")
_CODE_GAP = re.compile(r"[\t\n ]*\Z|[\t\n ]*\n|")
_FENCE_OPEN = re.compile(r" {0,3}(?:`{3,}(?![^\n`]*`)|~{3,})")
_FENCE_NEXT = re.compile(r"\n {0,3}(?=[`~])")
_FENCE_REST = re.compile(r"[`~]* *(?![^\n])")
_HR_LINE = re.compile(r" {0,3}" + _HR + r"\n*")
_HEADING = re.compile(r" {0,3}" + _ATX + _DOT + r"*(?![^\n])\n*")
_INTERRUPTS = re.compile(r" {0,3}(?:>|[-+*] |1[).] |" + _ATX + r"|`{3,}[^\n`]*\n|~~~[^\n]*\n|" + _HR + r")| *\n|"
                         + _HTML_START)
"""What ends a paragraph at the start of its next line."""
_BULLET = re.compile(r" {0,3}(?:[0-9]{1,9}[).]|[-+*])(?![^\t\n ])")
_TABS = re.compile(r"\t*")
_SPACES = re.compile(r" *")
_ITEM_BLANK = re.compile(r"[\t ]*(?![^\n])\n?")
_ITEM_STARTS = r"#|```|~~~|(?:- *- *-[- ]*|_ *_ *_[_ ]*|[*] *[*] *[*][* ]*)\Z"
_ITEM_ENDS = re.compile(_ITEM_STARTS + "|<!--|<[A-Z]" + _DOT + r"*>|(?:[0-9]{1,9}[).]|[-+*])(?![^\t ])",
                        re.I | _A)
_ITEM_STARTS_RE = re.compile(_ITEM_STARTS)
_INDENTED = re.compile(r"(?: {0,3}\t| {4})[\t ]*[^\t ]")
_QUOTE = re.compile(r" {0,3}>")
_QUOTE_MARK = re.compile(r"^ {0,3}> ?")
_TAG_NAME = re.compile(r"[A-Z][-A-Z0-9_]*", re.I | _A)
_TAG_END = re.compile(r"[\n >]|/>")
_BLANK_LINE = re.compile(r"\n[\t\n ]*\n")
_CLOSE_TAG = re.compile(_S + "*>")
_ATTRIBUTE = re.compile(r" +[:A-Z_][-.:A-Z0-9_]*(?: *= *(?:[^" + re.escape(JS_SPACE) + "\"'<=>`]+|'[^\n']*'"
                        r"|\"[^\n\"]*\"))?", re.I | _A)
_OPEN_TAG_END = re.compile(r" */?>")
_DEFINITION = re.compile(r" {0,3}\[(?:[^\]\\]|\\" + _DOT + r")+\]:[ \t]*\n?[ \t]*(?:<[^>\n]*>|[^"
                         + re.escape(JS_SPACE) + "<]" + _NS + r"*)(?:(?:[ \t]+\n?[ \t]*|[ \t]*\n[ \t]*)"
                         r"(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?[ \t]*(?:\n+|\Z)")
_UNDERLINE_ANYWHERE = re.compile(r"(?:^|(?<=[\n\r\u2028\u2029])) {0,3}(?:=+|-+) *(?=[\n\r\u2028\u2029]|\Z)")
_UNDERLINE = re.compile(r" {0,3}(?:=+|-+) *\Z")
_NOT_SETEXT = re.compile("(?:" + _S + r"*\Z|(?:[*+-]|[0-9]{1,9}[.)]) |(?: {4}| {0,3}\t)| {0,3}(?:`{3,}|~{3,})"
                         r"| {0,3}>| {0,3}#{1,6}| {0,3}<[^\n>]+>\Z|" + _DOT + "*[\u2028\u2029])")
_SETEXT_LINE = re.compile(r"(?![-+*] |[0-9]{1,9}[).] | {0,3}(?:[\t#>]|```|~~~|<[^\n>]+>\n)| {4})" + _DOT + r"*\n")
_SPACE_LINE = re.compile("[" + re.escape(JS_SPACE.replace("\n", "")) + "]*\n")
_SETEXT_UNDERLINE = re.compile(r" {0,3}(?:-+|=+) *(?![^\n])\n*")
_COMMENT = re.compile(r"<!--[\s\S]*?-->")
_FIRST_NON_SPACE = re.compile(r"[^ ]|\Z")


def _end(rx: re.Pattern[str], s: str, p: int) -> int:
    m = rx.match(s, p)
    return -1 if m is None else m.end()


def _line_end(s: str, p: int) -> int:
    r = s.find("\n", p)
    return len(s) if r < 0 else r


def _after_newlines(s: str, p: int) -> int:
    while p < len(s) and s[p] == "\n":
        p += 1
    return p


class _Blocks:
    """The lengths of the top-level blocks of *s* (CR-free), as Claude Code's markdown lexer cuts them.

    Each method is one of the lexer's block rules: the length of the block it reads at *p*, or None. The
    rules tried at a position depend on its first character after up to three spaces (:data:`_RULES`); a
    setext heading and a paragraph are tried last everywhere.
    """

    def __init__(self, s: str) -> None:
        self.s = s
        self.underlines = _UNDERLINE_ANYWHERE.search(s) is not None

    def space(self, p: int) -> int | None:
        e = _end(_BLANK, self.s, p)
        return e - p if e > p else None

    def code(self, p: int) -> int | None:
        s = self.s
        o, r = -1, p
        while True:
            h = _end(_CODE_LINE, s, r)
            if h == -1 or h >= len(s) or s[h] == "\n":
                return (o - p) if o > p else None
            g = _line_end(s, h)
            o = _end(_CODE_GAP, s, g + 1) if g < len(s) else g
            if o <= r:
                return (o - p) if o > p else None
            r = o

    def fences(self, p: int) -> int | None:
        s = self.s
        o = _end(_FENCE_OPEN, s, p)
        if o == -1:
            return None
        fence = s[p:o].lstrip()
        h = o
        while True:
            m = _FENCE_NEXT.search(s, h)
            if not m:
                return len(s) - p
            h = m.end()
            if s.startswith(fence, h) and _end(_FENCE_REST, s, h + len(fence)) != -1:
                return _line_end(s, s.rfind("\n", 0, h) + 1) - p

    def heading(self, p: int) -> int | None:
        e = _end(_HEADING, self.s, p)
        return e - p if e > p else None

    def hr(self, p: int) -> int | None:
        e = _end(_HR_LINE, self.s, p)
        return e - p if e > p else None

    def html(self, p: int) -> int | None:  # noqa: C901
        s = self.s
        o = max(p, _end(_UP_TO_3, s, p))
        if o >= len(s) or s[o] != "<":
            return None
        r = o + 1
        h = s[r] if r < len(s) else ""
        if h == "?":
            q = s.find("?>", r + 1)
            return _after_newlines(s, len(s) if q < 0 else q + 2) - p
        if h == "!":
            if s.startswith("--", r + 1):
                q = s.find("-->", r + 1)
                return _after_newlines(s, _line_end(s, len(s) if q < 0 else q + 3)) - p
            if max(r + 1, _end(_TAG_NAME, s, r + 1)) > r + 1:
                q = s.find(">", r)
                return _after_newlines(s, len(s) if q < 0 else q + 1) - p
            if s[r + 1:r + 8].upper() == "[CDATA[":
                q = s.find("]]>", r + 8)
                return _after_newlines(s, len(s) if q < 0 else q + 3) - p
            return None
        closing = h == "/"
        y = r + 1 if closing else r
        k = max(y, _end(_TAG_NAME, s, y))
        name = s[y:k].lower()
        nxt = s[k] if k < len(s) else ""
        if name.startswith(_RAW_TAGS):
            if not closing and name in _RAW_TAGS and nxt in (">", " ", "\t", "\n", ""):
                end = f"</{name}>"
                g = s.find("</", k)
                while g != -1:
                    if s[g:g + len(end)].lower() == end:
                        return _after_newlines(s, _line_end(s, g)) - p
                    g = s.find("</", g + 2)
                return len(s) - p
            return None
        if name in _BLOCK_TAGS and _end(_TAG_END, s, k) != -1:
            m = _BLANK_LINE.search(s, k + 1)
            return (len(s) if m is None else m.end()) - p
        if name == "":
            return None
        if closing:
            d = _end(_CLOSE_TAG, s, k)
        else:
            q = k
            while True:
                e = _end(_ATTRIBUTE, s, q)
                if e == -1 or e == q:
                    break
                q = e
            d = _end(_OPEN_TAG_END, s, q)
        if d == -1:
            return None
        t = d
        while t < len(s) and s[t] in " \t":
            t += 1
        if t < len(s) and s[t] != "\n":
            return None
        m = _BLANK_LINE.search(s, d)
        return (len(s) if m is None else m.end()) - p

    def definition(self, p: int) -> int | None:
        e = _end(_DEFINITION, self.s, p)
        return e - p if e > p else None

    def paragraph(self, p: int) -> int | None:
        s = self.s
        h = _line_end(s, p)
        if h == p:
            return None
        while h + 1 < len(s):
            if _INTERRUPTS.match(s, h + 1):
                break
            h = _line_end(s, h + 1)
        return h - p

    def list(self, p: int) -> int | None:
        """Items with one marker character, as the lexer's list rule reads them (its raw text, trimmed at the end)."""
        s = self.s
        marker = ""
        k = p
        while k < len(s):
            d = _end(_BULLET, s, k)
            if d == -1:
                break
            ch = s[d - 1]
            marker = marker or ch
            if ch != marker or _HR_LINE.match(s, k):
                break
            k = self._item_end(k, d)
        if k == p:
            return None
        raw = s[p:k].rstrip(JS_SPACE)
        return len(raw) if raw else None

    def _item_end(self, o: int, r: int) -> int:
        s = self.s
        h = _line_end(s, r)
        g = _end(_TABS, s, r)
        y = s[g:h]
        if g > r:
            y = " " * (3 * (g - r)) + y
        blank_start = js_trim(y) == ""
        indent = r - o
        if blank_start:
            indent += 1
        else:
            spaces = _end(_SPACES, s, r) - r
            indent += 1 if spaces > 4 else spaces
        if blank_start:
            d = _end(_ITEM_BLANK, s, min(h + 1, len(s)))
            if d != -1:
                return d
        limit = min(3, indent - 1)
        at = h + 1
        blank = blank_start
        while at < len(s):
            e = _line_end(s, at)
            line = s[at:e]
            first = _FIRST_NON_SPACE.search(line)
            assert first is not None
            if first.start() <= limit and _ITEM_ENDS.match(line, first.start()):
                break
            expanded = line.replace("\t", "    ")
            empty = js_trim(line) == ""
            rest = expanded[indent:]
            wide = _FIRST_NON_SPACE.search(expanded)
            assert wide is not None
            if not (empty or wide.start() >= indent) and (blank or not _lazy(y, limit)):
                break
            blank = blank or empty
            y = rest
            h = e
            at = h + 1
        return min(h + 1, len(s))

    def blockquote(self, p: int) -> int | None:
        """``>`` lines and the lazy lines that continue one with text."""
        s = self.s
        if not _QUOTE.match(s, p):
            return None
        h = _line_end(s, p)
        has_text = js_trim(_QUOTE_MARK.sub("", s[p:h], count=1)) != ""
        while h + 1 < len(s):
            nxt = _line_end(s, h + 1)
            line = s[h + 1:nxt]
            if _QUOTE.match(line):
                has_text = js_trim(_QUOTE_MARK.sub("", line, count=1)) != ""
                h = nxt
                continue
            if not has_text or js_trim(line) == "" or _INTERRUPTS.match(s, h + 1):
                break
            h = nxt
        return h - p

    def setext(self, p: int) -> int | None:
        """A setext heading (lines over a ``===`` or ``---`` underline), tried before a paragraph: only when an
        underline can be reached from *p* past lines that start nothing else."""
        if not self.underlines or not self._reaches_underline(p):
            return None
        s = self.s
        o = p
        while True:
            r = _end(_SETEXT_LINE, s, o)
            if r == -1:
                return None
            o = r
            if o - p > 1:
                e = _end(_SETEXT_UNDERLINE, s, o)
                if e != -1:
                    return e - p
            if _end(_SPACE_LINE, s, o) != -1:
                return None

    def _reaches_underline(self, p: int) -> bool:
        s = self.s
        h = _line_end(s, p)
        while h < len(s):
            nxt = _line_end(s, h + 1)
            line = s[h + 1:nxt]
            if _UNDERLINE.match(line):
                return True
            if _NOT_SETEXT.match(line):
                return False
            h = nxt
        return False


def _lazy(line: str, limit: int) -> bool:
    """Whether a list item's *line* lets the next line continue it lazily."""
    first = _FIRST_NON_SPACE.search(line)
    assert first is not None
    return not _INDENTED.match(line) and (first.start() > limit or _ITEM_STARTS_RE.match(line, first.start()) is None)


_Rule = Callable[[_Blocks, int], "int | None"]
_RULES: dict[str, tuple[_Rule, ...]] = {
    "\n": (_Blocks.space,), " ": (_Blocks.space, _Blocks.code), "\t": (_Blocks.space, _Blocks.code),
    "`": (_Blocks.fences,), "~": (_Blocks.fences,), "#": (_Blocks.heading,), "_": (_Blocks.hr,),
    "-": (_Blocks.hr, _Blocks.list), "*": (_Blocks.hr, _Blocks.list), "+": (_Blocks.list,),
    ">": (_Blocks.blockquote,), "<": (_Blocks.html,), "[": (_Blocks.definition,),
    **{d: (_Blocks.list,) for d in "0123456789"},
}
_LAST: tuple[_Rule, ...] = (_Blocks.setext, _Blocks.paragraph)


Span = tuple[int, int]
"""A kept part of a text: [start, end) offsets."""


def strip_comments(s: str, *, keep_definitions: bool = False) -> list[Span]:
    """The parts of *s* (CR-free) that stay when Claude Code strips HTML comments: every top-level block, less
    the comments of a comment block (the block goes when nothing but white space is left) and less every
    link-reference definition (kept with *keep_definitions*: 2.1.332's rules)."""
    return _stripped(s, keep_definitions)[0]


def _stripped(s: str, keep_definitions: bool) -> tuple[list[Span], bool]:
    """:func:`strip_comments`, and whether a top-level comment block was found."""
    found = False
    blocks = _Blocks(s)
    out: list[Span] = []
    p, n = 0, len(s)
    while p < n:
        f = max(p, _end(_UP_TO_3, s, p))
        rule: _Rule | None = None
        size: int | None = None
        for rule in _RULES.get(s[f] if f < n else "\n", ()) + _LAST:
            size = rule(blocks, p)
            if size:
                break
        else:
            rule, size = None, (_line_end(s, p) - p) or 1
        assert size
        raw = s[p:p + size]
        if rule is _Blocks.html and raw.lstrip(JS_SPACE).startswith("<!--") and "-->" in raw:
            found = True
            parts: list[Span] = []
            at = p
            for m in _COMMENT.finditer(raw):
                parts.append((at, p + m.start()))
                at = p + m.end()
            parts.append((at, p + size))
            kept = [(a, b) for a, b in parts if b > a]
            if js_trim("".join(s[a:b] for a, b in kept)):
                out.extend(kept)
        elif keep_definitions or rule is not _Blocks.definition:
            if out and out[-1][1] == p:   # one span for a run of kept blocks
                out[-1] = (out[-1][0], p + size)
            else:
                out.append((p, p + size))
        p += size
    return out, found


# ----- 4. the cut


def _size(units: int) -> str:
    """A size as Claude Code words it: ``812 bytes``, ``29.3KB``, ``1MB``."""
    def one(x: float) -> str:
        t = f"{x:.1f}"
        return t[:-2] if t.endswith(".0") else t

    k = units / 1024
    if k < 1:
        return f"{units} bytes"
    if k < 1024:
        return one(k) + "KB"
    m = k / 1024
    return one(m) + "MB" if m < 1024 else one(m / 1024) + "GB"


_LAST_WORD = re.compile(_S + _NS + r"*\Z")


def _short(t: str, n: int) -> str:
    """A line's preview of at most *n* units: cut at a word when more than half is left, with an ellipsis."""
    if len(t) <= n:
        return t
    e = t[:n - 1]
    if 1 < n - 1 < len(t) and 0xD800 <= ord(e[-1]) <= 0xDBFF and 0xDC00 <= ord(t[n - 1]) <= 0xDFFF:
        e = e[:-1]      # never half a character
    m = _LAST_WORD.search(e)
    head = e[:m.start()].rstrip(JS_SPACE) if m else ""
    return (head if len(head) > n / 2 else e.rstrip(JS_SPACE)) + "\u2026"


def _warning(r: str, kept: str, lines: int, whole: int, by_lines: bool, by_size: bool) -> str:
    """The paragraph Claude Code appends to a cut MEMORY.md."""
    if whole == 0:
        what = f"everything after the first {len(kept)} characters of line 1 was cut off"
    else:
        start = len(kept) + 1
        stop = r.find("\n", start)
        nxt = js_trim(r[start:] if stop < 0 else r[start:stop])
        what = (f"{lines - whole} of {lines} lines were cut off, starting at line {whole + 1}"
                + (f' ("{_short(nxt, 80)}")' if nxt else ""))
    if by_size and not by_lines:
        why = f"{_size(len(r))} (limit: {_size(MAX_UNITS)}) \u2014 index entries are too long"
    elif by_lines and not by_size:
        why = f"{lines} lines (limit: {MAX_LINES})"
    else:
        why = f"{lines} lines and {_size(len(r))}"
    return (f"MEMORY.md is {why}. Only part of it was loaded: {what}. Keep index entries to one line under "
            "~200 chars; move detail into topic files.")


# ----- 5. sanitizing

_RESERVED_TAGS = (
    "bash-input", "bash-stdout", "bash-stderr", "bash-exit-code", "local-command-stdout", "local-command-stderr",
    "local-command-caveat", "command-name", "command-message", "command-args", "task-notification",
    "agent-message", "teammate-message", "cross-session-message", "remote-review", "slack-ping",
    "slack-tag-message", "tick", "fetched-web-content", "untrusted-widget-state", "coordinator-relay",
    "artifact-type-instructions", "cowritten-artifact-html", "artifact-file-content", "artifact-origin-notes",
    "artifact-stored-declaration", "system-reminder", "system_reminder", "function_results", "tool_use_error",
    "sandbox_violations", "persisted-output", "total_tokens", "user-prompt-submit-hook")
"""The tags Claude Code keeps for itself: one of them opened (or closed) in memory text is neutralised."""
_COLONS = ":\uff1a\ufe55\ufe13\ua789\u2236\u02d0\u02f8\u05c3\u0589\u0703\u0704\u16ec\u1803\u1809\u205a\ua4fd\ufe30"
_TAGS = "|".join("".join("[-_]" if c in "-_" else re.escape(c) for c in t) for t in _RESERVED_TAGS)
_RESERVED = re.compile(
    r"<(?!\\)(?=[^A-Za-z0-9_\-<>]*?(?:(?:" + _TAGS + r")(?:[^A-Za-z0-9_\-]|\Z)"
    r"|channel(?![A-Za-z0-9_-])(?=[^>]{0,120}?(?<![A-Za-z0-9_-])source" + _S + r"*=)"
    r"|antml[" + _COLONS + "]))", re.I | _A)
_BREAKS = re.compile("\r\n?|[\u2028\u2029]")
_DROPPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u034f\u0378-\uffff]")
"""The characters that may be dropped (a fast first test; :func:`claude_code_chars.dropped` decides)."""


def sanitize(j: str) -> str:
    """Claude Code's sanitizer on a string of code units: line breaks, dropped characters, reserved tags."""
    t = _BREAKS.sub("\n", j)
    if _DROPPED.search(t):
        out: list[str] = []
        i, n = 0, len(t)
        while i < n:
            c = ord(t[i])
            if 0xD800 <= c <= 0xDBFF and i + 1 < n and 0xDC00 <= ord(t[i + 1]) <= 0xDFFF:
                cp = 0x10000 + ((c - 0xD800) << 10) + (ord(t[i + 1]) - 0xDC00)
                if not claude_code_chars.dropped(cp):
                    out.append(t[i:i + 2])
                i += 2
                continue
            if not claude_code_chars.dropped(c):
                out.append(t[i])
            i += 1
        t = "".join(out)
    return _RESERVED.sub("<\\\\", t) if "<" in t else t


# ----- the whole


class Index:
    """What Claude Code makes of one MEMORY.md (see the module's docstring).

    ``text`` is exactly what the request carries after ``Contents of …MEMORY.md (…):\\n\\n`` ("" when no
    block is sent); ``lines`` and ``units`` what Claude Code measures (after frontmatter, comments and
    trimming; its size in UTF-16 code units); ``whole`` the lines that load whole; ``lost`` the 1-based
    numbers of the file's lines (split at ``\\n``) that do not load, wholly or partly; ``skipped`` a file
    over 4 MiB.
    """

    __slots__ = ("text", "lines", "units", "whole", "cut", "lost", "skipped")

    def __init__(self, text: str, lines: int, units: int, whole: int, cut: bool, lost: tuple[int, ...],
                 skipped: bool = False) -> None:
        self.text = text
        self.lines = lines
        self.units = units
        self.whole = whole
        self.cut = cut
        self.lost = lost
        self.skipped = skipped

    @property
    def unloaded_lines(self) -> int:
        return self.lines - self.whole


class _Trace:
    """Maps an offset of the text Claude Code measures back to an offset (in units) of the file's text."""

    def __init__(self) -> None:
        self.shift = 0                      # the frontmatter's length, then what was trimmed
        self.spans: list[Span] | None = None
        self.starts: list[int] = []        # each kept span's offset in the joined text
        self.removed: list[int] = []       # where a CR of a CRLF was removed (offsets after the removal)

    def to_file(self, pos: int, lead: int) -> int:
        pos += lead
        if self.spans is not None and self.spans:
            i = max(bisect_right(self.starts, pos) - 1, 0)
            a, b = self.spans[i]
            pos = min(a + pos - self.starts[i], b)
            pos += bisect_right(self.removed, pos)
        return pos + self.shift


def _keeps_definitions(rules: str) -> bool:
    from .versions import version_key

    return version_key(rules) >= version_key(KEEPS_DEFINITIONS)


def _measured(text: str, rules: str = RULES[-1]) -> tuple[str, _Trace, str, int]:
    """The file's text in units, the map back to it, the text Claude Code measures (frontmatter and block-level
    comments out, trimmed) and how much leading white space the trim took; by the *rules* of that version."""
    j0 = to_units(text)
    trace = _Trace()
    trace.shift = frontmatter_end(j0)
    c = j0[trace.shift:]
    if "<!--" in c:
        s = c.replace("\r\n", "\n")
        flat = s.replace("\r", "\n")
        keep = _keeps_definitions(rules)
        spans, found = _stripped(flat, keep)
        if found or not keep:   # 2.1.332 leaves a text with no comment block as it was (its CRs too)
            if len(s) != len(c):
                trace.removed = [m.start() - k for k, m in enumerate(re.finditer("\r\n", c))]
            trace.spans = spans
            at = 0
            for a, b in trace.spans:
                trace.starts.append(at)
                at += b - a
            c = "".join(flat[a:b] for a, b in trace.spans)
    r = js_trim(c)
    return j0, trace, r, len(c) - len(c.lstrip(JS_SPACE))


def measured_lines(text: str, rules: str = RULES[-1]) -> list[tuple[int, str]]:
    """The file's lines (1-based numbers, split at ``\n``) that hold what Claude Code measures: the frontmatter,
    block-level comments and the blank lines trimmed around them left out (Make room picks index lines here)."""
    j0, trace, r, lead = _measured(text, rules)
    if not r:
        return []
    lines = text.split("\n")
    return [(no, lines[no - 1]) for no in _lost(j0, r, trace, lead, 0, 0) if no - 1 < len(lines)]


def measure(text: str, size: int | None = None, rules: str = RULES[-1]) -> Index:
    """What Claude Code loads of a MEMORY.md whose text (decoded, bad bytes as U+FFFD) is *text*; *size* is
    the file's size in bytes when known (else the UTF-8 length of *text*); *rules*: the version whose rules
    apply (:data:`RULES`; the newest by default)."""
    if size is None:
        size = len(text.encode("utf-8", "surrogatepass"))
    j0, trace, r, lead = _measured(text, rules)
    lines = r.count("\n") + 1
    if size > MAX_FILE_BYTES:
        return Index("", lines, len(r), 0, True, _lost(j0, r, trace, lead, 0, 0) if r else (), skipped=True)
    by_lines, by_size = lines > MAX_LINES, len(r) > MAX_UNITS
    if not by_lines and not by_size:
        return Index(from_units(js_trim(sanitize(sanitize(r)))), lines, len(r), lines, False, ())
    kept = r
    if by_lines:
        at = -1
        for _ in range(MAX_LINES):
            at = r.find("\n", at + 1)
        kept = r[:at]
    if len(kept) > MAX_UNITS:
        z = kept.rfind("\n", 0, MAX_UNITS + 1)
        kept = kept[:z if z > 0 else MAX_UNITS]
    whole = kept.count("\n") + 1 if len(kept) < len(r) and r[len(kept)] == "\n" else 0
    loaded = kept + "\n\n> WARNING: " + _warning(r, kept, lines, whole, by_lines, by_size)
    out = js_trim(sanitize(sanitize(loaded)))
    start = len(kept) + 1 if whole else 0
    return Index(from_units(out), lines, len(r), whole, True, _lost(j0, r, trace, lead, start, whole))


def _lost(j0: str, r: str, trace: _Trace, lead: int, start: int, first_line: int) -> tuple[int, ...]:
    """The file's line numbers (1-based, lines split at ``\\n``) of the lines of *r* from *start* on (the line
    number *first_line* of *r*, 0-based)."""
    breaks = [m.start() for m in re.finditer("\n", j0)] if "\n" in j0 else []
    out: list[int] = []
    at = start
    while True:
        pos = trace.to_file(at, lead)
        no = bisect_right(breaks, pos - 1) + 1
        if not out or out[-1] != no:
            out.append(no)
        nxt = r.find("\n", at)
        if nxt < 0:
            break
        at = nxt + 1
    return tuple(sorted(set(out)))


def load_bytes(data: bytes, rules: str = RULES[-1]) -> Index:
    """:func:`measure` of a file's bytes (decoded as Claude Code decodes them)."""
    return measure(data.decode("utf-8", "replace"), len(data), rules)
