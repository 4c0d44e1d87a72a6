"""The property the issue is done by: two homes, each applying random edits (remember, save, outside edits, rm)
and syncing in random interleavings, converge, with every line any row recorded accounted for: present in the
file, or removed by a row (a person's, a bot's, an outside edit's: never by the merge)."""
from __future__ import annotations

import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from botmemory.core.base.errors import BotMemoryError
from botmemory.core.ops import operations
from botmemory.core.store.writer import Actor
from botmemory.core.text.diff import diff_lines
from tests.conftest import examples

from .conftest import BOT, Computer, bare

WORDS = ("tea", "Pune", "Friday", "seats", "peanuts", "invoice", "deploy", "Berlin")
TOPICS = ("memory/trips.md", "memory/work.md")

fact = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
op = st.one_of(
    st.tuples(st.just("remember"), fact),
    st.tuples(st.just("save-topic"), st.sampled_from(TOPICS), fact),
    st.tuples(st.just("outside-append"), st.sampled_from(("MEMORY.md", *TOPICS)), fact),
    st.tuples(st.just("outside-drop"), st.sampled_from(("MEMORY.md", *TOPICS)), st.integers(0, 5)),
    st.tuples(st.just("edit-line"), st.integers(0, 5), fact),
    st.tuples(st.just("rm"), st.sampled_from(TOPICS)),
    st.tuples(st.just("sync"),),
)
steps = st.lists(st.tuples(st.sampled_from((0, 1)), op), min_size=1, max_size=12)


def apply(c: Computer, step: tuple) -> None:
    kind = step[0]
    if kind == "remember":
        c.remember(step[1])
    elif kind == "save-topic":
        c.save(step[1], c.text(step[1]) + f"- {step[2]}\n")
    elif kind == "outside-append":
        c.outside(step[1], c.text(step[1]) + f"- {step[2]} (typed)\n")
    elif kind == "outside-drop":
        lines = c.text(step[1]).splitlines(keepends=True)
        if lines and (c.mem.home.workspace(BOT) / step[1]).exists():
            del lines[step[2] % len(lines)]
            c.outside(step[1], "".join(lines))
    elif kind == "edit-line":
        lines = c.text().splitlines(keepends=True)
        if lines:
            lines[step[1] % len(lines)] = f"- edited: {step[2]}\n"
            c.save("MEMORY.md", "".join(lines))
    elif kind == "rm":
        try:
            operations.rm(c.mem, BOT, step[1], Actor.person("cli"))
        except BotMemoryError:
            pass
    else:
        c.sync()


def accounted(computers: list[Computer]) -> list[str]:
    """Lines a person's, a bot's or an outside edit's row added that are neither in the file now nor removed by
    such a row (on any computer)."""
    added: dict[str, set[str]] = defaultdict(set)
    removed: dict[str, set[str]] = defaultdict(set)
    for c in computers:
        for row in c.rows():
            if row.how == "sync":
                continue
            assert not row.diff.startswith("(diff cut"), "keep the texts short"
            for tag, line in diff_lines(row.diff):
                (added if tag == "+" else removed)[row.file].add(line)
    final = computers[0].files()
    missing = []
    for file, lines in added.items():
        present = set(final.get(file, "").splitlines())
        missing += [f"{file}: {line}" for line in sorted(lines - present - removed[file])]
    return missing


@pytest.mark.timeout(900)
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_two_computers_editing_at_random_converge_with_every_line_accounted_for(plan):
    root = Path(tempfile.mkdtemp(prefix="converge-"))
    try:
        remote = bare(root / "memory.git")
        cs = [Computer(root / "laptop", "laptop"), Computer(root / "desktop", "desktop")]
        for c in cs:
            c.setup(remote.as_uri())
            c.sync()
        for who, step in plan:
            apply(cs[who], step)
        for c in (*cs, *cs):
            c.sync()
        assert cs[0].files() == cs[1].files()
        assert accounted(cs) == []
    finally:
        shutil.rmtree(root, ignore_errors=True)
