"""Redaction speed, as ratios measured in the same run.

    python benchmarks/bench_redact.py

1. 1 MB of ordinary notes against one `re.findall(r"\\S+")` pass over the same
   text (target ≤ 3×: redaction runs on every write).
2. Linearity: dense technical notes and pathological inputs (long runs of what
   the patterns look for). Each is timed at 1 MB and at 100 KB; the ratio
   t(1 MB) / (10 × t(100 KB)) is 1.0 for linear work (target ≤ 2×).
"""
from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from botmemory.core.redact import redact

PROSE = Path(__file__).resolve().parent.parent / "tests" / "core" / "data" / "redaction" / "prose"


def median_time(fn: Callable[[], object], n: int = 5) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def sized(corpus: str) -> Callable[[int], str]:
    return lambda size: (corpus * (size // len(corpus) + 1))[:size]


def main() -> None:
    hand = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(PROSE.glob("*.md"))
                       if not p.name.startswith("generated-"))
    dense = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(PROSE.glob("*.md")))
    text = sized(hand)(1_000_000)
    ours = median_time(lambda: redact(text))
    base = median_time(lambda: re.findall(r"\S+", text))
    print(f"{'measure':52} {'ours':>9} {'baseline':>10} {'ratio':>7}  target")
    print(f"{'1 MB ordinary notes vs one regex pass':52} {ours * 1000:7.1f}ms {base * 1000:8.1f}ms {ours / base:6.2f}×  ≤ 3×")
    cases: dict[str, Callable[[int], str]] = {
        "dense technical notes": sized(dense),
        "'password: ' repeated": sized("password: "),
        "'-----BEGIN RSA PRIVATE KEY-----' lines": sized("-----BEGIN RSA PRIVATE KEY-----\n"),
        "'eyJ' repeated": sized("eyJ"),
        "one URL with a huge password": lambda n: "https://u:" + "p" * (n - 12) + " x",
        "random 32-char tokens, one after another": sized("Xk9mP2qL7vRt3NwZ8yB4cD6fH1jK5sA0 "),
    }
    for name, make in cases.items():
        big, small = make(1_000_000), make(100_000)
        t_big = median_time(lambda: redact(big), 3)
        t_small = median_time(lambda: redact(small), 5)
        print(f"{'linearity: ' + name:52} {t_big * 1000:7.1f}ms {t_small * 10000:8.1f}ms {t_big / (10 * t_small):6.2f}×  ≤ 2×")


if __name__ == "__main__":
    main()
