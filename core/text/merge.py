"""A three-way merge on lines: one change's own lines, replayed against a text as it is now.

A journal row keeps its change as an edit script on lines (:func:`edit_script`:
which lines of the text before were replaced by which). Undoing it means
replaying the inverse script against the file as it is now, whatever else
changed since: :func:`replay` takes the text the change left (the *base*),
the script to replay on it, and the text *now*, and merges them the way
``diff3`` does — lines where the base and now agree are stable; between them,
a chunk where only now changed keeps now's lines, a chunk where only the
script changes takes the script's. Where both changed, each hunk of the script
still applies when the lines it replaces are in now as the change left them
(other lines may have been added or changed around them); else the chunk is a
:class:`Clash`, left as now holds it, and :attr:`Merge.forced` is the text
with the script's lines in its place. A line of the script may be *withheld*
(it held a credential that the journal keeps only redacted): it never comes
back, and a hunk that would replace lines with it is not applied.

Texts are lists of lines split on ``"\\n"`` (:func:`split_lines`), so joining
them gives the text back exactly, final newline and ``\\r`` included. Pure: no I/O.
"""
from __future__ import annotations

import bisect
import difflib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

_MIDDLE_LIMIT = 200_000
"""Past this many differing lines on either side the two texts are not aligned line by line: nothing of the
middle is taken as matched (a change that large is a rewrite, and a rewrite's lines clash)."""


def split_lines(text: str) -> list[str]:
    """*text* as lines split on ``"\\n"``: ``join_lines(split_lines(t)) == t`` for every text."""
    return text.split("\n")


def join_lines(lines: Iterable[str]) -> str:
    return "\n".join(lines)


@dataclass(frozen=True)
class Hunk:
    """Lines ``start`` to ``end`` (exclusive) of a text replaced by ``lines``; ``start == end`` inserts.

    ``secret`` marks the lines of ``lines`` that may not be written back (kept redacted: they held a credential).
    """

    start: int
    end: int
    lines: tuple[str, ...]
    secret: frozenset[int] = frozenset()

    def dump(self) -> list[object]:
        return [self.start, self.end, list(self.lines)]

    @classmethod
    def load(cls, v: object) -> Hunk | None:
        if not (isinstance(v, list) and len(v) == 3):
            return None
        start, end, lines = v
        if not (type(start) is int and type(end) is int and 0 <= start <= end and isinstance(lines, list)
                and all(isinstance(x, str) for x in lines)):
            return None
        return cls(start, end, tuple(lines))


def _trim(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """The number of equal lines at the start, and then at the end, of *a* and *b*."""
    p = 0
    n = min(len(a), len(b))
    while p < n and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and a[-1 - s] == b[-1 - s]:
        s += 1
    return p, s


SMALL = 250_000
"""A region of at most this many line pairs (lines of one side × the other's) is matched by difflib's
SequenceMatcher; a larger one is first cut at the lines found once on each side (patience), so that the
time grows about linearly with the text, also when it repeats lines (blank ones, ``---``) a lot."""


def _blocks(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int]]:
    """Matching blocks (i, j, n) of *a* and *b*, in order: a[i:i+n] == b[j:j+n]. The common head and tail are
    found first, so a small change in a large text costs little."""
    p, s = _trim(a, b)
    out: list[tuple[int, int, int]] = []
    if p:
        out.append((0, 0, p))
    if len(a) - s - p <= _MIDDLE_LIMIT and len(b) - s - p <= _MIDDLE_LIMIT:
        out.extend(_middle(a, b, p, len(a) - s, p, len(b) - s))
    if s:
        out.append((len(a) - s, len(b) - s, s))
    return out


