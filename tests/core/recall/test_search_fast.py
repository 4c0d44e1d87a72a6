"""Search's fast path (bytes test, only the lines holding a word parsed) finds exactly what scanning every
file whole finds: compared on generated homes full of edge cases, word by word and range by range."""
from __future__ import annotations

import os
import random
import unicodedata
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

import pytest

from botmemory.core.base.errors import BotMemoryError
from botmemory.core.disk.paths import FileKind, Home
from botmemory.core.disk.safeio import read_file
from botmemory.core.recall import search as S
from botmemory.core.recall.passages import Hit, _local_day, _topic_body, _words, fold
from botmemory.core.recall.search import search
from botmemory.core.store.writer import Store
from botmemory.core.text.entries import scan, search_text
from botmemory.core.text.words import cjk_runs, is_cjk_token, normalize

TODAY = date(2026, 10, 15)
BOT = "scout"


def plain_search(home: Home, bot: str, words: Sequence[str], since: date | None, until: date | None) -> list[Hit]:  # noqa: C901
    """The straightforward search (as it was before the fast path): every file read and scanned whole."""
    keys: set[str] = set()
    for w in words:
        keys.update(fold(x) for x in _words(w))
    runs = [r for w in words for r in cjk_runs(w) if len(r) > 2]
    tokened = {k for k in keys if not (len(k) == 1 and is_cjk_token(k))}

    def in_range(day: date) -> bool:
        return (since is None or day >= since) and (until is None or day <= until)

    ws = home.workspace(bot)
    found: list[tuple[int, str, int, Hit]] = []
    for rel in home.memory_files(bot):
        kind = home.classify(bot, rel)
        log_day = date.fromisoformat(rel[-13:-3]) if kind is FileKind.LOG else None
        if log_day is not None and not in_range(log_day):
            continue
        path = ws / rel
        try:
            ft = read_file(path, home.trust_root(bot))
            st = os.lstat(path)
        except (BotMemoryError, OSError):
            continue
        if ft is None:
            continue
        text = ft.text
        if keys and not all(k in normalize(text) for k in keys):
            continue
        if kind is FileKind.TOPIC:
            text = _topic_body(text)
        mday = _local_day(st.st_mtime)
        for i, block in enumerate(scan(text)):
            if isinstance(block, str):
                if not block.strip():
                    continue
                lines: tuple[str, ...] = (block,)
                matched = block
                unit_day = None
            else:
                lines = block.lines
                matched = search_text(block)
                unit_day = block.date
            day = log_day or unit_day or mday
            if not in_range(day):
                continue
            if keys:
                low = normalize(matched)
                if not all(k in low for k in keys):
                    continue
                if not tokened <= {fold(w) for w in _words(matched)}:
                    continue
                if runs and not all(r in low for r in runs):
                    continue
            shown = " ".join(ln.strip() for ln in lines if ln.strip())
            found.append((-day.toordinal(), rel, i, Hit(rel, day, shown)))
    found.sort(key=lambda t: t[:3])
    return [t[3] for t in found]


# ----- a generated home full of edge cases

WORDS = ["flight", "flights", "flightss", "Flight", "FLIGHTS", "bus", "buses", "buss", "lisbon", "Lisbon",
         "LISBON", "lIsBoN", "lisbon2", "lisbon_x", "xlisbon", "lisbons", "café", "cafe\u0301", "CAFÉ", "naïve",
         "taxi", "TAXİ", "tax\u0130", "\u212aelvin", "kelvin", "東京タワー", "東京", "猫", "猫カフェ", "iPhone15を買った",
         "until", "moved", "superseded", "chat", "2026", "noticed", "ΟΔΟΣ", "οδος", "straße", "STRASSE",
         "a", "the", "ab", "abs", "invoice", "invoices", "x" * 3, "Ǆemal", "ǆemal"]
SPACES = [" ", "  ", "\t", "\u3000", "\xa0"]


def _word(rng: random.Random) -> str:
    return rng.choice(WORDS)


def _sentence(rng: random.Random) -> str:
    parts = [_word(rng) for _ in range(rng.randint(1, 6))]
    seps = [" ", " ", ", ", "-", "/", "·", "~", "`", "_", "(", ")", ".", "\u3000"]
    out = parts[0]
    for p in parts[1:]:
        out += rng.choice(seps) + p
    return out


def _day(rng: random.Random) -> date:
    return TODAY - timedelta(days=rng.randint(0, 40))


