"""Recall's ranking: which passages answer a message, best first (pure: postings in, ranked passages out).

The storage side (``recall``) gives, for each distinct stem of the message, its
idf and its postings — (passage id, the stem's count in the passage, the
passage's length) — plus which topic each passage belongs to, the stems each
topic's name holds and the length of the topics concerned. This module does the
arithmetic and knows nothing of SQLite, files or dates.

- **The gate** (docs/RULES.md "Recall and search"): a passage is a hit when it holds *need* of the
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
- **Links** (``LINK_SHARE``): each of the ``LINK_SOURCES`` best passages lends the topics it links to
  (``[[wikilinks]]`` or markdown links to a topic's file) a share of its own score (the most any one
  lends), added to every passage of that topic that passed the gate. A passage that matches the message
  often links to the page about the subject, which may share few of the message's words ("hide the panel
  on the left, see [[Sidebar]]") — anchor text, as web search uses it. Lending never lets a topic pass
  the gate: only passages that match the message take part.
- **Choosing** (:func:`choose`): the best note of each topic first, then second
  notes while places are left; at most ``PER_TOPIC`` notes from one topic unless
  no other topic has a hit; the caller breaks ties between equal scores by date.

Cost: one pass over the message's postings (a topic is looked up once per run
of its passages when a stem's postings come in pid order), then topic-level
scores for the topics of the ``TOPIC_CANDIDATES`` best passages only.
"""
from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

K1 = 1.2
B = 0.75
"""BM25's term-frequency saturation and length normalisation."""
SHORT_FLOOR = 0.5
"""A passage shorter than this fraction of the average length is normalised as if it were that long."""
NAME_WEIGHT = 1.0
"""How much a name match weighs against one passage's BM25 (see the module's docstring)."""
TOPIC_WEIGHT = 0.5
"""How much the topic-level BM25 (the whole topic as one document) weighs against the passage's own."""
LINK_SHARE = 0.15
"""The share of a linking passage's score lent to the topic it links to (see the module's docstring)."""
LINK_SOURCES = 10
"""How many of the best passages lend to the topics they link to."""
PER_TOPIC = 2
"""At most this many notes from one topic, unless no other topic matches."""
CANDIDATES = 100
"""rank returns this many best passages (the caller drops expired entries, then chooses)."""
TOPIC_CANDIDATES = 50
"""Topic-level scores are computed for the topics of this many best passages (by their own score and
name bonus; the topic score only adds, so no passage outside them can overtake one inside)."""


