"""The row and its shadow (issue 23 items 2 and 3): a write is journaled, then its shadow copy is updated.

A kill, a full disk or a refused write between the two used to leave the shadow old: an outside edit
then recorded the change a second time from the stale copy (a fork in the row chain), undoing that row
brought back an older text, and a file created then deleted was never journaled at all. Now the row
carries what the shadow needs, reconcile trusts the newest row over a shadow that disagrees with it,
the gap is repaired at the next start, and a write killed after its rename keeps its own row.

Every case ends with the same checks (:func:`check_chain`): no fork (each row's before-hash is the
previous row's after-hash), no lost row (the newest row of each file is the file as it is), and every
row's undo either restores exactly the text before it or says why not.
"""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from botmemory.core.base.errors import BotMemoryError
from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.disk.safeio import text_hash
from botmemory.core.outside import turns as T
from botmemory.core.store import journal as J
from botmemory.core.store.memory import Memory
from botmemory.core.store.shadows import Shadows
from botmemory.core.store.writer import Actor

from ..conftest import BOT, TODAY

PERSON = Actor.person("cli")
TOPIC = "memory/trips.md"


def rows_oldest_first(mem: Memory, bot: str = BOT):
    return mem.journal.list(bot, limit=None)[::-1]


def check_chain(mem: Memory, bot: str = BOT) -> None:
    """No fork, no lost row, every undo working or saying why (after a scan has recorded everything)."""
    last: dict[str, str | None] = {}
    for r in rows_oldest_first(mem, bot):
        if r.file in last:
            assert r.before_hash == last[r.file], f"a fork before row {r.id} of {r.file} ({r.who}/{r.how})"
        last[r.file] = r.after_hash
        if r.undoable:
            assert r.earlier_text is not None or r.before_hash is None, r
            if r.before_hash is not None:
                assert text_hash(r.earlier_text) == r.before_hash, f"row {r.id} would restore another text"
        else:
            assert r.reason, r
    ws = mem.home.workspace(bot)
    for rel, h in last.items():
        p = ws / rel
        now = text_hash(p.read_text()) if p.exists() else None
        assert now == h, f"{rel} is not what its newest row says: a change without its row"


class Fault(Exception):
    pass


def failing(make):
    def fail(*a, **kw):
        raise make()
    return fail


FAULTS = {
    "ENOSPC": lambda: OSError(errno.ENOSPC, "No space left on device"),
    "EACCES": lambda: PermissionError(errno.EACCES, "Permission denied"),
}


@pytest.fixture
def started(mem: Memory) -> Memory:
    """MEMORY.md and a topic with rows and shadows."""
    mem.store.write(BOT, MEMORY_FILE, "- v0 first\n", PERSON)
    mem.store.write(BOT, TOPIC, "# Trips\n- Lisbon in May\n", PERSON)
    assert T.scan(mem) == []
    return mem