def _line(rng: random.Random) -> str:
    r = rng.random()
    d = _day(rng).isoformat()
    source = rng.choice(['from chat "Lisbon trip"', 'from chat "Flights"', "from cli", "from lisbon",
                         'from room "東京"', "learned by scout", "from panel (noticed)"])
    if r < 0.3:
        line = f"{rng.choice('-*')} {d} · {source} · {_sentence(rng)}"
        if rng.random() < 0.2:
            line += f" · until {_day(rng).isoformat()}"
        if rng.random() < 0.1:
            line += f" · moved {_day(rng).isoformat()}"
        return line
    if r < 0.4:
        return f"- ~~{d} · {source} · {_sentence(rng)}~~ · superseded {_day(rng).isoformat()}"
    if r < 0.45:
        return f"- ~~{_sentence(rng)}~~ · superseded {_day(rng).isoformat()}"
    if r < 0.6:
        return rng.choice(SPACES) + _sentence(rng)                 # an indented line
    if r < 0.66:
        return rng.choice(["```", "~~~", "  ```", "\x0c```", "\u3000~~~", "```python", " ~~~", "````"])
    if r < 0.72:
        return rng.choice(["", " ", "\t", "\u3000", "\r"])         # blank, or only spaces
    if r < 0.76:
        return rng.choice(["- ", "* ", "-", "# "]) + _sentence(rng)
    if r < 0.78:
        return f"- {d} ·"                                          # nearly an entry
    if r < 0.8:
        return f"- 2026-02-30 · from cli · {_sentence(rng)}"        # no such day
    return _sentence(rng) + rng.choice(["", "", "\r"])


def _text(rng: random.Random, n: int) -> str:
    lines = [_line(rng) for _ in range(n)]
    text = "\n".join(lines)
    if rng.random() < 0.8:
        text += "\n"
    if rng.random() < 0.1:
        text += "\n"
    return text


def _frontmatter(rng: random.Random) -> str:
    return rng.choice([
        "---\ntitle: Lisbon flights\n---\n",
        "---\r\ntitle: Lisbon\r\n...\r\n",
        "---\naliases: [lisbon]\n",                 # never closed: no frontmatter
        "---\ntitle: x\n---",                       # nothing after it
        "",
    ])


def make_home(root: Path, seed: int) -> Home:
    rng = random.Random(seed)
    home = Home(root)
    Store(home, today=TODAY).init(BOT)
    ws = home.workspace(BOT)
    (ws / "MEMORY.md").write_text(_text(rng, rng.randint(0, 30)), encoding="utf-8")
    (ws / "memory" / "archive.md").write_text(_text(rng, rng.randint(0, 30)), encoding="utf-8")
    for i in range(rng.randint(1, 8)):
        name = rng.choice(["lisbon", "flights", "東京", "notes", "café"]) + f"-{i}.md"
        data = (_frontmatter(rng) + _text(rng, rng.randint(0, 40))).encode("utf-8")
        if rng.random() < 0.1:
            data = data.replace(b"lisbon", b"lis\xffbon", 1).replace(b"caf\xc3\xa9", b"caf\xc3", 1)  # not UTF-8
        p = ws / "memory" / name
        p.write_bytes(data)
        mday = _day(rng)
        t = (mday - date(1970, 1, 1)).days * 86400 + 43200
        os.utime(p, (t, t))
    (ws / "memory" / "log").mkdir(exist_ok=True)
    for _ in range(rng.randint(0, 5)):
        (ws / "memory" / "log" / f"{_day(rng).isoformat()}.md").write_text(_text(rng, rng.randint(0, 10)),
                                                                           encoding="utf-8")
    return home


QUERIES = [["lisbon"], ["LISBON"], ["flights"], ["flight"], ["bus"], ["buses"], ["lisbon", "flight"],
           ["café"], ["cafe\u0301"], ["taxi"], ["kelvin"], ["東京"], ["東京タワー"], ["猫"], ["iphone15"],
           ["until"], ["chat"], ["2026"], ["trip"], ["οδος"], ["ΟΔΟΣ"], ["straße"], ["ab"], ["abs"], ["x"],
           ["invoices", "lisbon"], ["ǆemal"], ["lisbon", "東京"], ["flight", "café"]]


