"""The journal: rows, storage (segments, torn lines, two appenders), listing, grep, redaction and undo."""
from __future__ import annotations

import difflib
import json
import lzma
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.base.errors import BadInput, Conflict, Refused
from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.faces.cli import main
from botmemory.core.store import files
from botmemory.core.store import journal as J
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor
from tests.conftest import examples

from ..conftest import BOT

AWS = "AKIAZ7Q4L2M9XW3RT8KP"
PERSON = Actor.person("cli")


def newest(mem: Memory, **kw) -> J.Row:
    return mem.journal.list(BOT, limit=1, **kw)[0]


def save(mem: Memory, rel: str, text: str, actor: Actor = PERSON) -> None:
    mem.store.write(BOT, rel, text, actor)


def cli(capsys, mem: Memory, *args: str) -> tuple[int, str, str]:
    code = main(["--root", str(mem.home.root), *args])
    out, err = capsys.readouterr()
    return code, out, err


# ----- rows


def test_a_write_is_one_row_after_the_file_is_replaced(mem, ws):
    seen = []
    mem.store.listeners.append(lambda cs: seen.extend((ws / c.file).read_text() for c in cs))
    save(mem, MEMORY_FILE, "one\n")
    row = newest(mem)
    assert (row.who, row.how, row.chat, row.file) == ("person", "cli", None, MEMORY_FILE)
    assert row.after_hash == mem.store.read(BOT, MEMORY_FILE).hash
    assert row.earlier_text == "" and row.undoable and row.reason is None
    assert "+one" in row.diff
    assert seen == ["one\n"]          # listeners run once the new file is in place


def test_who_how_and_chat_come_from_the_actor(mem):
    save(mem, MEMORY_FILE, "x\n", Actor.bot("Plans"))
    save(mem, "memory/garden.md", "tomatoes\n", Actor("upkeep", "tidy-up"))
    rows = mem.journal.list(BOT)
    assert [(r.who, r.how, r.chat, r.file) for r in rows] == [
        ("upkeep", "tidy-up", None, "memory/garden.md"), ("bot", "task", "Plans", MEMORY_FILE)]
    assert rows[0].before_hash is None and rows[0].earlier_text is None


def test_row_ids_are_the_change_ids(mem):
    change = mem.store.write(BOT, MEMORY_FILE, "a\n", PERSON)
    assert newest(mem).id == change.id


def test_rows_are_one_json_object_a_line_outside_the_workspace(mem, ws):
    save(mem, MEMORY_FILE, "a\n")
    save(mem, MEMORY_FILE, "b\n")
    lines = mem.journal.active(BOT).read_bytes().splitlines()
    assert len(lines) == 2
    assert set(json.loads(lines[0])) >= {"id", "at", "bot", "who", "how", "chat", "file", "before_hash",
                                         "after_hash", "diff", "earlier_text", "undoable", "reason"}
    assert mem.journal.active(BOT) == mem.home.root / "memory-journal" / f"{BOT}.ndjson"
    assert not str(mem.journal.active(BOT)).startswith(str(ws))
    assert oct(mem.journal.active(BOT).stat().st_mode & 0o777) == "0o600"
    assert json.loads(lines[0])["at"].endswith("Z")


# ----- the diff


def test_the_diff_is_a_short_unified_diff_with_the_whole_files_line_numbers():
    before = "".join(f"line {i}\n" for i in range(1000))
    after = before.replace("line 500\n", "line five hundred\n")
    d = J.make_diff(MEMORY_FILE, before, after)
    expected = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                            f"a/{MEMORY_FILE}", f"b/{MEMORY_FILE}", n=1))
    assert d == expected
    assert "@@ -500,3 +500,3 @@" in d


def test_a_diff_is_at_most_4000_characters():
    d = J.make_diff("memory/big.md", None, "".join(f"a long line number {i}\n" for i in range(5000)))
    assert len(d) <= 4000 and "diff cut here" in d
    huge = J.make_diff("memory/big.md", "x\n" * 30000, "y\n" * 30000)
    assert len(huge) <= 4000


def test_a_missing_final_newline_is_shown():
    d = J.make_diff(MEMORY_FILE, "a\n", "a\nb")
    assert "+b\n\\ No newline at end of file\n" in d


# ----- listing


