"""How fast is recall over a large memory, as whole processes, compared with reading the files and grep?

Generates 2,000 topic files (≈ 26 MB of varied markdown: frontmatter, headings,
dated entries with their own lines, struck entries, hand-written paragraphs,
lists, code blocks), MEMORY.md, an archive and 365 daily logs in a temporary
home, then times whole processes (byte-code compiled, page cache warm) and
prints each against its target, measured in the same run:

- reading + tokenizing every topic once in Python (the floor a build cannot beat);
- the cold build (``refresh_index`` in a fresh process; on Linux one forked worker a core parses the
  files while it writes, so the figure depends on the cores being free; best of 3): <= 3x that, <= 4 s;
- the first ``botmemory recall`` with no index: it starts the build in the
  background and reads what the index does not cover yet, so that its answer is
  the warm one (issue 22; the time is printed, with no target: a hook's first
  prompt answers within its deadline, bench_claude_code.py's row, <= 300 ms);
- a build right after the files were written (all "racy"), then the next call:
  never a second full build;
- warm ``botmemory recall``: (recall - python start) <= 2 x ``grep -rliw``;
- warm ``botmemory search`` over MEMORY.md, topics, archive and logs:
  (search - python start) <= 3 x grep;
- the index's size: <= 1.5 x the topics' size.

    .venv/bin/python benchmarks/bench_recall.py [--files 2000] [--mb 26] [--runs 7] [--keep] [--tiny]
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import botmemory.core
from botmemory.core.disk.paths import Home
from botmemory.core.recall.query import index_path, refresh_index
from botmemory.core.store.writer import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import sized, tiny_defaults, verdict  # noqa: E402 - the benchmarks' shared helpers

TODAY = date(2026, 10, 15)
BOT = "bench"

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


def best_of(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t)
    return min(times)


def once(cmd: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return time.perf_counter() - t, p.stdout


READ_ONCE = """
import os, re, sys
w = re.compile(r"[^\\W_]+")
n = 0
d = sys.argv[1]
for name in os.listdir(d):
    if not name.endswith(".md") or name == "archive.md":
        continue
    with open(os.path.join(d, name), encoding="utf-8") as f:
        n += len(w.findall(f.read().lower()))