@pytest.mark.parametrize("seed", range(40))
def test_the_fast_path_finds_what_scanning_every_file_finds(tmp_path: Path, seed: int) -> None:
    home = make_home(tmp_path / "home", seed)
    rng = random.Random(seed)
    ranges: list[tuple[date | None, date | None]] = [(None, None), (TODAY - timedelta(days=10), None),
                                                     (None, TODAY - timedelta(days=5)),
                                                     (TODAY - timedelta(days=20), TODAY - timedelta(days=20))]
    for words in QUERIES:
        since, until = rng.choice(ranges)
        assert search(home, BOT, words, since, until) == plain_search(home, BOT, words, since, until), words
    for since, until in ranges[1:]:
        assert search(home, BOT, [], since, until) == plain_search(home, BOT, [], since, until)


def test_tricky_cases_by_hand(tmp_path: Path) -> None:
    """The cases the generator may miss, each written out: continuation lines found from below, a fenced
    block an entry takes in (and one it does not: a blank line above, or never closed), words at the file's
    edges, a topic's frontmatter."""
    home = Home(tmp_path / "home")
    Store(home, today=TODAY).init(BOT)
    ws = home.workspace(BOT)
    (ws / "memory" / "trips.md").write_text(
        "---\ntitle: lisbon\n---\n"
        "lisbon at the start\n"
        "- 2026-10-01 · from cli · the trip\n"
        "  with a lisbon line below\n"
        "```\n"
        "- 2026-10-02 · from cli · lisbon inside the fence\n"
        "```\n"
        "  and lisbon after the fence\n"
        "\n"
        "```\n"
        "lisbon in an ordinary fence\n"
        "```\n"
        "  lisbon indented, under no entry\n"
        "- 2026-10-03 · from cli · flights\n"
        "~~~\n"
        "never closed lisbon\n"
        "- ~~2026-10-04 · from chat \"Lisbon\" · struck~~ · superseded 2026-10-05\n"
        "LISBON at the end", encoding="utf-8")
    got = search(home, BOT, ["lisbon"], None, None)
    assert got == plain_search(home, BOT, ["lisbon"], None, None)
    texts = [h.text for h in got]
    assert "- 2026-10-01 · from cli · the trip with a lisbon line below ``` " \
           "- 2026-10-02 · from cli · lisbon inside the fence ``` and lisbon after the fence" in texts
    assert "lisbon in an ordinary fence" in texts
    assert "lisbon indented, under no entry" in texts
    assert "never closed lisbon" in texts
    assert "LISBON at the end" in texts
    assert not any("title" in t for t in texts)


def test_only_two_characters_hide_an_ascii_letter_from_a_bytes_test() -> None:
    """Lowercasing bytes touches ASCII only: a character whose lowercase NFC form holds an ASCII letter
    would hide a word from the byte test. There are two (İ, the Kelvin sign): search knows them."""
    found = {}
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        n = normalize(unicodedata.normalize("NFC", c))
        letters = [x for x in n if x.isascii() and x.isalnum()]
        if letters:
            found[c] = letters
    assert found == {"\u0130": ["i"], "\u212a": ["k"]}
    assert {ch: seq.decode("utf-8") for ch, (_, seq) in S._SPECIALS.items()} == {"i": "\u0130", "k": "\u212a"}
    for _, (probe, seq) in S._SPECIALS.items():
        assert seq.endswith(probe)


def test_a_word_hidden_from_the_bytes_test_is_still_found(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    Store(home, today=TODAY).init(BOT)
    ws = home.workspace(BOT)
    (ws / "memory" / "turkish.md").write_text("TAXİ to the airport\n\u212aELVIN scale\n", encoding="utf-8")
    assert [h.text for h in search(home, BOT, ["taxi"], None, None)] == ["TAXİ to the airport"]
    assert [h.text for h in search(home, BOT, ["kelvin"], None, None)] == ["\u212aELVIN scale"]


def test_tracked_agent_folders_are_searched_alike(env: Path) -> None:
    """Claude Code, OpenClaw and Hermes folders: their own layouts list the files, read the same way."""
    from botmemory.core.kinds import tracked
    from tests.core.agent_fixtures import claude_code, hermes, openclaw

    user = env / "user"
    rng = random.Random(5)
    folders = {"claude-code": claude_code(user), "openclaw": openclaw(user), "hermes": hermes(user)}
    for d in folders.values():
        for p in sorted(d.rglob("*.md")):
            p.write_text(p.read_text(encoding="utf-8") + _text(rng, 30), encoding="utf-8")
    home = Home(env / "bm")
    ids = [tracked.track(home, path=str(d), agent=agent).id for agent, d in folders.items()]
    home = tracked.attach(home)
    for bot in ids:
        for words in QUERIES:
            assert search(home, bot, words, None, None) == plain_search(home, bot, words, None, None), (bot, words)
        assert search(home, bot, ["lisbon"], None, None)