def _middle(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int, int]]:
    """The matching blocks of a[alo:ahi] and b[blo:bhi]: difflib inside small regions, anchored at the lines
    found once on each side (their longest common run, patience sorting) inside large ones."""
    found: list[tuple[int, int, int]] = []
    todo = [(alo, ahi, blo, bhi)]
    while todo:
        alo, ahi, blo, bhi = todo.pop()
        if alo >= ahi or blo >= bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= SMALL:
            sm = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            found.extend((i + alo, j + blo, n) for i, j, n in sm.get_matching_blocks() if n)
            continue
        anchors = _unique_run(a, b, alo, ahi, blo, bhi)
        if not anchors:    # no line found once on each side: only the common head and tail match
            p, s = _trim(a[alo:ahi], b[blo:bhi])
            if p:
                found.append((alo, blo, p))
            if s:
                found.append((ahi - s, bhi - s, s))
            continue
        i0, j0 = alo, blo
        k = 0
        while k < len(anchors):
            i, j = anchors[k]
            n = 1
            while k + n < len(anchors) and anchors[k + n] == (i + n, j + n):   # a run of anchors: one block
                n += 1
            if i > i0 or j > j0:
                todo.append((i0, i, j0, j))
            found.append((i, j, n))
            i0, j0 = i + n, j + n
            k += n
        todo.append((i0, ahi, j0, bhi))
    found.sort()
    merged: list[tuple[int, int, int]] = []
    for i, j, n in found:                      # neighbouring single-line blocks become one
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
        else:
            merged.append((i, j, n))
    return merged


