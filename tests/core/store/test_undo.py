"""Undo of a change's own lines (core/store/undo.py): the row's lines reversed against the file as it is now.

Each case of issue 28 — an older row, an outside edit since, a real conflict,
a created file, credentials, large texts, whole-file restore — through the
operations a face calls (``files.save``, ``files.rm``, ``files.undo``) on a real home.
"""
from __future__ import annotations

import json

import pytest

from botmemory.core.base.errors import Conflict, Refused
from botmemory.core.disk.paths import MEMORY_FILE
from botmemory.core.disk.safeio import text_hash
from botmemory.core.notes import update
from botmemory.core.store import files
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor

from ..conftest import BOT, entry

PERSON = Actor.person("cli")
AWS = "AKIAZ7Q4L2M9XW3RT8KP"
GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def newest(mem: Memory, bot: str = BOT):
    return mem.journal.list(bot, limit=1)[0]


def save(mem: Memory, rel: str, text: str, bot: str = BOT) -> str:
    """Save as the person would; the id of the row it wrote."""
    r = files.save(mem, bot, rel, text, PERSON)
    return r.changes[0].id


def text(mem: Memory, rel: str, bot: str = BOT) -> str | None:
    ft = mem.store.read(bot, rel)
    return ft.text if ft else None


# ----- an older row: only its own lines come back


def test_an_older_row_is_undone_by_its_own_lines_whatever_came_after(mem):
    update.remember(mem.store, BOT, "first fact", PERSON)
    regretted = update.remember(mem.store, BOT, "regretted fact", PERSON).changes[0].id
    update.remember(mem.store, BOT, "later fact", PERSON)
    r = files.undo(mem, BOT, regretted)
    now = text(mem, MEMORY_FILE)
    assert "regretted fact" not in now
    assert "first fact" in now and "later fact" in now
    assert r.changed and any("regretted fact" in line for line in r.gone)
    undo_row = newest(mem)
    assert undo_row.how == "undo" and undo_row.as_dict()["undoes"] == regretted


def test_an_edit_made_elsewhere_since_is_kept(mem, ws):
    save(mem, "memory/garden.md", "# Garden\n- tomatoes in May\n- basil\n")
    rid = save(mem, "memory/garden.md", "# Garden\n- tomatoes in May\n- basil\n- chillies\n")
    (ws / "memory" / "garden.md").write_text("# My garden\n- tomatoes in May\n- basil\n- chillies\n")  # Obsidian
    files.undo(mem, BOT, rid)
    assert text(mem, "memory/garden.md") == "# My garden\n- tomatoes in May\n- basil\n"
    rows = mem.journal.list(BOT, limit=3)
    assert [r.how for r in rows[:2]] == ["undo", "outside"]   # the outside edit was recorded first


def test_a_forget_is_undone_after_a_remember_appended_to_the_same_place(mem):
    mem.store.write(BOT, MEMORY_FILE, entry("2026-09-01", "Times are given in IST") + "\n"
                    + entry("2026-09-02", "Dentist on Friday") + "\n", PERSON)
    forgot = update.forget(mem.store, BOT, ["dentist"], PERSON).changes[0].id
    update.remember(mem.store, BOT, "a new fact", PERSON)
    files.undo(mem, BOT, forgot)
    lines = text(mem, MEMORY_FILE).splitlines()
    assert lines[0].endswith("Times are given in IST") and lines[1].endswith("Dentist on Friday")
    assert lines[2].endswith("a new fact")


def test_undoing_the_newest_row_gives_its_earlier_text_exactly(mem):
    save(mem, "memory/a.md", "one\r\ntwo\r\nno final newline")
    rid = save(mem, "memory/a.md", "one\r\nTWO\r\nno final newline\n")
    files.undo(mem, BOT, rid)
    assert text(mem, "memory/a.md") == "one\r\ntwo\r\nno final newline"


def test_an_undo_is_itself_undone_by_its_own_lines(mem):
    save(mem, "memory/a.md", "a\nb\nc\n")
    rid = save(mem, "memory/a.md", "a\nB\nc\n")
    files.undo(mem, BOT, rid)
    undo_id = newest(mem).id
    save(mem, "memory/a.md", "a\nb\nc\nd\n")
    files.undo(mem, BOT, undo_id)
    assert text(mem, "memory/a.md") == "a\nB\nc\nd\n"


# ----- a real conflict