def lose_shadow_update(mem: Memory, monkeypatch, fault: str, write) -> None:
    """Run *write* with every shadow write failing with *fault* (the row is written, the shadow is not)."""
    with monkeypatch.context() as m:
        m.setattr(Shadows, "save", failing(FAULTS[fault]))
        m.setattr(Shadows, "_write_pack", failing(FAULTS[fault]))
        write()


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_lost_shadow_update_then_an_outside_edit_is_one_row_from_the_saved_text(started, monkeypatch, fault):
    mem = started
    ws = mem.home.workspace(BOT)
    lose_shadow_update(mem, monkeypatch, fault,
                       lambda: mem.store.write(BOT, MEMORY_FILE, "- v0 first\n- v1 saved\n", PERSON))
    (ws / MEMORY_FILE).write_text("- v0 first\n- v1 saved\n- v2 from another editor\n")
    fresh = Memory.open(str(mem.home.root), TODAY)
    [row] = T.scan(fresh)
    assert row.before_hash == text_hash("- v0 first\n- v1 saved\n")
    assert row.earlier_text == "- v0 first\n- v1 saved\n"
    assert "v1 saved" not in "".join(ln for ln in row.diff.splitlines() if ln.startswith("+"))
    check_chain(fresh)
    fresh.undo(BOT, row.id)
    assert (ws / MEMORY_FILE).read_text() == "- v0 first\n- v1 saved\n"
    check_chain(fresh)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_deletion_after_a_lost_shadow_update_is_journaled(started, monkeypatch, fault):
    mem = started
    ws = mem.home.workspace(BOT)
    lose_shadow_update(mem, monkeypatch, fault,
                       lambda: mem.store.write(BOT, "memory/new.md", "- a new topic\n", PERSON))
    (ws / "memory" / "new.md").unlink()
    fresh = Memory.open(str(mem.home.root), TODAY)
    [row] = T.scan(fresh)
    assert (row.file, row.after_hash, row.earlier_text) == ("memory/new.md", None, "- a new topic\n")
    check_chain(fresh)
    fresh.undo(BOT, row.id)
    assert (ws / "memory" / "new.md").read_text() == "- a new topic\n"


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_deletion_by_the_app_whose_shadow_update_was_lost_is_not_journaled_twice(started, monkeypatch, fault):
    mem = started
    lose_shadow_update(mem, monkeypatch, fault, lambda: mem.store.delete(BOT, TOPIC, PERSON))
    n = len(rows_oldest_first(mem))
    assert T.scan(Memory.open(str(mem.home.root), TODAY)) == []
    assert len(rows_oldest_first(mem)) == n
    check_chain(mem)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_gap_is_repaired_at_the_next_start(started, monkeypatch, fault):
    mem = started
    lose_shadow_update(mem, monkeypatch, fault,
                       lambda: mem.store.write(BOT, MEMORY_FILE, "- v0 first\n- v1 saved\n", PERSON))
    fresh = Memory.open(str(mem.home.root), TODAY)
    with fresh.store.locked(BOT):        # any start that takes the workspace: a write, a scan, a turn
        pass
    index = fresh.shadows.load(BOT)
    assert index is not None and index.files[MEMORY_FILE].hash == text_hash("- v0 first\n- v1 saved\n")
    assert fresh.shadows.text(BOT, MEMORY_FILE, index.files[MEMORY_FILE]) == "- v0 first\n- v1 saved\n"
    assert T.scan(fresh) == []


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_write_after_a_lost_shadow_update_records_no_outside_row(started, monkeypatch, fault):
    mem = started
    lose_shadow_update(mem, monkeypatch, fault,
                       lambda: mem.store.write(BOT, MEMORY_FILE, "- v0 first\n- v1 saved\n", PERSON))
    fresh = Memory.open(str(mem.home.root), TODAY)
    n = len(rows_oldest_first(fresh))
    fresh.store.write(BOT, MEMORY_FILE, "- v0 first\n- v1 saved\n- v2 saved\n", PERSON)
    added = rows_oldest_first(fresh)[n:]
    assert [(r.who, r.how) for r in added] == [("person", "cli")]
    check_chain(fresh)


def test_a_deletion_right_after_an_outside_edit_leaves_no_shadow_behind(started):
    """One batch holding two changes of a file (the outside edit found first, then the deletion): the last
    one decides its shadow (the soak found a deleted topic's shadow kept, and the next change forked)."""
    mem = started
    ws = mem.home.workspace(BOT)
    (ws / TOPIC).write_text("# Trips\n- Lisbon in May\n- Porto in June\n")
    mem.store.delete(BOT, TOPIC, PERSON)
    index = mem.shadows.load(BOT)
    assert index is not None and TOPIC not in index.files
    (ws / TOPIC).write_text("# Trips\n- written again in another editor\n")
    [row] = T.scan(Memory.open(str(mem.home.root), TODAY))
    assert row.before_hash is None and row.file == TOPIC
    check_chain(mem)


