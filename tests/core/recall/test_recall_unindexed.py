"""Recall while its index is being built: what the index does not cover is read directly, ranked the same way,
so the answer is the one the finished index gives; only a deadline makes it partial, and ``why`` says so."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.disk.paths import Home
from botmemory.core.recall import index as I
from botmemory.core.recall import query as R
from botmemory.core.store.writer import Store
from tests.conftest import entry, examples
from tests.core.recall_fixtures import BOT, TODAY, home, ws  # noqa: F401 - fixtures

WORDS = ("lisbon flight hotel invoice billing monday ferry zanzibar garden tomato deploy friday budget review "
         "agency contract payroll roadmap").split()
counter = itertools.count()


def put(ws: Path, rel: str, text: str) -> None:
    p = ws / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def answer(r: R.RecallResult) -> list[tuple[str, str, str]]:
    return [(n.file, n.date.isoformat(), n.text) for n in r.notes]


def topic(words: list[str], k: int, linked: str | None, until: bool, alias: str | None) -> str:
    head = f"---\ntitle: {words[0].title()} notes\naliases: [{alias}]\n---\n" if alias else ""
    body = [entry(f"2026-09-{10 + (k % 15):02d}", " ".join(words[:3]) + f" note {k}"
                  + (" · until 2026-10-01" if until else ""))]
    body.append("")
    body.append(" ".join(words[3:]) + (f" see [[{linked}]]" if linked else "") + ".")
    return head + "\n".join(body) + "\n"


topics = st.lists(st.tuples(st.lists(st.sampled_from(WORDS), min_size=3, max_size=9), st.booleans(),
                            st.booleans(), st.one_of(st.none(), st.sampled_from(WORDS))),
                  min_size=1, max_size=14)


@settings(max_examples=examples(40))
@given(first=topics, later=topics, changed=st.lists(st.integers(0, 13), max_size=5),
       gone=st.lists(st.integers(0, 13), max_size=3),
       message=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
def test_an_answer_while_the_index_is_built_is_the_warm_one(tmp_path_factory, first, later, changed, gone, message):
    home = Home(tmp_path_factory.mktemp("h") / f"home{next(counter)}")
    Store(home, today=TODAY).init(BOT)
    ws = home.workspace(BOT)

    def write(items: list[tuple[list[str], bool, bool, str | None]], prefix: str) -> None:
        for k, (words, link, until, alias) in enumerate(items):
            put(ws, f"memory/{prefix}{k:02d}.md", topic(words, k, f"{prefix}{(k + 1) % len(items):02d}" if link
                                                        else None, until, alias))

    write(first, "a")
    ask = "What about " + " ".join(message) + "?"
    R.recall(home, BOT, ask, TODAY, background=False)          # an index of the first topics
    write(later, "b")                                          # new topics
    for k in changed:                                          # changed ones
        if k < len(first):
            put(ws, f"memory/a{k:02d}.md", topic(list(reversed(first[k][0])), k + 7, None, False, None))
    for k in gone:                                             # and deleted ones
        (ws / "memory" / f"a{k:02d}.md").unlink(missing_ok=True)
    started: list[str] = []
    saved = I.INLINE_BYTES, R._build_in_background
    I.INLINE_BYTES, R._build_in_background = 0, lambda h, b: started.append(b)
    try:
        cold = R.recall(home, BOT, ask, TODAY)
    finally:
        I.INLINE_BYTES, R._build_in_background = saved
    R.refresh_index(home, BOT)                                 # what the builder does
    warm = R.recall(home, BOT, ask, TODAY)
    assert answer(cold) == answer(warm) and cold.text == warm.text and cold.why == warm.why
    assert started == [BOT]


def test_a_deadline_that_comes_first_answers_from_part_of_the_notes_and_says_so(home: Home, ws: Path,
                                                                                  monkeypatch):
    put(ws, "memory/a.md", entry("2026-09-10", "The Zanzibar ferry leaves at 07:40") + "\n")
    R.recall(home, BOT, "When does the Zanzibar ferry leave?", TODAY, background=False)
    put(ws, "memory/b.md", entry("2026-09-11", "The Zanzibar ferry moved to pier 3") + "\n")
    monkeypatch.setattr(R, "_build_in_background", lambda h, b: None)
    r = R.recall(home, BOT, "When does the Zanzibar ferry leave?", TODAY, deadline=time.monotonic() - 1, inline=0)
    assert [n.file for n in r.notes] == ["memory/a.md"] and r.why == R.WHY_PARTIAL
    assert r.as_dict()["why"] == R.WHY_PARTIAL
    r = R.recall(home, BOT, "When does the Zanzibar ferry leave?", TODAY, deadline=time.monotonic() + 60, inline=0)
    assert sorted(n.file for n in r.notes) == ["memory/a.md", "memory/b.md"] and r.why == ""


def test_the_first_recall_of_a_home_never_indexed_finds_every_matching_topic(tmp_path):
    """The issue's case: 2,000 topics, no index yet, four of them about the message: the first `recall`
    prints all four (it printed none), while a builder indexes the rest in the background."""
    root = tmp_path / "home"
    cli = [sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(root), "--today", TODAY.isoformat()]
    subprocess.run([*cli, "init", BOT], check=True, capture_output=True)
    ws = root / "workspaces" / BOT / "memory"
    filler = " ".join(WORDS[:12])
    for i in range(2000):
        put(ws, f"t{i:04d}.md", f"# Topic {i}\n\n" + (f"{filler} {i}. " * 60) + "\n")
    for i in (17, 404, 1234, 1999):
        put(ws, f"t{i:04d}.md", f"# Topic {i}\n\nThe quokka census on Rottnest counted {i} quokkas.\n")
    assert sum(p.stat().st_size for p in ws.iterdir()) > I.INLINE_BYTES      # too much to index before answering
    p = subprocess.run([*cli, "recall", BOT, "How many quokkas did the census count?", "--json"],
                       capture_output=True, text=True, timeout=600)
    got = json.loads(p.stdout)
    assert sorted(n["file"] for n in got["notes"]) == [f"memory/t{i:04d}.md" for i in (17, 404, 1234, 1999)]
    assert "why" not in got
    subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path;"
                    "from botmemory.core.disk.paths import Home; from botmemory.core.recall.index import refresh_index;"
                    "refresh_index(Home(Path(sys.argv[1])), sys.argv[2])", str(root), BOT], check=True, timeout=600)
    warm = subprocess.run([*cli, "recall", BOT, "How many quokkas did the census count?", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert json.loads(warm.stdout) == got
