"""Outside changes: shadow copies, watch --once, turns, the live watcher with real editors, crash safety."""
from __future__ import annotations

import json
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from botmemory.core.base.errors import BadInput
from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.disk.safeio import text_hash
from botmemory.core.faces.cli import main
from botmemory.core.outside import reconcile as R
from botmemory.core.outside import turns as T
from botmemory.core.outside import watcher as W
from botmemory.core.store.journal import Row
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor

from ..conftest import BOT, TODAY

AWS = "AKIAZ7Q4L2M9XW3RT8KP"
PERSON = Actor.person("cli")


def rows_of(mem: Memory, bot: str = BOT) -> list[Row]:
    return mem.journal.list(bot, limit=None)


def cli(capsys, mem: Memory, *args: str) -> tuple[int, str, str]:
    code = main(["--root", str(mem.home.root), "--today", TODAY, *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def base(mem: Memory) -> Memory:
    """A workspace with a baseline taken and one topic."""
    mem.store.write(BOT, MEMORY_FILE, "- first fact\n", PERSON)
    assert T.scan(mem) == []
    return mem


# ----- watch --once


def test_the_first_scan_takes_a_silent_baseline(mem, ws):
    (ws / "memory" / "old.md").write_text("written before botmemory came\n")
    assert T.scan(mem) == []
    assert mem.journal.list(BOT) == []
    assert set(mem.shadows.load(BOT).files) == {MEMORY_FILE, "memory/old.md"}


def test_the_first_app_write_takes_the_baseline_too(mem, ws):
    (ws / "memory" / "old.md").write_text("written before\n")
    mem.store.write(BOT, MEMORY_FILE, "x\n", PERSON)
    assert set(mem.shadows.load(BOT).files) == {MEMORY_FILE, "memory/old.md"}
    assert T.scan(mem) == []


def test_created_changed_and_deleted_outside(base, ws):
    mem = base
    (ws / "memory" / "garden.md").write_text("- tomatoes\n")
    (ws / MEMORY_FILE).write_text("- first fact\n- typed in Obsidian\n")
    rows = T.scan(mem)
    assert {(r.file, r.who, r.how) for r in rows} == {("memory/garden.md", "person", "outside"),
                                                    (MEMORY_FILE, "person", "outside")}
    mem_row = next(r for r in rows if r.file == MEMORY_FILE)
    assert mem_row.earlier_text == "- first fact\n" and "+- typed in Obsidian" in mem_row.diff
    assert mem_row.after_hash == text_hash("- first fact\n- typed in Obsidian\n")
    (ws / "memory" / "garden.md").unlink()
    [gone] = T.scan(mem)
    assert gone.after_hash is None and gone.earlier_text == "- tomatoes\n" and gone.undoable
    assert T.scan(mem) == []
    assert rows_of(mem)[0].id == gone.id


def test_app_writes_are_never_outside_changes(base):
    mem = base
    mem.store.write(BOT, MEMORY_FILE, "- changed in the app\n", PERSON)
    mem.store.write(BOT, "memory/t.md", "topic\n", Actor.bot("Plans"))
    mem.store.delete(BOT, "memory/t.md", PERSON)
    assert T.scan(mem) == []
    assert all(r.how != "outside" for r in rows_of(mem))


def test_a_delete_and_create_of_the_same_text_is_a_rename(base, ws):
    mem = base
    mem.store.write(BOT, "memory/plants.md", "- basil\n", PERSON)
    os.rename(ws / "memory" / "plants.md", ws / "memory" / "herbs.md")
    rows = T.scan(mem)
    created = next(r for r in rows if r.after_hash)
    deleted = next(r for r in rows if not r.after_hash)
    assert (created.file, created.renamed_from) == ("memory/herbs.md", "memory/plants.md")
    assert (deleted.file, deleted.renamed_to) == ("memory/plants.md", "memory/herbs.md")
    assert "renamed" in created.diff and len(rows) == 2
    assert [r.id for r in mem.journal.list(BOT, file="memory/plants.md", limit=2)] == [created.id, deleted.id]
    mem.undo(BOT, created.id)
    mem.undo(BOT, deleted.id)
    assert (ws / "memory" / "plants.md").read_text() == "- basil\n"
    assert not (ws / "memory" / "herbs.md").exists()


def test_links_and_other_files_are_skipped(base, ws, tmp_path):
    mem = base
    target = tmp_path / "elsewhere.md"
    target.write_text("outside the workspace\n")
    (ws / "memory" / "link.md").symlink_to(target)
    (ws / "memory" / "notes.txt").write_text("not markdown\n")
    (ws / "memory" / ".hidden.md").write_text("hidden\n")
    (ws / "other.md").write_text("not a memory file\n")
    assert T.scan(mem) == []


def test_an_edit_of_the_same_size_within_the_same_clock_tick_is_seen(base, ws):
    mem = base
    path = ws / MEMORY_FILE
    st = path.stat()
    with open(path, "r+") as f:     # in place: same inode, same size
        f.write("- FIRST fact\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size
    [row] = T.scan(mem)
    assert "+- FIRST fact" in row.diff


def look_again_later(mem: Memory, monkeypatch) -> None:
    """Scan as if ten seconds had passed: the files' time stamps are then old enough to be trusted
    (a change time within :data:`RACY_NS` of a look is doubtful, and hashed)."""
    real = time.time_ns
    with monkeypatch.context() as m:
        m.setattr(time, "time_ns", lambda: real() + 10 * 10**9)
        T.scan(mem)


def test_an_in_place_edit_that_puts_the_old_mtime_back_is_seen(base, ws, monkeypatch):
    """Same size, same inode, the old modification time put back (``touch -r``): the change time still moves."""
    mem = base
    path = ws / MEMORY_FILE
    old = time.time() - 3600
    os.utime(path, (old, old))
    T.scan(mem)
    look_again_later(mem, monkeypatch)   # its time stamps are trusted from here on
    st = path.stat()
    with open(path, "r+") as f:       # in place: same inode, same size
        f.write("- FIRST fact\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    now = path.stat()
    assert (now.st_mtime_ns, now.st_size, now.st_ino) == (st.st_mtime_ns, st.st_size, st.st_ino)
    [row] = T.scan(mem)
    assert "+- FIRST fact" in row.diff
    assert T.scan(mem) == []


def test_unchanged_old_files_are_not_read(base, ws, monkeypatch):
    mem = base
    old = time.time() - 3600
    for i in range(20):
        (ws / "memory" / f"n{i}.md").write_text(f"note {i}\n")
        os.utime(ws / "memory" / f"n{i}.md", (old, old))
    os.utime(ws / MEMORY_FILE, (old, old))
    assert len(T.scan(mem)) == 20
    look_again_later(mem, monkeypatch)   # looks at each once more: their time stamps can now be trusted
    reads = []
    real = R.Folders.read   # every memory file a scan reads goes through it (never through a link)
    monkeypatch.setattr(R.Folders, "read", lambda self, p: reads.append(p) or real(self, p))
    assert T.scan(Memory.open(str(mem.home.root), TODAY)) == []
    assert [p for p in reads if ws in Path(p).parents] == []


def test_a_credential_pasted_outside_never_leaves_the_workspace(base, ws):
    mem = base
    (ws / MEMORY_FILE).write_text(f"- first fact\n- key {AWS}\n")
    [added] = T.scan(mem)
    assert AWS not in added.diff and "«redacted 20 chars»" in added.diff
    assert added.undoable                          # its earlier text was clean
    (ws / MEMORY_FILE).write_text("- first fact\n")
    [removed] = T.scan(mem)
    assert AWS not in (removed.earlier_text or "") and "«redacted" in removed.earlier_text
    assert removed.undoable and removed.secret_lines == (1,)   # by lines: the key's line never comes back
    assert removed.before_hash == text_hash(f"- first fact\n- key {AWS}\n")   # the real file's hash
    outside = [p for p in mem.home.root.rglob("*") if p.is_file() and ws not in p.parents]
    assert not any(AWS.encode() in p.read_bytes() for p in outside)
    assert (ws / MEMORY_FILE).read_text() == "- first fact\n"   # the file itself is never rewritten


def test_shadows_are_private_and_outside_the_workspace(base, ws):
    mem = base
    folder = mem.shadows.folder(BOT)
    assert ws not in folder.parents
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert files and all(p.stat().st_mode & 0o777 == 0o600 for p in files)


def test_a_damaged_shadow_copy_is_never_used_as_an_earlier_text(base, ws):
    mem = base
    sh = mem.shadows.load(BOT).files[MEMORY_FILE]
    pack = mem.shadows.folder(BOT) / "packs" / f"{sh.pack}.pack"
    pack.write_bytes(b"X" * pack.stat().st_size)
    (ws / MEMORY_FILE).write_text("- changed\n")
    [row] = T.scan(mem)
    assert row.earlier_text is None and not row.undoable and "lost" in row.reason


def test_old_packs_are_deleted_and_compacted(base, ws):
    mem = base
    for i in range(30):
        (ws / "memory" / f"t{i}.md").write_text(f"t{i}\n" * 2000)
    T.scan(mem)
    for round_ in range(5):
        for i in range(29):
            (ws / "memory" / f"t{i}.md").write_text(f"t{i} {round_}\n" * 2000)
        T.scan(mem)
    packs = list((mem.shadows.folder(BOT) / "packs").iterdir())
    index = mem.shadows.load(BOT)
    assert {p.name[:-5] for p in packs} == set(index.packs)
    live = sum(sh.length for sh in index.files.values())
    assert sum(p.stat().st_size for p in packs) <= 2 * live + 256 * 1024
    for rel, sh in index.files.items():
        assert mem.shadows.text(BOT, rel, sh) == (ws / rel).read_text()


def test_a_memory_larger_than_one_write_is_kept_in_several_packs(base, ws):
    # 3 topics of 6 MB: 18 MB of copies, more than one file write may hold (16 MB)
    mem = base
    for i in range(3):
        (ws / "memory" / f"big{i}.md").write_text(f"- fact {i} of many\n" * 330_000)
    assert sorted((r.file, r.how, r.added) for r in T.scan(mem)) == [
        (f"memory/big{i}.md", "outside", 330_000) for i in range(3)]
    index = mem.shadows.load(BOT)
    assert {f"memory/big{i}.md" for i in range(3)} <= set(index.files)
    assert len(index.packs) >= 2
    assert all(n <= 16 * 1024 * 1024 for n in index.packs.values())
    (ws / "memory" / "big1.md").write_text("- fact 1 of many\n" * 329_999 + "- changed outside\n")
    rows = T.scan(mem)
    assert [(r.file, r.how, r.added, r.removed) for r in rows] == [("memory/big1.md", "outside", 1, 1)]
    for rel, sh in mem.shadows.load(BOT).files.items():
        assert mem.shadows.text(BOT, rel, sh) == (ws / rel).read_text()


def test_watch_once_cli(capsys, base, ws):
    mem = base
    code, out, _ = cli(capsys, mem, "watch", "--once")
    assert code == 0 and "no changes" in out
    (ws / MEMORY_FILE).write_text("- edited\n")
    code, out, _ = cli(capsys, mem, "watch", "--once", "--json")
    [row] = json.loads(out)
    assert code == 0 and row["how"] == "outside" and row["file"] == MEMORY_FILE


# ----- turns


def test_a_turns_changes_are_the_bots_work_in_its_chat(base, ws):
    mem = base
    (ws / MEMORY_FILE).write_text("- first fact\n- before the turn\n")
    tid = T.turn_begin(mem, BOT, "Plans")
    [before] = rows_of(mem)[:1]
    assert before.how == "outside"                  # changed before the turn: the person's
    (ws / "memory" / "trip.md").write_text("- flight on Friday\n")   # the bot's own file tools
    assert T.scan(mem) == []                        # a turn is open: not outside changes
    rows = T.turn_end(mem, BOT, tid, "Booked the flight.", tools=["write_file"])
    trip, log = rows
    assert (trip.file, trip.who, trip.how, trip.chat) == ("memory/trip.md", "bot", "task", "Plans")
    assert log.file == f"memory/log/{TODAY}.md" and (log.who, log.how, log.chat) == ("bot", "task", "Plans")
    line = (ws / "memory" / "log" / f"{TODAY}.md").read_text()
    assert line.endswith(' · chat "Plans" · Booked the flight. · tools: write_file\n')
    assert line.startswith("- ") and line[2:7].replace(":", "").isdigit()
    assert T.scan(mem) == [] and not T.turn_open(mem, BOT)


def test_bot_writes_through_the_app_during_a_turn_are_not_repeated(base):
    mem = base
    tid = T.turn_begin(mem, BOT, "Plans")
    mem.store.write(BOT, MEMORY_FILE, "- first fact\n- remembered\n", Actor.bot("Plans"))
    rows = T.turn_end(mem, BOT, tid, "ok")
    assert [r.file for r in rows] == [f"memory/log/{TODAY}.md"]


def test_no_log_line_when_memory_is_off(capsys, base, ws):
    mem = base
    assert cli(capsys, mem, "settings", BOT, "memory", "off")[0] == 0
    tid = T.turn_begin(mem, BOT, "Plans")
    (ws / MEMORY_FILE).write_text("- edited by the bot's file tools\n")
    rows = T.turn_end(mem, BOT, tid, "done")
    assert [r.file for r in rows] == [MEMORY_FILE] and rows[0].who == "bot"
    assert not (ws / "memory" / "log").exists()


def test_two_turns_a_change_lands_under_whichever_ends_first(base, ws):
    mem = base
    a = T.turn_begin(mem, BOT, "A")
    b = T.turn_begin(mem, BOT, "B")
    (ws / "memory" / "x.md").write_text("made in B's thread\n")
    rows_b = T.turn_end(mem, BOT, b, "B done")
    rows_a = T.turn_end(mem, BOT, a, "A done")
    assert [r.chat for r in rows_b if r.file == "memory/x.md"] == ["B"]
    assert [r.file for r in rows_a] == [f"memory/log/{TODAY}.md"]


def test_a_turn_left_open_for_30_minutes_ends_by_itself(base, ws):
    mem = base
    tid = T.turn_begin(mem, BOT, "Plans")
    (ws / "memory" / "x.md").write_text("left behind\n")
    turn = T.open_turns(mem, BOT)[0]
    assert T.expire_turns(mem, BOT, now=turn.began + T.TURN_TIMEOUT_S - 1) == []
    rows = T.expire_turns(mem, BOT, now=turn.began + T.TURN_TIMEOUT_S)
    assert [r.file for r in rows] == ["memory/x.md", f"memory/log/{TODAY}.md"]
    assert rows[0].who == "bot" and rows[0].chat == "Plans"
    assert (ws / "memory" / "log" / f"{TODAY}.md").read_text().rstrip().endswith("· failed")
    with pytest.raises(BadInput):
        T.turn_end(mem, BOT, tid, "too late")


def test_turn_errors_and_cli(capsys, mem, ws):
    code, out, _ = cli(capsys, mem, "turn", "begin", "newbot", "--chat", "Plans")
    assert code == 0 and out.strip() and len(out.split()) == 1     # the id alone
    assert (mem.home.workspace("newbot") / MEMORY_FILE).exists()    # first turn creates the workspace
    tid = out.strip()
    code, out, _ = cli(capsys, mem, "turn", "begin", "newbot", "--chat", "Other", "--json")
    other = json.loads(out)["turn"]
    code, out, _ = cli(capsys, mem, "turn", "end", "newbot", tid, "--said", "hello there", "--failed", "--json")
    assert code == 0 and len(json.loads(out)["rows"]) == 1
    assert (mem.home.workspace("newbot") / "memory" / "log" / f"{TODAY}.md").read_text().endswith(
        '· chat "Plans" · hello there · failed\n')
    code, _, err = cli(capsys, mem, "turn", "end", "newbot", tid)
    assert code == 2 and "no open turn" in err
    code, _, err = cli(capsys, mem, "turn", "end", "newbot", "nonsense")
    assert code == 2
    code, _, err = cli(capsys, mem, "turn", "begin", "newbot", "--chat", "  ")
    assert code == 2
    assert cli(capsys, mem, "turn", "end", "newbot", other)[0] == 0


def test_a_long_said_is_cut_and_redacted():
    line = T.log_line("Plans", f"key {AWS} " + "word " * 200, ["a", " "], False)
    assert AWS not in line and len(line) < 400 and line.count("…") == 1 and "tools: a" in line


# ----- the live watcher, with real editors


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A folder outside /tmp: vim saves files under /tmp in place, elsewhere with its backup rename."""
    parent = "/var/tmp" if os.path.isdir("/var/tmp") else str(Path(__file__).resolve().parents[3])
    path = Path(tempfile.mkdtemp(prefix="botmemory-test-", dir=parent))
    yield path
    shutil.rmtree(path, ignore_errors=True)


class Collector:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.rows: list[Row] = []

    def __call__(self, rows: list[Row]) -> None:
        with self.cond:
            self.rows.extend(rows)
            self.cond.notify_all()

    def wait_for(self, pred: Callable[[list[Row]], bool], timeout: float = 15) -> list[Row]:
        with self.cond:
            assert self.cond.wait_for(lambda: pred(self.rows), timeout), f"rows so far: {self.rows}"
            return list(self.rows)


@pytest.fixture
def watching(outside_tmp):
    started: list[W.Watcher] = []

    def start(mem: Memory | None = None, **kw) -> tuple[Memory, W.Watcher, Collector]:
        if mem is None:
            mem = Memory.open(str(outside_tmp / "home"), TODAY)
            mem.store.init(BOT)
            mem.store.write(BOT, MEMORY_FILE, "- first fact\n- second fact\n", PERSON)
        got = Collector()
        w = W.Watcher(mem, got, **kw)
        w.start()
        started.append(w)
        return mem, w, got

    yield start
    for w in started:
        w.stop()


_sentinels = iter(range(10**6))


def settle(mem: Memory, got: Collector, bot: str = BOT) -> list[Row]:
    """Every event before now has been recorded: a later change's row has arrived."""
    name = f"memory/zz-sentinel-{next(_sentinels)}.md"
    (mem.home.workspace(bot) / name).write_text("sentinel\n")
    rows = got.wait_for(lambda rows: any(r.file == name for r in rows))
    return [r for r in rows if "zz-sentinel" not in r.file]


def py_in_place(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def py_temp_replace(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def sed_in_place(path: Path, text: str) -> None:
    added = text.splitlines()[-1]
    subprocess.run(["sed", "-i", f"$a {added}", str(path)], check=True)


def vim(*flags: str) -> Callable[[Path, str], None]:
    def save(path: Path, text: str) -> None:
        added = text.splitlines()[-1]
        subprocess.run(["vim", "-Es", *flags, "-c", f"call append('$', '{added}')", "-c", "wq", str(path)],
                       check=True, stdin=subprocess.DEVNULL, timeout=30)
    return save


WRITERS = {
    "python in place": (py_in_place, "same"),
    "python temp + os.replace": (py_temp_replace, "new"),
    "sed -i": (sed_in_place, "new"),
    "vim in place (-u NONE)": (vim("-u", "NONE"), "same"),
    "vim backup rename (nocompatible defaults)": (vim("-u", "NONE", "-N"), "new"),
    "vim keeping a backup file": (vim("-u", "NONE", "-N", "-c", "set backup"), "new"),
}


@pytest.mark.parametrize("name", list(WRITERS))
def test_each_editor_save_is_exactly_one_outside_row(watching, name):
    if name.startswith("vim") and shutil.which("vim") is None:
        pytest.skip("vim is not installed (apt-get install vim)")
    writer, inode = WRITERS[name]
    mem, _w, got = watching()
    path = mem.home.workspace(BOT) / MEMORY_FILE
    before = path.read_text()
    ino = path.stat().st_ino
    writer(path, before + "- added by the editor\n")
    after = path.read_text()
    assert after == before + "- added by the editor\n"
    assert (path.stat().st_ino == ino) == (inode == "same"), "the writer did not save the way it was meant to"
    rows = settle(mem, got)
    assert len(rows) == 1, rows
    [row] = rows
    assert (row.file, row.who, row.how) == (MEMORY_FILE, "person", "outside")
    assert row.earlier_text == before and row.after_hash == text_hash(after)
    assert [ln for ln in row.diff.splitlines() if ln.startswith(("+", "-")) and not ln.startswith(("+++", "---"))] \
        == ["+- added by the editor"]
    assert path.read_text() == after and path.stat().st_ino == os.stat(path).st_ino   # never rewritten
    assert not [p for p in path.parent.iterdir() if p.name.endswith("~")] or "backup" in name


def test_editor_droppings_are_ignored(watching):
    mem, _w, got = watching()
    ws = mem.home.workspace(BOT)
    for name in (".MEMORY.md.swp", "MEMORY.md~", "4913", "notes.tmp", ".#MEMORY.md", "memory/.x.md",
                 "memory/a.md.tmp", "memory/.a.md.1234.botmemory.tmp", "memory/readme.txt", "memory/b.md~"):
        (ws / name).write_text("noise\n")
    assert settle(mem, got) == []


def test_app_writes_while_watching_are_not_outside(watching):
    mem, _w, got = watching()
    for i in range(5):
        mem.store.write(BOT, MEMORY_FILE, f"- app write {i}\n", PERSON)
    mem.store.write(BOT, "memory/app.md", "topic\n", PERSON)
    assert settle(mem, got) == []
    assert all(r.how == "cli" for r in rows_of(mem)[1:8])


def test_a_rename_while_watching_is_paired(watching):
    mem, _w, got = watching()
    ws = mem.home.workspace(BOT)
    mem.store.write(BOT, "memory/a.md", "- alpha\n", PERSON)
    os.rename(ws / "memory" / "a.md", ws / "memory" / "b.md")
    rows = settle(mem, got)
    assert sorted((r.file, r.renamed_from, r.renamed_to) for r in rows) == [
        ("memory/a.md", None, "memory/b.md"), ("memory/b.md", "memory/a.md", None)]


def test_changes_made_while_not_watching_are_recorded_at_start(outside_tmp, watching):
    mem = Memory.open(str(outside_tmp / "home"), TODAY)
    mem.store.init(BOT)
    mem.store.write(BOT, MEMORY_FILE, "- one\n", PERSON)
    (mem.home.workspace(BOT) / MEMORY_FILE).write_text("- one\n- while the app was closed\n")
    mem, _w, got = watching(mem)
    assert [r.file for r in got.rows] == [MEMORY_FILE]        # start() waited for the rescan


def test_an_inotify_overflow_triggers_a_rescan(watching, monkeypatch):
    mem, w, got = watching()
    monkeypatch.setattr(w, "on_path", lambda *a: None)        # the events are lost
    (mem.home.workspace(BOT) / MEMORY_FILE).write_text("- changed while events were lost\n")
    logging.getLogger("watchdog.observers.inotify_c").warning("Inotify queue overflowed; filesystem events were lost")
    rows = got.wait_for(lambda rows: len(rows) >= 1)
    assert [r.file for r in rows] == [MEMORY_FILE]


def test_a_turn_holds_the_watcher_back_until_it_ends(outside_tmp, watching):
    mem = Memory.open(str(outside_tmp / "home"), TODAY)
    for bot in (BOT, "other"):
        mem.store.init(bot)
    mem, _w, got = watching(mem, held_recheck=0.05)     # start() takes both baselines
    tid = T.turn_begin(mem, BOT, "Plans")
    (mem.home.workspace(BOT) / "memory" / "trip.md").write_text("- the bot wrote this\n")
    assert settle(mem, got, "other") == []          # scout's change waits for its turn
    rows = T.turn_end(mem, BOT, tid, "done")
    assert rows[0].file == "memory/trip.md" and rows[0].who == "bot"
    assert settle(mem, got, "other") == []
    assert settle(mem, got, BOT) == []              # and the watcher never records it again


def test_a_new_bot_and_a_recreated_folder_are_watched(watching):
    mem, w, got = watching()
    mem.store.init("newbie")
    ws = mem.home.workspace("newbie")
    deadline = time.monotonic() + 10
    while mem.shadows.load("newbie") is None:      # the watcher takes the new workspace's baseline
        assert time.monotonic() < deadline, "the new workspace was never seen"
        w.wait_idle(0.1)
    (ws / "memory" / "first.md").write_text("- hello\n")
    assert [r.file for r in settle(mem, got, "newbie")] == ["memory/first.md"]
    shutil.rmtree(mem.home.workspace(BOT) / "memory")
    (mem.home.workspace(BOT) / "memory").mkdir()
    (mem.home.workspace(BOT) / "memory" / "again.md").write_text("- back\n")
    rows = settle(mem, got)
    assert [r.file for r in rows if r.file == "memory/again.md"] == ["memory/again.md"]


def test_many_files_changed_at_once_none_lost(watching):
    mem, _w, got = watching()
    folder = mem.home.workspace(BOT) / "memory"
    for i in range(200):
        (folder / f"t{i:03d}.md").write_text(f"{i}\n")
    settle(mem, got)
    got.rows.clear()
    for i in range(200):
        (folder / f"t{i:03d}.md").write_text(f"{i} changed\n")
    rows = settle(mem, got)
    assert sorted(r.file for r in rows) == [f"memory/t{i:03d}.md" for i in range(200)]


def test_the_watcher_stops_cleanly_and_can_restart(watching):
    mem, w, got = watching()
    w.stop()
    assert not w.running
    (mem.home.workspace(BOT) / MEMORY_FILE).write_text("- while stopped\n")
    w.start()
    assert [r.file for r in got.wait_for(lambda rows: len(rows) >= 1)] == [MEMORY_FILE]


# ----- crash safety: a failure at each step of a write and its journal row


class Injected(OSError):
    pass


STEPS = ("open", "write", "fsync", "replace", "close", "pread")


def failing_at(monkeypatch, name: str, k: int) -> dict[str, int]:
    real = getattr(os, name)
    count = {"n": 0}

    def fail(*a, **kw):
        count["n"] += 1
        if count["n"] == k:
            if name == "close":
                real(*a, **kw)
            raise Injected(f"injected failure of os.{name} call {k}")
        return real(*a, **kw)

    monkeypatch.setattr(os, name, fail)
    return count


@pytest.mark.parametrize("step", STEPS)
def test_a_failure_at_any_step_leaves_old_file_no_row_or_new_file_and_scan_catches_up(mem, ws, monkeypatch, step):
    old, new = "- old text\n", "- new text\n"
    fired = 0
    for k in range(1, 100):
        mem.store.write(BOT, MEMORY_FILE, old, PERSON)
        T.scan(mem)
        n = len(rows_of(mem))
        with mem.store.locked(BOT):        # hold the lock first: the injected failure hits the write
            count = failing_at(monkeypatch, step, k)
            try:
                mem.store.write(BOT, MEMORY_FILE, new, PERSON)
            except Injected:
                pass
            finally:
                monkeypatch.undo()
        if count["n"] < k:
            break
        fired += 1
        text = (ws / MEMORY_FILE).read_text()
        added = rows_of(mem)[: len(rows_of(mem)) - n]
        assert text in (old, new), f"torn after os.{step} #{k}"
        if text == old:
            assert added == [], f"a row for a write that did not happen (os.{step} #{k})"
        else:
            assert len(added) <= 1 and all(r.after_hash == text_hash(new) for r in added)
        caught = T.scan(mem)
        after = rows_of(mem)[: len(rows_of(mem)) - n]
        if text == new:
            assert len(after) == 1 and after[0].after_hash == text_hash(new), f"os.{step} #{k}: {after}"
            assert len(caught) == (0 if added else 1)
        else:
            assert after == []
        assert not list(ws.rglob("*.botmemory.tmp"))
    assert fired >= 1


WRITER = r"""
import sys
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor
mem = Memory.open(sys.argv[1], "2026-10-15")
i = 0
while True:
    mem.store.write("scout", "MEMORY.md", f"- version {i}\n" + "filler line\n" * 200, Actor.person())
    print(i, flush=True)
    i += 1
"""


def test_a_writer_killed_at_random_moments_leaves_a_journal_scan_can_complete(mem, ws):
    rng = random.Random(11)
    home = str(mem.home.root)
    for _ in range(6):
        p = subprocess.Popen([sys.executable, "-c", WRITER, home], stdout=subprocess.PIPE, text=True)
        assert p.stdout is not None
        p.stdout.readline()
        time.sleep(rng.uniform(0, 0.2))     # a random moment of its work, not a wait for a result
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close()
        fresh = Memory.open(home, TODAY)
        T.scan(fresh)
        text = (ws / MEMORY_FILE).read_text()
        assert text.startswith("- version ") and text.endswith("filler line\n")
        newest = fresh.journal.list(BOT, file=MEMORY_FILE, limit=1)[0]
        assert newest.after_hash == text_hash(text)
        assert T.scan(fresh) == []


def test_an_outside_row_is_dated_when_the_file_changed(base, ws):
    mem = base
    (ws / MEMORY_FILE).write_text("- edited last night\n")
    night = time.time() - 8 * 3600
    os.utime(ws / MEMORY_FILE, (night, night))
    [row] = T.scan(mem)
    assert row.at.startswith(time.strftime("%Y-%m-%dT%H:%M", time.gmtime(night)))
    assert mem.journal.find(BOT, row.id) == row


def test_a_pack_a_crash_left_unnamed_is_deleted_by_the_next_process_and_dropped_packs_at_once(base, ws):
    """A pack is written in place and named only by the index saved after it: one a crash left behind is
    deleted at the first save of a later process; one this process stops using, at that save."""
    mem = base
    packs = mem.shadows.folder(BOT) / "packs"
    stray = packs / "0000000000000000beef.pack"
    stray.write_bytes(b"half a copy")
    (ws / MEMORY_FILE).write_text("- edited once\n")
    T.scan(mem)                                    # this process listed its packs before: the stray stays
    assert stray.exists()
    fresh = Memory.open(str(mem.home.root), TODAY)
    (ws / MEMORY_FILE).write_text("- edited twice\n")
    T.scan(fresh)
    assert not stray.exists()
    for i in range(3):
        (ws / MEMORY_FILE).write_text(f"- edited {i} more\n")
        T.scan(fresh)
        assert {p.name[:-5] for p in packs.iterdir()} == set(fresh.shadows.load(BOT).packs)
