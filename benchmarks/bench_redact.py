"""Redaction: what it catches, what it leaves alone, and how its time grows.

    python benchmarks/bench_redact.py [--quick] [--tiny]

1. Caught share on the provider corpus (tests/core/data/redaction/providers.py:
   one fake sample per format, 280+ formats; target ≥ 90 %, aim 100 %).  A
   sample counts as caught when no 12-character piece of it survives.
2. False redactions on real prose: the whole Debian Reference in 8 languages
   when the debian-reference-* packages are installed, the Russian, Polish,
   Dutch, Swedish, Danish, Czech, Turkish and Finnish man pages when
   manpages-ru, -pl, -nl, -sv, -da, -cs, -tr, -fi are (roff markup stripped), else
   the committed excerpts in tests/core/data/redaction/prose-multilingual/
   (target 0).  The Dutch pages hold apt_auth.conf(5), whose examples are a
   .netrc ("machine example.org login apt password debian") and a URL with
   a password: credentials by their form, redacted on purpose (10 of them),
   as a note holding the same lines would have them redacted.
3. 1 MB of ordinary notes against one `re.findall(r"\\S+")` pass.
4. Linear time: each adversarial input (tests/core/data/redaction/adversarial.py)
   and the dense technical notes at 1 MB and at 10 MB; the ratio
   t(10 MB) / (10 × t(1 MB)) is 1.0 for linear work (target ≤ 1.2).  Times are
   the least CPU time of a few runs, measured in this run (the machine may be
   shared; its other processes slow the wall clock, not our CPU time).
   --quick uses 100 KB and 1 MB instead; --tiny 10 KB and 100 KB (and 20 KB of each prose, 100 KB of notes).
5. The secret check of ordinary topics (issue 14: recall's index build calls
   contains_secret on every topic file): bench_recall.py's generated topics
   (2,000 files, 26.8 MB there; 400 here, --quick 100), contains_secret on
   each, against one `re.findall(r"\\S+")` pass over the same texts.

Every timed run starts with redaction's scan cache empty (it remembers the
last few texts it scanned: a repeat would measure a look-up).
"""
from __future__ import annotations

import gzip
import importlib.util
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from botmemory.core import redact as redact_module
from botmemory.core.redact import contains_secret, find_secrets, redact

DATA = Path(__file__).resolve().parent.parent / "tests" / "core" / "data" / "redaction"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TINY, sized  # noqa: E402 - the benchmarks' shared helpers


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def best_time(fn: Callable[[], object], n: int) -> float:
    """The least CPU time of *n* runs: other processes on a shared machine
    slow the wall clock, not this process's CPU time."""
    times = []
    for _ in range(n):
        redact_module._scan_cached.cache_clear()
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def caught(secret: str, redacted: str) -> bool:
    w = 12
    pieces = [secret[i : i + w] for i in range(max(1, len(secret) - w + 1))]
    return secret not in redacted and not any(
        len(p) == w and p in redacted for p in pieces
    )


