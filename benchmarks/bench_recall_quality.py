"""Does recall find the right note? hit@1 and hit@4 over real documentation, before and after.

Each corpus in ``benchmarks/recall_quality/*.json`` is real documentation loaded
as topic files (one page a topic: the page's name as the file name, its one-line
summary as the title, its paragraphs as passages) plus questions a person would
ask, each with the pages that answer it. For every question the bench runs
``recall`` and counts a hit when a recalled note comes from an answering page:
hit@1 for the first note, hit@4 for any of the four.

"before" is the ranking recall had before issue 16, re-implemented here over
the same passages: the number of distinct content words a passage shares with
the message (one plural ``s`` folded, CJK runs as one word), then the newer
date, then the later passage; topics whose name matches fill up with their
opening. "after" is ``botmemory.core.recall.query.recall`` itself.

The corpora are Debian's manual pages (English: the everyday tools' packages;
Japanese: ``apt-get install manpages-ja``), converted with ``man``. A corpus
whose pages are not installed is skipped with a note.

    .venv/bin/python benchmarks/bench_recall_quality.py [--corpus man-en] [--show-misses] [--tiny]

With ``--tiny``, each corpus is its first 3 questions over their pages and 5 more (converted again each time,
in a folder of their own: the cache of the whole corpora is left alone).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from datetime import date
from pathlib import Path

from botmemory.core.disk.paths import Home
from botmemory.core.recall import passages as P
from botmemory.core.recall import query as R
from botmemory.core.store.writer import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TINY  # noqa: E402 - the benchmarks' shared helpers

HERE = Path(__file__).resolve().parent / "recall_quality"
CACHE = Path(tempfile.gettempdir()) / "botmemory-recall-quality"
TODAY = date(2026, 10, 15)
BOT = "docs"


# ----- corpora


def _pages_of_packages(packages: list[str], sections: list[str]) -> list[Path]:
    out: list[Path] = []
    for pkg in packages:
        proc = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True)
        for line in proc.stdout.splitlines():
            m = re.fullmatch(r"/usr/share/man/man(\d)/[^/]+\.(\d)\.gz", line)
            if m and m.group(1) in sections and os.path.isfile(line):
                out.append(Path(line))
    return sorted(set(out))


def _pages_of_directory(directory: str, sections: list[str]) -> list[Path]:
    out: list[Path] = []
    for s in sections:
        d = Path(directory) / f"man{s}"
        if d.is_dir():
            out.extend(p for p in sorted(d.iterdir()) if p.name.endswith(".gz") and not p.is_symlink())
    return out


def _page_name(path: Path) -> str:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    name = re.sub(r"\.\d\w*$", "", name)
    return re.sub(r"[^A-Za-z0-9 .-]", "-", name).lstrip(".") or "page"


def _man_text(path: Path) -> str:
    env = dict(os.environ, MANWIDTH="10000", LANG="C.UTF-8", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="0")
    proc = subprocess.run(["man", "-E", "UTF-8", "-l", str(path)], capture_output=True, env=env)
    col = subprocess.run(["col", "-bx"], input=proc.stdout, capture_output=True)
    return col.stdout.decode("utf-8", errors="replace")


def _topic(name: str, text: str) -> str:
    """A manual page as a topic: title from its NAME line, headings, one paragraph a passage."""
    lines = text.splitlines()[1:-1]        # the page's header and footer lines
    title = ""
    body: list[str] = []
    section = ""
    for ln in lines:
        if not ln.strip():
            if body and body[-1] != "":
                body.append("")
            continue
        if not ln.startswith(" "):
            section = ln.strip()
            body += ["", f"## {section}", ""]
            continue
        t = re.sub(r"\s+", " ", ln.strip())
        if not title and section and body and body[-1] == "" and len(body) > 2 and body[-2].startswith("## "):
            title = t
        body.append(t)
    title = title.replace('"', "'")
    text = "\n".join(body).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return f'---\ntitle: "{title}"\n---\n# {name}\n\n{text}\n'


def load_corpus(spec: dict[str, object], key: str) -> Path | None:
    """The corpus's topic files (converted once, then cached)."""
    folder = CACHE / key
    done = folder / ".done"
    if done.exists():
        return folder
    sections = [str(s) for s in spec.get("sections", ["1"])]  # type: ignore[union-attr]
    if "packages" in spec:
        pages = _pages_of_packages(list(spec["packages"]), sections)  # type: ignore[call-overload]
    else:
        pages = _pages_of_directory(str(spec["directory"]), sections)
    if not pages or shutil.which("man") is None:
        return None
    answers = {a for q in spec["questions"] for a in q["a"]}  # type: ignore[union-attr, index]
    wanted = [p for p in pages if _page_name(p) in answers]
    rest = [p for p in pages if _page_name(p) not in answers]
    pages = wanted + rest[:max(int(spec.get("max_pages", 250)) - len(wanted), 0)]  # type: ignore[call-overload]
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    seen: set[str] = set()
    for p in pages:
        name = _page_name(p)
        if name.lower() in seen:
            continue
        seen.add(name.lower())
        text = _man_text(p)
        if len(text.strip()) < 50:
            continue
        (folder / f"{name}.md").write_text(_topic(name, text), encoding="utf-8")
    done.touch()
    return folder


# ----- the ranking before issue 16


_OLD_WORD = re.compile(r"[^\W_]+")


def _old_keys(text: str) -> set[str]:
    return {R.fold(w) for w in _OLD_WORD.findall(text.lower()) if len(w) >= 3 and w not in R.STOP_WORDS}