def test_newest_first_with_limit_and_file(mem):
    for i in range(5):
        save(mem, MEMORY_FILE, f"v{i}\n")
        save(mem, "memory/t.md", f"t{i}\n")
    rows = mem.journal.list(BOT, limit=3)
    assert [r.file for r in rows] == ["memory/t.md", MEMORY_FILE, "memory/t.md"]
    assert "+t4" in rows[0].diff
    only = mem.journal.list(BOT, limit=None, file=MEMORY_FILE)
    assert len(only) == 5 and all(r.file == MEMORY_FILE for r in only)
    assert [r.id for r in mem.journal.list(BOT, limit=None)] == sorted(r.id for r in mem.journal.list(BOT, limit=None))[::-1]


def test_grep_finds_when_a_fact_appeared_and_disappeared(mem):
    save(mem, MEMORY_FILE, "- lives in Pune\n- likes tea\n")
    save(mem, MEMORY_FILE, "- lives in Pune\n- likes tea\n- short replies\n")   # Pune only as context
    save(mem, MEMORY_FILE, "- likes tea\n- short replies\n")
    rows = mem.journal.list(BOT, grep=["pune"])
    assert len(rows) == 2
    assert "-- lives in Pune" in rows[0].diff and "+- lives in Pune" in rows[1].diff
    assert mem.journal.list(BOT, grep=["lives", "pune"]) == rows
    assert mem.journal.list(BOT, grep=["pun"]) == []            # whole words
    assert len(mem.journal.list(BOT, grep=["short", "replies"])) == 1


def test_grep_wants_every_word_in_one_changed_line_as_search_wants_them_in_one_note(mem):
    save(mem, MEMORY_FILE, "- lives in Pune\n- likes tea\n")
    assert mem.journal.list(BOT, grep=["pune", "tea"]) == []        # two lines, two notes
    assert len(mem.journal.list(BOT, grep=["likes", "tea"])) == 1


def test_cli_journal(capsys, mem):
    save(mem, MEMORY_FILE, "- lives in Pune\n")
    save(mem, "memory/garden.md", "tomatoes\n")
    code, out, _ = cli(capsys, mem, "journal", BOT, "--json", "--limit", "5")
    assert code == 0
    rows = json.loads(out)
    assert [r["file"] for r in rows] == ["memory/garden.md", MEMORY_FILE]
    code, out, _ = cli(capsys, mem, "journal", BOT, "--grep", "Pune", "--json")
    assert [r["file"] for r in json.loads(out)] == [MEMORY_FILE]
    code, out, _ = cli(capsys, mem, "journal", BOT, "--file", "memory/garden.md")
    assert code == 0 and out.count("\n") == 1 and "memory/garden.md" in out and "created" in out
    code, _, err = cli(capsys, mem, "journal", BOT, "--file", "../etc/passwd")
    assert code == 2 and "bad path" in err
    code, _, err = cli(capsys, mem, "journal", "nobody")
    assert code == 2 and "unknown bot" in err


# ----- storage


