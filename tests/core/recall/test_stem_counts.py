"""Recall's stem counting (passages._stem_counts, issue 14) gives exactly the counts of the plain reading:
every token (:func:`passages._words`: NFC, lowercased, Unicode letters and digits, CJK bigrams) mapped to
its content stem and counted. ASCII text takes a faster path (bytes split by a table); these tests
compare both paths with the plain one on every kind of text."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.recall import passages as P
from botmemory.core.text.words import Stems
from tests.conftest import examples


def _plain(text: str, memo: P.StemMemo) -> dict[str, int]:
    """The reference: each token's stem counted one by one."""
    out: dict[str, int] = {}
    for w in P._words(text):
        k = memo[w]
        if k:
            out[k] = out.get(k, 0) + 1
    return out


def _same(text: str, language: str = "english") -> None:
    fast = P.StemMemo(Stems(language))
    assert P._stem_counts(text, fast) == _plain(text, P.StemMemo(Stems(language))), repr(text)
    assert P._stem_counts(text, fast) == _plain(text, fast), repr(text)     # a warm memo: the same


TEXTS = [
    "", " ", "\n", "a", "The flights were booked: syncing, synced and SYNCS.",
    "snake_case_words and under_scores_ don't join _x_", "digits 2024-05-01 and 15:30, 3.14, x86_64 v2",
    "Heading line\nThe paragraph below it", "## Trips\nLisbon flight on Friday",
    "tabs\tand\rcarriage\x0bcontrol\x0cchars\x1cseparators\x1fend", "MiXeD CaSe Words ABC abc Abc",
    "punctuation!!! (brackets) [links](Other.md) [[Wiki link]] `code` ~~struck~~ #tag @user",
    "café naïve résumé Zürich Ærø straße", "cafe\u0301 nai\u0308ve",      # NFC and NFD
    "東京タワーに行きました", "iPhone15を買った", "ひらがなだけ", "カタカナ", "漢字",
    "Ωμέγα ΣΊΣΥΦΟΣ Москва", "٣٤ ١٢٣ digits ²³", "emoji 🙂 and — dashes “quotes” …",
    "İstanbul KELVIN \u212a", "\x00nul\x00bytes\x00", "x" * 300,
    "ΟΔΟΣ.ΑΛΛΟΣ ΟΔΟΣ'Α ΟΔΟΣ:Α ΟΔΟΣ_Α ΟΔΟΣ Α",        # a final sigma is lowered by what follows a "." or "'"
    "café-naïve_x.y résumé", "mixed ascii words and one émigré among them", "naïve café x",
    "か\u3099 ka\u3099ki", "東京-タワー 東京_タワー", "Ⅻ ⅻ ① ½ x²",
]


def test_the_same_counts_on_every_kind_of_text() -> None:
    for text in TEXTS:
        _same(text)
        _same(text.upper())
        _same(f"## {text}\n{text}")
    _same("Die Flüge wurden gebucht", "german")


def test_the_ascii_path_is_the_regex_tokens() -> None:
    # every ASCII character: letters and digits make words, anything else (``_`` too) parts them
    text = "".join(chr(c) for c in range(128)) * 2 + " word_WORD9_9"
    memo = P.StemMemo(Stems("english"))
    assert text.isascii()
    _same(text)
    assert [w.decode() for w in text.encode().translate(P._ASCII_WORDS).split()] == P._TOKEN.findall(text.lower())
    P._stem_counts(text, memo)
    assert memo.ascii and all(memo.ascii[w] == memo[w.decode()] for w in memo.ascii)


def test_the_same_counts_on_the_test_data() -> None:
    # every passage of every file under tests/core/data, with its heading as the index counts it
    files = [p for p in sorted((Path(__file__).parents[1] / "data").rglob("*")) if p.is_file()]
    passages = 0
    for path in files:
        topic = P._analyse_topic(path.name, path.read_text(encoding="utf-8", errors="replace"), names=False)
        for p in topic.passages:
            _same(f"{p.heading}\n{p.text}" if p.heading else p.text)
            passages += 1
    assert passages > 500


ALPHABET = st.sampled_from(list("aAbzZ09_ -\n\t.,'#") + ["é", "e\u0301", "ß", "東", "京", "を", "タ", "Σ", "İ", "²"])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_the_same_counts_on_generated_text(text: str) -> None:
    _same(text)


@settings(max_examples=examples(100), deadline=None)
@given(st.text(max_size=80))
def test_the_same_counts_on_any_text(text: str) -> None:
    _same(text)