_ROFF_DROP = re.compile(r"(?m)^\.(?:IX|\\\").*\n?")  # index entries, comments
_ROFF_LINE = re.compile(r"(?m)^\.[A-Za-z]{1,3}\b ?")
_ROFF_ESC = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)|\\s[-+]?\d|\\\(..|\\\*\(..|\\[&|^%]")


def unroff(text: str) -> str:
    """A man page's text: roff requests and font escapes stripped."""
    text = _ROFF_ESC.sub("", _ROFF_DROP.sub("", text))
    text = text.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ")
    return _ROFF_LINE.sub("", text)


def real_prose() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for p in sorted(Path("/usr/share/debian-reference").glob("debian-reference.*.txt.gz")):
        with gzip.open(p, "rt", encoding="utf-8") as f:
            out.append((p.name.split(".")[1], f.read()))
    for lang in ("ru", "pl", "nl", "sv", "da", "cs", "tr", "fi"):
        pages = sorted(Path(f"/usr/share/man/{lang}").glob("man[1-8]/*.gz"))
        if pages:
            texts = []
            for p in pages:
                with gzip.open(p, "rt", encoding="utf-8", errors="replace") as f:
                    texts.append(unroff(f.read()))
            out.append((f"man-{lang}", "\n".join(texts)))
    if not out:
        for p in sorted((DATA / "prose-multilingual").glob("*.txt")):
            out.append((p.stem.split(".")[-1] + " (excerpt)", p.read_text(encoding="utf-8")))
    if TINY:
        out = [(name, text[:20_000]) for name, text in out]
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    providers = load("bench_providers", DATA / "providers.py").PROVIDERS
    adversarial = load("bench_adversarial", DATA / "adversarial.py").MAKERS

    hits = sum(caught(s.secret, redact(s.context.format(s.secret))) for s in providers)
    share = hits / len(providers)
    print(f"provider corpus: {hits}/{len(providers)} formats caught = {share:.1%}  (target ≥ 90 %)")

    total = 0
    false = 0
    print(f"{'real prose':18} {'bytes':>11} {'false redactions':>17}")
    for name, text in real_prose():
        n = len(find_secrets(text))
        size = len(text.encode())
        total += size
        false += n
        print(f"{name:18} {size:11,} {n:17}")
    print(f"{'total':18} {total:11,} {false:17}  (target 0 on ≥ 2 MB in ≥ 8 languages)")

    hand = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted((DATA / "prose").glob("*.md"))
                       if not p.name.startswith("generated-"))
    notes = sized(1_000_000, 100_000)
    text = (hand * (notes // len(hand) + 1))[:notes]
    runs = sized(3, 1)
    ours = best_time(lambda: redact(text), runs)
    base = best_time(lambda: re.findall(r"\S+", text), runs)
    print(f"{notes / 1e6:g} MB ordinary notes: {ours * 1000:.1f} ms, one regex pass {base * 1000:.1f} ms, "
          f"ratio {ours / base:.2f}×")

    dense = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted((DATA / "prose").glob("*.md")))
    cases = dict(adversarial)
    cases["dense technical notes"] = lambda n: (dense * (n // len(dense) + 1))[:n]
    small, big = (10_000, 100_000) if TINY else (100_000, 1_000_000) if quick else (1_000_000, 10_000_000)
    label = f"t({big / 1e6:g} MB)/10·t({small / 1e6:g} MB)"
    print(f"{'linear time':42} {'small':>10} {'big':>10} {label:>22}")
    worst = 0.0
    for name, make in cases.items():
        s_text, b_text = make(small), make(big)
        t_small = best_time(lambda: redact(s_text), runs)
        t_big = best_time(lambda: redact(b_text), sized(2, 1))
        ratio = t_big / (10 * t_small)
        worst = max(worst, ratio)
        print(f"{name:42} {t_small * 1000:8.1f}ms {t_big * 1000:8.1f}ms {ratio:21.2f}×")
    print(f"{'worst ratio':42} {'':10} {'':10} {worst:21.2f}×  (target ≤ 1.2)")

    recall = load("bench_recall_topics", Path(__file__).resolve().parent / "bench_recall.py")
    rng = random.Random(7)
    vocab = recall.Vocabulary(rng)
    topics = [recall.topic(rng, vocab, i, int(13_400 * rng.uniform(0.5, 1.5)))[1]
              for i in range(5 if TINY else 100 if quick else 400)]
    size = sum(len(t.encode()) for t in topics)
    check = best_time(lambda: [contains_secret(t) for t in topics], runs)
    base = best_time(lambda: [re.findall(r"\S+", t) for t in topics], runs)
    held = sum(map(contains_secret, topics))
    print(f"contains_secret on {len(topics)} ordinary topics ({size / 1e6:.1f} MB, {held} hold a secret): "
          f"{check * 1000:.1f} ms = {check / size * 1e9:.1f} ns a byte; one regex pass {base * 1000:.1f} ms, "
          f"ratio {check / base:.2f}×")


if __name__ == "__main__":
    main()
