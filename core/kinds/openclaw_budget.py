"""How OpenClaw 2026.9.6 budgets its bootstrap files into the prompt (``buildBootstrapContextFiles``).

Pure text, every count in UTF-16 units (:mod:`.utf16`). The files come in
OpenClaw's order; each takes what it injects from one total. Proven against
OpenClaw's own code by tests/conformance:

- A missing file injects ``[MISSING] Expected at: <absolute path>``, cut to what
  is left of the total (the 64-character rule does not apply to it).
- With less than 64 characters of the total left, no further file is injected.
- Otherwise a file gets at most its limit (``USER.md``: at most 4,000) and at
  most what is left, and is cut by :func:`trim`: the text with its end trimmed,
  whole when it fits, else its head (75 %) and tail (25 %) of what the marker
  and its line ends leave, around OpenClaw's marker; ``AGENTS.md`` is cut to a
  head, a digest of its policy lines and a tail instead (:func:`agents_digest`).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import utf16
from .utf16 import SPACE_CLASS, length

USER_CAP = 4000
MIN_LEFT = 64
_S = SPACE_CLASS
_NOT_S = "[^" + SPACE_CLASS[1:]


@dataclass(frozen=True)
class BootFile:
    """One bootstrap file as OpenClaw read it (``content`` None: missing)."""

    name: str
    path: str
    content: str | None


@dataclass(frozen=True)
class Trimmed:
    """What :func:`trim` made of a text: the result, and the units of the trimmed text kept at each end."""

    text: str
    size: int           # units of the text after its end was trimmed
    head: int           # units kept from its start
    tail: int           # units kept from its end (head + tail == size when it was not cut)

    @property
    def cut(self) -> bool:
        return self.head + self.tail < self.size


@dataclass(frozen=True)
class Injected:
    """One file as it is injected: its text, and how it was cut."""

    name: str
    path: str
    text: str
    missing: bool = False
    trimmed: Trimmed | None = None


def trim(content: str, name: str, max_chars: int) -> Trimmed:
    """``trimBootstrapContent``: *content* cut to at most *max_chars* units, head and tail around a marker."""
    t = utf16.trim_end(content)
    n = length(t)
    if n <= max_chars:
        return Trimmed(t, n, n, 0)
    if name.lower() == "agents.md":
        return agents_digest(t, max_chars)

    def full(h: int, k: int) -> str:
        return (f"\n[...truncated, read {name} for full content...]\n"
                f"…(truncated {name}: kept {h}+{k} chars of {n})…\n")

    def compact(h: int, k: int) -> str:
        return f"[…truncated {h}+{k}/{n}]"

    def joins(h: int, k: int, marker: str) -> int:
        return (int(h > 0) + int(k > 0)) if "\n" in marker else 0

    first = full(0, 0)
    template = full if max_chars - length(first) - joins(1, 1, first) >= 16 else compact
    h = k = 0
    marker = template(0, 0)
    for _ in range(3):                       # the digits inside the marker settle
        budget = max(0, max_chars - length(marker) - joins(h, k, marker))
        h2, k2 = int(budget * 0.75), int(budget * 0.25)
        m2 = template(h2, k2)
        if (h2, k2, length(m2)) == (h, k, length(marker)):
            break
        h, k, marker = h2, k2, m2
    used = h + k + length(marker) + joins(h, k, marker)
    while used > max_chars and (h or k):     # too long: the tail gives way first, then the head
        over = used - max_chars
        if k:
            k = max(0, k - over)
        else:
            h = max(0, h - over)
        marker = template(h, k)
        used = h + k + length(marker) + joins(h, k, marker)
    if h == k == 0 and n > 0:
        one = template(1, 0)
        if 1 + length(one) + joins(1, 0, one) <= max_chars:
            h, marker = 1, one
    kept_head = utf16.head(t, h)
    kept_tail = utf16.tail(t, k) if k else ""
    out = ("\n" if "\n" in marker else "").join(p for p in (kept_head, marker, kept_tail) if p)
    if length(out) > max_chars:
        out = utf16.head(out, max_chars)
    return Trimmed(out, n, length(kept_head), length(kept_tail))


# ----- AGENTS.md: a head, its policy lines, a tail

_POLICY = re.compile(r"\b(?:AGENTS\.md|scoped|required|must|never|do not|before subtree|read scoped|owner|security|"
                     r"secret|credential|test|validation|command|commit|push|github|pr)\b"
                     r"|(?:🔴|禁止|嚴禁|不得|絕不|絕對不|切勿|必須|務必|一律|紅線)", re.IGNORECASE | re.ASCII)
_FIRST = re.compile(r"\b(?:AGENTS\.md|scoped|required|must|never|do not|before subtree|read scoped|security|secret|"
                    r"credential)\b|(?:🔴|禁止|嚴禁|不得|絕不|絕對不|切勿)", re.IGNORECASE | re.ASCII)
_FENCE = re.compile(f"^{_S}*(?:`{{3,}}|~{{3,}})")
_ITEM = re.compile(f"^(?:#{{1,6}}|{_S}*[-*+]|{_S}*[0-9]+[.)]){_S}+{_NOT_S}")
_RUN = re.compile(f"{_S}+")


def _policy_line(line: str) -> str:
    x = _RUN.sub(" ", utf16.trim(line))
    return x if length(x) <= 240 else utf16.head(x, 239) + "…"


def _candidates(t: str) -> list[tuple[str, bool]]:
    """The policy lines of AGENTS.md (each with the prose line just before it), and whether each goes first."""
    out: list[tuple[str, bool]] = []
    prose: str | None = None
    for raw in re.split(r"\r?\n", t):
        line = _policy_line(raw)
        if not line or _FENCE.match(line):
            prose = None
        elif _ITEM.match(line) or _POLICY.search(line):
            out.append((line if prose is None else f"{prose}\n{line}", bool(_FIRST.search(line))))
            prose = None
        else:
            prose = line
    return out


def _digest(candidates: Sequence[tuple[str, bool]], budget: int) -> tuple[str, int]:
    """The policy lines that fit in *budget* (the first-rank ones tried first, original order kept), and how many
    were left out."""
    if budget <= 0:
        return "", 0
    chosen: list[int] = []
    used = 0
    for want_first in (True, False):
        for i, (line, first) in enumerate(candidates):
            if first != want_first or i in chosen:
                continue
            cost = (1 if chosen else 0) + length(line)
            if used + cost <= budget:
                chosen.append(i)
                used += cost
    keep = sorted(chosen)
    return "\n".join(candidates[i][0] for i in keep), max(0, len(candidates) - len(keep))


def agents_digest(t: str, max_chars: int) -> Trimmed:
    """``trimAgentsBootstrapContent``: 45 % head, 35 % policy digest, 15 % tail of an over-long AGENTS.md."""
    h, k, room = int(max_chars * 0.45), int(max_chars * 0.15), int(max_chars * 0.35)
    n = length(t)
    candidates = _candidates(t) if room > 0 else []
    digest, omitted = _digest(candidates, room)

    def render() -> tuple[str, str, str]:
        kept_head, kept_tail = utf16.head(t, h), (utf16.tail(t, k) if k > 0 else "")
        parts = [kept_head, "[...truncated, read AGENTS.md for full content...]",
                 "[Policy digest from AGENTS.md]" if digest else "", digest,
                 f"[...{omitted} more policy lines omitted...]" if omitted > 0 else "",
                 f"…(truncated AGENTS.md: kept {h}+policy {length(digest)}+{k} chars of {n})…", kept_tail]
        return "\n".join(p for p in parts if p), kept_head, kept_tail

    out, kept_head, kept_tail = render()
    while length(out) > max_chars and (k > 0 or h > 1 or room > 0):
        over = length(out) - max_chars
        if k > 0:
            k = max(0, k - over)
        elif h > 1:
            h = max(1, h - over)
        else:
            room = max(0, room - over)
            digest, omitted = _digest(candidates, room)
        out, kept_head, kept_tail = render()
    if length(out) > max_chars:
        out = utf16.head(out, max_chars)
    return Trimmed(out, n, length(kept_head), length(kept_tail))


def clamp(text: str, budget: int) -> str:
    """What is left of the total bounds a file's text: cut to it with a final ``…``."""
    if budget <= 0:
        return ""
    if length(text) <= budget:
        return text
    if budget <= 3:
        return utf16.head(text, budget)
    return utf16.head(text, budget - 1) + "…"


def budget(files: Sequence[BootFile], max_chars: int, total: int) -> tuple[list[Injected], int, bool]:
    """``buildBootstrapContextFiles``: what each file injects, in order; what is left of the total; and whether
    the files stopped because less than 64 characters were left."""
    left = max(1, total)
    out: list[Injected] = []
    for f in files:
        if left <= 0:
            break
        if f.content is None:
            text = clamp(f"[MISSING] Expected at: {f.path}", left)
            if not text:
                break
            left -= length(text)
            out.append(Injected(f.name, f.path, text, missing=True))
            continue
        if left < MIN_LEFT:
            return out, left, True
        cap = min(max_chars, USER_CAP) if f.name.lower() == "user.md" else max_chars
        cut = trim(f.content, f.name, max(1, min(cap, left)))
        text = clamp(cut.text, left)
        if not text:
            continue
        left -= length(text)
        out.append(Injected(f.name, f.path, text, trimmed=cut))
    return out, left, False
