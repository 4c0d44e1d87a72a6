"""Runs of token characters: the text's gate runs and windows (one bytes.translate pass), reading a
regex's parsed pattern to learn how long a run every match needs, and the token rules run over them.

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .base import _holds, _Span, _sparse, _sre_parser
from .rules import _ALNUM_SET, _DIGITS, _PROVIDER_RULES, _Rule

_RUN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_=-"
_RUN_TABLE = bytes(ord("a") if i in _RUN_CHARS else ord(" ") for i in range(256))
# The characters of a value after a provider name (provider.py): the gate runs hold them too.
_PROVIDER_VALUE_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_=.+/~:|%-"


def _runs_within(
    scan: str, a: int, b: int, stops: str, table: bytes, min_len: int
) -> Iterator[tuple[int, int]]:
    """The maximal runs of *table*'s characters, *min_len* or longer, inside
    the run scan[a:b] of a wider set: that set less the characters *stops*."""
    if b - a < min_len:
        return
    if all(scan.find(c, a, b) < 0 for c in stops):  # one memchr each
        yield a, b
        return
    for s, e in _runs(scan[a:b], table, min_len):
        yield a + s, a + e


def _runs(scan: str, table: bytes, min_len: int) -> Iterator[tuple[int, int]]:
    """Maximal runs of the characters *table* maps to 'a', min_len or longer.

    Found with bytes.translate and bytes.find, which run at memory speed;
    a regex visiting every position of a megabyte costs far more.
    """
    mapped = scan.encode("latin-1").translate(table)
    needle = b"a" * min_len
    n = len(mapped)
    end = 0
    pos = mapped.find(needle)
    while pos >= 0:
        start = mapped.rfind(b" ", end, pos) + 1 or end
        end = mapped.find(b" ", pos)
        if end < 0:
            end = n
        yield start, end
        pos = mapped.find(needle, end)


# Provider keys and webhook URLs only hold these characters, and are at least
# this long: the rules run over those stretches only, joined by newlines.
_WINDOW_TABLE = bytes(
    ord("a") if i in _RUN_CHARS + b".:" else ord(" ") for i in range(256)
)
_WINDOW_MIN_LEN = 15


_REGEX_META = frozenset("\\.^$*+?{}[]()|")


def _needle(pattern: str) -> str:
    """The literal text every match of *pattern* starts with ('' if none)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            out.append(pattern[i + 1])
            i += 2
            continue
        if c in _REGEX_META:
            break
        out.append(c)
        i += 1
    # A quantifier right after the literal applies to its last character.
    if i < len(pattern) and pattern[i] in "*?{" and out:
        out.pop()
    return "".join(out)


_NEEDLES = {
    r.regex.pattern: _needle(r.regex.pattern) if r.needle is None else r.needle
    for r in _PROVIDER_RULES
}

# ---------------------------------------------------------------------------
# Gate runs: one pass over the text that shows where a token can be at all
# ---------------------------------------------------------------------------

# The characters of every provider key, webhook URL and keyed value: the
# windows' characters, the provider value's ('~', '|', '%') and '@', '$'
# (Teams webhooks, Braintree tokens).  The maximal runs of these, 12 or
# longer, are found with one bytes.translate and bytes.find pass; in
# ordinary prose they are few and short, and each detector below that finds
# tokens looks only there, or runs only when a run is long enough.
_GATE_CHARS = bytes(sorted(set(_RUN_CHARS + b".:" + _PROVIDER_VALUE_CHARS + b"@$")))
_GATE_TABLE = bytes(ord("a") if i in _GATE_CHARS else ord(" ") for i in range(256))
_GATE_MIN_LEN = 12
assert set(_RUN_CHARS + b".:") <= set(_GATE_CHARS)  # windows lie in gate runs
_GATE_ONLY = bytes(set(_GATE_CHARS) - set(_RUN_CHARS + b".:")).decode("ascii")


@dataclass(frozen=True)
class _Runs:
    """A text's gate runs (maximal, _GATE_MIN_LEN or longer), the longest
    one's length, and its windows (maximal runs of the window characters,
    _WINDOW_MIN_LEN or longer: each lies inside a gate run)."""

    gate: list[tuple[int, int]]
    longest: int
    windows: list[tuple[int, int]]


def _find_runs(scan: str) -> _Runs:
    gate = list(_runs(scan, _GATE_TABLE, _GATE_MIN_LEN))
    if _sparse(gate, scan):  # the windows from inside the gate runs
        windows = [
            w
            for a, b in gate
            for w in _runs_within(scan, a, b, _GATE_ONLY, _WINDOW_TABLE, _WINDOW_MIN_LEN)
        ]
    else:  # many runs (a token dump): one pass
        windows = list(_runs(scan, _WINDOW_TABLE, _WINDOW_MIN_LEN))
    return _Runs(gate, max((b - a for a, b in gate), default=0), windows)


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _min_width(items: Any) -> int:
    """The fewest characters a parsed pattern (a list of items) matches."""
    total = 0
    for op, av in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL", "IN", "ANY", "CATEGORY"):
            total += 1
        elif name == "SUBPATTERN":
            total += _min_width(av[3])
        elif name == "ATOMIC_GROUP":
            total += _min_width(av)
        elif name in _REPEATS:
            total += av[0] * _min_width(av[2])
        elif name == "BRANCH":
            total += min(_min_width(b) for b in av[1])
        # ASSERT, ASSERT_NOT, AT: no width; GROUPREF: at least none.
    return total