def test_a_failing_shadow_write_is_one_warning_line_not_a_traceback(tmp_path):
    home = tmp_path / "home"
    script = textwrap.dedent(f"""
        import errno, sys
        from botmemory.core.store.shadows import Shadows
        from botmemory.core.faces.cli import main
        def full(*a, **k):
            raise OSError(errno.ENOSPC, "No space left on device")
        main(["--root", {str(home)!r}, "remember", "scout", "first"])
        Shadows.save = full
        sys.exit(main(["--root", {str(home)!r}, "remember", "scout", "second"]))
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("botmemory: WARNING") and "shadow" in lines[0], r.stderr
    mem = Memory.open(str(home), TODAY)
    assert T.scan(mem) == []
    check_chain(mem)


# ----- a failure at each step of a write: ENOSPC and EACCES at the k-th system call


STEPS = ("open", "write", "fsync", "replace", "unlink")


def fail_kth(monkeypatch, name: str, k: int, exc) -> dict[str, int]:
    real = getattr(os, name)
    count = {"n": 0}

    def fail(*a, **kw):
        count["n"] += 1
        if count["n"] == k:
            raise exc()
        return real(*a, **kw)

    monkeypatch.setattr(os, name, fail)
    return count


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("step", STEPS)
def test_a_fault_at_every_step_of_a_write_leaves_one_chain(mem, monkeypatch, caplog, step, fault):
    from botmemory.core.notes import update

    ws = mem.home.workspace(BOT)
    mem.store.write(BOT, MEMORY_FILE, "- 2026-10-01 · from cli · v0\n", PERSON)
    T.scan(mem)
    fired = 0
    for k in range(1, 200):
        before = (ws / MEMORY_FILE).read_text()
        with monkeypatch.context() as m:
            count = fail_kth(m, step, k, FAULTS[fault])
            try:
                update.remember(mem.store, BOT, f"fact {step} {k}", PERSON)
            except (OSError, BotMemoryError):   # a full disk or a refusal, named (DiskFull, PermissionDenied)
                pass
        if count["n"] < k:
            break
        fired += 1
        now = (ws / MEMORY_FILE).read_text()
        assert now == before or now.startswith(before) and f"fact {step} {k}" in now, f"torn after os.{step} #{k}"
        edited = now + f"- 2026-10-02 · from cli · outside edit after os.{step} #{k}\n"
        (ws / MEMORY_FILE).write_text(edited)
        fresh = Memory.open(str(mem.home.root), TODAY)
        T.scan(fresh)
        check_chain(fresh)
        newest = fresh.journal.list(BOT, file=MEMORY_FILE, limit=1)[0]
        assert (newest.who, newest.how) == ("person", "outside") and newest.earlier_text == now, \
            f"after os.{step} #{k} the outside edit is not one row from the saved text"
        if now != before:   # the write happened: its own row, never folded into the outside one
            mine = [r for r in rows_oldest_first(fresh) if f"fact {step} {k}" in r.diff]
            assert mine and (mine[0].who, mine[0].how) == ("person", "cli"), f"os.{step} #{k}: {mine}"
        mem = fresh
    assert fired >= 1
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


# ----- a real SIGKILL at each step


KILLER = textwrap.dedent("""
    import os, signal, sys
    from botmemory.core.notes import update
    from botmemory.core.store.memory import Memory
    from botmemory.core.store.writer import Actor
    root, name, k, text = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    only = None
    if name == "replace-memory":           # only the rename of MEMORY.md itself counts
        name, only = "replace", "MEMORY.md"
    mem = Memory.open(root, "2026-10-15")
    real = getattr(os, name)
    count = [0]
    def killing(*a, **kw):
        if only is not None and (len(a) < 2 or a[1] != only):
            return real(*a, **kw)
        count[0] += 1
        if count[0] == k:
            if name == "replace":          # the rename happens, then the writer dies
                real(*a, **kw)
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*a, **kw)
    setattr(os, name, killing)
    update.remember(mem.store, "scout", text, Actor.person())
    setattr(os, name, real)
    print("finished", count[0], flush=True)
