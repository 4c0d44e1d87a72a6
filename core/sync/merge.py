"""The three-way merge of one memory file: on entries, against the last synced text, never losing a line.

A text is read as units (``entries.scan``): a dated entry with the lines that belong to it (indented lines, a
fenced block right below it) is one unit; every other line is one. The merge compares the units of the base
(the text both computers last agreed on), ours and theirs, the way ``diff3`` compares lines:

- where only one side changed a stretch, that side's version is taken;
- where both changed it the same way, once;
- where both changed the same stretch differently, both sides' new units are kept (a unit added on both
  sides, once), and a base unit goes only when a side removed it and the other left it as it was;
- when the same entry was changed on both sides (both removed it and both put something new in its place),
  both new versions are kept, the newer first, and the stretch is a :class:`Clash` the person resolves.

So a line is gone after a merge only when one side's own change removed it (tests/core/sync/test_merge.py
checks it over generated texts). Once a merge is written, the engine takes the remote's text it merged with as
the folder's new base, so a round stopped before its push merges the written text against that next time.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ..text.entries import scan


@dataclass(frozen=True)
class Clash:
    """The same entry changed on both sides: what it was, and the versions kept (newer first)."""

    was: tuple[str, ...]
    kept: tuple[tuple[str, ...], ...]
    note: str = "changed on both computers"

    def as_dict(self) -> dict[str, object]:
        return {"was": list(self.was), "kept": [list(k) for k in self.kept], "note": self.note}


@dataclass(frozen=True)
class Merged:
    text: str | None                       # None: the file is deleted
    clashes: list[Clash] = field(default_factory=list)


def units(text: str) -> list[str]:
    """*text* as merge units: an entry with its own lines (joined by newlines) is one; any other line is one."""
    return ["\n".join(u.lines) if not isinstance(u, str) else u for u in scan(text)]


def render(parts: Sequence[str], trailing_newline: bool) -> str:
    if not parts:
        return ""
    return "\n".join(parts) + ("\n" if trailing_newline else "")


def merge3(base: str | None, ours: str | None, theirs: str | None, *, ours_newer: bool = True) -> Merged:
    """Merge *ours* and *theirs*, both changed from *base* (None: the file does not exist on that side)."""
    if ours == theirs:
        return Merged(ours)
    if ours == base:
        return Merged(theirs)
    if theirs == base:
        return Merged(ours)
    b, o, t = base or "", ours or "", theirs or ""
    clashes: list[Clash] = []
    merged = merge_units(units(b), units(o), units(t), ours_newer=ours_newer, clashes=clashes)
    nl_b, nl_o, nl_t = (not x or x.endswith("\n") for x in (b, o, t))
    trailing = nl_t if nl_o == nl_b else nl_o
    text = render(merged, trailing)
    if ours is None or theirs is None:   # deleted on one side, changed on the other
        if not text:
            return Merged(None)
        clashes.append(Clash((), (), "deleted on one computer and changed on the other: kept with the changes"))
    return Merged(text, clashes)


def merge_units(base: list[str], ours: list[str], theirs: list[str], *, ours_newer: bool,
                clashes: list[Clash] | None = None) -> list[str]:
    """The merged units (:func:`merge3` on units); clashes found are appended to *clashes*."""
    n = 0
    while n < len(base) and n < len(ours) and n < len(theirs) and base[n] == ours[n] == theirs[n]:
        n += 1
    m = 0
    while (m < len(base) - n and m < len(ours) - n and m < len(theirs) - n
           and base[-1 - m] == ours[-1 - m] == theirs[-1 - m]):
        m += 1
    mb, mo, mt = base[n:len(base) - m], ours[n:len(ours) - m], theirs[n:len(theirs) - m]
    out = list(base[:n])
    iz = ia = ib = 0
    for zs, ze, as_, ae, bs, be in _sync_regions(mb, mo, mt):
        out += _resolve(mb[iz:zs], mo[ia:as_], mt[ib:bs], ours_newer, clashes)
        out += mb[zs:ze]
        iz, ia, ib = ze, ae, be
    out += base[len(base) - m:]
    # the whole file's account: a unit a side has is kept unless the other side removed it. Stretches can split
    # one unit's copies (a side moved it, the other added another copy elsewhere): what is short goes at the end
    cb, co, ct, got = Counter(base), Counter(ours), Counter(theirs), Counter(out)
    for u in [*ours, *theirs]:
        need = max(co[u] - max(0, cb[u] - ct[u]), ct[u] - max(0, cb[u] - co[u]))
        if got[u] < need:
            got[u] += 1
            out.append(u)
    return out


def _sync_regions(base: list[str], a: list[str], b: list[str]) -> list[tuple[int, int, int, int, int, int]]:
    """Stretches unchanged in both *a* and *b* (as bzr's merge3 finds them), ending with an empty one at the end."""
    am = SequenceMatcher(None, base, a, autojunk=False).get_matching_blocks()
    bm = SequenceMatcher(None, base, b, autojunk=False).get_matching_blocks()
    out: list[tuple[int, int, int, int, int, int]] = []
    i = j = 0
    while i < len(am) and j < len(bm):
        abase, amatch, alen = am[i]
        bbase, bmatch, blen = bm[j]
        lo, hi = max(abase, bbase), min(abase + alen, bbase + blen)
        if lo < hi:
            asub, bsub = amatch + (lo - abase), bmatch + (lo - bbase)
            out.append((lo, hi, asub, asub + hi - lo, bsub, bsub + hi - lo))
        if abase + alen < bbase + blen:
            i += 1
        else:
            j += 1
    out.append((len(base), len(base), len(a), len(a), len(b), len(b)))
    return out


def _resolve(base: list[str], ours: list[str], theirs: list[str], ours_newer: bool,
             clashes: list[Clash] | None) -> list[str]:
    """One stretch that is not the same on all three sides."""
    if ours == base:
        return theirs
    if theirs == base or ours == theirs:
        return ours
    cb, co, ct = Counter(base), Counter(ours), Counter(theirs)
    new_o, new_t = co - cb, ct - cb
    gone_both = (cb - co) & (cb - ct)
    clash = bool(gone_both) and bool(new_o - new_t) and bool(new_t - new_o)
    # a clash keeps the newer version first; other stretches put the older side's first (entries in time order)
    ours_first = ours_newer if clash else not ours_newer
    first, second = (ours, theirs) if ours_first else (theirs, ours)
    ins_f, keep_f = _edits(base, first)
    ins_s, keep_s = _edits(base, second)
    # how many of each unit the stretch keeps: the base's, less what either side removed, and the new ones of
    # the side that added more (a unit added on both sides is kept once)
    cf, cs = Counter(first), Counter(second)
    want = Counter({u: max(0, cb[u] - max(0, cb[u] - cf[u]) - max(0, cb[u] - cs[u]))
                    + max(0, cf[u] - cb[u], cs[u] - cb[u]) for u in cb | cf | cs})
    out: list[str] = []

    def emit(u: str) -> None:
        if want[u] > 0:
            want[u] -= 1
            out.append(u)

    for k in range(len(base) + 1):
        for u in ins_f[k]:
            emit(u)
        for u in ins_s[k]:
            emit(u)
        if k < len(base) and keep_f[k] and keep_s[k]:
            emit(base[k])
    for u in (*first, *second, *base):   # a unit one side moved and the other left where it was
        emit(u)
    if clash and clashes is not None:
        newer, older = (ours, theirs) if ours_newer else (theirs, ours)
        kept_newer = tuple(u for u in newer if (Counter(newer) - cb)[u] > 0)
        kept_older = tuple(u for u in older if (Counter(older) - cb)[u] > 0 and u not in kept_newer)
        clashes.append(Clash(tuple(u for u in base if gone_both[u] > 0), (kept_newer, kept_older)))
    return out


def _edits(base: list[str], side: list[str]) -> tuple[list[list[str]], list[bool]]:
    """How *side* changed *base*: the units it put before each base position (and at the end), and which base
    units it kept."""
    ins: list[list[str]] = [[] for _ in range(len(base) + 1)]
    keep = [False] * len(base)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, base, side, autojunk=False).get_opcodes():
        if tag == "equal":
            keep[i1:i2] = [True] * (i2 - i1)
        elif tag in ("insert", "replace"):
            ins[i1] += side[j1:j2]
    return ins, keep


__all__ = ["Clash", "Merged", "merge3", "merge_units", "render", "units"]
