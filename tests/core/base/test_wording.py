"""Counted nouns: one rule, so no message says "1 bytes" or "1 more characters"."""
from __future__ import annotations

from botmemory.core import counted


def test_one_is_singular_and_every_other_count_plural():
    assert counted(1, "line") == "1 line"
    assert counted(0, "line") == "0 lines"
    assert counted(2, "byte") == "2 bytes"
    assert counted(1234, "character") == "1,234 characters"


def test_an_irregular_plural_and_a_verb_that_agrees():
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(3, "entry", "entries") == "3 entries"
    assert counted(1, "line does", "lines do") + " not load" == "1 line does not load"
    assert counted(2, "line does", "lines do") + " not load" == "2 lines do not load"
