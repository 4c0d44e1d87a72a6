"""Recall's ranking: which passages answer a message, best first (pure: postings in, ranked passages out).

The storage side (``recall``) gives, for each distinct stem of the message, its
idf and its postings — (passage id, the stem's count in the passage, the
passage's length) — plus which topic each passage belongs to, the stems each
topic's name holds and the length of the topics concerned. This module does the
arithmetic and knows nothing of SQLite, files or dates.

- **The gate** (the spec's): a passage is a hit when it holds *need* of the
  message's stems (one, or two for a message of five or more content words).
- **Passage score**: BM25 (``K1``, ``B``) of the passage's words; a passage
  shorter than ``SHORT_FLOOR`` of the average is normalised as that long, so a
  one-line passage is not rewarded for its shortness.
- **What the topic is about** (``TOPIC_WEIGHT``): the whole topic read as one
  document — BM25 of the message's stems over topics, with an idf counted over
  topics — added to each of its passages. A passage in a page about the
  message's subject beats an equal passage that mentions the words in passing.
- **Name matches** (``NAME_WEIGHT``): a topic whose file name, title or aliases
  hold a stem of the message gains, on every passage, that stem's idf scaled by
  its rarity (``idf / top``, *top* being the idf of a word no passage holds): a
  word in most passages ("note") adds little, a rare one nearly its full idf.
- **Choosing** (:func:`choose`): best score first; at most ``PER_TOPIC`` notes
  from one topic unless no other topic has a hit; the caller breaks ties
  between equal scores by date.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

K1 = 1.2
B = 0.75
"""BM25's term-frequency saturation and length normalisation."""
SHORT_FLOOR = 0.5
"""A passage shorter than this fraction of the average length is normalised as if it were that long."""
NAME_WEIGHT = 1.0
"""How much a name match weighs against one passage's BM25 (see the module's docstring)."""
TOPIC_WEIGHT = 0.5
"""How much the topic-level BM25 (the whole topic as one document) weighs against the passage's own."""
PER_TOPIC = 2
"""At most this many notes from one topic, unless no other topic matches."""
CANDIDATES = 200
"""Topic-level scores are computed for the topics of this many best passages (by their own score)."""


def idf(n: int, df: int) -> float:
    """BM25's idf of a word held by *df* of *n* documents (never negative)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class Term:
    """One distinct stem of the message: its idf over passages and its postings (pid, tf, passage length)."""
    stem: str
    idf: float
    postings: Sequence[tuple[int, int, int]]


def _bm25(tf: float, length: float, avg: float) -> float:
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))


def passage_scores(terms: Sequence[Term], need: int, avg: float) -> dict[int, float]:
    """BM25 of every passage that holds at least *need* of the terms."""
    floor = SHORT_FLOOR * avg
    score: dict[int, float] = {}
    count: Counter[int] = Counter()
    for t in terms:
        for pid, tf, length in t.postings:
            score[pid] = score.get(pid, 0.0) + t.idf * _bm25(tf, max(length, floor), avg)
            count[pid] += 1
    if need > 1:
        return {p: s for p, s in score.items() if count[p] >= need}
    return score


def topic_scores(terms: Sequence[Term], topic_of: Callable[[int], int], topics: Collection[int],
                 topic_len: Mapping[int, int], n_topics: int, avg_topic: float) -> dict[int, float]:
    """BM25 of each topic in *topics* read as one document: a stem's count summed over the topic's
    passages, the topic's length, and an idf over topics (how many topics hold the stem)."""
    tf: dict[int, list[int]] = {f: [0] * len(terms) for f in topics}
    held_by: list[set[int]] = []
    for i, t in enumerate(terms):
        holders: set[int] = set()
        for pid, n, _length in t.postings:
            f = topic_of(pid)
            holders.add(f)
            row = tf.get(f)
            if row is not None:
                row[i] += n
        held_by.append(holders)
    avg_topic = max(avg_topic, 1.0)
    out: dict[int, float] = {}
    for f, row in tf.items():
        length = max(topic_len.get(f, 0), SHORT_FLOOR * avg_topic)
        out[f] = sum(idf(n_topics, len(held_by[i])) * _bm25(c, length, avg_topic)
                     for i, c in enumerate(row) if c)
    return out


def name_scores(terms: Sequence[Term], names: Mapping[int, Collection[int]], top: float) -> dict[int, float]:
    """The name bonus of each topic in *names* (topic -> indexes of the terms its names hold): each
    term's idf scaled by its rarity (idf / *top*, the idf of a word no passage holds), so a word
    common across passages ("note", "link") adds little and a rare one nearly its full idf."""
    out: dict[int, float] = {}
    for f, held in names.items():
        out[f] = NAME_WEIGHT * sum(terms[i].idf * terms[i].idf / top for i in held)
    return out


def rank(terms: Sequence[Term], need: int, avg: float, topic_of: Callable[[int], int],
         names: Mapping[int, Collection[int]], n_passages: int,
         n_topics: int, topic_len: Callable[[Iterable[int]], Mapping[int, int]],
         avg_topic: float) -> list[tuple[float, int]]:
    """(score, pid) of every passage that passes the gate, best first (ties: the later pid first;
    the caller re-sorts equal scores by date).

    *names*: topic -> indexes into *terms* of the stems its file name, title or aliases hold;
    *topic_len*: the lengths of the topics asked for (called once, with the topics of the best
    ``CANDIDATES`` passages); *avg_topic*: the average length of a topic.
    """
    scores = passage_scores(terms, need, avg)
    if not scores:
        return []
    top = idf(max(n_passages, 1), 0)
    bonus = name_scores(terms, names, top)
    total = {p: s + bonus.get(topic_of(p), 0.0) for p, s in scores.items()}
    if TOPIC_WEIGHT:
        best = sorted(total, key=lambda p: (-total[p], -p))[:CANDIDATES]
        wanted = {topic_of(p) for p in best}
        lengths = topic_len(wanted)
        about = topic_scores(terms, topic_of, wanted, lengths, n_topics, avg_topic)
        for p in best:
            total[p] += TOPIC_WEIGHT * about.get(topic_of(p), 0.0)
    return sorted(((s, p) for p, s in total.items()), key=lambda sp: (-sp[0], -sp[1]))


def choose(ranked: Sequence[tuple[float, int, int]], limit: int) -> list[int]:
    """Indexes into *ranked* ((score, topic, anything), best first) of the notes to give, best first:
    first the best note of each topic, then, while places are left, further notes — at most
    ``PER_TOPIC`` from one topic unless no other topic has a hit; at most *limit* in all.

    With four places, a second note from one topic would otherwise push out the only note of
    another topic, often the one that answers (the same words in two passages of one page say less
    than a second page)."""
    if len({r[1] for r in ranked}) == 1:
        return list(range(min(limit, len(ranked))))
    chosen: list[int] = []
    per: Counter[int] = Counter()
    for cap in (1, PER_TOPIC):
        for i, r in enumerate(ranked):
            if len(chosen) == limit:
                break
            if per[r[1]] < cap and i not in chosen:
                chosen.append(i)
                per[r[1]] += 1
    return sorted(chosen)