def test_a_torn_last_line_is_skipped_and_the_next_row_starts_fresh(mem):
    save(mem, MEMORY_FILE, "a\n")
    path = mem.journal.active(BOT)
    whole = path.read_bytes()
    with open(path, "ab") as f:
        f.write(whole[: len(whole) // 2])     # a crash halfway through the next row
    assert [r.diff for r in mem.journal.list(BOT)] == [newest(mem).diff]
    save(mem, MEMORY_FILE, "b\n")
    rows = mem.journal.list(BOT)
    assert len(rows) == 2 and "+b" in rows[0].diff
    assert len(path.read_bytes().splitlines()) == 3   # the torn line stays on a line of its own


def test_full_segments_are_compressed_and_every_row_stays_readable_and_undoable(mem, ws, monkeypatch):
    monkeypatch.setattr(J, "ACTIVE_MAX_BYTES", 20_000)
    base = "".join(f"- 2026-10-{1 + i % 28:02d} · from cli · fact number {i}\n" for i in range(60))
    texts = []
    for i in range(120):
        text = base + f"- the newest fact {i}\n"
        texts.append(text)
        save(mem, MEMORY_FILE, text)
    segs = mem.journal.segments(BOT)
    assert len(segs) >= 3 and all(s.path.name.endswith(".ndjson.xz") for s in segs)
    assert all(s.first is not None and s.first <= s.last for s in segs)
    rows = mem.journal.list(BOT, limit=None)
    assert len(rows) == 120
    assert [r.earlier_text for r in rows] == ([texts[i - 1] for i in range(119, 0, -1)] + [""])
    assert all(r.undoable for r in rows)
    assert mem.journal.bytes_on_disk(BOT) < sum(len(r.line()) for r in rows) / 5
    old = rows[100]                  # deep in a closed segment
    with pytest.raises(Conflict):    # its line changed since: undone only when the person picks it
        mem.undo(BOT, old.id)
    files.undo(mem, BOT, old.id, force=True)
    assert (ws / MEMORY_FILE).read_text() == old.earlier_text


def test_a_rotation_cut_short_is_still_read_and_finished_later(mem, monkeypatch):
    monkeypatch.setattr(J, "ACTIVE_MAX_BYTES", 5_000)
    monkeypatch.setattr(J.Journal, "_compress", lambda self, seg: None)   # the crash: renamed, not compressed
    for i in range(20):
        save(mem, MEMORY_FILE, f"{i}\n" + "x" * 500 + "\n")
    plain = [s for s in mem.journal.segments(BOT) if not s.path.name.endswith(".xz")]
    assert plain
    assert len(mem.journal.list(BOT, limit=None)) == 20
    monkeypatch.undo()
    monkeypatch.setattr(J, "ACTIVE_MAX_BYTES", 5_000)
    for i in range(20, 30):
        save(mem, MEMORY_FILE, f"{i}\n" + "x" * 500 + "\n")
    assert all(s.path.name.endswith(".xz") for s in mem.journal.segments(BOT))
    assert len(mem.journal.list(BOT, limit=None)) == 30


def test_a_rotation_while_reading_never_hides_or_repeats_a_row(mem, monkeypatch):
    monkeypatch.setattr(J, "ACTIVE_MAX_BYTES", 4_000)
    for i in range(10):
        save(mem, MEMORY_FILE, f"{i}\n" + "y" * 300 + "\n")
    it = mem.journal.rows(BOT)
    first = next(it)
    for i in range(10, 40):              # rotations happen while the reader holds the old active file
        save(mem, MEMORY_FILE, f"{i}\n" + "y" * 300 + "\n")
    rest = [first, *it]
    ids = [r.id for r in rest]
    assert len(ids) == len(set(ids))
    assert len(rest) >= 10


def test_the_newest_rows_come_from_the_end_without_opening_closed_segments(mem, monkeypatch):
    monkeypatch.setattr(J, "ACTIVE_MAX_BYTES", 3_000)
    i = 0

    def active_rows() -> int:
        path = mem.journal.active(BOT)
        return len(path.read_bytes().splitlines()) if path.exists() else 0

    while not mem.journal.segments(BOT) or active_rows() < 3:
        i += 1
        save(mem, MEMORY_FILE, f"{i}\n" + "z" * 200 + "\n")

    def refuse(self):
        raise AssertionError("a closed segment was read")

    monkeypatch.setattr(J.Segment, "read", refuse)
    rows = mem.journal.list(BOT, limit=3)
    assert len(rows) == 3 and f"+{i}" in rows[0].diff


def test_undo_opens_only_the_segment_that_holds_the_row(mem, monkeypatch):
    monkeypatch.setattr(J, "ACTIVE_MAX_BYTES", 3_000)
    ids = []
    for i in range(60):
        ids.append(mem.store.write(BOT, MEMORY_FILE, f"{i}\n" + "w" * 200 + "\n", PERSON).id)
    opened = []
    real = J.Segment.read
    monkeypatch.setattr(J.Segment, "read", lambda self: opened.append(self.seq) or real(self))
    assert mem.journal.find(BOT, ids[0]).id == ids[0]
    assert len(opened) <= 2 < len(mem.journal.segments(BOT))


WRITER = r"""
import sys
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor
mem = Memory.open(sys.argv[1], "2026-10-15")
tag = sys.argv[2]
for i in range(int(sys.argv[3])):
    mem.store.write("scout", f"memory/{tag}.md", f"{tag} {i}\n" + tag * 20000 + "\n", Actor.person())
"""


def test_two_processes_appending_never_interleave(mem):
    n = 40
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(mem.home.root), tag, str(n)])
             for tag in ("a", "b")]
    for p in procs:
        assert p.wait(timeout=120) == 0
    lines = mem.journal.active(BOT).read_bytes().splitlines()
    closed = [ln for s in mem.journal.segments(BOT) for ln in s.read().splitlines()]
    rows = [J.Row.from_dict(json.loads(ln)) for ln in lines + closed]
    assert all(r is not None for r in rows)
    assert sorted(r.file for r in rows) == ["memory/a.md"] * n + ["memory/b.md"] * n


