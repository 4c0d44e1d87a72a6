"""Recall's index storage: packed postings rows, updated in place, hold what a build from nothing holds."""
from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from botmemory.core.disk.paths import Home
from botmemory.core.recall import build as B
from botmemory.core.recall import index as I
from tests.core.recall_fixtures import BOT, entry, home, ws  # noqa: F401 - home, ws: fixtures

WORDS = "lisbon porto ferry invoice hotel flight meeting budget garden tomatoes dentist server deploy".split()


def _contents(home: Home) -> dict[str, list[tuple[str, int, int, int]]]:
    """word -> (file, passage number in it, count, passage length), as the index says; pids are not compared."""
    conn = sqlite3.connect(I.index_path(home, BOT))
    try:
        files = [(int(f), int(n), str(name)) for f, n, name in conn.execute("SELECT first_pid, n, name FROM files")]
        out: dict[str, list[tuple[str, int, int, int]]] = {}
        for word, in conn.execute("SELECT word FROM words"):
            rows = [bytes(r[0]) for r in conn.execute(
                "SELECT data FROM postings p JOIN words w ON w.wid = p.wid WHERE w.word = ? ORDER BY start", (word,))]
            pids, tfs, lens = B.decode(b"".join(B._joined(rows))) if rows else ([], [], [])
            assert list(pids) == sorted(set(pids))          # one run in pid order across the rows
            got = []
            for pid, tf, ln in zip(pids, tfs, lens):
                first, _n, name = next(f for f in files if f[0] <= pid < f[0] + f[1])
                got.append((name, pid - first, tf, ln))
            if got:
                out[str(word)] = sorted(got)
        return out
    finally:
        conn.close()


def _text(rng: random.Random) -> str:
    return "\n".join(entry(f"2026-09-{rng.randint(10, 28)}", " ".join(rng.choices(WORDS, k=rng.randint(1, 9))))
                     for _ in range(rng.randint(1, 6))) + "\n"


def _write(ws: Path, seed: int, files: int) -> None:
    rng = random.Random(seed)
    for i in range(files):
        (ws / f"memory/t{i:02d}.md").write_text(_text(rng), encoding="utf-8")


def _drop_index(home: Home) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{I.index_path(home, BOT)}{suffix}").unlink(missing_ok=True)


def _built_alone(home: Home) -> dict[str, list[tuple[str, int, int, int]]]:
    """What one process builds from the topics (its index is dropped again)."""
    I.refresh_index(home, BOT)
    alone = _contents(home)
    _drop_index(home)
    return alone


