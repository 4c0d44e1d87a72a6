"""The pieces every detector shares: the marker, a span, reading our own regexes, and the cheap gates
(a literal search, trying a regex only at chosen places) that decide whether a regex runs at all.

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator, Sized
from typing import Any

MARKER_FORMAT = "«redacted {n} chars»"

_MARKER_RE = re.compile(r"«redacted \d+ chars»")


# A candidate span: (start, end, kind).
_Span = tuple[int, int, str]

# The regex parser, to read our own patterns: how far a match reaches, what
# it holds (no stub for mypy).
_sre_parser: Any = importlib.import_module("re._parser")


def _max_width(pattern: str, flags: int = 0) -> int:
    """The most characters a match of *pattern* spans."""
    return int(_sre_parser.parse(pattern, flags).getwidth()[1])


def _holds(text: str, literal: str) -> bool:
    """Whether *text* holds *literal*: the pre-filter before a regex that only
    matches where the literal is (a literal search is far cheaper than a
    regex pass).  One function, so that tests can turn every such gate off."""
    return literal in text


def _literal_hits(low: str, word: str) -> Iterator[int]:
    """Where *word* starts in *low*: the matches ``re.finditer`` gives for it."""
    p = low.find(word)
    while p >= 0:
        yield p
        p = low.find(word, p + len(word))


_PLAIN_PART_RE = re.compile(r"[A-Za-z][a-z]*|[A-Z]+|[a-z]+|[0-9]{1,4}")
_VALUE_SPLIT_RE = re.compile(r"[_\-./:]+")


def _plain_parts(value: str) -> bool:
    """Whether every part of *value* between ``_ - . / :`` is a word or a short number: "version-2024",
    "Release_12", "foo.bar.v2" name things, they are not generated."""
    return all(_PLAIN_PART_RE.fullmatch(p) for p in _VALUE_SPLIT_RE.split(value) if p)


# Trying a regex at a place from Python costs about what a regex pass over
# this many characters does.
_TRY_COST = 512


def _sparse(places: Sized, text: str) -> bool:
    """Whether working on each of *places* from Python (trying a regex, cutting
    a run) is cheaper than a pass over the whole *text*."""
    return len(places) * _TRY_COST < len(text)


def _matches_at(low: str, starts: Iterable[int], rx: re.Pattern[str]) -> Iterator[int]:
    """Where ``rx.finditer(low)`` finds a match, when every match starts at
    one of *starts*: only those places are tried."""
    end = 0
    for p in sorted(starts):
        if p >= end:
            m = rx.match(low, p)
            if m is not None:
                yield p
                end = max(m.end(), p + 1)