def idf(n: int, df: int) -> float:
    """BM25's idf of a word held by *df* of *n* documents (never negative)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


class Term:
    """One distinct stem of the message: its idf over passages and its postings (pid, tf, passage length).
    (A plain class: a dataclass costs a millisecond at import, and recall runs before every turn.)"""
    __slots__ = ("stem", "idf", "postings")

    def __init__(self, stem: str, idf: float, postings: Sequence[tuple[int, int, int]]) -> None:
        self.stem = stem
        self.idf = idf
        self.postings = postings

    def __repr__(self) -> str:
        return f"Term({self.stem!r}, {self.idf:.3f}, {len(self.postings)} postings)"


class Topics:
    """Which topic each passage belongs to, from each topic's span of passage ids (a topic's passages
    have consecutive ids): (first pid, number of passages, topic id)."""

    def __init__(self, spans: Iterable[tuple[int, int, int]]) -> None:
        ordered = sorted(spans)
        self.first = [first for first, _n, _id in ordered]
        self.end = [first + n for first, n, _id in ordered]
        self.ids = [topic for _first, _n, topic in ordered]

    def __len__(self) -> int:
        return len(self.ids)

    def span(self, topic: int) -> range:
        """The passage ids of *topic* (empty when it has none)."""
        try:
            i = self.ids.index(topic)
        except ValueError:
            return range(0)
        return range(self.first[i], self.end[i])

    def of(self, pid: int) -> int:
        """The topic of passage *pid* (-1: none)."""
        i = bisect_right(self.first, pid) - 1
        return self.ids[i] if i >= 0 and pid < self.end[i] else -1


def _bm25(tf: float, length: float, avg: float) -> float:
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))


class _Gathered:
    __slots__ = ("score", "count", "topic_tf")

    def __init__(self) -> None:
        self.score: dict[int, float] = {}           # passage -> BM25
        self.count: dict[int, int] = {}             # passage -> how many of the terms it holds (need > 1 only)
        self.topic_tf: list[dict[int, int]] = []    # per term: topic -> its count over the topic's passages


def _gather(terms: Sequence[Term], topics: Topics, avg: float, need: int) -> _Gathered:
    """One pass over the postings (fastest when each term's are in pid order: a topic is looked up
    once per run of its passages, and its count summed by the run). Passages are counted only when
    the gate needs two terms."""
    floor = SHORT_FLOOR * avg
    k, kb = K1 * (1 - B), K1 * B / avg
    first, end, ids = topics.first, topics.end, topics.ids
    g = _Gathered()
    score, count = g.score, g.count
    counting = need > 1
    for t in terms:
        w = t.idf * (K1 + 1)
        sums: dict[int, int] = {}
        lo = hi = f = -1
        run = 0
        for pid, tf, length in t.postings:
            if not lo <= pid < hi:
                if run:
                    sums[f] = sums.get(f, 0) + run
                    run = 0
                j = bisect_right(first, pid) - 1
                if j >= 0 and pid < end[j]:
                    lo, hi, f = first[j], end[j], ids[j]
                else:
                    lo, hi, f = pid, pid + 1, -1
            run += tf
            s = w * tf / (tf + k + kb * (length if length > floor else floor))
            score[pid] = score.get(pid, 0.0) + s
            if counting:
                count[pid] = count.get(pid, 0) + 1
        if run:
            sums[f] = sums.get(f, 0) + run
        g.topic_tf.append(sums)
    return g


def passage_scores(terms: Sequence[Term], need: int, avg: float, topics: Topics | None = None) -> dict[int, float]:
    """BM25 of every passage that holds at least *need* of the terms."""
    g = _gather(terms, topics or Topics([]), avg, need)
    return {p: s for p, s in g.score.items() if need < 2 or g.count[p] >= need}


def topic_scores(topic_tf: Sequence[Mapping[int, int]], wanted: Iterable[int], topic_len: Mapping[int, int],
                 n_topics: int, avg_topic: float, idfs: Sequence[float] | None = None) -> dict[int, float]:
    """BM25 of each topic in *wanted* read as one document: per term, its count summed over the topic's
    passages (*topic_tf*), the topic's length, and an idf over topics (how many topics hold the term)."""
    avg_topic = max(avg_topic, 1.0)
    weights = [idf(n_topics, len([f for f in sums if f >= 0])) for sums in topic_tf] if idfs is None else idfs
    out: dict[int, float] = {}
    for f in wanted:
        length = max(topic_len.get(f, 0), SHORT_FLOOR * avg_topic)
        out[f] = sum(w * _bm25(sums[f], length, avg_topic) for w, sums in zip(weights, topic_tf) if sums.get(f))
    return out


def name_scores(terms: Sequence[Term], names: Mapping[int, Collection[int]], top: float) -> dict[int, float]:
    """The name bonus of each topic in *names* (topic -> indexes of the terms its names hold): each
    term's idf scaled by its rarity (idf / *top*, the idf of a word no passage holds), so a word
    common across passages ("note", "link") adds little and a rare one nearly its full idf."""
    out: dict[int, float] = {}
    for f, held in names.items():
        out[f] = NAME_WEIGHT * sum(terms[i].idf * terms[i].idf / top for i in held)
    return out


