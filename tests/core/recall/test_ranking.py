"""Recall's ranking as a pure function (core/ranking.py): postings in, ranked passages out."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from botmemory.core.recall import ranking as K
from botmemory.core.recall.ranking import Term

TOPICS = K.Topics((10 * f, 10, f) for f in range(10))     # passages 0-9 are topic 0, 10-19 topic 1, …


def lengths(wanted: object) -> dict[int, int]:
    return {f: 100 for f in range(10)}


def rank(terms: list[Term], need: int = 1, names: dict[int, list[int]] | None = None) -> list[int]:
    return [p for _s, p, _f in K.rank(terms, need, 10.0, TOPICS, names or {}, 100, lengths, 100.0)]


def test_a_message_of_many_words_needs_two_of_them_in_a_passage() -> None:
    terms = [Term("kayak", 3.0, [(1, 1, 10), (2, 1, 10)]), Term("lake", 2.0, [(2, 1, 10), (3, 1, 10)])]
    assert rank(terms, need=1) == [2, 1, 3]
    assert rank(terms, need=2) == [2]


def test_a_rare_word_outweighs_a_common_one() -> None:
    terms = [Term("kayak", K.idf(100, 2), [(1, 1, 10)]), Term("note", K.idf(100, 60), [(12, 1, 10)])]
    assert rank(terms) == [1, 12]


def test_a_short_passage_is_not_rewarded_below_the_floor() -> None:
    one = Term("kayak", 3.0, [(1, 1, 1), (12, 1, 5)])       # both shorter than half the average (10)
    assert K.passage_scores([one], 1, 10.0)[1] == pytest.approx(K.passage_scores([one], 1, 10.0)[12])


def test_the_topic_about_the_words_lifts_its_passages() -> None:
    # passage 1 and 11 are equal; topic 0 holds the words in more passages
    terms = [Term("kayak", 3.0, [(1, 1, 10), (2, 1, 10), (3, 1, 10), (11, 1, 10)])]
    assert rank(terms)[0] in (1, 2, 3)
    assert rank(terms).index(1) < rank(terms).index(11)


def test_a_topic_level_idf_counts_topics_not_passages() -> None:
    # per term: topic -> its count over the topic's passages; "note" is in five topics, "kayak" in one
    s = K.topic_scores([{0: 1, 1: 1, 2: 1, 3: 1, 4: 1}, {5: 1}], {1, 5}, lengths(None), 10, 100.0)
    assert s[5] > s[1]


def test_topics_map_a_passage_to_its_topic() -> None:
    topics = K.Topics([(20, 5, 7), (0, 3, 4)])
    assert [topics.of(p) for p in (0, 2, 3, 20, 24, 25, -1)] == [4, 4, -1, 7, 7, -1, -1]
    terms = [Term("kayak", 3.0, [(24, 1, 10), (2, 1, 10), (1, 2, 10)])]      # out of pid order still works
    assert [(p, f) for _s, p, f in K.rank(terms, 1, 10.0, topics, {}, 100, lengths, 100.0)] == [
        (1, 4), (2, 4), (24, 7)]     # topic 4 holds the word twice: its passages first


def test_a_name_match_lifts_every_passage_of_its_topic() -> None:
    terms = [Term("kayak", 3.0, [(1, 2, 10), (11, 1, 10)])]
    assert rank(terms)[0] == 1
    assert rank(terms, names={1: [0]})[0] == 11


def test_choose_takes_the_best_of_each_topic_before_a_second_note() -> None:
    ranked = [(9.0, 0, 0), (8.0, 0, 1), (7.0, 1, 2), (6.0, 2, 3), (5.0, 3, 4), (4.0, 0, 5)]
    assert K.choose(ranked, 4) == [0, 2, 3, 4]
    assert K.choose(ranked[:3], 4) == [0, 1, 2]                           # a second note fills a free place
    assert K.choose([(9.0, 0, 0), (8.0, 0, 1), (7.0, 0, 2), (6.0, 1, 3)], 4) == [0, 1, 3]   # at most two of one
    assert K.choose([(9.0, 0, 0), (8.0, 0, 1), (7.0, 0, 2)], 4) == [0, 1, 2]   # no other topic: no cap


def _links(table: dict[int, list[int]]) -> Callable[[Sequence[int]], dict[int, list[int]]]:
    def linked(pids: Sequence[int]) -> dict[int, list[int]]:
        return {p: table[p] for p in pids if p in table}
    return linked


def test_a_topic_a_matching_passage_links_to_ranks_above_an_equal_passage_elsewhere() -> None:
    # 1 (topic 0) is the best passage and links to topic 3; 31 (topic 3) and 41 (topic 4) are equal
    terms = [Term("kayak", 3.0, [(1, 3, 10), (31, 1, 10), (41, 1, 10)])]
    plain = [p for _s, p, _f in K.rank(terms, 1, 10.0, TOPICS, {}, 100, lengths, 100.0)]
    assert plain == [1, 41, 31]                      # a tie: the later passage first
    linked = [p for _s, p, _f in K.rank(terms, 1, 10.0, TOPICS, {}, 100, lengths, 100.0, _links({1: [3]}))]
    assert linked == [1, 31, 41]


def test_a_link_lends_a_share_of_its_passage_s_score_and_never_passes_the_gate() -> None:
    terms = [Term("kayak", 3.0, [(1, 3, 10), (31, 1, 10)]), Term("lake", 2.0, [(1, 1, 10), (41, 1, 10)])]
    before = {p: s for s, p, _f in K.rank(terms, 1, 10.0, TOPICS, {}, 100, lengths, 100.0)}
    after = {p: s for s, p, _f in K.rank(terms, 1, 10.0, TOPICS, {}, 100, lengths, 100.0, _links({1: [3, 5, 0]}))}
    assert after[31] == pytest.approx(before[31] + K.LINK_SHARE * before[1])
    assert after[1] == pytest.approx(before[1])     # a link to its own topic lends nothing
    assert after[41] == pytest.approx(before[41])
    assert 50 not in after                          # topic 5 has no passage that matches: nothing to lift
    two = {p: s for s, p, _f in K.rank(terms, 2, 10.0, TOPICS, {}, 100, lengths, 100.0, _links({1: [3]}))}
    assert list(two) == [1]                          # 31 holds one of two words: still out


def test_a_linked_topic_outside_the_candidates_joins_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(K, "CANDIDATES", 2)
    # 31 is not among the two best passages by their own score; lent by 1, it overtakes 2
    terms = [Term("kayak", 3.0, [(1, 6, 10), (2, 1, 12), (31, 1, 14)])]
    assert [p for _s, p, _f in K.rank(terms, 1, 10.0, TOPICS, {}, 100, lengths, 100.0)] == [1, 2]
    got = [p for _s, p, _f in K.rank(terms, 1, 10.0, TOPICS, {}, 100, lengths, 100.0, _links({1: [3]}))]
    assert got == [1, 31]


def test_only_the_best_passages_are_asked_for_their_links() -> None:
    asked: list[list[int]] = []

    def linked(pids: Sequence[int]) -> dict[int, list[int]]:
        asked.append(sorted(pids))
        return {}
    terms = [Term("kayak", 3.0, [(p, 1 + p % 3, 10) for p in range(0, 100, 3)])]
    K.rank(terms, 1, 10.0, TOPICS, {}, 100, lengths, 100.0, linked)
    assert len(asked) == 1 and len(asked[0]) == K.LINK_SOURCES
