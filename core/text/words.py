"""Words for matching: tokens, CJK character bigrams, Snowball stems and the text's language.

- A *word* is a maximal run of Unicode letters and digits, lowercased (NFC).
- Chinese and Japanese are written without spaces, so a run of Han, Hiragana
  or Katakana is not one word: it is matched by its overlapping character
  *bigrams* (``東京タワー`` → ``東京 京タ タワ ワー``; a lone character is its own
  token). Words in other scripts next to such a run stay whole words
  (``iPhone15を買った`` → ``iphone15``, ``を買``, ``買っ``, ``った``).
- Recall matches word *forms*: every non-CJK word is reduced to its Snowball
  stem (PyStemmer) in the language of the bot's notes (``syncing``, ``synced``
  → ``sync``). Forget, ``journal --grep`` and search keep exact words.
- :func:`guess_language` picks that language from the text's most frequent
  function words (English unless another language clearly dominates).
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache

TYPE_CHECKING = False   # typing is not imported at run time: a recall process never needs it
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object       # the structural types below are checked by mypy only

_WORD = re.compile(r"[^\W_]+")

CJK_CLASS = ("\u3005\u3006\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
             "\uff66-\uff9f\U00020000-\U0003134f")
"""Han (with 々 〆 〇), Hiragana, Katakana and half-width Katakana: scripts written without spaces."""
_CJK = re.compile(f"[{CJK_CLASS}]+")
_HIRAGANA = re.compile("[\u3040-\u309f]+")


def normalize(text: str) -> str:
    """*text* lowercased and in NFC (how every word is compared)."""
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text.lower()


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def is_cjk_token(token: str) -> bool:
    return _CJK.fullmatch(token) is not None


def bigrams(run: str) -> list[str]:
    """The overlapping character bigrams of a CJK run; a lone character is its own token."""
    if len(run) < 2:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


def _split(word: str) -> Iterator[str]:
    pos = 0
    for m in _CJK.finditer(word):
        if m.start() > pos:
            yield word[pos:m.start()]
        yield from bigrams(m.group())
        pos = m.end()
    if pos < len(word):
        yield word[pos:]


def tokens(text: str) -> list[str]:
    """Every token of *text*: its words, CJK runs as bigrams, lowercased, in order."""
    return normalized_tokens(normalize(text))


def normalized_tokens(text: str) -> list[str]:
    """:func:`tokens` of a text already :func:`normalize`-d (or of a piece of one cut at ASCII characters
    that are neither letters nor digits: no token spans one)."""
    found = _WORD.findall(text)
    if text.isascii() or _CJK.search(text) is None:     # (no token to split: no per-token search)
        return found
    out: list[str] = []
    for w in found:
        if _CJK.search(w) is None:
            out.append(w)
        else:
            out.extend(_split(w))
    return out


def cjk_runs(text: str) -> list[str]:
    """The CJK runs of *text* (lowercased, NFC)."""
    return _CJK.findall(normalize(text))


def is_particle(token: str) -> bool:
    """A token of Hiragana only: Japanese particles and inflections (``には``, ``ます``), not content."""
    return _HIRAGANA.fullmatch(token) is not None


# ----- stems


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...  # noqa: N802 (PyStemmer's name)


LANGUAGES = ("english", "german", "french", "spanish", "italian", "portuguese", "dutch", "swedish",
             "norwegian", "danish", "finnish", "russian")
"""Languages :func:`guess_language` tells apart (each has a Snowball stemmer)."""


@lru_cache(maxsize=None)
def _stemmer(language: str) -> _Stemmer:
    import Stemmer  # type: ignore[import-not-found]  # PyStemmer: C, imports in under a millisecond

    s: _Stemmer = Stemmer.Stemmer(language, 0)
    return s


class Stems:
    """Stems of one language, remembered per word (a corpus has far fewer distinct words than words)."""

    def __init__(self, language: str) -> None:
        self.language = language if language in LANGUAGES else "english"
        self._cache: dict[str, str] = {}
        self._stem = _stemmer(self.language).stemWord

    def __call__(self, word: str) -> str:
        s = self._cache.get(word)
        if s is None:
            if len(self._cache) > 500_000:
                self._cache.clear()
            s = self._cache[word] = word if word.isdigit() or not word.isascii() and is_cjk_token(word) else self._stem(word)
        return s


_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "english": frozenset("the and of to is in that it with for was are this you be on not".split()),
    "german": frozenset("der die und das ist nicht den mit sich des auf ein eine dem zu von".split()),
    "french": frozenset("le la les des est une pour dans que du et qui pas sur au".split()),
    "spanish": frozenset("el los las del que una para con por es se no en y como".split()),
    "italian": frozenset("il che della per gli una sono non di del le alla nel è".split()),
    "portuguese": frozenset("que não uma para com dos das do da os em é no ao".split()),
    "dutch": frozenset("het een van niet zijn voor met de en dat op te ook".split()),
    "swedish": frozenset("och att det som för inte med är på av till den en".split()),
    "norwegian": frozenset("og ikke det som for med er på av til en jeg har".split()),
    "danish": frozenset("og ikke det som for med er på af til en jeg har".split()),
    "finnish": frozenset("ja on ei että se oli myös kun mutta tai ovat joka".split()),
    "russian": frozenset("и в не что на это как с по он для из".split()),
}


def guess_language(texts: Iterable[str], limit: int = 2_000_000) -> str:
    """The Snowball language whose most frequent function words occur most in *texts* (read up to
    *limit* characters); English when nothing clearly dominates."""
    seen: Counter[str] = Counter()
    read = 0
    for text in texts:
        seen.update(_WORD.findall(text.lower()))
        read += len(text)
        if read >= limit:
            break
    counts = Counter({lang: sum(seen[w] for w in fw) for lang, fw in _FUNCTION_WORDS.items()})
    if not +counts:
        return "english"
    (best, n), = counts.most_common(1)
    return best if n >= 1.5 * counts.get("english", 0) else "english"
