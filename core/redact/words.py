"""The words that lead the keyword detectors to a line, found in one shared pass over the lower-cased text.

The assignment keywords (pass, pw, psk, secret, token, key), the pieces of the prose nouns (pass, pin, kennwort,
contrase, senha, parola d, wachtwoord, senord, adgangskode), the words the .netrc and curl rules need (machine, curl)
and the everyday ones' (phrase, code, cookie, card, cvv, login, cred, account; sshpass by its pass): a ``str.find``
pass for each costs about half a nanosecond a byte, and fourteen of them cost more than the rest of the secret check
of an ordinary note. Instead, each family of words that share a letter (or two) is found by one regex that starts
with it: the regex engine skips to that literal in C and checks the family's words around it (look-behind,
look-ahead), consuming the literal alone, so it sees every place where a word of the family holds it. The words are
then read off each such place. Every word's hits are exactly the ones ``_literal_hits`` gives (no word overlaps
itself, so those are all its occurrences; tests/core/redact/test_redact_runs.py compares the two).

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

# Each family: the literal its regex starts with (the rarer, the faster: the regex engine skips to it in C), and
# its words (each holds the literal; its first place counts).
_FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("p", ("pass", "pw", "psk", "pin", "parola d", "phrase")),
    ("k", ("key", "kennwort", "token", "adgangskode")),
    ("se", ("secret", "senha", "contrase", "senord")),
    ("c", ("curl", "machine", "code", "cookie", "card", "cvv", "wachtwoord", "cred", "account")),
    ("og", ("login",)),
)
_WORDS: tuple[str, ...] = tuple(w for _, words in _FAMILIES for w in words)
assert len(set(_WORDS)) == len(_WORDS)
# No word overlaps itself (no proper prefix is also a suffix): its non-overlapping occurrences, which
# _literal_hits gives, are all its occurrences, which the family regexes give.
assert all(w[:n] != w[-n:] for w in _WORDS for n in range(1, len(w)))


def _family_regex(literal: str, words: tuple[str, ...], one: bool) -> re.Pattern[str]:
    """A regex that matches *literal* (and nothing more) wherever it is where one of *words* has it.

    A look-ahead for what may follow the literal comes first (one cheap test that rejects most places), then
    each word's own look-behind and look-ahead.  When at most one word starts at a place (*one*), each word's
    alternative ends with an empty group of its own: the match's ``lastindex`` names the word."""
    befores: list[str] = []
    afters: list[str] = []
    for w in words:
        i = w.index(literal)
        befores.append(w[: i + len(literal)] if i else "")
        afters.append(w[i + len(literal) :])
    out = re.escape(literal)
    if all(afters):
        out += "(?=" + "|".join(map(re.escape, afters)) + ")"
    exact = [
        (f"(?<={re.escape(b)})" if b else "") + (f"(?={re.escape(a)})" if a else "") + ("()" if one else "")
        for b, a in zip(befores, afters)
    ]
    return re.compile(out + "(?:" + "|".join(exact) + ")")


def _apart(a: str, i: int, b: str, j: int) -> bool:
    """Whether words *a* and *b*, laid so that *a*'s place *i* is over *b*'s place *j*, differ somewhere: then
    they cannot both be there."""
    return any(0 <= k + i - j < len(a) and a[k + i - j] != c for k, c in enumerate(b))


def _one_at_most(words: tuple[str, ...], literal: str) -> bool:
    """Whether no two of *words* can hold *literal* at one place ("tokennwort" holds token and kennwort)."""
    placed = [(w, w.index(literal)) for w in words]
    return all(_apart(a, i, b, j) for a, i in placed for b, j in placed if a != b)


# (regex, ((word, where its literal is), ...), whether one word at most starts at a place) for each family.
_FAMILY_PLAN: tuple[tuple[re.Pattern[str], tuple[tuple[str, int], ...], bool], ...] = tuple(
    (_family_regex(literal, words, _one_at_most(words, literal)), tuple((w, w.index(literal)) for w in words),
     _one_at_most(words, literal))
    for literal, words in _FAMILIES
)


def _word_hits(low: str) -> dict[str, list[int]]:
    """Where each of ``_WORDS`` starts in *low* (the lower-cased scan copy), in order: ``_literal_hits(low, w)``."""
    hits: dict[str, list[int]] = {w: [] for w in _WORDS}
    for rx, words, one in _FAMILY_PLAN:
        if one:  # the word is the one whose group took part
            for m in rx.finditer(low):
                w, i = words[(m.lastindex or 0) - 1]  # one group always takes part
                hits[w].append(m.start() - i)
            continue
        for at in [m.start() for m in rx.finditer(low)]:
            for w, i in words:
                if at >= i and low.startswith(w, at - i):
                    hits[w].append(at - i)
    return hits


def _found(hits: Mapping[str, Sequence[int]], word: str) -> bool:
    """Whether the words pass found *word*: the gate before a regex that only matches where *word* is (as
    ``_holds`` is for a literal; one function, so that tests can turn every such gate off)."""
    return bool(hits[word])