# ----- redaction and the rows that cannot be undone


def test_nothing_stored_outside_the_workspace_holds_a_secret(mem, ws):
    (ws / MEMORY_FILE).write_text(f"pasted key {AWS}\n")      # typed in another editor
    save(mem, MEMORY_FILE, "clean now\n")
    row = newest(mem)
    assert AWS not in row.earlier_text and "«redacted 20 chars»" in row.earlier_text
    assert AWS not in row.diff
    assert row.undoable and row.secret_lines == (0,)   # undone by lines: that line never comes back
    blob = b"".join(p.read_bytes() for p in mem.home.root.rglob("*") if p.is_file() and ws not in p.parents)
    assert AWS.encode() not in blob


def test_a_row_keeps_the_real_files_hash(mem, ws):
    real = f"pasted key {AWS}\n"
    (ws / MEMORY_FILE).write_text(real)
    before_hash = mem.store.read(BOT, MEMORY_FILE).hash
    save(mem, MEMORY_FILE, "clean now\n")
    assert newest(mem).before_hash == before_hash


def test_undo_of_a_row_with_a_credential_is_refused_with_exit_4(capsys, mem, ws):
    (ws / MEMORY_FILE).write_text(f"pasted key {AWS}\n")
    save(mem, MEMORY_FILE, "clean now\n")
    row = newest(mem)
    with pytest.raises(Refused):
        mem.undo(BOT, row.id)
    code, _, err = cli(capsys, mem, "undo", BOT, row.id)
    assert code == 4 and "credential" in err
    assert (ws / MEMORY_FILE).read_text() == "clean now\n"


def test_an_earlier_text_over_the_limit_is_not_kept(capsys, mem, ws):
    (mem.home.root / "config.json").write_text('{"memory": {"journalKeepMB": 1}}')
    big = ("- a line of notes that goes on and on\n" * 30000)
    assert len(big) > 1024 * 1024
    save(mem, "memory/big.md", big)
    save(mem, "memory/big.md", "small now\n")
    row = newest(mem)
    assert row.earlier_text is None and not row.undoable and "too large" in row.reason
    assert len(row.diff) <= 4000
    code, _, err = cli(capsys, mem, "undo", BOT, row.id)
    assert code == 4 and "too large" in err


# ----- undo


def test_undo_over_a_later_edit_of_its_line_is_a_conflict_until_forced_and_is_itself_undoable(mem, ws):
    save(mem, MEMORY_FILE, "one\n")
    save(mem, MEMORY_FILE, "two\n")
    target = newest(mem)
    (ws / MEMORY_FILE).write_text("three, typed elsewhere\n")
    with pytest.raises(Conflict):
        mem.undo(BOT, target.id)
    assert (ws / MEMORY_FILE).read_text() == "three, typed elsewhere\n"   # nothing written
    change = files.undo(mem, BOT, target.id, force=True).changes[0]
    assert (ws / MEMORY_FILE).read_text() == "one\n"
    row = newest(mem)
    assert row.id == change.id and (row.who, row.how) == ("person", "undo")
    assert row.earlier_text == "three, typed elsewhere\n"      # nothing is lost
    mem.undo(BOT, row.id)
    assert (ws / MEMORY_FILE).read_text() == "three, typed elsewhere\n"


def test_undo_of_a_created_topic_deletes_it_and_of_a_deletion_recreates_it(mem, ws):
    save(mem, "memory/garden.md", "tomatoes\n")
    created = newest(mem)
    mem.undo(BOT, created.id)
    assert not (ws / "memory" / "garden.md").exists()
    deleted = newest(mem)
    assert deleted.after_hash is None and deleted.earlier_text == "tomatoes\n"
    mem.undo(BOT, deleted.id)
    assert (ws / "memory" / "garden.md").read_text() == "tomatoes\n"


def test_undo_of_memory_md_created_empties_it(mem, ws):
    (ws / MEMORY_FILE).unlink()
    save(mem, MEMORY_FILE, "fresh\n")
    row = newest(mem)
    assert row.before_hash is None
    mem.undo(BOT, row.id)
    assert (ws / MEMORY_FILE).read_text() == ""