def rank(terms: Sequence[Term], need: int, avg: float, topics: Topics, names: Mapping[int, Collection[int]],
         n_passages: int, topic_len: Callable[[Collection[int]], Mapping[int, int]],
         avg_topic: float, links: Callable[[Sequence[int]], Mapping[int, Collection[int]]] | None = None
         ) -> list[tuple[float, int, int]]:
    """(score, pid, topic) of the best ``CANDIDATES`` passages that pass the gate, best first (ties:
    the later pid first; the caller re-sorts equal scores by date).

    *avg*: the average passage length; *topics*: which topic each passage is in; *names*: topic ->
    indexes into *terms* of the stems its file name, title or aliases hold; *n_passages*: how many
    passages there are; *topic_len*: the lengths of the topics asked for (called once, with the
    topics of the best ``TOPIC_CANDIDATES`` passages, and again with the topics lent a score); *avg_topic*:
    the average length of a topic; *links* (optional): for the given passage ids, the topics each one
    links to (``[[wikilinks]]``), for the lending described in the module's docstring.
    """
    g = _gather(terms, topics, avg, need)
    score = g.score
    if need > 1:
        score = {p: s for p, s in score.items() if g.count[p] >= need}
    if not score:
        return []
    for f, b in name_scores(terms, names, idf(max(n_passages, 1), 0)).items():
        for p in topics.span(f):
            if p in score:
                score[p] += b
    best = [p for _s, p in heapq.nlargest(CANDIDATES, zip(score.values(), score.keys()))]
    topic = {p: topics.of(p) for p in best}
    if TOPIC_WEIGHT:
        lifted = best[:TOPIC_CANDIDATES]
        wanted = {topic[p] for p in lifted}
        about = topic_scores(g.topic_tf, wanted, topic_len(wanted), max(len(topics), 1), avg_topic)
        for p in lifted:
            score[p] += TOPIC_WEIGHT * about.get(topic[p], 0.0)
    if links is not None and LINK_SHARE:
        _lend(score, best, topic, topics, links, g.topic_tf, topic_len, avg_topic)
    out = sorted(((score[p], p, topic[p]) for p in best), key=lambda x: (-x[0], -x[1]))
    return out[:CANDIDATES]


def _lend(score: dict[int, float], best: list[int], topic: dict[int, int], topics: Topics,
          links: Callable[[Sequence[int]], Mapping[int, Collection[int]]], topic_tf: Sequence[Mapping[int, int]],
          topic_len: Callable[[Collection[int]], Mapping[int, int]], avg_topic: float) -> None:
    """The best ``LINK_SOURCES`` passages lend each topic they link to ``LINK_SHARE`` of their score (the
    most any one lends): added to every passage of that topic that passed the gate. Passages of a lent
    topic outside *best* join it, with their topic-level score. Updates *score*, *best* and *topic*."""
    sources = heapq.nlargest(LINK_SOURCES, best, key=lambda p: (score[p], p))
    linked = links(sources)
    lent: dict[int, float] = {}
    for p in sources:
        for f in linked.get(p, ()):
            if f != topic[p] and f >= 0:
                lent[f] = max(lent.get(f, 0.0), LINK_SHARE * score[p])
    if not lent:
        return
    joining = [p for f in lent for p in topics.span(f) if p in score and p not in topic]
    if joining:
        for p in joining:
            topic[p] = topics.of(p)
        if TOPIC_WEIGHT:
            wanted = {topic[p] for p in joining}
            about = topic_scores(topic_tf, wanted, topic_len(wanted), max(len(topics), 1), avg_topic)
            for p in joining:
                score[p] += TOPIC_WEIGHT * about.get(topic[p], 0.0)
        best.extend(joining)
    for p in best:
        if topic[p] in lent:
            score[p] += lent[topic[p]]


def choose(ranked: Sequence[tuple[float, int, int]], limit: int) -> list[int]:
    """Indexes into *ranked* ((score, topic, anything), best first) of the notes to give, best first:
    first the best note of each topic, then, while places are left, further notes — at most
    ``PER_TOPIC`` from one topic unless no other topic has a hit; at most *limit* in all.

    With four places, a second note from one topic would otherwise push out the only note of
    another topic, often the one that answers (the same words in two passages of one page say less
    than a second page)."""
    if len({topic for _score, topic, _rest in ranked}) == 1:
        return list(range(min(limit, len(ranked))))
    chosen: list[int] = []
    per: Counter[int] = Counter()
    for cap in (1, PER_TOPIC):
        for i, (_score, topic, _rest) in enumerate(ranked):
            if len(chosen) == limit:
                break
            if per[topic] < cap and i not in chosen:
                chosen.append(i)
                per[topic] += 1
    return sorted(chosen)