def _unique_run(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int,
                bhi: int) -> list[tuple[int, int]]:
    """The longest run, in order on both sides, of lines that occur once in a[alo:ahi] and once in b[blo:bhi]."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(line for line in b[blo:bhi] if count_a.get(line) == 1)
    where_b = {b[j]: j for j in range(blo, bhi) if count_b.get(b[j]) == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if a[i] in where_b]
    if all(p[1] < q[1] for p, q in zip(pairs, pairs[1:])):   # in the same order on both sides: all of them
        return pairs
    # the longest increasing run of b positions (patience sorting, with links back)
    tops: list[int] = []          # index into pairs of the top card of each pile
    top_j: list[int] = []         # … and its b position (what bisect searches)
    back: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        lo = bisect.bisect_left(top_j, j)
        back[k] = tops[lo - 1] if lo else -1
        if lo == len(tops):
            tops.append(k)
            top_j.append(j)
        else:
            tops[lo] = k
            top_j[lo] = j
    run: list[tuple[int, int]] = []
    k = tops[-1] if tops else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def edit_script(old: Sequence[str], new: Sequence[str]) -> list[Hunk]:
    """The hunks that turn *old* into *new* (every line of *new* not matched in *old*), in order."""
    hunks: list[Hunk] = []
    i = j = 0
    for bi, bj, n in [*_blocks(old, new), (len(old), len(new), 0)]:
        if bi > i or bj > j:
            hunks.append(Hunk(i, bi, tuple(new[j:bj])))
        i, j = bi + n, bj + n
    return hunks


def apply_script(old: Sequence[str], hunks: Iterable[Hunk]) -> list[str]:
    """*old* with *hunks* applied (hunks in order, not overlapping; ValueError when they do not fit)."""
    out: list[str] = []
    i = 0
    for h in hunks:
        if h.start < i or h.end > len(old):
            raise ValueError("the hunks do not fit the text")
        out.extend(old[i:h.start])
        out.extend(h.lines)
        i = h.end
    out.extend(old[i:])
    return out


def inverse(old: Sequence[str], hunks: Iterable[Hunk], secret: Callable[[int], bool] | None = None) -> list[Hunk]:
    """The hunks that turn ``apply_script(old, hunks)`` back into *old*; ``secret(i)`` marks line *i* of *old*
    as one that may not be written back."""
    out: list[Hunk] = []
    shift = 0
    for h in hunks:
        start = h.start + shift
        back = tuple(old[h.start:h.end])
        held = frozenset(k for k in range(len(back)) if secret is not None and secret(h.start + k))
        out.append(Hunk(start, start + len(h.lines), back, held))
        shift += len(h.lines) - (h.end - h.start)
    return out


@dataclass(frozen=True)
class Clash:
    """A place where the lines the change touched are no longer as it left them.

    ``at``: its first line in the text now (0-based); ``now``: what that place
    holds now; ``left``: what the change left there; ``back``: what the merge
    would put there (the change's side).
    """

    at: int
    now: tuple[str, ...]
    left: tuple[str, ...]
    back: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {"line": self.at + 1, "now": list(self.now), "left": list(self.left), "back": list(self.back)}


@dataclass(frozen=True)
class Merge:
    """The result of :func:`replay`."""

    lines: list[str]                 # the merged text; a clash is left as now holds it
    forced: list[str]                # the same with the change's lines put in every clash
    back: list[str] = field(default_factory=list)       # lines the merge brings in (clashes aside)
    gone: list[str] = field(default_factory=list)       # lines of now it takes out (clashes aside)
    clashes: list[Clash] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)   # lines that would come in but may not be written

    @property
    def clean(self) -> bool:
        return not self.clashes


def align(base: Sequence[str], now: Sequence[str]) -> list[int]:
    """For each line of *base*, its index in *now* when it is there unchanged (-1: changed or gone)."""
    m = [-1] * len(base)
    for i, j, n in _blocks(base, now):
        for k in range(n):
            m[i + k] = j + k
    return m


def replay(base: Sequence[str], hunks: Sequence[Hunk], now: Sequence[str], *,
           key: Callable[[str], str] | None = None) -> Merge:
    """Replay *hunks* (an edit script on *base*) against *now*, a later version of *base*.

    *key*: what a line of *now* is compared as (the journal compares a line
    holding a credential by its redacted form, as it keeps *base*); lines
    written are always *now*'s own or the hunks'.
    """
    if key is not None:
        known = set(base)
        now_keys = [line if line in known else key(line) for line in now]
    else:
        now_keys = list(now)
    m = align(base, now_keys)
    touched = [False] * len(base)
    for h in hunks:
        for k in range(h.start, h.end):
            touched[k] = True
    # stable base lines (in now unchanged, and untouched by the script), with a sentinel at each end
    stable = [-1] + [i for i in range(len(base)) if m[i] >= 0 and not touched[i]] + [len(base)]

    def pos(i: int) -> int:
        return -1 if i < 0 else len(now) if i >= len(base) else m[i]

    out: list[str] = []
    forced: list[str] = []
    back: list[str] = []
    gone: list[str] = []
    clashes: list[Clash] = []
    withheld: list[str] = []
    hi = 0   # the next hunk to look at
    for a, b in zip(stable, stable[1:]):
        if a >= 0:
            out.append(now[m[a]])
            forced.append(now[m[a]])
        n0, n1 = pos(a) + 1, pos(b)
        chunk: list[Hunk] = []
        while hi < len(hunks) and hunks[hi].end <= b:   # (a hunk never holds a stable line)
            chunk.append(hunks[hi])
            hi += 1
        now_chunk = list(now[n0:n1])
        if not chunk:
            out.extend(now_chunk)
            forced.extend(now_chunk)
            continue
        base_chunk = list(base[a + 1:b])
        wanted = _apply_local(base, a + 1, b, chunk)
        if now_keys[n0:n1] == wanted and wanted != base_chunk:   # already as the script would make it
            out.extend(now_chunk)
            forced.extend(now_chunk)
            continue
        kept = {m[k] for k in range(a + 1, b)}
        only_deleted = all(j in kept for j in range(n0, n1))   # nothing new here: lines were only deleted
        done = _apply_hunks(base, chunk, m, now, n0, n1, only_deleted)
        if done is not None:
            lines, came, went, held = done
            out.extend(lines)
            forced.extend(lines)
            back.extend(came)
            gone.extend(went)
            withheld.extend(held)
            continue
        writable = _apply_local(base, a + 1, b, chunk, writable=True)
        clashes.append(Clash(n0, tuple(now_chunk), tuple(base_chunk), tuple(writable)))
        out.extend(now_chunk)
        forced.extend(writable)
        withheld.extend(h.lines[k] for h in chunk for k in sorted(h.secret))
    return Merge(out, forced, back, gone, clashes, withheld)


def _apply_local(base: Sequence[str], lo: int, hi: int, chunk: Sequence[Hunk], *, writable: bool = False) -> list[str]:
    """base[lo:hi] with the hunks of *chunk* (which lie inside it) applied; *writable*: without the lines that
    may not be written (a hunk that would replace lines by one keeps the lines it would replace)."""
    out: list[str] = []
    i = lo
    for h in chunk:
        out.extend(base[i:h.start])
        if not writable or not h.secret:
            out.extend(h.lines)
        elif h.start < h.end:
            out.extend(base[h.start:h.end])
        else:
            out.extend(line for k, line in enumerate(h.lines) if k not in h.secret)
        i = h.end
    out.extend(base[i:hi])
    return out


def _apply_hunks(base: Sequence[str], chunk: Sequence[Hunk], m: Sequence[int], now: Sequence[str],  # noqa: C901
                 n0: int, n1: int, only_deleted: bool = False) -> tuple[list[str], list[str], list[str], list[str]] | None:
    """The chunk now[n0:n1] with every hunk of *chunk* applied where the lines it replaces still are as the
    change left them: (lines, brought in, taken out, withheld); None when one of them cannot apply.

    *only_deleted*: every line of the chunk now is one of the base's (lines were only deleted since): lines
    to take out that are gone already are simply gone."""
    ops: list[tuple[int, int, int, tuple[str, ...]]] = []   # (now start, order, now end, lines)
    came: list[str] = []
    went: list[str] = []
    held: list[str] = []
    insert_only = all(h.start == h.end for h in chunk)
    for order, h in enumerate(chunk):
        lines = h.lines
        if h.secret:
            if h.start < h.end:     # it would replace lines by a credential it cannot write: keep them
                held.extend(h.lines[k] for k in sorted(h.secret))
                continue
            held.extend(h.lines[k] for k in sorted(h.secret))
            lines = tuple(line for k, line in enumerate(h.lines) if k not in h.secret)
        if h.start < h.end:
            idx = [m[k] for k in range(h.start, h.end)]
            if any(x < 0 for x in idx):
                if lines or not only_deleted:
                    return None
                idx = [x for x in idx if x >= 0]      # taken out already: the rest go
                ops.extend((x, order, x + 1, ()) for x in idx)
                went.extend(now[x] for x in idx)
                continue
            if all(y == x + 1 for x, y in zip(idx, idx[1:])):
                ops.append((idx[0], order, idx[-1] + 1, lines))
            elif not lines:          # lines to take out, with lines added between them since: those stay
                ops.extend((x, order, x + 1, ()) for x in idx)
            else:
                return None
            went.extend(now[x] for x in idx)
        else:
            s = h.start
            if s == 0:
                at = 0
            elif m[s - 1] >= 0:
                at = m[s - 1] + 1
            elif s < len(base) and m[s] >= 0:
                at = m[s]
            elif s == len(base):
                at = len(now)
            elif insert_only and n0 == n1:   # the lines around it are gone, and nothing took their place
                at = n0
            else:
                return None
            ops.append((at, order, at, lines))
        came.extend(lines)
    ops.sort(key=lambda o: (o[0], o[1]))
    out: list[str] = []
    i = n0
    for start, _, end, lines in ops:
        if start < i or not (n0 <= start <= end <= n1):
            return None
        out.extend(now[i:start])
        out.extend(lines)
        i = end
    out.extend(now[i:n1])
    return out, came, went, held


__all__ = ["Clash", "Hunk", "Merge", "align", "apply_script", "edit_script", "inverse", "join_lines", "replay",
           "split_lines"]