def test_undo_when_the_file_already_holds_the_text_changes_nothing(mem, ws):
    save(mem, MEMORY_FILE, "one\n")
    save(mem, MEMORY_FILE, "two\n")
    row = newest(mem)
    save(mem, MEMORY_FILE, "one\n")
    n = len(mem.journal.list(BOT, limit=None))
    assert mem.undo(BOT, row.id) is None
    assert len(mem.journal.list(BOT, limit=None)) == n


def test_undo_of_a_daily_log_row_is_allowed(mem, ws):
    mem.store.write(BOT, "memory/log/2026-10-15.md", "- 10:00 · did things\n", Actor.bot("Plans"), allow_log=True)
    mem.undo(BOT, newest(mem).id)
    assert not (ws / "memory/log/2026-10-15.md").exists()


def test_undo_errors(capsys, mem):
    save(mem, MEMORY_FILE, "one\n")
    with pytest.raises(BadInput):
        mem.undo(BOT, "0123456789ab-abcdef")
    code, _, err = cli(capsys, mem, "undo", BOT, "not-a-row")
    assert code == 2 and "bad row id" in err
    code, _, err = cli(capsys, mem, "undo", BOT, "0123456789ab-abcdef")
    assert code == 2 and "no row" in err
    code, out, _ = cli(capsys, mem, "undo", BOT, newest(mem).id, "--json")
    assert code == 0 and json.loads(out)["changed"] is True


# ----- journaling never fails a write


def test_a_row_that_cannot_be_written_is_logged_and_dropped(mem, ws, monkeypatch, caplog):
    def broken(self, bot, rows):
        raise OSError("disk full")

    monkeypatch.setattr(J.Journal, "append", broken)
    change = mem.store.write(BOT, MEMORY_FILE, "still saved\n", PERSON)
    assert change is not None and (ws / MEMORY_FILE).read_text() == "still saved\n"
    assert "could not write 1 row(s) to the journal of scout (disk full)" in caplog.text
    assert "Traceback" not in caplog.text
    monkeypatch.undo()
    assert mem.journal.list(BOT) == []
    from botmemory.core.outside.turns import scan
    [row] = scan(mem)                 # the row the journal missed is written at the next start, as the write's own
    assert mem.journal.list(BOT) == [row]
    assert (row.id, row.after_hash, row.who, row.how) == (change.id, change.after_hash, "person", "cli")


def test_bytes_on_disk_counts_every_segment(mem, monkeypatch):
    monkeypatch.setattr(J, "ACTIVE_MAX_BYTES", 3_000)
    for i in range(30):
        save(mem, MEMORY_FILE, f"{i}\n" + "q" * 200 + "\n")
    total = sum(p.stat().st_size for p in mem.home.journal_dir.rglob("*") if p.is_file())
    assert mem.journal.bytes_on_disk(BOT) == total
    data = b"".join(lzma.decompress(s.path.read_bytes()) for s in mem.journal.segments(BOT))
    assert data.count(b"\n") + len(mem.journal.active(BOT).read_bytes().splitlines()) == 30


def apply_diff(before: str, diff: str) -> str:
    """Apply a unified diff made by make_diff (a test's own small patch tool)."""
    src = before.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    lines = diff.splitlines(keepends=True)[2:]
    i = 0
    while i < len(lines):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", lines[i])
        assert m, lines[i]
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out += src[pos:start]
        pos = start
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, text = lines[i][0], lines[i][1:]
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if nxt.startswith("\\ No newline"):
                text = text[:-1]
                i += 1
            if tag in " -":
                assert src[pos] == text, (src[pos], text)
                pos += 1
            if tag in " +":
                out.append(text)
            i += 1
    return "".join(out + src[pos:])

_lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "- fact\n", "\n", "x", "---\n", "-- x\n", "++ y\n", "+++\n"]),
                  max_size=30).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(_lines, _lines)
def test_the_diff_turns_the_earlier_text_into_the_new_one(before, after):
    d = J.make_diff(MEMORY_FILE, before, after)
    assert apply_diff(before, d) == after


@settings(max_examples=examples(300), deadline=None)
@given(_lines, _lines)
def test_the_counts_are_the_diffs_added_and_removed_lines(before, after):
    d = J.build_diff(MEMORY_FILE, before, after)
    assert J.diff_counts(d.text) == (d.added, d.removed)
    assert d.added - d.removed == len(after.splitlines()) - len(before.splitlines())
    assert d.words is None   # not cut


