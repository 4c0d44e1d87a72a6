"""A sync round between two homes over a real bare repository (file://): what comes in, what goes out."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from botmemory.core.base.errors import Refused
from botmemory.core.ops import operations, sync
from botmemory.core.store.writer import Actor
from botmemory.core.sync.engine import Engine, Rewritten
from botmemory.core.sync.folder import PlainFolder
from botmemory.core.sync.state import FolderSpec, Paths, read_settings, write_settings

from .conftest import BOT, Computer, bare, remote_log


def test_a_note_comes_in_as_a_sync_row_naming_the_other_computer_and_who_wrote_it(two):
    a, b = two
    a.sync()
    b.sync()
    operations.remember(a.mem, BOT, "The staging server moved to Frankfurt", Actor.bot("Deploys"))
    out = a.sync().folders[0]
    assert (out.went_out, out.came_in) == (1, 0)
    got = b.sync().folders[0]
    assert got.came_in == 1 and "The staging server moved to Frankfurt" in b.text()
    row = b.rows()[0]
    assert (row.how, row.who, row.host, row.chat) == ("sync", "bot", "laptop", "Deploys")
    assert row.as_dict()["host"] == "laptop"
    assert "from laptop" in row.summary()


def test_one_commit_per_row_authored_by_who_the_row_names_with_its_summary(two, remote):
    a, b = two
    a.sync()
    b.sync()
    a.remember("Prefers window seats")
    operations.remember(a.mem, BOT, "Invoices go out on Fridays", Actor.bot("Billing"))
    a.save("memory/travel.md", "# Travel\n- Aisle on short flights\n")
    a.sync()
    log = remote_log(remote)
    assert log[0].startswith("person|person@laptop|scout: memory/travel.md created")
    assert log[1].startswith("bot|bot@laptop|scout: MEMORY.md +1 -0: Invoices go out on Fridays")
    assert log[2].startswith("person|person@laptop|scout: MEMORY.md +1 -0: Prefers window seats")
    body = subprocess.run(["git", "--git-dir", str(remote), "log", "-1", "--format=%B", "main~1"],
                          capture_output=True, text=True, check=True).stdout
    assert "Botmemory-Who: bot" in body and "Botmemory-Chat: Billing" in body and "Botmemory-Host: laptop" in body
    # ... and come in on the other computer as one row each, in order, with who each one named
    b.sync()
    rows = [r for r in b.rows() if r.how == "sync"]
    assert [(r.file, r.who, r.chat) for r in reversed(rows)] == [
        ("MEMORY.md", "person", None), ("MEMORY.md", "bot", "Billing"), ("memory/travel.md", "person", None)]
    assert b.files() == a.files()


def test_a_row_that_came_in_is_undone_like_any_row_and_the_undo_goes_back_out(two):
    a, b = two
    a.sync()
    b.sync()
    a.remember("The office moved to Pune")
    a.sync()
    b.sync()
    came = next(r for r in b.rows() if r.how == "sync")
    operations.undo(b.mem, BOT, came.id)
    assert "Pune" not in b.text()
    b.sync()
    a.sync()
    assert "Pune" not in a.text() and a.text() == b.text()


def test_notes_written_on_both_computers_meanwhile_are_all_kept_and_converge(two):
    a, b = two
    a.sync()
    b.sync()
    a.remember("Prefers window seats")
    b.remember("Allergic to peanuts")
    a.sync()
    merged = b.sync().folders[0]
    assert merged.came_in == 1 and merged.went_out == 1 and merged.conflicts == 0
    a.sync()
    for c in (a, b):
        assert "Prefers window seats" in c.text() and "Allergic to peanuts" in c.text()
    assert a.text() == b.text()
    assert a.sync().folders[0].came_in == 0 and b.sync().folders[0].came_in == 0   # nothing left to do


def test_the_same_entry_changed_on_both_keeps_both_newer_first_and_a_conflict_to_resolve(two):
    a, b = two
    a.save("MEMORY.md", "- 2026-10-01 · from cli · The office is in Pune\n- 2026-10-02 · from cli · Likes tea\n")
    a.sync()
    b.sync()
    a.save("MEMORY.md", a.text().replace("in Pune", "in Mumbai"))
    b.save("MEMORY.md", b.text().replace("in Pune", "in Delhi"))   # the newer change
    a.sync()
    got = b.sync().folders[0]
    assert got.conflicts == 1 and got.new_conflicts == 1
    lines = b.text().splitlines()
    assert lines[0].endswith("in Delhi") and lines[1].endswith("in Mumbai") and lines[2].endswith("Likes tea")
    status = sync.status(b.mem).folders[0]
    assert [c["path"] for c in status.conflicts] == ["MEMORY.md"]
    a.sync()
    assert a.text() == b.text()
    assert [c["path"] for c in sync.status(a.mem).folders[0].conflicts] == ["MEMORY.md"]  # said on both
    sync.resolve(b.mem, BOT, "MEMORY.md", "- 2026-10-03 · from cli · The office is in Delhi\n"
                                          "- 2026-10-02 · from cli · Likes tea\n")
    assert sync.status(b.mem).folders[0].conflicts == []
    row = b.rows()[0]
    assert (row.who, row.how) == ("person", "resolve") and row.undoable
    b.sync()
    a.sync()
    assert "Mumbai" not in a.text() and sync.status(a.mem).folders[0].conflicts == []
    with pytest.raises(Exception, match="no conflict"):
        sync.resolve(a.mem, BOT, "MEMORY.md", "x\n")


def test_a_credential_never_leaves_the_push_stops_naming_the_file(two, remote):
    a, b = two
    a.sync()
    before = remote_log(remote)
    a.outside("memory/keys.md", "deploy with OPENAI_API_KEY=sk-proj-Zq8r2LmN4pX7vB1cD9fG3hJ6kS0tU5wY\n")
    got = a.sync()
    assert got.refused == ["scout/memory/keys.md holds a credential (openai): nothing of scout was pushed; "
                           "`botmemory redact scout memory/keys.md` takes it out"] or \
        got.refused[0].startswith("scout/memory/keys.md holds a credential")
    assert remote_log(remote) == before
    assert "sk-proj" not in subprocess.run(["git", "--git-dir", str(remote), "log", "-p", "--all"],
                                           capture_output=True, text=True).stdout
    operations.redact(a.mem, BOT, "memory/keys.md", Actor.person("cli"))   # a workspace redacts on write anyway
    a.outside("memory/keys.md", "deploy with the key in the vault\n")
    assert a.sync().refused == []
    assert b.sync().folders[0].came_in >= 1 and b.text("memory/keys.md") == "deploy with the key in the vault\n"


def test_a_rewritten_remote_is_refused_with_a_clear_line_and_setup_again_starts_over(two, remote, tmp_path):
    a, b = two
    a.remember("Kept on the laptop")
    a.sync()
    b.sync()
    # someone force-pushes an unrelated history
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    (other / "x.md").write_text("x\n")
    subprocess.run(["git", "-C", str(other), "add", "."], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "x"],
                   check=True)
    subprocess.run(["git", "-C", str(other), "push", "-qf", remote.as_uri(), "HEAD:main"], check=True)
    b.remember("Written on the desktop")
    with pytest.raises(Rewritten, match="rewritten .*no longer in its history.*Nothing was merged or pushed"):
        b.sync()
    assert "Written on the desktop" in b.text() and "Kept on the laptop" in b.text()
    assert isinstance(Rewritten("x"), Refused)
    assert sync.status(b.mem).error.startswith("the remote's main was rewritten")
    sync.setup(b.mem, remote.as_uri(), host="desktop")
    b.sync()
    files = subprocess.run(["git", "--git-dir", str(remote), "show", "main:scout/MEMORY.md"],
                           capture_output=True, text=True, check=True).stdout
    assert "Written on the desktop" in files and "Kept on the laptop" in files


def test_what_came_in_follows_the_remote_step_by_step(two):
    a, b = two
    a.sync()
    b.sync()
    for i in range(3):
        a.remember(f"Step {i}")
        a.sync()
    b.sync()
    came = [r for r in b.rows() if r.how == "sync"]
    assert len(came) == 3 and all(r.host == "laptop" for r in came)
    assert [r.diff.count("+- ") for r in came] == [1, 1, 1]


def test_a_merge_that_pushes_lines_out_of_what_loads_says_so(two):
    a, b = two
    a.sync()
    b.sync()
    a.save("MEMORY.md", "".join(f"- hand line {i}\n" for i in range(120)))
    b.save("MEMORY.md", "".join(f"- other line {i}\n" for i in range(120)))
    a.sync()
    got = b.sync().folders[0]
    assert got.pushed_out == 40
    assert sync.status(b.mem).folders[0].pushed_out == 40
    assert len(b.text().splitlines()) == 240
    g = json.loads(b.ok("gauge", BOT, "--json").stdout)
    assert g["unloaded_lines"] == 40 and g["sync"].endswith("pushed 40 lines past what loads")
    assert "pushed 40 lines past what loads" in b.ok("gauge", BOT).stdout
    assert "sync" not in json.loads(a.ok("gauge", BOT, "--json").stdout)


def test_status_counts_rows_ahead_and_commits_behind(two):
    a, b = two
    a.sync()
    b.sync()
    a.remember("one")
    a.remember("two")
    st = sync.status(a.mem).folders[0]
    assert (st.ahead, st.behind) == (2, 0)
    a.sync()
    assert sync.status(a.mem).folders[0].ahead == 0
    assert sync.status(b.mem).folders[0].behind == 0     # b has not fetched since: it cannot know yet
    from botmemory.core.outside.turns import turn_begin, turn_end

    turn = turn_begin(b.mem, BOT, "Standup")              # a turn is open: the folder waits, the fetch happens
    r = b.sync().folders[0]
    assert r.note == f"a turn of {BOT} is open: it syncs when the turn ends" and r.came_in == 0
    assert sync.status(b.mem).folders[0].behind == 2       # one commit a row
    turn_end(b.mem, BOT, turn)
    assert b.sync().folders[0].came_in == 2 and sync.status(b.mem).folders[0].behind == 0
    assert sync.status(b.mem).as_dict()["folders"][0].keys() >= {"id", "key", "last_sync", "ahead", "behind",
                                                                  "conflicts"}


def test_remove_stops_syncing_and_the_remote_keeps_its_history(two, remote):
    a, b = two
    a.remember("kept")
    a.sync()
    sync.remove(a.mem, BOT)
    a.remember("not sent")
    assert a.sync().folders == []
    assert "kept" in subprocess.run(["git", "--git-dir", str(remote), "show", "main:scout/MEMORY.md"],
                                    capture_output=True, text=True).stdout
    assert read_settings(Paths(a.mem.home)).folders == []


def test_a_plain_folder_rides_the_same_engine(tmp_path, remote):
    """The engine syncs any folder given by an id, a directory and a filter (team folders, later)."""
    seen = []
    dirs = []
    for host in ("laptop", "desktop"):
        c = Computer(tmp_path / host, host)
        sync.setup(c.mem, remote.as_uri(), host=host)
        p = Paths(c.mem.home)
        s = read_settings(p)
        s.folders.append(FolderSpec("team-x", "team/x", "plain"))
        write_settings(p, s)
        d = tmp_path / host / "team"
        d.mkdir()
        dirs.append((c, d))
    (dirs[0][1] / "notes.md").write_text("- Deploys on Tuesdays\n")
    (dirs[1][1] / "rules.md").write_text("- Never force-push\n")
    (dirs[1][1] / "skip.txt").write_text("not a note\n")
    for c, d in [*dirs, dirs[0]]:
        folder = PlainFolder("team-x", "team/x", d, lambda rel: rel.endswith(".md"),
                             on_change=lambda rel, old, new, actor: seen.append((rel, actor.host)))
        Engine(Paths(c.mem.home), {"team-x": folder}, c.host).run()
    for _, d in dirs:
        assert sorted(p.name for p in d.iterdir()) in (["notes.md", "rules.md"], ["notes.md", "rules.md", "skip.txt"])
        assert (d / "notes.md").read_text() == "- Deploys on Tuesdays\n" and (d / "rules.md").read_text() == "- Never force-push\n"
    assert ("notes.md", "laptop") in seen and ("rules.md", "desktop") in seen
    assert (dirs[1][1] / "notes.md").stat().st_mode & 0o777 == 0o600   # written by sync


def test_a_first_sync_merges_what_both_computers_held_before(tmp_path, remote):
    a, b = Computer(tmp_path / "laptop", "laptop"), Computer(tmp_path / "desktop", "desktop")
    for c, line in ((a, "- Kept on the laptop\n"), (b, "- Kept on the desktop\n")):
        c.mem.store.init(BOT)
        c.save("MEMORY.md", line)
        c.save("memory/only-" + c.host + ".md", line)
        sync.setup(c.mem, remote.as_uri(), host=c.host)
        r = sync.add(c.mem, BOT, name="scout")
        assert r.synced is not None and r.waits is None
    a.sync()
    assert a.files() == b.files()
    assert set(a.files()) == {"MEMORY.md", "memory/only-laptop.md", "memory/only-desktop.md"}
    assert "Kept on the laptop" in a.text() and "Kept on the desktop" in a.text()


def test_nothing_to_do_makes_no_commit_and_writes_nothing(two, remote):
    a, b = two
    a.remember("x")
    a.sync()
    b.sync()
    before = remote_log(remote)
    journal = b.rows()
    for c in (a, b, a):
        r = c.sync().folders[0]
        assert (r.came_in, r.went_out) == (0, 0)
    assert remote_log(remote) == before and b.rows() == journal


def test_setup_makes_a_new_local_path_a_bare_repository_and_refuses_a_transport_that_runs_commands(tmp_path):
    c = Computer(tmp_path / "laptop", "laptop")
    r = sync.setup(c.mem, str(tmp_path / "new" / "memory.git"), host="laptop")
    assert (tmp_path / "new" / "memory.git" / "HEAD").is_file() and r.as_dict() == {
        "remote": str(tmp_path / "new" / "memory.git"), "host": "laptop", "branch": "main"}
    for bad in ("ext::sh -c touch% /tmp/x", "-uhack", "fd::3"):
        with pytest.raises(Exception, match="bad remote"):
            sync.setup(c.mem, bad)


def test_state_is_kept_outside_every_workspace_and_never_as_a_git_folder_inside_one(two):
    a, _ = two
    a.remember("x")
    a.sync()
    ws = a.mem.home.workspace(BOT)
    assert not any(p.name == ".git" for p in ws.rglob("*")) and not any(p.is_symlink() for p in ws.rglob("*"))
    sync_dir = a.mem.home.state_dir / "sync"
    assert (sync_dir / "repo" / "HEAD").is_file() and not (sync_dir / "repo" / "index").exists()
    assert json.loads((sync_dir / "settings.json").read_text())["folders"] == [
        {"id": "scout", "key": "scout", "kind": "bot"}]
    assert (sync_dir / "state.json").stat().st_mode & 0o777 == 0o600
    assert (ws / "MEMORY.md").stat().st_mode & 0o777 == 0o600


def test_three_computers_converge(tmp_path, remote):
    cs = [Computer(tmp_path / h, h) for h in ("laptop", "desktop", "server")]
    for c in cs:
        c.setup(remote.as_uri())
        c.sync()
    for i, c in enumerate(cs):
        c.remember(f"Note {i} from {c.host}")
        c.save(f"memory/{c.host}.md", f"- {c.host} topic\n")
    for c in [*cs, *cs]:
        c.sync()
    texts = {c.host: c.files() for c in cs}
    assert texts["laptop"] == texts["desktop"] == texts["server"]
    assert all(f"Note {i} from" in cs[0].text() for i in range(3))


def test_a_change_made_while_the_round_ran_waits_for_the_next_round(two, monkeypatch):
    """A file written between the round's read and its write is a conflict for that folder only: nothing lost."""
    from botmemory.core.sync import engine as eng

    a, b = two
    a.sync()
    b.sync()
    a.remember("from the laptop")
    a.sync()
    real = eng.checkpoint

    def meddle(name: str) -> None:
        if name == f"write {BOT}":
            b.outside("MEMORY.md", b.text() + "- typed in the editor meanwhile\n")
        real(name)

    monkeypatch.setattr(eng, "checkpoint", meddle)
    r = b.sync().folders[0]
    assert "changed while it synced" in (r.note or "")
    monkeypatch.setattr(eng, "checkpoint", real)
    b.sync()
    a.sync()
    for c in (a, b):
        assert "typed in the editor meanwhile" in c.text() and "from the laptop" in c.text()


