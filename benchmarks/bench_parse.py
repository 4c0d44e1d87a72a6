"""How fast recall's index reads topic files into passages and stem counts, against plain tokenizing.

Generates the recall benchmark's topics in memory (bench_recall.py: 2,000 files, ≈ 26 MB of
frontmatter, headings, dated entries, struck entries, paragraphs, lists and code blocks) and times,
as the least CPU time of a few runs measured in this run (the garbage collector off, as in a build;
the machine may be shared: its other processes slow the wall clock, not our CPU time):

- the floor: ``re.findall(r"[^\\W_]+", text.lower())`` over each file once;
- ``passages._analyse_topic`` over each file (the passages, opening and names);
- the stem counts of every passage, as ``index_build._parse`` asks for them (``_stem_counts`` of the
  heading and text, a fresh ``StemMemo`` each run), and the same counted the plain way (every passage's
  tokens by the regex reading, :func:`passages._words`) as the baseline of the ASCII fast path.

Issue 14's target for a whole cold build is 3 x the floor; splitting and counting are two of its parts.
``--accents`` puts an accented word in every tenth passage line, so that some passages take the
Unicode path.

    .venv/bin/python benchmarks/bench_parse.py [--files 2000] [--mb 26] [--runs 3] [--accents] [--tiny]
"""
from __future__ import annotations

import argparse
import gc
import random
import re
import sys
import time
from collections import _count_elements  # type: ignore[attr-defined]
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import tiny_defaults  # noqa: E402 - the benchmarks' shared helpers
from bench_recall import TAIL_WORDS, Vocabulary, topic  # noqa: E402

from botmemory.core.recall import passages as P
from botmemory.core.text.words import Stems  # noqa: E402


def cpu(fn: Callable[[], object], runs: int) -> float:
    """The least CPU time of *runs* runs of *fn*, with the cyclic garbage collector off (as during a
    build: see recall_index)."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(runs):
            t = time.process_time()
            fn()
            best = min(best, time.process_time() - t)
    finally:
        gc.enable()
    return best


def topics(files: int, target_bytes: int, accents: bool, seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocab = Vocabulary(rng, TAIL_WORDS)
    per_file = target_bytes // files
    out = []
    for i in range(files):
        name, text = topic(rng, vocab, i, int(per_file * rng.uniform(0.5, 1.5)))
        if accents:
            text = "\n".join(ln + " café Zürich" if k % 10 == 5 else ln for k, ln in enumerate(text.split("\n")))
        out.append((name, text))
    return out


def plain_counts(text: str, memo: P.StemMemo) -> dict[str, int]:
    """The baseline: the regex tokens of any text (what _stem_counts did for ASCII text too)."""
    out: dict[str, int] = {}
    _count_elements(out, map(memo.__getitem__, P._words(text)))
    out.pop("", None)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--mb", type=float, default=26.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--accents", action="store_true", help="an accented word in every tenth line")
    args = tiny_defaults(ap, files=5, mb=0.05, runs=1).parse_args()
    files = topics(args.files, int(args.mb * 1_000_000), args.accents)
    size = sum(len(t.encode("utf-8")) for _, t in files)
    word = re.compile(r"[^\W_]+")
    floor = cpu(lambda: [word.findall(t.lower()) for _, t in files], args.runs)
    parsed = [P._analyse_topic(n, t) for n, t in files]
    texts = [f"{p.heading}\n{p.text}" if p.heading else p.text for tp in parsed for p in tp.passages]
    analyse = cpu(lambda: [P._analyse_topic(n, t) for n, t in files], args.runs)

    def count(fn: Callable[[str, P.StemMemo], dict[str, int]]) -> Callable[[], object]:
        return lambda: [fn(t, memo) for memo in (P.StemMemo(Stems("english")),) for t in texts]

    counting = cpu(count(P._stem_counts), args.runs)
    plain = cpu(count(plain_counts), args.runs)
    ascii_share = sum(t.isascii() for t in texts) / len(texts)
    print(f"{len(files)} topics, {size / 1e6:.1f} MB, {len(texts)} passages ({ascii_share:.0%} ASCII)")
    print()
    print(f"{'what':<52} {'CPU s':>7} {'x floor':>8}")
    print("-" * 69)
    for what, t in (("floor: findall over each file once", floor),
                    ("_analyse_topic over each file", analyse),
                    ("stem counts of every passage (_stem_counts)", counting),
                    ("  the same, plain regex tokens (baseline)", plain),
                    ("splitting + counting", analyse + counting)):
        print(f"{what:<52} {t:>7.2f} {t / floor:>8.2f}")
    print()
    print(f"stem counting: {plain / counting:.2f} x as fast as the plain reading")
    return 0


if __name__ == "__main__":
    sys.exit(main())