FRONT = "---\ntitle: Trips\naliases: [travel]\n---\n"


def test_lines_starting_with_dashes_or_pluses_are_changed_lines_not_headers(mem):
    save(mem, "memory/trips.md", FRONT + "-- a signature\n++ doubled\n- 2024-05-01 · Lisbon\n")
    created = newest(mem)
    assert created.counts() == (7, 0)
    assert "---" in list(created.changed_lines()) and "-- a signature" in list(created.changed_lines())
    save(mem, "memory/trips.md", "- 2024-05-01 · Lisbon\n")
    row = newest(mem)
    assert row.counts() == (0, 6)
    assert "----\n" in row.diff  # the removed frontmatter line
    assert [r.id for r in mem.journal.list(BOT, grep=["signature"])] == [row.id, created.id]
    assert [r.id for r in mem.journal.list(BOT, grep=["doubled"])] == [row.id, created.id]
    mem.store.delete(BOT, "memory/trips.md", PERSON)
    gone = newest(mem)
    assert gone.counts() == (0, 1)
    assert "-- 2024-05-01 · Lisbon" not in gone.summary() and "deleted" in gone.summary()
    assert J.diff_counts(gone.diff) == (0, 1)


def test_a_huge_change_keeps_its_true_counts_beside_a_cut_diff(mem):
    before = "".join(f"- 2024-01-01 · note number {i}\n" for i in range(60_000))
    after = before.replace("note number 59990\n", "note about Zanzibar\n")
    row = J.make_row(change(before, "".join(f"line {i}\n" for i in range(60_000))))
    assert "diff cut here" in row.diff and len(row.diff) <= J.DIFF_MAX_CHARS
    assert row.counts() == (60_000, 60_000)
    assert "+60000 -60000" in row.summary()
    mem.journal.append(BOT, [row])
    back = newest(mem)
    assert back.counts() == (60_000, 60_000)
    tail = J.make_row(change(before, after))
    assert tail.counts() == (1, 1)
    big = "".join(f"- 2024-01-01 · filler line {i} for the count\n" for i in range(60_000))
    grown = J.make_row(change(before, big + "- 2024-02-02 · the Zanzibar trip is booked\n"))
    assert "Zanzibar" not in grown.diff   # beyond the cut
    mem.journal.append(BOT, [grown])
    assert [r.id for r in mem.journal.list(BOT, grep=["zanzibar", "booked"])] == [grown.id]
    assert [r.id for r in mem.journal.list(BOT, grep=["note", "number"])] == [grown.id, row.id]
    assert mem.journal.list(BOT, grep=["Zanzibar", "elephant"]) == []


def test_the_grep_filter_of_a_cut_diff_is_bounded():
    before = "".join(f"word{i} other{i} more{i}\n" for i in range(100_000))
    row = J.make_row(change(before, ""))
    kept = len(json.dumps(row.earlier_text, ensure_ascii=False))   # the earlier text, kept for undo
    assert len(row.line()) - kept < len(row.diff) + 4 * J.WORDS_FILTER_MAX_BYTES // 3 + 1000
    assert J.RowFilter(words=("word99999",)).matches(row)


def test_rows_without_counts_still_read():
    d = {"id": "0192f3a4b5c6-1a2b3c", "at": "2024-01-01T00:00:00.000Z", "bot": BOT, "who": "person", "how": "cli",
         "chat": None, "file": MEMORY_FILE, "before_hash": "a", "after_hash": "b",
         "diff": "--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1 +1 @@\n-x\n+y\n", "earlier_text": "x\n",
         "undoable": True, "reason": None}
    row = J.Row.from_dict(d)
    assert row is not None and row.counts() == (1, 1) and "added" not in row.as_dict()
    assert J.Row.from_dict({**d, "added": True}) is None


def change(before: str | None, after: str | None, file: str = MEMORY_FILE):
    from datetime import UTC, datetime

    from botmemory.core.disk.safeio import text_hash
    from botmemory.core.store.writer import Change, new_change_id

    at = datetime.now(UTC)
    return Change(BOT, file, before, text_hash(before) if before is not None else None, after,
                  text_hash(after) if after is not None else None, PERSON, at, id=new_change_id(at))


