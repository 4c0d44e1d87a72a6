"""The three-way merge on entries: both sides' new entries kept, a clash kept both ways, no line ever lost."""
from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.sync.merge import merge3, merge_units, units
from tests.conftest import examples

BASE = "# Memory\n- 2026-10-01 · from cli · The office is in Pune\n- 2026-10-02 · from cli · Likes tea\n"


def test_only_one_side_changed_takes_that_side():
    ours = BASE + "- 2026-10-03 · from cli · New here\n"
    assert merge3(BASE, ours, BASE).text == ours
    assert merge3(BASE, BASE, ours).text == ours
    assert merge3(BASE, ours, ours).text == ours
    assert merge3(None, None, "x\n").text == "x\n"


def test_both_sides_new_entries_are_kept_the_older_sides_first_and_a_shared_one_once():
    ours = BASE + "- 2026-10-04 · from cli · Ours\n- 2026-10-05 · from cli · Both\n"
    theirs = BASE + "- 2026-10-03 · from cli · Theirs\n- 2026-10-05 · from cli · Both\n"
    m = merge3(BASE, ours, theirs, ours_newer=True)
    assert m.clashes == []
    assert m.text == BASE + ("- 2026-10-03 · from cli · Theirs\n- 2026-10-05 · from cli · Both\n"
                             "- 2026-10-04 · from cli · Ours\n")


def test_the_same_entry_changed_on_both_sides_keeps_both_newer_first_as_a_clash():
    ours = BASE.replace("in Pune", "in Mumbai")
    theirs = BASE.replace("in Pune", "in Delhi")
    m = merge3(BASE, ours, theirs, ours_newer=False)
    assert m.text.splitlines()[1:3] == ["- 2026-10-01 · from cli · The office is in Delhi",
                                        "- 2026-10-01 · from cli · The office is in Mumbai"]
    assert len(m.clashes) == 1 and m.clashes[0].was == ("- 2026-10-01 · from cli · The office is in Pune",)
    assert m.clashes[0].kept[0] == ("- 2026-10-01 · from cli · The office is in Delhi",)
    assert merge3(BASE, ours, theirs, ours_newer=True).text.splitlines()[1].endswith("Mumbai")


def test_an_entry_with_its_indented_lines_is_one_unit():
    base = "- 2026-10-01 · from cli · Deploy steps\n  1. build\n  2. ship\n- 2026-10-02 · from cli · Other\n"
    ours = base.replace("2. ship", "2. ship on Tuesday")
    theirs = base.replace("· Other", "· Other, changed")
    m = merge3(base, ours, theirs)
    assert m.text == ("- 2026-10-01 · from cli · Deploy steps\n  1. build\n  2. ship on Tuesday\n"
                      "- 2026-10-02 · from cli · Other, changed\n")
    assert units(base)[0] == "- 2026-10-01 · from cli · Deploy steps\n  1. build\n  2. ship"


def test_a_removal_on_one_side_goes_and_a_change_of_the_removed_entry_is_kept():
    ours = BASE.replace("- 2026-10-02 · from cli · Likes tea\n", "")
    assert merge3(BASE, ours, BASE + "- x\n").text == ours + "- x\n"
    theirs = BASE.replace("Likes tea", "Likes green tea")
    assert "Likes green tea" in merge3(BASE, ours, theirs).text


def test_deleted_on_one_side_and_changed_on_the_other_keeps_the_changes_and_says_so():
    m = merge3(BASE, None, BASE + "- new\n")
    assert m.text == "- new\n" and "deleted on one computer" in m.clashes[0].note
    assert merge3(BASE, None, BASE.replace("# Memory\n", "")).text is None


def test_a_line_one_side_moved_is_not_lost():
    assert merge3("a\nb\nc\n", "a\nB\nc\n", "b\nc\na\n").text == "B\nc\na\n"


def test_the_final_newline_follows_the_side_that_changed_it():
    assert merge3("a\n", "a\nb\n", "a\nc", ours_newer=False).text == "a\nb\nc"
    assert merge3("a\n", "a\nb", "a\nc\n", ours_newer=False).text == "a\nb\nc"


lines = st.sampled_from(["- 2026-10-01 · from cli · A", "- 2026-10-02 · from cli · B", "  detail", "", "# H",
                         "hand line", "- 2026-10-03 · from cli · C", "- 2026-10-04 · from cli · D", "x", "y"])
texts = st.lists(lines, max_size=8).map(lambda ls: "\n".join(ls) + ("\n" if ls else ""))


@settings(max_examples=examples(400), deadline=None)
@given(texts, texts, texts, st.booleans())
def test_an_entry_is_gone_only_when_a_side_removed_it(base, ours, theirs, newer):
    """On units (an entry with its own lines, or a line): what one side has is in the merge unless the other
    side removed it; nothing appears that neither side has."""
    b, o, t = units(base), units(ours), units(theirs)
    got = Counter(merge_units(b, o, t, ours_newer=newer))
    cb, co, ct = Counter(b), Counter(o), Counter(t)
    for u in set(co) | set(ct):
        removed_by_ours, removed_by_theirs = max(0, cb[u] - co[u]), max(0, cb[u] - ct[u])
        assert got[u] >= max(co[u] - removed_by_theirs, ct[u] - removed_by_ours), (u, got)
    assert all(co[u] + ct[u] >= n for u, n in got.items())
    # and every line of the merged text is a line of ours or theirs
    m = merge3(base, ours, theirs, ours_newer=newer).text or ""
    lines = set(ours.splitlines()) | set(theirs.splitlines())
    assert all(line in lines for line in m.splitlines())