""")


def kill_at(root: Path, name: str, k: int, text: str) -> bool:
    """Run a remember that SIGKILLs itself at the k-th os.<name>; True when it was killed."""
    r = subprocess.run([sys.executable, "-c", KILLER, str(root), name, str(k), text], capture_output=True,
                       text=True)
    if r.returncode == 0:
        return False
    assert r.returncode == -signal.SIGKILL, r.stderr
    return True


@pytest.mark.parametrize("step", ("write", "fsync", "replace"))
def test_a_writer_killed_at_every_step_leaves_one_chain_and_keeps_its_row(mem, step):
    ws = mem.home.workspace(BOT)
    root = mem.home.root
    mem.store.write(BOT, MEMORY_FILE, "- 2026-10-01 · from cli · v0\n", PERSON)
    T.scan(mem)
    killed = 0
    for k in range(1, 60):
        before = (ws / MEMORY_FILE).read_text()
        text = f"killed at {step} {k}"
        if not kill_at(root, step, k, text):
            break
        killed += 1
        fresh = Memory.open(str(root), TODAY)
        now = (ws / MEMORY_FILE).read_text()
        assert now == before or text in now, f"torn after a kill at os.{step} #{k}"
        (ws / MEMORY_FILE).write_text(now + f"- 2026-10-02 · from cli · outside after {step} {k}\n")
        T.scan(fresh)
        check_chain(fresh)
        if now != before:
            mine = [r for r in rows_oldest_first(fresh) if text in r.diff]
            assert mine and (mine[0].who, mine[0].how) == ("person", "cli"), \
                f"the write killed at os.{step} #{k} lost its attribution: {[(r.who, r.how) for r in mine]}"
    # a remember renames twice (MEMORY.md, the shadow index: its pack is written in place, named by nothing
    # until the index is); it writes and fsyncs more often
    assert killed >= (2 if step == "replace" else 3)


def test_thirty_writes_killed_after_their_rename_keep_thirty_rows(mem):
    """One row per write, never one "outside" row for thirty (the hostile trial's finding)."""
    ws = mem.home.workspace(BOT)
    root = mem.home.root
    mem.store.write(BOT, MEMORY_FILE, "- 2026-10-01 · from cli · v0\n", PERSON)
    T.scan(mem)
    n = len(rows_oldest_first(mem))
    for i in range(30):
        assert kill_at(root, "replace-memory", 1, f"write number {i:02d}")   # killed right after its rename
    assert all(f"write number {i:02d}" in (ws / MEMORY_FILE).read_text() for i in range(30))
    fresh = Memory.open(str(root), TODAY)
    T.scan(fresh)
    added = rows_oldest_first(fresh)[n:]
    assert [(r.who, r.how) for r in added] == [("person", "cli")] * 30
    check_chain(fresh)


# ----- a real full disk: a small tmpfs


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MB tmpfs of its own (skipped where it cannot be mounted: not root, no CAP_SYS_ADMIN)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def fill(disk: Path, leave: int) -> Path:
    """Fill *disk* up to *leave* bytes free (in whole pages)."""
    filler = disk / "filler"
    filler.unlink(missing_ok=True)
    vfs = os.statvfs(disk)
    size = max(0, vfs.f_bavail * vfs.f_frsize - leave)
    with open(filler, "wb") as f:
        f.write(b"\0" * size)
    return filler


def cli_run(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(root), "--today", TODAY,
                           *args], input=stdin, capture_output=True, text=True)


def test_a_real_full_disk_at_every_level_changes_nothing_or_everything_and_leaves_one_chain(small_disk):
    root = small_disk / "home"
    assert cli_run(root, "remember", BOT, "the office is in Pune").returncode == 0
    ws = root / "workspaces" / BOT
    (ws / "memory" / "trips.md").write_text("# Trips\n- 2026-10-01 · from cli · Pune in May\n" + "filler line\n" * 400)
    assert cli_run(root, "watch", "--once").returncode == 0
    outcomes: dict[int, int] = {}
    for level in (0, 4096, 16 * 1024, 40 * 1024, 72 * 1024):
        for i, (args, stdin) in enumerate([(["remember", BOT, f"note at {level}"], None),
                                           (["save", BOT, "memory/trips.md"], f"# Trips\n- saved at {level}\n"),
                                           (["forget", BOT, "Pune"], None)]):
            before = {p: p.read_bytes() for p in ws.rglob("*.md")}
            filler = fill(small_disk, level)
            r = cli_run(root, *args, stdin=stdin)
            filler.unlink()
            assert "Traceback" not in r.stderr, (level, args, r.stderr)
            assert r.returncode in (0, 5), (level, args, r.returncode, r.stderr)
            outcomes[r.returncode] = outcomes.get(r.returncode, 0) + 1
            if r.returncode == 5:
                assert r.stderr.startswith("botmemory: disk full"), r.stderr
                assert {p: p.read_bytes() for p in ws.rglob("*.md")} == before, f"{args} at {level}: exit 5, changed"
            if args[0] == "forget" and r.returncode == 0:
                (ws / "MEMORY.md").write_text((ws / "MEMORY.md").read_text() + "- 2026-10-02 · from cli · Pune\n")
            else:
                (ws / "MEMORY.md").write_text((ws / "MEMORY.md").read_text() + f"- 2026-10-02 · outside {level} {i}\n")
            mem = Memory.open(str(root), TODAY)
            T.scan(mem)
            check_chain(mem)
            newest = mem.journal.list(BOT, file=MEMORY_FILE, limit=1)[0]
            assert newest.how == "outside" and mem.undo(BOT, newest.id) is not None
            check_chain(mem)
    assert outcomes.get(5) and outcomes.get(0), outcomes      # both a refused and a finished write were seen


# ----- intents cleared once journaled, read only when they may hold more than this process wrote


def test_a_write_clears_its_own_intents_without_reading_them_back(started, monkeypatch):
    def no_read(*a, **kw):
        raise AssertionError("the intents were read back")

    monkeypatch.setattr(type(started.intents), "read", no_read)
    started.store.write(BOT, MEMORY_FILE, "- v1 second\n", PERSON)
    assert not started.intents.pending(BOT)
    check_chain(started)