def test_row_filter_by_who_file_and_words(mem):
    from botmemory.core.store.journal import RowFilter
    from botmemory.core.store.writer import Actor

    mem.store.write(BOT, "memory/a.md", "- Acme pays late\n", Actor.person())
    mem.store.write(BOT, "memory/b.md", "- Globex pays on time\n", Actor.bot("Plans"))
    assert [r.file for r in mem.journal.list(BOT, who="bot")] == ["memory/b.md"]
    assert [r.file for r in mem.journal.list(BOT, grep=["pays"])] == ["memory/b.md", "memory/a.md"]
    assert [r.file for r in mem.journal.list(BOT, grep=["acme", "late"])] == ["memory/a.md"]
    assert mem.journal.list(BOT, grep=["pay"]) == []  # whole words only
    assert [r.file for r in mem.journal.matching(BOT, RowFilter(file="memory/a.md", who="person"))] == ["memory/a.md"]


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab_1 \t\n-.,'é\u00a0\u2028·«»\u0660\u00b2x\u200bß")), max_size=40))
def test_the_word_filters_words_are_the_regex_words(text):
    from botmemory.core.text.diff import _words

    assert _words(text) == set(re.findall(r"\w+", text))


def test_deleting_a_topic_with_frontmatter_lists_every_line(mem):
    text = FRONT + "-- signed\n++ kept\n- 2024-05-01 · Lisbon\n"
    save(mem, "memory/trips.md", text)
    mem.store.delete(BOT, "memory/trips.md", PERSON)
    row = newest(mem)
    assert row.counts() == (0, 7)
    assert [ln for ln in row.changed_lines()] == text.splitlines()


def test_a_row_says_how_many_entries_it_moved_to_the_archive(mem):
    """The app's "moved to the archive" notice reads this (it no longer counts diff lines itself)."""
    from botmemory.core.disk.paths import ARCHIVE_FILE
    from botmemory.core.notes import update

    from ..conftest import entry

    lines = ["Hand-written"] + [entry(f"2025-0{1 + i // 28}-{1 + i % 28:02d}", f"fact {i}") for i in range(199)]
    save(mem, MEMORY_FILE, "\n".join(lines) + "\n")
    save(mem, ARCHIVE_FILE, "# Archive\n- a line · moved 2025-01-01\n")
    r = update.remember(mem.store, BOT, "one more fact", Actor.bot("Plans"))
    assert r.moved_count == 1
    arch, memory = mem.journal.list(BOT, limit=2, file=ARCHIVE_FILE)[0], newest(mem, file=MEMORY_FILE)
    assert arch.archived() == 1 and memory.archived() == 0
    undone = mem.undo(BOT, arch.id)
    assert undone is not None and newest(mem).archived() == 0     # an undo moves nothing


def test_the_files_a_journal_names_are_read_without_parsing_rows_and_agree_with_its_rows(mem, monkeypatch):
    """``files_named`` (the journal view's file filter) reads each line's file alone; it lists exactly the
    files of the newest rows, across closed segments, for names in other scripts (escaped as \\u in a line
    written by hand), and for a chat whose title holds the very text it looks for."""
    monkeypatch.setattr(J, "ACTIVE_MAX_BYTES", 2_000)   # a segment closed every few rows
    names = ["memory/two words.md", "MEMORY.md", "memory/путь-日本.md", "memory/plain.md"]
    tricky = Actor.bot('x,"file":"memory/not-this.md"', "task")
    for i in range(30):
        save(mem, names[i % len(names)], f"text {i}\n", tricky if i % 3 == 0 else PERSON)
    mem.journal.append(BOT, [])   # nothing: no row
    assert J.Journal(mem.home).segments(BOT), "the test wants closed segments"
    for limit in (1, 3, 7, 30, 100):
        want = {r.file for r in mem.journal.list(BOT, limit=limit)}
        assert mem.journal.files_named(BOT, limit) == want, limit
    assert "memory/not-this.md" not in mem.journal.files_named(BOT, 100)
    with open(mem.journal.active(BOT), "ab") as f:   # a line written otherwise: read whole
        f.write(json.dumps({**newest(mem).as_dict(), "id": "01a2351cf69b-9c96dc", "file": "memory/by hand.md"},
                           separators=(", ", ": ")).encode() + b"\n")
    assert "memory/by hand.md" in mem.journal.files_named(BOT, 5)
