"""Recall's passage splitter (passages._analyse_topic reads the body line by line, issue 14) gives exactly
the passages, opening and names of the reading through :func:`entries.scan`'s blocks it replaced: on
tests/core/data, on the recall benchmark's generated topics and on generated edge cases (entries with
own lines and fences, struck ones, headings, blank and space-only lines, frontmatter)."""
from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.recall import passages as P
from botmemory.core.text import frontmatter
from botmemory.core.text.entries import BlockKind, scan
from tests.conftest import examples

DATA = Path(__file__).parents[1] / "data"
BENCH = Path(__file__).parents[3] / "benchmarks" / "bench_recall.py"


def _reference(rel: str, text: str, names: bool = True) -> P._Topic:
    """The scan-based reading, as it was before the line-by-line one (kept here as the reference)."""
    body = P._topic_body(text)
    passages: list[P._Passage] = []
    para: list[str] = []
    opening: list[str] = []
    heading: list[str] = []

    def flush() -> None:
        if para:
            passages.append(P._Passage(None, None, "\n".join(para).strip("\n"), "\n".join(heading)))
            para.clear()
            heading.clear()

    for block in scan(body):
        if isinstance(block, str):
            line = block.rstrip()
            if not line:
                flush()
                continue
            if len(opening) < P.OPENING_LINES:
                opening.append(line)
            if P._HEADING.match(line):
                flush()
                heading[:] = [line]
            else:
                para.append(line)
            continue
        if block.kind is BlockKind.STRUCK:
            flush()
            continue
        heading.clear()
        if len(opening) < P.OPENING_LINES:
            opening.extend(ln.rstrip() for ln in block.lines if ln.strip())
        flush()
        entry_text = "\n".join(ln.rstrip() for ln in block.body().strip().split("\n"))
        if entry_text:
            passages.append(P._Passage(block.date, block.until, entry_text))
    flush()
    opening = opening[:P.OPENING_LINES]
    useful = any(not P._HEADING.match(ln) for ln in opening)
    words: set[str] = set()
    if names:       # the frontmatter read from the whole text
        fm = frontmatter.read_fast(text)
        name_text = [rel.rsplit("/", 1)[-1][:-3]]
        if fm is not None:
            name_text.extend(t for t in (fm.title,) if t)
            name_text.extend(a.rsplit("/", 1)[-1] for a in fm.aliases if a)
        for t in name_text:
            words.update(P._index_words(t))
    return P._Topic(passages, words, "\n".join(opening) if useful else None)


def _same(text: str) -> None:
    assert P._analyse_topic("t.md", text) == _reference("t.md", text), text


def test_same_on_the_test_data() -> None:
    files = [p for p in sorted(DATA.rglob("*")) if p.is_file()]
    assert len(files) > 30
    for p in files:
        _same(p.read_text(encoding="utf-8", errors="replace"))


def test_same_on_the_benchmark_topics() -> None:
    spec = importlib.util.spec_from_file_location("botmemory_test_bench_recall", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    rng = random.Random(5)
    vocab = bench.Vocabulary(rng, 3000)
    entries = 0
    for i in range(150):
        _name, text = bench.topic(rng, vocab, i, 6000)
        _same(text)
        entries += len(P._analyse_topic("t.md", text).passages)
    assert entries > 3000


LINES = [
    "", " ", "\t", "   ", "text line", "  indented", "\tindented", "# Heading", "### Deep", "   # three-space",
    "    # four-space", "#nospace", "- a list item", "* star item", "-  two spaces",
    "- 2026-01-02 · from chat \"Trips\" · Lisbon flight", "- 2026-01-02 · plain fact",
    "* 2026-13-40 · a bad date", "- 2026-01-02 · ends · until 2026-02-01", "- 2026-01-02 · x · moved 2026-03-01 ",
    "- 2026-01-02 · x · until 2026-02-01 · moved 2026-03-01", "- 2026-01-02 ·  ", "- 2026-01-02 · ",
    "- ~~old fact~~ · superseded 2026-02-02", "- ~~- 2026-01-01 · from x · inner~~ · superseded 2026-02-02",
    "* ~~struck~~ · superseded 2026-02-02 · moved 2026-03-03", "- ~~bad~~ · superseded 2026-99-02",
    "```", "~~~", "  ```", "```python", "code: 1", "---", "title: T", "aliases: [a, b]",
    "- 2026-01-02 · from learned by bob (noticed) · note", "trailing spaces   ", "## Heading ##",
    # not ASCII; fences after white space other than a space or a tab (the fence check's first character)
    "東京タワーに行きました", '- 2026-01-02 · from chat "旅行" · 京都のお寺', "  café naïve", "# Überschrift",
    "\u00a0```", "\r```", "\x0b~~~", "\u3000~~~", "`code`", "~tilde", "- ٢٠٢٦-٠١-٠٢ · digits", "line\r",
]


FRONTMATTERS = [
    "", "---\ntitle: A page\n---\n", "---\ntitle: Trips abroad\naliases: [Old/Lisbon flights, ferry]\n---\n",
    "---\r\ntitle: Windows lines\r\n---\r\n", "---\ntitle: Dots\n...\n", "---\ntitle: never closed\n",
    "---\ntitle: two\n---\n---\n", "---\n---\n", "---\ntitle: 東京の旅\naliases: café\n---", "--- \ntitle: no\n---\n",
    "---\ntitle: [not, simple]\n---\n", "---\ntitle: A\ntitle: twice\n---\n",
]


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=40), st.sampled_from(FRONTMATTERS), st.booleans())
def test_same_on_generated_edge_cases(lines: list[str], front: str, newline: bool) -> None:
    text = front + "\n".join(lines) + ("\n" if newline else "")
    _same(text)


def test_names_from_the_frontmatter() -> None:
    for front in FRONTMATTERS:
        for body in ("", "\n", "text", "---\ntitle: in the body\n---\n"):
            _same(front + body)
    names = {"embed", "files", "trips", "abroad", "lisbon", "flights", "ferry"}    # an alias's folders left out
    assert P._analyse_topic("Embed files.md", FRONTMATTERS[2]).names == names
