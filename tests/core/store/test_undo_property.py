"""Property: any sequence of writes, outside edits and undos of random rows never loses a line that some row
recorded.

Each example opens a real home in a fresh folder and runs a generated sequence
of steps on three files: saves through the app (random line edits), edits made
outside it (written straight to the file, a scan sometimes in between, so the
next write records them first), deletions and re-creations, and undos of a
random row of the journal — by lines, whole, or forced over a conflict. After
every step, and at the end:

- every row keeps its texts exactly: its earlier text hashes to its
  ``before_hash`` and the text it left (earlier text + its own lines) to its
  ``after_hash``, so each state the file was in is in the journal;
- each file's rows form a chain to the file as it is (nothing changed unrecorded);
- an undo that wrote keeps every line the file held except those it says it
  took out, and brings back the lines it says it brought back; one that
  clashed, or was refused, wrote nothing.

The "thorough" Hypothesis profile (``./dev test --hypothesis-profile=thorough``, or
``HYPOTHESIS_PROFILE=thorough``) runs ten times the CI default's sequences (README: "Development").
"""
from __future__ import annotations

import os
import tempfile
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from hypothesis import event, given, settings
from hypothesis import strategies as st

from botmemory.core.base.errors import Conflict, Refused
from botmemory.core.disk.safeio import text_hash
from botmemory.core.outside.turns import scan
from botmemory.core.store import files
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor
from tests.conftest import examples

from ..conftest import BOT

PERSON = Actor.person("cli")
FILES = ("MEMORY.md", "memory/a.md", "memory/b.md")
POOL = ["", "- x", "- y", "# Title", "- dup"]          # lines that repeat, besides the unique ones

edit = st.tuples(st.floats(0, 1), st.integers(0, 3), st.lists(st.one_of(st.sampled_from(POOL), st.just(None)),
                                                               max_size=3), st.booleans())
step = st.one_of(
    st.tuples(st.just("save"), st.sampled_from(FILES), edit),
    st.tuples(st.just("outside"), st.sampled_from(FILES), edit),
    st.tuples(st.just("scan")),
    st.tuples(st.just("rm"), st.sampled_from(FILES[1:])),
    st.tuples(st.just("delete_outside"), st.sampled_from(FILES[1:])),
    st.tuples(st.just("undo"), st.integers(0, 10_000), st.sampled_from(["lines", "lines", "lines", "whole", "force"])),
)


class Run:
    def __init__(self, root: Path) -> None:
        self.mem = Memory.open(str(root), "2026-10-15")
        self.mem.store.init(BOT)
        self.ws = self.mem.home.workspace(BOT)
        self.fresh = 0

    def text(self, rel: str) -> str | None:
        p = self.ws / rel
        return p.read_bytes().decode("utf-8") if p.exists() else None

    def edited(self, rel: str, e: tuple[float, int, list[str | None], bool]) -> str:
        at, drop, new, final_newline = e
        lines = (self.text(rel) or "").split("\n")
        i = int(at * len(lines))
        add = []
        for line in new:
            if line is None:
                self.fresh += 1
                line = f"- note {self.fresh}"
            add.append(line)
        lines[i:i + drop] = add
        out = "\n".join(lines)
        return out.rstrip("\n") + "\n" if final_newline and out else out

    def rows(self):
        return self.mem.journal.list(BOT, limit=None)

    def check_rows(self) -> None:
        for r in self.rows():
            if not r.undoable:
                continue
            if r.before_hash is not None:
                assert r.earlier_text is not None and text_hash(r.earlier_text) == r.before_hash, r.id
            later = r.later_text()
            assert later is not None, r.id
            if r.after_hash is not None:
                assert text_hash(later) == r.after_hash, r.id

    def check_chain(self) -> None:
        scan(self.mem)
        last: dict[str, str | None] = {}
        for r in reversed(self.rows()):
            if r.file in last:
                assert r.before_hash == last[r.file], f"a gap before row {r.id} of {r.file}"
            last[r.file] = r.after_hash
        for rel in FILES:
            now = self.text(rel)
            if rel in last:
                assert last[rel] == (text_hash(now) if now is not None else None), f"{rel} changed unrecorded"

    def step(self, s: tuple) -> None:
        kind = s[0]
        if kind == "save":
            files.save(self.mem, BOT, s[1], self.edited(s[1], s[2]), PERSON)
        elif kind == "outside":
            (self.ws / s[1]).write_bytes(self.edited(s[1], s[2]).encode("utf-8"))
        elif kind == "scan":
            scan(self.mem)
        elif kind == "rm":
            if self.text(s[1]) is not None:
                files.rm(self.mem, BOT, s[1], PERSON)
        elif kind == "delete_outside":
            if (self.ws / s[1]).exists():
                (self.ws / s[1]).unlink()
        elif kind == "undo":
            self.undo(s[1], s[2])

    def undo(self, pick: int, mode: str) -> None:
        rows = self.rows()
        if not rows:
            return
        row = rows[pick % len(rows)]
        before = {rel: self.text(rel) for rel in FILES}
        n = len(rows)
        try:
            r = files.undo(self.mem, BOT, row.id, whole=mode == "whole", force=mode == "force")
        except (Conflict, Refused) as e:
            event(f"undo {mode}: {type(e).__name__}")
            assert {rel: self.text(rel) for rel in FILES} == before       # nothing written
            assert len(self.rows()) == n                                    # and no row
            return
        event(f"undo {mode}: {'wrote' if r.changed else 'nothing to write'}")
        if not r.changed:
            return
        now = self.text(row.file)
        was = (before[row.file] or "").split("\n")
        got = (now or "").split("\n") if now is not None else []
        if not r.whole and not r.removed:
            assert not (Counter(was) - Counter(r.gone)) - Counter(got), "a line the undo did not take out is gone"
            assert not Counter(r.back) - Counter(got), "a line the undo says it brought back is not there"


@contextmanager
def _no_fsync():
    """The property is about what is kept, not about crashes (tests/core/store/test_crash.py): skip fsync."""
    with mock.patch.object(os, "fsync", lambda fd: None):
        yield


@settings(max_examples=examples(150))
@given(st.lists(step, min_size=1, max_size=14))
def test_writes_outside_edits_and_undos_never_lose_a_recorded_line(steps):
    with tempfile.TemporaryDirectory() as d, _no_fsync():
        run = Run(Path(d) / "home")
        for s in steps:
            run.step(s)
            run.check_rows()
        run.check_chain()
        run.check_rows()
