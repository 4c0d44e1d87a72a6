"""entries.head_fields reads an entry's first line with one regex and rejects other lines by their third
character (issue 14: recall's indexer reads every bullet line of every topic). These tests compare it with
the reading it replaced (two regexes, kept here as the reference) on edge cases and generated lines."""
from __future__ import annotations

import re
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.text import entries as E
from tests.conftest import examples

_DATE = r"(\d{4}-\d{2}-\d{2})"
_ENTRY = re.compile(rf"^[-*] {_DATE} · (.*)$")
_SOURCE = re.compile(r'^(from (?:chat|room) "[^"\n]*"|from [\w.-]+|learned by [\w.-]+)( \(noticed\))? · (.*)$')


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _reference(line: str) -> E.HeadFields | None:
    """head_fields as it was: the struck form, then the entry's date, then its source on the rest."""
    m = E._STRUCK.match(line) if line[2:4] == "~~" else None
    if m:
        day = _day(m.group(2))
        if day is not None:
            inner = m.group(1)
            moved = _day(m.group(3)[-10:]) if m.group(3) else None
            original = _reference("- " + inner)
            text = original[2] if original is not None and original[0] is E.BlockKind.ENTRY else inner
            return E.BlockKind.STRUCK, day, text, original[3] if original is not None else None, False, None, moved
    m = _ENTRY.match(line)
    if m:
        day = _day(m.group(1))
        if day is not None:
            rest = m.group(2)
            source: str | None = None
            noticed = False
            sm = _SOURCE.match(rest)
            if sm:
                source, noticed, rest = sm.group(1), bool(sm.group(2)), sm.group(3)
            rest, until, moved = E._suffixes(rest)     # (unchanged: the same loop)
            return E.BlockKind.ENTRY, day, rest.strip(), source, noticed, until, moved
    return None


LINES = [
    "", "-", "- ", "* ", "-  ", "- x", "- 2", "- 2026", "- 2026-01-02", "- 2026-01-02 · ", "- 2026-01-02 ·  ",
    "- 2026-01-02 · plain fact", "* 2026-01-02 · star", "+ 2026-01-02 · plus", "-2026-01-02 · no space",
    "- 2026-13-40 · bad date", "- ٢٠٢٦-٠١-٠٢ · Arabic-Indic digits", "- 2026-01-02 · x\n", "- 2026-01-02 · x\ny",
    '- 2026-01-02 · from chat "Trips" · Lisbon', '- 2026-01-02 · from room "A · B" · text',
    '- 2026-01-02 · from chat "Trips" (noticed) · Lisbon', '- 2026-01-02 · from chat "x" foo · bar',
    "- 2026-01-02 · from cli · text", "- 2026-01-02 · from a.b-c_d · text", "- 2026-01-02 · from · text",
    "- 2026-01-02 · learned by bob · text", "- 2026-01-02 · learned by bob (noticed) · text",
    "- 2026-01-02 · from chat · text", "- 2026-01-02 · from cli (noticed) ·text",
    "- 2026-01-02 · from cli · ends · until 2026-02-01", "- 2026-01-02 · x · moved 2026-03-01 ",
    "- 2026-01-02 · x · until 2026-02-01 · moved 2026-03-01", "- 2026-01-02 · x · moved 2026-03-01 · until 2026-02-01",
    "- 2026-01-02 · x · until 2026-99-01", "- 2026-01-02 · x · until 2026-02-01 · until 2026-02-02",
    "- ~~old fact~~ · superseded 2026-02-02", "- ~~- 2026-01-01 · from x · inner~~ · superseded 2026-02-02",
    "* ~~struck~~ · superseded 2026-02-02 · moved 2026-03-03", "- ~~bad~~ · superseded 2026-99-02",
    "- ~~bad~~ · superseded 2026-02-02 trailing", "- ~x", "- ~", "- ~~", "-- 2026-01-02 · x", "  - 2026-01-02 · x",
]


def test_the_same_fields_on_edge_cases() -> None:
    for line in LINES:
        assert E.head_fields(line) == _reference(line), line
        assert E.head_fields("- ~~" + line[2:] + "~~ · superseded 2026-02-02") == \
            _reference("- ~~" + line[2:] + "~~ · superseded 2026-02-02"), line


PIECES = st.sampled_from(["- ", "* ", "~~", "2026-01-02", "2026-13-02", "١", "7", " · ", "·", " ", "\n", "\t",
                          "from ", "chat ", '"T"', "cli", "learned by ", "bob", " (noticed)", "until ", "moved ",
                          "superseded ", "x", "é"])


@settings(max_examples=examples(1000), deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join))
def test_the_same_fields_on_generated_lines(line: str) -> None:
    assert E.head_fields(line) == _reference(line)
    assert E.head_fields("- " + line) == _reference("- " + line)
