"""How fast is recall over a large memory, compared with grep?

Generates 2,000 topic files (≈ 20 MB of varied markdown: frontmatter, headings,
dated entries with their own lines, struck entries, hand-written paragraphs,
lists, code blocks) in a temporary home, then times

- ``recall`` — the cold first call (it builds the index) and warm calls, as a bot
  harness calls it before each turn (best and median of N);
- ``grep -rliw WORD`` over the same folder (a subprocess, best of N, page cache warm);

and prints the ratio against the target: recall ≤ 0.5 × grep.

    .venv/bin/python benchmarks/bench_recall.py [--files 2000] [--runs 15] [--keep]
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from botmemory.core.paths import Home
from botmemory.core.recall import RACY_NS, _synced, index_path, recall
from botmemory.core.store import Store

TODAY = date(2026, 10, 15)
BOT = "bench"
TARGET = 0.5

FUNCTION = """
the of and to a in for is on that with was it at as by be this from are have not or will but an we they
has had were been can if there when so our their about which after all would also more than into some
""".split()

COMMON = """
time year people way day thing life world school state family group country problem part place case
week company system program question work number night point home water room area money story fact
month lot study book job word business issue side kind head house service friend power hour game line
end member law car city community name team minute idea body information back parent face level office
door health person art history party result change morning reason research moment air teacher force
education plan college interest experience effect class control care field development role effort rate
leader light voice relationship town road value building action model season society tax director
position player record paper space ground form event matter center couple site project activity table
need court situation cost industry figure street image phone data picture practice piece land product
doctor wall worker news test movie support technology step computer type attention film tree source
organization window evidence unit
""".split()

VERBS = """
prefers likes wants booked moved asked sent paid finished started cancelled confirmed called reviewed
checked updated scheduled planned noted agreed decided shipped fixed deployed merged wrote read signed
ordered returned visited met emailed renewed approved rejected postponed
""".split()

DOMAIN = """
invoice invoices flight flights hotel booking meeting standup deadline budget contract client clients
server deploy release ticket bug feature roadmap quarter sprint review dentist appointment lunch dinner
vegetarian allergy birthday anniversary passport visa train taxi airport luggage conference keynote slide
slides draft report metrics dashboard database backup password account subscription renewal payment
receipt refund shipment package delivery warehouse supplier vendor proposal estimate quote timeline
milestone retrospective onboarding interview candidate salary payroll insurance mortgage lease garden
tomatoes recipe groceries gym running marathon yoga bicycle repair plumber electrician
""".split()

PLACES = """
Porto Madrid Berlin Munich Paris Lyon Rome Milan Vienna Prague Warsaw Oslo Stockholm Helsinki Dublin
London Edinburgh Amsterdam Brussels Zurich Geneva Athens Istanbul Cairo Nairobi Lagos Mumbai Pune Delhi
Bangalore Chennai Singapore Tokyo Osaka Seoul Sydney Auckland Toronto Vancouver Chicago Boston Denver
Austin Seattle Portland Lima Bogota Santiago
""".split()

PEOPLE = """
Milind Ana Jonas Priya Kenji Fatima Lars Chloe Mateo Aisha Tomasz Ingrid Ravi Sofia Noah Mei Omar Lena
Hugo Zara Pedro Yuki Elena Samir Nora Felix Amara Diego Hana Ivan
""".split()

SOURCES = ['from chat "Trips"', 'from chat "Invoices"', 'from chat "Follow-up"', 'from room "Standup"',
           "from cli", "from panel", 'from chat "Garden"', 'from chat "Hiring"']

RARE_WORD = "zanzibar"      # in 3 files
MID_WORD = "lisbon"          # ranked ~400th word of the vocabulary: a few hundred passages
COMMON_WORD = "time"         # the most frequent content word: in nearly every file
MID_RANK = 400
TAIL_WORDS = 20_000


class Vocabulary:
    """A Zipf-distributed vocabulary (frequency ∝ 1/rank), like real text: function words first,
    then everyday and domain words, then a long tail of rarer words (names, jargon, typos)."""

    def __init__(self, rng: random.Random, tail_words: int = TAIL_WORDS) -> None:
        syllables = [c + v for c in "bcdfghjklmnprstvz" for v in "aeiou"] + ["an", "er", "in", "on", "ul"]
        tail: set[str] = set()
        while len(tail) < tail_words:
            tail.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
        tail -= {RARE_WORD, MID_WORD}
        middle = VERBS + DOMAIN + PLACES + PEOPLE
        rng.shuffle(middle)
        rest = sorted(tail)
        rng.shuffle(rest)
        content = [COMMON_WORD] + [w for w in COMMON if w != COMMON_WORD] + middle + rest
        pos = MID_RANK - len(FUNCTION)
        content.insert(pos, MID_WORD.title())
        self.words = FUNCTION + content
        self.content = content
        total = 0.0
        self.cum: list[float] = []
        for r in range(len(self.words)):
            total += 1.0 / (r + 2.7)
            self.cum.append(total)

    def sample(self, rng: random.Random, n: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum, k=n)


def sentence(rng: random.Random, vocab: Vocabulary, focus: list[str], n: int | None = None) -> str:
    n = n or rng.randint(6, 18)
    words = vocab.sample(rng, n)
    for i in range(n):
        if rng.random() < 0.12:
            words[i] = rng.choice(focus)
    s = " ".join(words)
    if rng.random() < 0.15:
        s += f" {rng.randint(1, 2030)}"
    return s[0].upper() + s[1:] + rng.choice([".", ".", ".", "!", "?", ""])


def entry(rng: random.Random, vocab: Vocabulary, focus: list[str], day: date) -> str:
    line = (f"- {day.isoformat()} · {rng.choice(SOURCES)}{' (noticed)' if rng.random() < 0.1 else ''} · "
            f"{sentence(rng, vocab, focus)}")
    if rng.random() < 0.1:
        line += f" · until {(day + timedelta(days=rng.randint(-30, 400))).isoformat()}"
    if rng.random() < 0.2:
        line += "".join(f"\n  {sentence(rng, vocab, focus)}" for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.08:
        later = day + timedelta(days=rng.randint(1, 90))
        line = f"- ~~{line[2:].splitlines()[0]}~~ · superseded {later.isoformat()}"
    return line


def topic(rng: random.Random, vocab: Vocabulary, i: int, size: int) -> tuple[str, str]:
    focus = rng.sample(vocab.content[:3000], 8)
    subject = focus[0].lower()
    name = f"{subject}-{i:04d}.md"
    parts: list[str] = []
    if rng.random() < 0.7:
        aliases = ", ".join(focus[1:1 + rng.randint(0, 3)])
        parts.append(f"---\ntitle: {subject.title()} notes {i}\ndescription: {sentence(rng, vocab, focus, 8)}\n"
                     f"aliases: [{aliases}]\n---")
    parts.append(f"# {subject.title()} {i}")
    total = sum(len(p) for p in parts)
    day = TODAY - timedelta(days=rng.randint(30, 900))
    while total < size:
        r = rng.random()
        if r < 0.45:
            block = "\n".join(entry(rng, vocab, focus, day + timedelta(days=k)) for k in range(rng.randint(1, 6)))
            day += timedelta(days=rng.randint(0, 5))
        elif r < 0.75:
            block = " ".join(sentence(rng, vocab, focus) for _ in range(rng.randint(1, 4)))
            if rng.random() < 0.5:
                block = "\n".join(block[j:j + 80] for j in range(0, len(block), 80))
        elif r < 0.85:
            block = "\n".join(f"- {sentence(rng, vocab, focus, rng.randint(3, 9))}"
                              for _ in range(rng.randint(2, 6)))
        elif r < 0.93:
            block = f"## {sentence(rng, vocab, focus, 3).rstrip('.!?')}"
        else:
            block = "```\n" + "\n".join(f"{rng.choice(focus).lower()}: {rng.randint(0, 9999)}"
                                        for _ in range(rng.randint(2, 6))) + "\n```"
        parts.append(block)
        total += len(block) + 2
    return name, "\n\n".join(parts) + "\n"


def generate(home: Home, files: int, target_bytes: int, tail_words: int = TAIL_WORDS, seed: int = 7) -> int:
    rng = random.Random(seed)
    vocab = Vocabulary(rng, tail_words)
    Store(home, today=TODAY).init(BOT)
    folder = home.workspace(BOT) / "memory"
    per_file = target_bytes // files
    total = 0
    rare = set(rng.sample(range(files), 3))
    for i in range(files):
        name, text = topic(rng, vocab, i, int(per_file * rng.uniform(0.5, 1.5)))
        if i in rare:
            text += (f"\n- 2026-09-{10 + i % 9:02d} · from chat \"Trips\" · The {RARE_WORD.title()} ferry "
                     "leaves at 07:40 from pier 3\n")
        (folder / name).write_text(text, encoding="utf-8")
        total += len(text.encode("utf-8"))
    return total


def best_of(fn, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--mb", type=float, default=20.0)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--tail", type=int, default=TAIL_WORDS,
                    help="rare words in the vocabulary (0: a small, dense vocabulary where every word is common)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary home")
    args = ap.parse_args()
    if shutil.which("grep") is None:
        print("grep not found", file=sys.stderr)
        return 1

    tmp = Path(tempfile.mkdtemp(prefix="botmemory-bench-"))
    started = time.perf_counter()
    try:
        home = Home(tmp / "home")
        t = time.perf_counter()
        size = generate(home, args.files, int(args.mb * 1_000_000), args.tail)
        folder = home.workspace(BOT) / "memory"
        print(f"generated {args.files} topic files, {size / 1e6:.1f} MB, in {time.perf_counter() - t:.1f} s")

        cases = [
            ("rare word", RARE_WORD, f"What do you know about {RARE_WORD.title()}?"),
            ("mid word", MID_WORD, f"What about {MID_WORD.title()} again?"),
            ("common word", COMMON_WORD, f"Tell me about the {COMMON_WORD} please"),
            ("message (3 words)", MID_WORD, "When does my Lisbon flight leave?"),
            ("message (6 words)", MID_WORD,
             "Can you check the Lisbon hotel booking, the flight and the invoice for Milind?"),
        ]

        time.sleep(RACY_NS / 1e9 + 0.1)   # a file changed moments ago is re-read on every call until it settles
        t = time.perf_counter()
        first = recall(home, BOT, cases[0][2], TODAY)
        cold = time.perf_counter() - t
        idx = index_path(home, BOT)
        idx_size = sum(os.path.getsize(p) for p in idx.parent.glob(idx.name + "*"))
        print(f"cold first recall (builds the index): {cold:.2f} s; index {idx_size / 1e6:.1f} MB "
              f"(mode {oct(idx.stat().st_mode & 0o777)}); {len(first.notes)} note(s)")

        print("recall: warm index, best and median of the runs; 'no memo' forgets what this process knew")
        print("(as a fresh process would: the index's file table is read and compared on every call)")
        print()
        header = f"{'case':<18} {'grep word':<9} {'files':>5} {'notes':>5} {'grep best':>10} " \
                 f"{'recall best':>12} {'recall med':>11} {'no memo':>8} {'ratio':>6}  target"
        print(header)
        print("-" * len(header))
        worst = 0.0
        for label, word, message in cases:
            cmd = ["grep", "-rliw", word, str(folder)]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            nfiles = len(proc.stdout.splitlines())
            g_best, _ = best_of(lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL), args.runs)
            res = recall(home, BOT, message, TODAY)
            r_best, r_med = best_of(lambda: recall(home, BOT, message, TODAY), args.runs)

            def fresh() -> None:
                _synced.clear()
                recall(home, BOT, message, TODAY)
            f_best, _ = best_of(fresh, args.runs)
            ratio = max(r_best, f_best) / g_best
            worst = max(worst, ratio)
            print(f"{label:<18} {word:<9} {nfiles:>5} {len(res.notes):>5} {g_best * 1000:>8.1f}ms "
                  f"{r_best * 1000:>10.1f}ms {r_med * 1000:>9.1f}ms {f_best * 1000:>6.1f}ms {ratio:>5.2f}x  "
                  f"{'≤ 0.5x ok' if ratio <= TARGET else '≤ 0.5x MISSED'}")
        print("ratio: the slower of 'recall best' and 'no memo', over 'grep best'")
        print()
        # one edited file: the next call re-reads it alone
        some = sorted(folder.iterdir())[5]
        some.write_text(some.read_text(encoding="utf-8") + "\n- 2026-10-15 · from cli · one more line\n",
                        encoding="utf-8")
        t = time.perf_counter()
        recall(home, BOT, cases[0][2], TODAY)
        one_changed = time.perf_counter() - t
        print(f"recall after one file changed: {one_changed * 1000:.1f} ms")

        print(f"worst ratio {worst:.2f}x (target ≤ {TARGET}x); total run {time.perf_counter() - started:.0f} s")
        return 0 if worst <= TARGET else 1
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