print(n)
"""


def add_memory_and_logs(home: Home, rng: random.Random) -> None:
    ws = home.workspace(BOT)
    vocab = Vocabulary(rng, 2000)
    (ws / "MEMORY.md").write_text("\n".join(entry(rng, vocab, ["Lisbon"], TODAY - timedelta(days=i))
                                            for i in range(150)) + "\n", encoding="utf-8")
    (ws / "memory" / "archive.md").write_text("\n".join(entry(rng, vocab, ["Lisbon"], TODAY - timedelta(days=i))
                                                       for i in range(sized(2000, 20))) + "\n", encoding="utf-8")
    logs = ws / "memory" / "log"
    logs.mkdir(exist_ok=True)
    for i in range(sized(365, 3)):
        day = TODAY - timedelta(days=i)
        (logs / f"{day.isoformat()}.md").write_text("\n".join(
            f"- {day.isoformat()} · from chat \"Trips\" · {sentence(rng, vocab, ['Lisbon'])}" for _ in range(12))
            + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--mb", type=float, default=26.0)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--tail", type=int, default=TAIL_WORDS,
                    help="rare words in the vocabulary (0: a small, dense vocabulary where every word is common)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary home")
    args = tiny_defaults(ap, files=10, mb=0.05, runs=1, tail=500).parse_args()
    if shutil.which("grep") is None:
        print("grep not found", file=sys.stderr)
        return 1
    bm = shutil.which("botmemory", path=os.path.dirname(sys.executable)) or "botmemory"
    py = sys.executable
    subprocess.run([py, "-m", "compileall", "-q", os.path.dirname(botmemory.core.__file__)],
                   stdout=subprocess.DEVNULL, check=False)
    tmp = Path(tempfile.mkdtemp(prefix="botmemory-bench-"))
    rows: list[tuple[str, str, str, bool]] = []

    def row(what: str, measured: str, target: str, ok: bool) -> None:
        rows.append((what, measured, target, ok))
        print(f"{what:<46} {measured:<34} {target:<26} {'ok' if ok else 'MISSED'}", flush=True)

    try:
        home = Home(tmp / "home")
        root = str(home.root)
        size = generate(home, args.files, int(args.mb * 1_000_000), args.tail)
        folder = home.workspace(BOT) / "memory"
        rec = [bm, "--root", root, "--today", TODAY.isoformat(), "recall", BOT]
        # refresh_index waits for a builder another process runs (the background one recall starts)
        build = [py, "-c", "import sys; from pathlib import Path; from botmemory.core.disk.paths import Home;"
                 "from botmemory.core.recall.query import refresh_index; refresh_index(Home(Path(sys.argv[1])), sys.argv[2])",
                 root, BOT]
        idx = index_path(home, BOT)

        def drop_index() -> None:
            for p in idx.parent.glob(idx.name + "*"):
                p.unlink()

        # racy: the build starts right after the files were written
        t_racy_build, _ = once(build)
        t_second, _ = once(build)
        add_memory_and_logs(home, random.Random(3))
        print(f"generated {args.files} topic files, {size / 1e6:.1f} MB (+ MEMORY.md, archive, {sized(365, 3)} daily logs)")
        print()
        print(f"{'what':<46} {'measured':<34} {'target':<26}")
        print("-" * 112)
        py_start = best_of([py, "-c", "pass"], args.runs)
        subprocess.run([py, "-c", READ_ONCE, str(folder)], check=True, stdout=subprocess.DEVNULL)
        t_read = best_of([py, "-c", READ_ONCE, str(folder)], sized(3, 1))
        row("python start / read + tokenize topics once", f"{py_start * 1000:.0f} ms / {t_read:.2f} s", "(baselines)", True)
        row("build right after writing, then again", f"{t_racy_build:.2f} s, then {t_second:.2f} s",
            "second <= 0.25 x first", t_second <= 0.25 * t_racy_build)
        drop_index()
        time.sleep(0.2)
        first_message = f"What do you know about {RARE_WORD.title()}?"
        t_first, out = once(rec + [first_message])
        time.sleep(1.0)                    # the background builder takes its lock
        refresh_index(home, BOT)           # and this waits for it to finish
        warm_out = once(rec + [first_message])[1]
        row("first recall, no index (reads what it lacks)", f"{t_first * 1000:.0f} ms, "
            f"{'the warm answer' if out == warm_out else 'NOT the warm answer'}", "= the warm answer",
            out == warm_out and bool(out))
        t_cold = float("inf")
        for _run in range(sized(3, 1)):       # like the baseline, the best of three (each from no index at all)
            drop_index()
            t_cold = min(t_cold, once(build)[0])
        row("cold build (whole process)", f"{t_cold:.2f} s = {t_cold / t_read:.1f} x read+tokenize",
            "<= 3x and <= 4 s", t_cold <= 3 * t_read and t_cold <= 4.0)
        idx_size = sum(p.stat().st_size for p in idx.parent.glob(idx.name + "*"))
        topics = sum(p.stat().st_size for p in folder.glob("*.md") if p.name != "archive.md")
        row("index size", f"{idx_size / 1e6:.1f} MB = {idx_size / topics:.2f} x topics", "<= 1.5 x",
            idx_size <= 1.5 * topics)
        cases = [
            ("recall: rare word", RARE_WORD, f"What do you know about {RARE_WORD.title()}?"),
            ("recall: mid word", MID_WORD, f"What about {MID_WORD.title()} again?"),
            ("recall: common word", COMMON_WORD, f"Tell me about the {COMMON_WORD} please"),
            ("recall: 6-word message", MID_WORD,
             "Can you check the Lisbon hotel booking, the flight and the invoice for Milind?"),
        ]
        for label, word, message in cases:
            once(rec + [message])
            g = best_of(["grep", "-rliw", word, str(folder)], args.runs)
            r = best_of(rec + [message], args.runs)
            ratio = (r - py_start) / g
            row(label, f"{r * 1000:.0f} ms; grep {g * 1000:.0f} ms; {ratio:.1f} x", "(recall - python) <= 2 x grep",
                ratio <= 2.0)
        ws = str(home.workspace(BOT))
        for label, word in (("search: one word", MID_WORD), ("search: rare word", RARE_WORD)):
            g = best_of(["grep", "-rliw", word, ws], args.runs)
            s = best_of([bm, "--root", root, "--today", TODAY.isoformat(), "search", BOT, word], args.runs)
            ratio = (s - py_start) / g
            row(label, f"{s * 1000:.0f} ms; grep {g * 1000:.0f} ms; {ratio:.1f} x", "(search - python) <= 3 x grep",
                ratio <= 3.0)
        some = sorted(folder.glob("*.md"))[5]
        some.write_text(some.read_text(encoding="utf-8") + "\n- 2026-10-15 · from cli · one more line\n",
                        encoding="utf-8")
        t_one, _ = once(rec + [cases[0][2]])
        row("recall after one file changed", f"{t_one * 1000:.0f} ms", "(no target)", True)
        missed = [r[0] for r in rows if not r[3]]
        print()
        print(f"missed: {', '.join(missed) if missed else 'none'}")
        return verdict(not missed)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