def _old_content(text: str) -> list[str]:
    out: list[str] = []
    for w in _OLD_WORD.findall(text.lower()):
        if len(w) >= 3 and w not in R.STOP_WORDS and R.fold(w) not in {R.fold(x) for x in out}:
            out.append(w)
    return out


class OldRecall:
    """Recall's ranking before issue 16: distinct shared words, then the newer date (all equal here),
    then the passage indexed later; name matches fill up with the topic's opening."""

    def __init__(self, folder: Path) -> None:
        self.passages: list[tuple[str, set[str], int]] = []
        self.names: list[tuple[str, set[str], bool]] = []
        pid = 0
        for f in sorted(folder.glob("*.md")):
            topic = P._analyse_topic(f.name, f.read_text(encoding="utf-8"))
            for p in topic.passages:
                pid += 1
                self.passages.append((f.stem, _old_keys(p.text), pid))
            self.names.append((f.stem, {R.fold(w) for w in topic.names}, topic.opening is not None))

    def __call__(self, message: str) -> list[str]:
        words = _old_content(message)
        if len(message.strip()) < R.MIN_MESSAGE_CHARS or not words:
            return []
        keys = {R.fold(w) for w in words}
        need = 2 if len(words) >= R.MANY_WORDS else 1
        scored = sorted(((len(keys & ks), pid, name) for name, ks, pid in self.passages
                         if len(keys & ks) >= need), reverse=True)
        out = [name for _s, _pid, name in scored[:R.MAX_NOTES]]
        if len(out) < R.MAX_NOTES:
            fill = sorted(((len(keys & ns), name) for name, ns, op in self.names if op and len(keys & ns) >= need),
                          key=lambda t: (-t[0], t[1]))
            out += [n for _s, n in fill if n not in out][:R.MAX_NOTES - len(out)]
        return out


# ----- measuring


def _score(ranked: Iterable[list[str]], answers: list[list[str]]) -> tuple[int, int]:
    h1 = h4 = 0
    for got, want in zip(ranked, answers):
        w = {a.lower() for a in want}
        got = [g.lower() for g in got]
        h1 += bool(got[:1] and got[0] in w)
        h4 += bool(w & set(got[:4]))
    return h1, h4


def tiny(spec: dict[str, object]) -> dict[str, object]:
    """The corpus cut down for a tiny run: its first 3 questions, their pages and 5 more."""
    questions = list(spec["questions"])[:3]  # type: ignore[call-overload]
    return {**spec, "questions": questions, "max_pages": len({a for q in questions for a in q["a"]}) + 5}


def run(key: str, spec: dict[str, object], show_misses: bool) -> tuple[int, int, int, int, int] | None:
    if TINY:
        spec, key = tiny(spec), f"{key}-tiny"
        shutil.rmtree(CACHE / key, ignore_errors=True)
    folder = load_corpus(spec, key)
    if folder is None:
        print(f"{key}: skipped (its manual pages are not installed: {spec.get('about', '')})")
        return None
    questions = spec["questions"]  # type: ignore[assignment]
    qs = [q["q"] for q in questions]  # type: ignore[union-attr, index]
    answers = [list(q["a"]) for q in questions]  # type: ignore[union-attr, index]
    old = OldRecall(folder)
    before = [old(q) for q in qs]
    tmp = Path(tempfile.mkdtemp(prefix="botmemory-quality-"))
    try:
        home = Home(tmp / "home")
        Store(home, today=TODAY).init(BOT)
        mem = home.workspace(BOT) / "memory"
        for f in folder.glob("*.md"):
            shutil.copyfile(f, mem / f.name)
        after = [[n.file[len("memory/"):-3] for n in R.recall(home, BOT, q, TODAY, background=False).notes]
                 for q in qs]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    b1, b4 = _score(before, answers)
    a1, a4 = _score(after, answers)
    n = len(qs)
    pages = len(list(folder.glob("*.md")))
    print(f"{key:<8} {pages:>5} {n:>5}   {b1:>3}/{n:<3} {b4:>3}/{n:<3}   {a1:>3}/{n:<3} {a4:>3}/{n:<3}")
    if show_misses:
        for q, want, b, a in zip(qs, answers, before, after):
            if not {x.lower() for x in want} & {x.lower() for x in a[:4]}:
                print(f"    miss: {q!r} wants {want}; got {a} (before: {b})")
    return n, b1, b4, a1, a4


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="append", help="only this corpus (a file name in recall_quality/, no .json)")
    ap.add_argument("--show-misses", action="store_true", help="list the questions whose page was not recalled")
    ap.add_argument("--fresh", action="store_true", help="convert the pages again instead of using the cache")
    args = ap.parse_args()
    if args.fresh and CACHE.exists():
        shutil.rmtree(CACHE)
    specs = sorted(HERE.glob("*.json"))
    if args.corpus:
        specs = [s for s in specs if s.stem in args.corpus]
    print(f"{'corpus':<8} {'pages':>5} {'quest':>5}   {'before':^15} {'after':^15}")
    print(f"{'':<8} {'':>5} {'':>5}   {'hit@1':>7} {'hit@4':>7}   {'hit@1':>7} {'hit@4':>7}")
    total = [0, 0, 0, 0, 0]
    for s in specs:
        got = run(s.stem, json.loads(s.read_text(encoding="utf-8")), args.show_misses)
        if got:
            total = [t + g for t, g in zip(total, got)]
    n = total[0]
    if n:
        print(f"{'all':<8} {'':>5} {n:>5}   {total[1]:>3}/{n:<3} {total[2]:>3}/{n:<3}   "
              f"{total[3]:>3}/{n:<3} {total[4]:>3}/{n:<3}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