def _parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every build parsed by worker processes, in several steps."""
    monkeypatch.setattr(I, "COMMIT_BYTES", 1500)
    monkeypatch.setattr(I, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(I, "_can_fork", lambda: True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_index_updated_file_by_file_holds_what_a_build_from_nothing_holds(
        home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    monkeypatch.setattr(B, "MAX_CHUNKS", 2)           # rows merged often
    rng = random.Random(seed)
    index = I.index_path(home, BOT)
    names = [f"memory/t{i}.md" for i in range(8)]
    for name in names:
        (ws / name).write_text(_text(rng), encoding="utf-8")
    for _round in range(12):
        for name in rng.sample(names, rng.randint(1, 3)):
            p = ws / name
            if p.exists() and rng.random() < 0.3:
                p.unlink()
            else:
                p.write_text(_text(rng) + rng.choice(["", "x" * rng.randint(1, 9)]), encoding="utf-8")
        I.refresh_index(home, BOT)
        updated = _contents(home)
        kept = {s: p.read_bytes() for s in ("", "-wal") if (p := Path(f"{index}{s}")).exists()}
        _drop_index(home)
        I.refresh_index(home, BOT)
        assert updated == _contents(home)
        _drop_index(home)
        for suffix, data in kept.items():          # go on updating the index updated so far
            Path(f"{index}{suffix}").write_bytes(data)


def test_a_count_too_large_for_a_row_is_kept_at_its_ceiling() -> None:
    from array import array

    pids, tfs, lens = B.decode(B.encode(array("I", [3, 9]), array("I", [2, 70_000]), array("I", [5, 80_000])))
    assert (list(pids), list(tfs), list(lens)) == ([3, 9], [2, B.MAX_TF], [5, 80_000])


def test_a_build_parsed_by_worker_processes_holds_what_one_process_builds(
        home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(ws, 5, 40)
    monkeypatch.setattr(I, "COMMIT_BYTES", 1500)          # several commits, each shared
    alone = _built_alone(home)
    shared: list[int] = []
    worker = I._worker

    class Counting:       # the real worker processes, counting the files handed to them
        def __init__(self, *args: object) -> None:
            self.pool = worker(*args)  # type: ignore[arg-type]

        def submit(self, fn: object, names: list[object], *args: object) -> object:
            shared.append(len(names))
            return self.pool.submit(fn, names, *args)  # type: ignore[arg-type]

        def shutdown(self, **kw: object) -> None:
            self.pool.shutdown(**kw)  # type: ignore[arg-type]

    monkeypatch.setattr(I, "_worker", Counting)
    _parallel(monkeypatch)
    I.refresh_index(home, BOT)
    assert _contents(home) == alone
    # each step in one part a worker process (one a core); this one only writes
    assert len(alone) == len(WORDS) and len(shared) > 2 and sum(shared) == 40


def _die(names: list[object], base: int) -> object:
    import os

    os._exit(3)        # the worker process dies (killed, out of memory, …)


def test_when_the_worker_dies_this_process_parses_its_files(
        home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(ws, 6, 20)
    alone = _built_alone(home)
    _parallel(monkeypatch)
    monkeypatch.setattr(I, "_parse_all", _die)
    I.refresh_index(home, BOT)
    assert _contents(home) == alone and len(alone) == len(WORDS)


def test_the_listing_fingerprint_changes_with_any_key_and_not_with_order() -> None:
    listing = {"a.md": (10, 1_700_000_000_000_000_001, 1_700_000_000_000_000_002, 7),
               "b.md": (20, -5, 3, 8), "ü-\udcff.md": (0, 0, 0, 0)}
    d = I._digest(listing)
    assert I._digest(dict(reversed(listing.items()))) == d and len(d) == 32
    seen = {d}
    for name, key in listing.items():
        for i in range(4):
            changed = dict(listing)
            changed[name] = key[:i] + (key[i] + 1,) + key[i + 1:]
            seen.add(I._digest(changed))
    assert len(seen) == 1 + 4 * len(listing)
    assert I._digest({"ab.md": (1, 2, 3, 4), "c.md": (5, 6, 7, 8)}) != I._digest({"a.md": (1, 2, 3, 4), "bc.md": (5, 6, 7, 8)})
    huge = dict(listing, **{"b.md": (20, -5, 3, 2**64 - 1)})            # an inode past a signed 64-bit integer
    assert I._digest(huge) != d and I._digest(huge) == I._digest(dict(huge))
    assert I._digest({}) != I._digest({"a.md": (0, 0, 0, 0)})
    # the listing recall makes (named keys) has the fingerprint an index already keeps (plain tuples)
    from botmemory.core.recall.passages import _Key

    assert I._digest({n: _Key(*k) for n, k in huge.items()}) == I._digest(huge)
    assert I._digest({n: _Key(*k) for n, k in listing.items()}) == d


def _first_pids(home: Home) -> list[int]:
    conn = sqlite3.connect(I.index_path(home, BOT))
    try:
        return sorted(int(r[0]) for r in conn.execute("SELECT first_pid FROM files"))
    finally:
        conn.close()


def test_workers_are_handed_their_passage_ids_and_their_rows_are_written_as_they_are(
        home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(ws, 8, 30)
    _parallel(monkeypatch)
    I.refresh_index(home, BOT)
    firsts = _first_pids(home)
    sizes = {p.name: p.stat().st_size for p in (ws / "memory").glob("t*.md")}
    # a part's files take ids from the part's own first id on: the parts' bounds leave gaps
    assert firsts[0] == 1 and any(b - a > 6 for a, b in zip(firsts, firsts[1:]))
    assert firsts[-1] < 1 + sum(s // 2 + 1 for s in sizes.values())
    built = _contents(home)
    _drop_index(home)
    monkeypatch.setattr(I, "PARALLEL_BYTES", 10**12)
    I.refresh_index(home, BOT)
    assert _contents(home) == built


def test_an_index_whose_passage_ids_reach_the_limit_starts_over(
        home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    for i in range(10):
        (ws / f"memory/t{i}.md").write_text(_text(rng), encoding="utf-8")
    I.refresh_index(home, BOT)
    alone = _contents(home)
    limit = _first_pids(home)[-1] + 40
    monkeypatch.setattr(I, "PID_LIMIT", limit)
    for _round in range(6):          # each rewrite of a file takes new ids, above all others
        for i in rng.sample(range(10), 4):
            (ws / f"memory/t{i}.md").write_text(_text(rng), encoding="utf-8")
        I.refresh_index(home, BOT)
        assert _first_pids(home)[-1] < limit
    kept = _contents(home)
    _drop_index(home)
    I.refresh_index(home, BOT)
    assert kept == _contents(home) and alone != kept


def test_a_file_that_grew_past_its_listed_size_is_left_empty_and_read_again(home: Home, ws: Path) -> None:
    from botmemory.core.recall.passages import StemMemo, _Key
    from botmemory.core.text.words import Stems

    p = ws / "memory/grown.md"
    p.write_text(_text(random.Random(4)) * 3, encoding="utf-8")
    st = p.stat()
    memo = StemMemo(Stems("english"))
    whole = B._parse(home, BOT, "grown.md", _Key(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino), 0, memo)
    assert whole is not None and len(whole.per_passage) > 2 and whole.digest
    # listed when it was 4 bytes: it holds more passages than 4 bytes can, so it changed while it was read
    got = B._parse(home, BOT, "grown.md", _Key(4, st.st_mtime_ns, st.st_ctime_ns, st.st_ino), 0, memo)
    assert got is not None and got.per_passage == [] and got.topic.passages == [] and got.digest == "" and got.racy is True


@pytest.mark.parametrize("parts", [2, 3])
def test_rows_of_consecutive_parts_join_into_one_row_in_pid_order(parts: int) -> None:
    from array import array

    rng = random.Random(parts)
    rows: list[bytes] = []
    want: tuple[list[int], list[int], list[int]] = ([], [], [])
    pid = 1
    for _ in range(parts):
        n = rng.randint(1, 5)
        pids = array("I", [pid + 2 * k for k in range(n)])
        tfs, lens = array("I", [rng.randint(1, 9) for _ in range(n)]), array("I", [rng.randint(1, 99) for _ in range(n)])
        rows.append(B.encode(pids, tfs, lens))
        for got, part in zip(want, (pids, tfs, lens)):
            got.extend(part)
        pid += 2 * n + 7
    assert [list(a) for a in B.decode(B._concat(rows))] == list(want)


def test_rows_packed_at_once_are_each_word_s_row_as_encode_makes_it() -> None:
    from array import array

    rng = random.Random(11)
    flats = []
    for _ in range(200):
        n = rng.choice([1, 1, 2, 3, 40])
        pids = sorted(rng.sample(range(1, 10**9), n))
        flats.append([x for pid in pids for x in (pid, rng.choice([1, 2, 7, 70_000]), rng.randint(1, 10**6))])
    rows, firsts = B._rows(flats)
    assert list(firsts) == [f[0] for f in flats]
    assert rows == [B.encode(array("I", f[0::3]), array("I", f[1::3]), array("I", f[2::3])) for f in flats]


def test_a_step_is_cut_into_parts_of_about_equal_bytes_in_order() -> None:
    from botmemory.core.recall.passages import _Key

    step = [(f"t{i}.md", _Key(size, 0, 0, i)) for i, size in enumerate([10, 900, 30, 40, 500, 500, 20, 5, 600, 7])]
    for n in (1, 2, 3, 4):
        parts = B._parts(step, n)
        assert [f for p in parts for f in p] == step and len(parts) == n and all(parts)
        sizes = [sum(k.size for _n, k in p) for p in parts]
        assert max(sizes) - min(sizes) <= 900
    assert B._parts(step[:2], 4) == [step[:2]] and B._parts(step[1:2], 3) == [step[1:2]]     # fewer files: fewer parts


@pytest.mark.parametrize("workers", [1, 3, 4])
def test_a_build_parsed_by_any_number_of_workers_holds_what_one_process_builds(
        home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    _write(ws, workers, 25)
    alone = _built_alone(home)
    _parallel(monkeypatch)
    monkeypatch.setattr(I, "_workers", lambda: workers)
    I.refresh_index(home, BOT)
    assert _contents(home) == alone and len(alone) == len(WORDS)
