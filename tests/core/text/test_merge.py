"""The three-way merge on lines (core/text/merge.py): a change's own lines replayed against a later text.

Properties over generated texts: the edit script is exact, undoing against the
text the change left gives the earlier text back, a change elsewhere never
stops an undo and is kept, and no line of the text now is lost except those
the undo takes out.
"""
from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.text.merge import (
    Hunk,
    apply_script,
    edit_script,
    inverse,
    join_lines,
    replay,
    split_lines,
)
from tests.conftest import examples

LINES = st.lists(st.sampled_from(["a", "b", "c", "", "- x", "- y", "z\r"]), max_size=14)
TEXT = st.text(alphabet="ab\n\r-", max_size=40)


def undo(before: list[str], after: list[str], now: list[str]):
    return replay(after, inverse(before, edit_script(before, after)), now)


@settings(max_examples=examples(600))
@given(TEXT)
def test_split_and_join_are_exact(text):
    assert join_lines(split_lines(text)) == text


@settings(max_examples=examples(600))
@given(LINES, LINES)
def test_the_edit_script_is_exact_and_its_inverse_goes_back(old, new):
    hunks = edit_script(old, new)
    assert apply_script(old, hunks) == new
    assert apply_script(new, inverse(old, hunks)) == old


@settings(max_examples=examples(600))
@given(LINES, LINES)
def test_undo_against_the_text_the_change_left_gives_the_earlier_text(before, after):
    m = undo(before, after, after)
    assert m.clean and m.lines == before


@settings(max_examples=examples(1000))
@given(LINES, LINES, LINES)
def test_no_line_of_the_text_now_is_lost_but_those_the_undo_takes_out(before, after, now):
    m = undo(before, after, now)
    kept = Counter(now) - Counter(m.gone)
    assert not kept - Counter(m.lines)                          # every other line of now is still there
    assert not Counter(m.lines) - (Counter(now) + Counter(m.back))   # and nothing comes from nowhere
    if m.clashes:
        assert all(c.now == tuple(now[c.at:c.at + len(c.now)]) for c in m.clashes)


def _unique(n: int, tag: str) -> list[str]:
    return [f"{tag}{i}" for i in range(n)]


@st.composite
def independent(draw):
    """A text, a change at one place, another change at a place at least one untouched line away."""
    base = _unique(draw(st.integers(4, 30)), "l")
    i = draw(st.integers(0, len(base) - 3))
    j = draw(st.integers(i, min(i + 3, len(base) - 3)))       # the row replaces base[i:j] ...
    row_new = _unique(draw(st.integers(0 if j > i else 1, 3)), "r")
    k = draw(st.integers(j + 1, len(base) - 1))                # ... the later change base[k:l], with base[j] between
    l_ = draw(st.integers(k, min(k + 3, len(base))))
    other_new = _unique(draw(st.integers(0 if l_ > k else 1, 3)), "o")
    first = draw(st.booleans())
    return base, (i, j, row_new), (k, l_, other_new), first


def _edit(lines: list[str], *changes: tuple[int, int, list[str]]) -> list[str]:
    out = list(lines)
    for s, e, new in sorted(changes, reverse=True):
        out[s:e] = new
    return out


@settings(max_examples=examples(2000))
@given(independent())
def test_a_change_elsewhere_never_stops_an_undo_and_is_kept(case):
    base, row, other, row_first = case
    if not row_first:   # the later change before the row's place instead: mirror the text
        base = base[::-1]
        n = len(base)
        row, other = (n - row[1], n - row[0], row[2]), (n - other[1], n - other[0], other[2])
    after = _edit(base, row)
    now = _edit(base, row, other)
    m = undo(base, after, now)
    assert m.clean
    assert m.lines == _edit(base, other)


def test_a_deleted_duplicate_line_comes_back():
    m = undo(["x", "x", ""], ["x", ""], ["x", ""])
    assert m.lines == ["x", "x", ""]


def test_a_line_brought_back_by_hand_is_not_brought_back_twice():
    m = undo(["a", "x", ""], ["a", ""], ["a", "x", ""])
    assert m.clean and m.lines == ["a", "x", ""]


def test_a_forgotten_line_comes_back_before_what_was_added_at_its_place_since():
    m = undo(["p", "X", ""], ["p", ""], ["p", "Z", ""])
    assert m.lines == ["p", "X", "Z", ""]


def test_a_line_changed_since_is_a_clash_left_as_it_is_now():
    m = undo(["a", "b", "c"], ["a", "B1", "c"], ["a", "B2", "c"])
    assert m.lines == ["a", "B2", "c"] and m.forced == ["a", "b", "c"]
    [c] = m.clashes
    assert (c.at, c.now, c.left, c.back) == (1, ("B2",), ("B1",), ("b",))


def test_a_withheld_line_never_comes_back_the_others_do():
    before, after = ["keep", "secret «redacted 9 chars»", "fact", ""], ["keep", ""]
    hunks = edit_script(before, after)
    m = replay(after, inverse(before, hunks, lambda i: i == 1), after)
    assert m.lines == ["keep", "fact", ""] and m.withheld == ["secret «redacted 9 chars»"]


def test_a_line_replaced_by_one_holding_a_credential_stays_as_it_is():
    before, after = ["token «redacted 40 chars»", ""], ["token none", ""]
    m = replay(after, inverse(before, edit_script(before, after), lambda i: i == 0), after)
    assert m.lines == ["token none", ""] and m.withheld == ["token «redacted 40 chars»"]


def test_lines_compare_by_key_so_a_credential_in_the_file_matches_its_redacted_copy():
    before, after = ["a", ""], ["a", "key «redacted 3 chars»", "b", ""]
    now = ["a", "key abc", "b", ""]
    m = replay(after, inverse(before, edit_script(before, after)), now,
               key=lambda line: line.replace("abc", "«redacted 3 chars»"))
    assert m.clean and m.lines == ["a", ""]


def test_hunks_read_back_from_a_row():
    h = Hunk(2, 3, ("x", "y"))
    assert Hunk.load(h.dump()) == h
    assert Hunk.load([3, 2, []]) is None and Hunk.load([0, 1, [1]]) is None and Hunk.load("x") is None