def test_a_bare_remote_is_never_given_a_working_tree_and_an_other_branch_is_left_alone(two, remote):
    a, _ = two
    a.sync()
    heads = subprocess.run(["git", "--git-dir", str(remote), "for-each-ref", "--format=%(refname)"],
                           capture_output=True, text=True).stdout.split()
    assert heads == ["refs/heads/main"]


def test_a_folder_that_went_away_is_named_and_the_others_still_sync(two):
    a, b = two
    a.mem.store.init("ledger")
    sync.add(a.mem, "ledger", sync=False)
    import shutil

    shutil.rmtree(a.mem.home.workspace("ledger"))
    a.remember("still synced")
    r = a.sync()
    notes = {f.id: f.note for f in r.folders}
    assert "not a bot or tracked folder" in (notes.get("ledger") or "") and notes[BOT] is None
    b.sync()
    assert "still synced" in b.text()


def test_the_remote_empty_of_history_after_a_sync_is_refused(two, remote):
    a, _ = two
    a.remember("x")
    a.sync()
    subprocess.run(["git", "--git-dir", str(remote), "update-ref", "-d", "refs/heads/main"], check=True)
    with pytest.raises(Rewritten):
        a.sync()


def test_a_bare_repository_path_works_like_a_file_url(tmp_path):
    remote = bare(tmp_path / "r.git")
    a, b = Computer(tmp_path / "a", "a"), Computer(tmp_path / "b", "b")
    a.setup(str(remote))
    b.setup(remote.as_uri())
    a.remember("over a plain path")
    a.sync()
    b.sync()
    assert "over a plain path" in b.text()
    assert Path(read_settings(Paths(a.mem.home)).remote or "") == remote


def test_a_conflict_marked_resolved_as_the_file_is_now_is_cleared_on_the_other_computer_too(two):
    a, b = two
    a.save("MEMORY.md", "- The office is in Pune\n")
    a.sync()
    b.sync()
    a.save("MEMORY.md", "- The office is in Mumbai\n")
    b.save("MEMORY.md", "- The office is in Delhi\n")
    a.sync()
    b.sync()
    a.sync()
    assert sync.status(a.mem).folders[0].conflicts and sync.status(b.mem).folders[0].conflicts
    merged = a.text()
    sync.resolve(a.mem, BOT, "MEMORY.md")          # both lines stay: the person keeps both
    assert a.text() == merged
    a.sync()
    b.sync()
    assert sync.status(a.mem).folders[0].conflicts == [] and sync.status(b.mem).folders[0].conflicts == []
    assert a.text() == b.text() == merged