def _only(items: Any, allowed: frozenset[int]) -> bool:
    """Whether every character a parsed pattern consumes is in *allowed*."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            ok = av in allowed
        elif name == "IN":
            ok = all(
                (str(o) == "LITERAL" and a in allowed)
                or (str(o) == "RANGE" and all(c in allowed for c in range(a[0], a[1] + 1)))
                for o, a in av
            )
        elif name == "SUBPATTERN":
            ok = _only(av[3], allowed)
        elif name == "ATOMIC_GROUP":
            ok = _only(av, allowed)
        elif name in _REPEATS:
            ok = _only(av[2], allowed)
        elif name == "BRANCH":
            ok = all(_only(b, allowed) for b in av[1])
        else:  # look-arounds and anchors consume nothing; the rest may
            ok = name in ("ASSERT", "ASSERT_NOT", "AT")
        if not ok:
            return False
    return True


def _guaranteed_run(items: Any, allowed: frozenset[int]) -> int:
    """A length that every match of a parsed pattern holds a stretch of
    *allowed* characters of (0 when none can be shown)."""
    best = cur = 0
    for op, av in items:
        if _only([(op, av)], allowed):
            cur += _min_width([(op, av)])
            best = max(best, cur)
            continue
        cur = 0
        name = str(op)
        if name == "SUBPATTERN":
            best = max(best, _guaranteed_run(av[3], allowed))
        elif name == "ATOMIC_GROUP":
            best = max(best, _guaranteed_run(av, allowed))
        elif name in _REPEATS and av[0] >= 1:
            best = max(best, _guaranteed_run(av[2], allowed))
        elif name == "BRANCH":
            best = max(best, min(_guaranteed_run(b, allowed) for b in av[1]))
    return best


def _gate_length(rx: re.Pattern[str]) -> int:
    """How long a gate run every match of *rx* lies in (0: not known, run it
    always).  Lower-cased text has the same gate runs as the scan copy."""
    if rx.flags & re.IGNORECASE:
        return 0  # 'k' would match the Kelvin sign, outside the gate
    n = _guaranteed_run(_sre_parser.parse(rx.pattern, rx.flags), frozenset(_GATE_CHARS))
    return n if n >= _GATE_MIN_LEN else 0


# Each rule with where it runs (0 windows, 1 the scan copy, 2 the lower-cased
# text), its literal, and the gate run it needs (only for the rules that run
# over the whole text: a window is itself a gate run).
_RULE_PLAN: tuple[tuple[_Rule, int, str, int], ...] = tuple(
    (
        rule,
        2 if rule.on_lower else 1 if rule.on_scan else 0,
        _NEEDLES[rule.regex.pattern],
        _gate_length(rule.regex) if rule.on_lower or rule.on_scan else 0,
    )
    for rule in _PROVIDER_RULES
)
_WHOLE_TEXT_PLAN = tuple(p for p in _RULE_PLAN if p[1])


def _token_rules(  # noqa: C901
    text: str, scan: str, low: str, runs: _Runs | None = None
) -> Iterator[_Span]:
    if runs is None:
        runs = _find_runs(scan)
    parts: list[str] = []
    win_starts: list[int] = []
    orig_starts: list[int] = []
    length = 0
    for a, b in runs.windows:
        parts.append(scan[a:b])
        win_starts.append(length)
        orig_starts.append(a)
        length += b - a + 1
    windows = "\n".join(parts)

    def where(rule: _Rule) -> Iterator[tuple[int, int]]:
        if rule.on_lower or rule.on_scan:
            for m in rule.regex.finditer(low if rule.on_lower else scan):
                yield m.start(rule.group), m.end(rule.group)
            return
        for m in rule.regex.finditer(windows):
            i = bisect_right(win_starts, m.start()) - 1
            shift = orig_starts[i] - win_starts[i]
            yield m.start(rule.group) + shift - rule.back, m.end(rule.group) + shift

    hays = (windows, scan, low)
    present: dict[tuple[int, str], bool] = {}
    # No window: no window rule matches (each matches at least a character).
    for rule, hay, needle, min_run in _RULE_PLAN if windows else _WHOLE_TEXT_PLAN:
        if min_run > runs.longest:
            continue  # every match lies in a gate run this long
        if needle:
            got = present.get((hay, needle))
            if got is None:
                got = present[(hay, needle)] = _holds(hays[hay], needle)
            if not got:
                continue  # a literal search is far cheaper than a regex pass
        for s, e in where(rule):
            if rule.kind == "facebook_token" and not text.startswith("EAA", s):   # app id|secret
                d = s
                while d > 0 and s - d < 17 and text[d - 1] in _DIGITS:
                    d -= 1
                if s - d not in (15, 16):
                    continue
                s = d
            if rule.kind == "telegram_bot_token":
                d = s
                while d > 0 and s - d < 10 and text[d - 1] in _DIGITS:
                    d -= 1
                glued = d > 0 and text[d - 1] in _ALNUM_SET
                if s - d < 8 or (glued and not text.endswith("/bot", 0, d)):
                    continue  # (api.telegram.org/bot<token>/sendMessage is one)
                s = d
            tok = text[s:e]
            if len(set(tok[-16:])) < 4:
                continue  # ghp_xxxxxxxx…, AKIAXXXXXXXXXXXXXXXX: placeholders
            if rule.check is not None and not rule.check(tok):
                continue
            if e > s:
                yield (s, e, rule.kind)