def test_a_real_conflict_writes_nothing_and_carries_both_texts(mem):
    save(mem, "memory/a.md", "a\nb\nc\n")
    rid = save(mem, "memory/a.md", "a\nB1\nc\n")
    h = text_hash("a\nB2\nc\n")
    save(mem, "memory/a.md", "a\nB2\nc\n")
    n = len(mem.journal.list(BOT, limit=None))
    with pytest.raises(Conflict) as e:
        files.undo(mem, BOT, rid)
    assert text(mem, "memory/a.md") == "a\nB2\nc\n" and len(mem.journal.list(BOT, limit=None)) == n
    assert e.value.exit_code == 3 and e.value.text == "a\nB2\nc\n" and e.value.hash == h
    assert e.value.undone == "a\nb\nc\n"                     # the other text: the row's lines put back
    clash = e.value.plan.clashes[0]
    assert (clash.now, clash.left, clash.back) == (("B2",), ("B1",), ("b",))
    r = files.undo(mem, BOT, rid, force=True, expected_hash=h)   # the person picked the undone text
    assert r.changed and text(mem, "memory/a.md") == "a\nb\nc\n"


def test_force_is_hash_checked_against_the_text_the_person_saw(mem, ws):
    save(mem, "memory/a.md", "a\nb\nc\n")
    rid = save(mem, "memory/a.md", "a\nB1\nc\n")
    save(mem, "memory/a.md", "a\nB2\nc\n")
    seen = text_hash("a\nB2\nc\n")
    (ws / "memory" / "a.md").write_text("a\nB3\nc\n")
    with pytest.raises(Conflict):
        files.undo(mem, BOT, rid, force=True, expected_hash=seen)
    assert text(mem, "memory/a.md") == "a\nB3\nc\n"


# ----- whole-file restore: the newest row, hash-checked


def test_whole_restore_is_for_the_file_as_the_row_left_it(mem):
    save(mem, "memory/a.md", "one\n")
    older = save(mem, "memory/a.md", "one\ntwo\n")
    newer = save(mem, "memory/a.md", "one\ntwo\nthree\n")
    with pytest.raises(Conflict):
        files.undo(mem, BOT, older, whole=True)
    assert text(mem, "memory/a.md") == "one\ntwo\nthree\n"
    r = files.undo(mem, BOT, newer, whole=True)
    assert r.whole and text(mem, "memory/a.md") == "one\ntwo\n"


# ----- created files


def test_undo_of_a_created_file_removes_it(mem, ws):
    rid = save(mem, "memory/garden.md", "- tomatoes\n")
    r = files.undo(mem, BOT, rid)
    assert r.removed and not (ws / "memory" / "garden.md").exists()
    assert newest(mem).after_hash is None


def test_undo_of_a_created_file_with_lines_added_since_takes_out_only_its_own(mem, ws):
    rid = save(mem, "memory/garden.md", "- tomatoes\n")
    save(mem, "memory/garden.md", "- tomatoes\n- basil, added later\n")
    files.undo(mem, BOT, rid)
    assert text(mem, "memory/garden.md") == "- basil, added later\n"


def test_undo_of_a_file_an_agent_created_removes_it_not_empties_it(tmp_path):
    from botmemory.core.kinds import tracked
    from tests.core.agent_fixtures import hermes

    (tmp_path / "user").mkdir()
    d = hermes(tmp_path / "user")
    (d / "USER.md").unlink()
    mem = Memory.open(str(tmp_path / "bm"))
    t = tracked.track(mem.home, path=str(d), agent="hermes")
    from botmemory.core.outside.turns import scan

    scan(mem)                                         # the baseline
    (d / "USER.md").write_text("Name is Sam\n")       # Hermes creates USER.md
    [row] = scan(mem)
    assert row.before_hash is None
    files.undo(mem, t.id, row.id)
    assert not (d / "USER.md").exists()


def test_a_workspace_memory_md_created_is_emptied_never_deleted(mem, ws):
    from botmemory.core.outside.turns import scan

    scan(mem)
    (ws / MEMORY_FILE).unlink()
    scan(mem)
    (ws / MEMORY_FILE).write_text("- typed in a new file\n")
    [created] = scan(mem)
    assert created.before_hash is None
    files.undo(mem, BOT, created.id)
    assert (ws / MEMORY_FILE).read_text() == ""


# ----- credentials


def test_forget_in_a_file_that_holds_a_credential_elsewhere_comes_back(mem, ws):
    (ws / MEMORY_FILE).write_text(entry("2026-09-01", "Dentist on Friday") + "\n" + f"deploy key {AWS}\n"
                                  + entry("2026-09-02", "Likes tea") + "\n")        # pasted in Obsidian
    forgot = update.forget(mem.store, BOT, ["dentist"], PERSON).changes[0].id
    row = mem.journal.find(BOT, forgot)
    assert row.undoable
    r = files.undo(mem, BOT, forgot)
    now = text(mem, MEMORY_FILE)
    assert "Dentist on Friday" in now and "Likes tea" in now and AWS not in now
    assert r.withheld == []