def test_an_intent_that_is_not_this_writes_is_read_and_kept(started, monkeypatch):
    """A line the file gained after this process's own (another writer's, whatever the lock said): the
    file is read, and as it holds a row the journal lacks, it stays for the repair."""
    from botmemory.core.store.journal import Row

    foreign = Row("20261014T000000000Z-ffff", "2026-10-14T00:00:00.000Z", BOT, "person", "cli", None, TOPIC,
                  None, text_hash("x\n"), "", None, False, "created")
    add = type(started.intents).add

    def add_then_another(self, bot, rows, temps):
        add(self, bot, rows, temps)
        with open(self.path(bot), "ab") as f:
            f.write(foreign.line())

    monkeypatch.setattr(type(started.intents), "add", add_then_another)
    started.store.write(BOT, MEMORY_FILE, "- v1 second\n", PERSON)
    monkeypatch.undo()
    left = started.intents.read(BOT)
    assert [r.id for r in left.rows][-1] == foreign.id
    assert started.intents.pending(BOT)


# ----- what the row keeps to rebuild the shadow


def full_memory_md() -> str:
    return "".join(f"- 2026-09-{1 + i % 28:02d} · from cli · fact {i:03d} " + "words " * 12 + "\n" for i in range(200))


def test_a_change_at_both_ends_keeps_its_text_once_and_the_gap_is_repaired_from_its_own_lines(started, monkeypatch):
    """The oldest entry moved out and a new one added at the end: the span between the common head and tail
    is the whole file, and a row used to keep it beside the earlier text (twice the bytes in the journal
    and in the intents, for every remember on a full MEMORY.md). The row's own lines rebuild it."""
    mem = started
    text = full_memory_md()
    mem.store.write(BOT, MEMORY_FILE, text, PERSON)
    changed = text.split("\n", 1)[1] + "- 2026-10-15 · from cli · the newest fact\n"
    lose_shadow_update(mem, monkeypatch, "ENOSPC", lambda: mem.store.write(BOT, MEMORY_FILE, changed, PERSON))
    line = mem.journal.active(BOT).read_bytes().splitlines()[-1]
    assert b'"after"' not in line
    assert len(line) < len(text.encode()) + 2000, "the row keeps the text after the change a second time"
    row = mem.journal.list(BOT, limit=1)[0]
    assert row.after_text() == (changed, False)
    fresh = Memory.open(str(mem.home.root), TODAY)
    with fresh.store.locked(BOT):       # the gap repaired from the row alone: the file is another text now
        (fresh.home.workspace(BOT) / MEMORY_FILE).write_text(changed + "- an outside line\n")
    index = fresh.shadows.load(BOT)
    assert index is not None and fresh.shadows.text(BOT, MEMORY_FILE, index.files[MEMORY_FILE]) == changed
    [outside] = T.scan(fresh)
    assert outside.earlier_text == changed
    check_chain(fresh)


def test_a_redacted_change_still_keeps_the_span_and_its_hash(started, monkeypatch):
    """The shadows keep a redacted copy, which the row's lines (made from the redacted texts too) would also
    give, but only the span carries the redacted copy's hash to check it against."""
    mem = started
    secret = "- 2026-10-15 · from cli · the key is AKIAZ7Q4L2M9XW3RT8KP\n"
    row = J.make_row(_change(mem, "- v0 first\n", "- v0 first\n" + secret))
    assert row.after is not None and len(row.after) == 4
    rebuilt = row.after_text()
    assert rebuilt is not None and rebuilt[1] and "AKIAZ7Q4L2M9XW3RT8KP" not in rebuilt[0]


def test_a_row_whose_earlier_text_is_over_the_limit_keeps_the_text_after_it_when_small(started, monkeypatch):
    mem = started
    row = J.make_row(_change(mem, "x" * 5000 + "\n", "short now\n"))
    assert row.after is None and row.after_text() == ("short now\n", False)
    monkeypatch.setattr(mem.journal, "keep_limit", lambda: 1000)
    [kept] = mem.journal.within_limit([row])
    assert kept.earlier_text is None and kept.edits is None and not kept.undoable
    assert kept.after_text() == ("short now\n", False)


def _change(mem: Memory, before: str, after: str):
    from datetime import UTC, datetime

    from botmemory.core.store.writer import Change, new_change_id
    at = datetime(2026, 10, 15, tzinfo=UTC)
    return Change(BOT, MEMORY_FILE, before, text_hash(before), after, text_hash(after), PERSON, at,
                  id=new_change_id(at))
