"""The provider-word look-up through a long text's distinct runs (issue 14: recall's index build checks every
topic for secrets) finds exactly what searching the whole text for each word finds, so redaction is unchanged."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core import redact as R

DATA = Path(__file__).parent / "data"


def _texts() -> list[str]:
    out = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(DATA.rglob("*"))
           if p.is_file() and p.suffix in (".md", ".py", ".txt", ".json", ".jsonl", "")]
    spec = importlib.util.spec_from_file_location("botmemory_test_runs_providers", DATA / "redaction" / "providers.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    out += [s.context.format(s.secret) for s in mod.PROVIDERS]
    return out


TEXTS = _texts()


def _naive(low: str) -> tuple[str, ...]:
    return tuple(w for w in R._PROVIDER_WORDS if w in low)


def test_the_corpora_are_there() -> None:
    assert len(TEXTS) > 250 and sum(map(len, TEXTS)) > 100_000


@pytest.mark.parametrize("runs_from", [0, 4096])
def test_the_words_found_through_runs_are_those_a_search_finds(monkeypatch: pytest.MonkeyPatch, runs_from: int) -> None:
    monkeypatch.setattr(R, "_RUNS_FROM", runs_from)
    R._RUNS_CLEAN.clear()
    R._RUNS_WITH.clear()
    for text in TEXTS + ["\n".join(TEXTS)]:
        low = R._lower(R._scan_copy(text))
        assert R._provider_words_in(low) == _naive(low)


def test_redaction_is_the_same_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    R._scan_cached.cache_clear()
    slow = [R._scan_text(t) for t in TEXTS]
    monkeypatch.setattr(R, "_RUNS_FROM", 0)
    assert [R._scan_text(t) for t in TEXTS] == slow
    assert any(slow)


_PIECES = st.sampled_from([*R._PROVIDER_WORDS, "_", "-", " ", "\n", "X", "é", "İ", "µ", "語", "0", "key=",
                           "a1B2c3D4e5F6g7H8i9J0", "Secret"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=40))
def test_any_text_gives_the_same_words(pieces: list[str]) -> None:
    low = R._lower(R._scan_copy("".join(pieces)))
    saved = R._RUNS_FROM
    R._RUNS_FROM = 0
    try:
        assert R._provider_words_in(low) == _naive(low)
    finally:
        R._RUNS_FROM = saved