def test_only_the_line_that_held_a_credential_is_left_out_and_named(tmp_path):
    from botmemory.core.kinds import tracked
    from tests.core.agent_fixtures import openclaw

    (tmp_path / "user").mkdir()
    ws = openclaw(tmp_path / "user", lines=2)
    mem = Memory.open(str(tmp_path / "bm"))
    t = tracked.track(mem.home, path=str(ws), agent="openclaw")
    (ws / "MEMORY.md").write_text(f"- keep me\n- token {GH}\n- the fence is blue\n")   # the agent wrote it
    files.save(mem, t.id, "MEMORY.md", "- keep me\n", PERSON)     # the person took two lines out
    rid = newest(mem, t.id).id
    r = files.undo(mem, t.id, rid)
    now = (ws / "MEMORY.md").read_text()
    assert now == "- keep me\n- the fence is blue\n"               # every other line came back
    assert len(r.withheld) == 1 and "token" in r.withheld[0] and "«redacted" in r.withheld[0]
    assert GH not in json.dumps(r.as_dict())


def test_an_undo_whose_only_lines_held_a_credential_is_refused_naming_them(tmp_path):
    from botmemory.core.kinds import tracked
    from tests.core.agent_fixtures import openclaw

    (tmp_path / "user").mkdir()
    ws = openclaw(tmp_path / "user", lines=2)
    mem = Memory.open(str(tmp_path / "bm"))
    t = tracked.track(mem.home, path=str(ws), agent="openclaw")
    (ws / "MEMORY.md").write_text(f"- keep me\n- token {GH}\n")
    files.save(mem, t.id, "MEMORY.md", "- keep me\n", PERSON)
    with pytest.raises(Refused, match=r"token «redacted"):
        files.undo(mem, t.id, newest(mem, t.id).id)
    assert (ws / "MEMORY.md").read_text() == "- keep me\n"


def test_a_row_written_before_undo_went_by_lines_still_brings_back_its_other_lines(mem, ws):
    save(mem, "memory/a.md", "x\n")
    save(mem, "memory/a.md", "- keep\n- key «redacted 20 chars»\n- fact\n")
    save(mem, "memory/a.md", "- keep\n")
    row = newest(mem).as_dict()
    for k in ("edits", "secret_lines"):       # as rows were written before this change
        row.pop(k, None)
    row.update(undoable=False, reason="its earlier text held a credential: the journal keeps it redacted, and "
               "restoring it would write the redaction marker into the bot's memory")
    path = mem.journal.active(BOT)
    lines = path.read_bytes().splitlines()
    lines[-1] = json.dumps(row, ensure_ascii=False).encode()
    path.write_bytes(b"\n".join(lines) + b"\n")
    r = files.undo(mem, BOT, row["id"])
    assert text(mem, "memory/a.md") == "- keep\n- fact\n" and r.withheld == ["- key «redacted 20 chars»"]


# ----- large texts


def test_a_deleted_topic_over_1_mb_comes_back(mem, ws):
    big = "".join(f"- line {i} of a long topic that goes on and on\n" for i in range(40_000))
    assert len(big) > 1024 * 1024
    save(mem, "memory/big.md", big)
    files.rm(mem, BOT, "memory/big.md", PERSON)
    row = newest(mem)
    assert row.undoable and row.after_hash is None
    files.undo(mem, BOT, row.id)
    assert (ws / "memory" / "big.md").read_text() == big


def test_the_limit_is_a_setting_and_a_row_past_it_says_it_cannot_be_undone(mem, ws):
    (mem.home.root / "config.json").write_text(json.dumps({"memory": {"journalKeepMB": 0.5}}))
    big = "".join(f"- line {i} of a long topic that goes on and on\n" for i in range(20_000))
    assert len(big) > 512 * 1024
    save(mem, "memory/big.md", big)
    files.rm(mem, BOT, "memory/big.md", PERSON)
    row = newest(mem)
    assert not row.undoable and row.earlier_text is None and "journalKeepMB" in row.reason
    with pytest.raises(Refused, match="journalKeepMB"):
        files.undo(mem, BOT, row.id)


def test_the_journal_segments_keep_large_texts_compressed(mem):
    big = "".join(f"- line {i} of a long topic that goes on and on\n" for i in range(60_000))
    save(mem, "memory/big.md", big)
    save(mem, "memory/big.md", big + "- one more\n")
    assert mem.journal.segments(BOT)                         # past 2 MB the active segment was closed
    assert mem.journal.bytes_on_disk(BOT) < len(big) // 4   # xz keeps the texts small
    files.undo(mem, BOT, newest(mem).id)
    assert text(mem, "memory/big.md") == big


def test_a_row_written_before_rows_kept_their_lines_finds_what_it_left_in_the_next_row(mem):
    save(mem, "memory/a.md", "- one\n")
    old = save(mem, "memory/a.md", "- one\n- two\n")
    save(mem, "memory/a.md", "- one\n- two\n- three\n")
    path = mem.journal.active(BOT)
    rows = [json.loads(line) for line in path.read_bytes().splitlines()]
    for r in rows:
        r.pop("edits", None)            # every row as written before this change
    path.write_bytes(b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows))
    files.undo(mem, BOT, old)           # the text it left is the next row's earlier text
    assert text(mem, "memory/a.md") == "- one\n- three\n"
