"""Journal diffs: a short unified diff of a change, its true counts, and a bounded word filter past a cut.

A row's diff is at most :data:`DIFF_MAX_CHARS`; its counts are the whole
change's, and when the diff is cut, :class:`WordFilter` keeps what ``--grep``
needs of the lines it leaves out, in bounded size.
"""
from __future__ import annotations

import base64
import difflib
import hashlib
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..base.wording import counted

DIFF_MAX_CHARS = 4000
DIFF_CONTEXT = 1
_BIG_DIFF_LINES = 20_000     # beyond this many changed lines, the diff is a plain - / + block
_HUNK = re.compile(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
_WORD = re.compile(r"\w+")
WORDS_FILTER_MAX_BYTES = 128 * 1024
"""The bound of a cut diff's word filter (before base64): what ``--grep`` sees of the lines past the cut."""


def _lines(text: str | None) -> list[str]:
    if text is None:
        return []
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def diff_lines(diff: str) -> Iterator[tuple[str, str]]:
    """The added (``+``) and removed (``-``) lines of a diff made here: only its two header lines are
    skipped, so a removed ``---`` line (``----``) or an added ``++`` line counts like any other."""
    lines = diff.split("\n")
    start = 2 if len(lines) >= 2 and lines[0].startswith("--- ") and lines[1].startswith("+++ ") else 0
    for line in lines[start:]:
        if line.startswith(("+", "-")):
            yield line[0], line[1:]


def diff_counts(diff: str) -> tuple[int, int]:
    """(added, removed) lines shown in *diff* (a cut diff shows fewer: rows keep the true counts)."""
    plus = minus = 0
    for tag, _ in diff_lines(diff):
        if tag == "+":
            plus += 1
        else:
            minus += 1
    return plus, minus


@dataclass(frozen=True)
class Diff:
    """A change as the journal keeps it: the short diff, the true counts, and when the diff was cut,
    a bounded filter of every changed line's words (what ``--grep`` checks past the cut)."""

    text: str
    added: int
    removed: int
    words: str | None = None


def make_diff(file: str, before: str | None, after: str | None, limit: int = DIFF_MAX_CHARS) -> str:
    """A short unified diff (one line of context), at most *limit* characters (see :func:`build_diff`)."""
    return build_diff(file, before, after, limit).text


def build_diff(file: str, before: str | None, after: str | None, limit: int = DIFF_MAX_CHARS) -> Diff:
    """A short unified diff (one line of context), at most *limit* characters, with the true counts.

    Only the part between the common first and last lines is compared, so a
    one-line change in a large file costs little; a very large rewrite is shown
    as its removed then added lines. The counts are those of the whole change,
    not of what is shown; a cut diff also carries the word filter of every
    changed line.
    """
    a, b = _lines(before), _lines(after)
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    lo = max(0, p - DIFF_CONTEXT)
    hi_a, hi_b = len(a) - max(0, s - DIFF_CONTEXT), len(b) - max(0, s - DIFF_CONTEXT)
    a_mid, b_mid = a[lo:hi_a], b[lo:hi_b]
    head = [f"--- {'a/' + file if before is not None else '/dev/null'}\n",
            f"+++ {'b/' + file if after is not None else '/dev/null'}\n"]
    body: list[str] = []
    if len(a_mid) + len(b_mid) > _BIG_DIFF_LINES:   # every middle line removed, then added
        gone, new = a[p:len(a) - s], b[p:len(b) - s]
        before_ctx, after_ctx = a[lo:p], a[len(a) - s:hi_a]
        body = [f"@@ -{lo + 1},{len(a_mid)} +{lo + 1},{len(b_mid)} @@\n"]
        body += [" " + ln for ln in before_ctx]
        body += ["-" + ln for ln in gone[:_BIG_DIFF_LINES // 2]] + ["+" + ln for ln in new[:_BIG_DIFF_LINES // 2]]
        added, removed = len(new), len(gone)
        cut = len(gone) > _BIG_DIFF_LINES // 2 or len(new) > _BIG_DIFF_LINES // 2
        body += [] if cut else [" " + ln for ln in after_ctx]
        changed: Iterable[str] = itertools.chain(gone, new)
    else:
        added = removed = 0
        for i, line in enumerate(difflib.unified_diff(a_mid, b_mid, n=DIFF_CONTEXT)):
            if i < 2:   # difflib's own two header lines (ours are above); every other line is kept
                continue
            m = _HUNK.match(line)
            if m:  # the hunk numbers of the trimmed window, moved back to the whole file's
                line = (f"@@ -{int(m.group(1)) + lo}{m.group(2) or ''} "
                        f"+{int(m.group(3)) + lo}{m.group(4) or ''} @@\n")
            elif line.startswith("+"):
                added += 1
            elif line.startswith("-"):
                removed += 1
            body.append(line)
        cut = False
        changed = (ln[1:] for ln in body if ln.startswith(("+", "-")))
    out: list[str] = []
    size = 0
    for line in head + body:
        for piece in line.splitlines(keepends=True):  # "\ No newline" rides on its line
            if size + len(piece) > limit - 40:
                rest = sum(len(x) for x in head + body) - size
                out.append(f"… diff cut here ({counted(rest, 'more character', 'more characters')})\n")
                return Diff("".join(out)[:limit], added, removed, WordFilter.of(changed).dump())
            out.append(piece)
            size += len(piece)
    return Diff("".join(out), added, removed, WordFilter.of(changed).dump() if cut else None)


def _words(text: str) -> set[str]:
    """The distinct runs of ``\\w`` in *text* (what ``_WORD.findall`` gives, a few times faster on long
    texts: most pieces between blanks are one word already)."""
    words: set[str] = set()
    for piece in set(text.split()):
        if piece.replace("_", "a").isalnum():
            words.add(piece)
        else:
            words.update(_WORD.findall(piece))
    return words


class WordFilter:
    """A Bloom filter of the words (runs of ``\\w``, lowercased) of a cut diff's changed lines.

    Sound for ``--grep``: a word that is in a changed line is always found (no
    false negatives); a word that is not may be found by chance (about 1 % at
    10 bits a word). Bounded: at most :data:`WORDS_FILTER_MAX_BYTES`, whatever
    the size of the change; past about 100,000 distinct words the chance of a
    false match grows, never the size. It holds hashes of already redacted
    text, never the words themselves.
    """

    def __init__(self, bits: bytearray, k: int) -> None:
        self.bits, self.k, self.m = bits, k, len(bits) * 8

    @classmethod
    def of(cls, lines: Iterable[str]) -> WordFilter:
        words = _words("\n".join(lines).lower())
        nbytes = min(WORDS_FILTER_MAX_BYTES, max(64, (len(words) * 10 + 7) // 8))
        m = nbytes * 8
        k = max(1, min(4, round(m / max(1, len(words)) * 0.693)))
        bits = bytearray(nbytes)
        blake = hashlib.blake2b
        for w in words:
            d = blake(w.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            h1, h2 = int.from_bytes(d[:8], "little"), int.from_bytes(d[8:], "little") | 1
            for i in range(k):
                j = (h1 + i * h2) % m
                bits[j >> 3] |= 1 << (j & 7)
        return cls(bits, k)

    def _positions(self, word: str) -> Iterator[int]:
        d = hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        h1, h2 = int.from_bytes(d[:8], "little"), int.from_bytes(d[8:], "little") | 1
        for i in range(self.k):
            yield (h1 + i * h2) % self.m

    def may_hold(self, word: str) -> bool:
        """False only when no changed line holds *word* (every ``\\w`` run of it) as a whole word."""
        return all(all(self.bits[i >> 3] >> (i & 7) & 1 for i in self._positions(w.lower()))
                   for w in _WORD.findall(word))

    def dump(self) -> str:
        return f"{self.k}:{base64.b64encode(bytes(self.bits)).decode('ascii')}"

    @classmethod
    def load(cls, text: str) -> WordFilter | None:
        k, _, data = text.partition(":")
        try:
            bits = bytearray(base64.b64decode(data, validate=True))
            n = int(k)
        except ValueError:
            return None
        return cls(bits, n) if bits and 1 <= n <= 16 else None
