"""A team on every computer (issue 26 "Across computers", issue 25 "Team folders ride the same engine"): two and
three homes on this machine as computers (``HOME`` and ``BOTMEMORY_HOST`` per home for the command line),
syncing a team's folder through real git — a bare repository over ``file://`` and a loopback ``git daemon``."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from botmemory.core.base.errors import BadInput, Refused
from botmemory.core.ops import sync, team_sync
from botmemory.core.ops import team as T
from botmemory.core.store.writer import Actor
from botmemory.core.sync.engine import Rewritten
from botmemory.core.team.teams import TeamConflict

from ..sync.conftest import BOT, Computer, bare, daemon, remote, remote_log  # noqa: F401 — fixtures

PERSON = Actor.person("cli")


@pytest.fixture(autouse=True)
def _no_host_from_the_environment(monkeypatch):
    monkeypatch.delenv("BOTMEMORY_HOST", raising=False)


def computer(root: Path, host: str, url: str) -> Computer:
    c = Computer(root / host, host)
    c.mem.store.init(BOT)
    sync.setup(c.mem, url, host=host)
    return c


def notes(c: Computer, team: str) -> list[tuple[str | None, str]]:
    return sorted((n["key"], n["text"]) for n in T.show(c.mem, team).as_dict()["notes"])


def cards(c: Computer, team: str) -> list[dict]:
    return T.show(c.mem, team).cards


def folder(c: Computer, team: str) -> dict[str, str]:
    base = c.mem.home.root / "teams" / team
    return {p.relative_to(base).as_posix(): p.read_text() for p in sorted(base.rglob("*.json"))}


def rounds(*cs: Computer) -> None:
    for c in cs:
        c.sync()


@pytest.fixture
def pair(tmp_path, remote):
    """Two computers syncing one team (made on the laptop, with one accepted note and one pending card)."""
    a, b = computer(tmp_path, "laptop", remote.as_uri()), computer(tmp_path, "desktop", remote.as_uri())
    team = T.create(a.mem, "Launch", [BOT], PERSON).team.team
    c = T.propose(a.mem, team, "Venue is the Pune office", PERSON, key="launch/venue").card
    T.accept(a.mem, team, c.card, c.rev, PERSON)
    T.propose(a.mem, team, "Press kit is in Drive", PERSON, key="launch/press")
    for x in (a, b):
        sync.add_team(x.mem, team)
    a.sync()
    return a, b, team


# ----- adding a team, what comes in


def test_a_team_added_on_each_computer_by_its_key_arrives_where_it_was_not(tmp_path, remote):
    a, b = computer(tmp_path, "laptop", remote.as_uri()), computer(tmp_path, "desktop", remote.as_uri())
    team = json.loads(a.ok("team", "create", "Launch", "--bots", BOT, "--json").stdout)["team"]
    card = json.loads(a.ok("team", "propose", team, "Venue is the Pune office", "--key", "launch/venue",
                           "--json").stdout)["card"]
    a.ok("team", "accept", team, card, "--rev", "1")
    added = json.loads(a.ok("sync", "add", "--team", "Launch", "--json").stdout)    # here: by its name too
    assert (added["id"], added["key"], added["out"]) == (f"team-{team}", f"team/{team}", 1)
    assert not (b.mem.home.root / "teams" / team).exists()
    got = json.loads(b.ok("sync", "add", "--team", team, "--json").stdout)           # there: by its key
    assert got["key"] == f"team/{team}" and got["in"] == 3
    assert [t["team"] for t in json.loads(b.ok("team", "list", "--json").stdout)] == [team]
    assert notes(b, team) == notes(a, team) == [("launch/venue", "Venue is the Pune office")]
    assert folder(b, team) == folder(a, team)
    # what came in is rows of the team's journal: how sync, from the laptop, undoable like any
    rows = T.journal(b.mem, team)
    assert {r.how for r in rows} == {"sync"} and {r.host for r in rows} == {"laptop"} and len(rows) == 3
    assert all(r.undoable for r in rows)
    brought = next(r for r in rows if r.file.startswith("notes/"))
    T.undo(b.mem, team, brought.id)
    assert notes(b, team) == []
    b.ok("sync", "now", team)                              # a team's key names its folder in `sync now`
    a.sync()
    assert notes(a, team) == []                            # the undo went out like any change
    undo = T.journal(a.mem, team)[0]
    assert (undo.how, undo.host) == ("sync", "desktop")
    status = json.loads(b.ok("sync", "status", "--json").stdout)["folders"]
    assert [(f["id"], f["kind"], f["ahead"], f["conflicts"]) for f in status] == [(f"team-{team}", "team", 0, 0)]


def test_the_command_line_says_what_a_team_is_and_is_not_in_sync(pair):
    a, b, team = pair
    r = a.cli("sync", "add", team)
    assert r.returncode == 2 and f"sync add --team {team}" in r.stderr
    r = a.cli("sync", "add", BOT, "--name", f"team/{team}")
    assert r.returncode == 2 and "teams'" in r.stderr
    r = a.cli("sync", "add", "--team", team, "--name", "x")
    assert r.returncode == 2 and "takes no ID and no --name" in r.stderr
    r = a.cli("sync", "resolve", team, "cards/c-0123456789.json", stdin="x")
    assert r.returncode == 2 and "conflict cards" in r.stderr
    with pytest.raises(BadInput, match="no team 'Nope'"):
        sync.add_team(a.mem, "Nope")
    assert sync.remove(a.mem, team).as_dict() == {"id": f"team-{team}", "key": f"team/{team}", "removed": True}


# ----- converging


def test_two_computers_accepting_different_cards_converge(pair, remote):
    a, b, team = pair
    b.sync()
    press = next(c for c in cards(b, team) if c["key"] == "launch/press")
    date = T.propose(a.mem, team, "The launch moved to Friday", PERSON, key="launch/date").card
    rounds(a, b)
    T.accept(a.mem, team, date.card, date.rev, PERSON)                # here
    T.accept(b.mem, team, press["card"], press["rev"], PERSON)        # there
    rounds(a, b, a)
    assert notes(a, team) == notes(b, team) == [("launch/date", "The launch moved to Friday"),
                                                ("launch/press", "Press kit is in Drive"),
                                                ("launch/venue", "Venue is the Pune office")]
    assert cards(a, team) == cards(b, team) == [] and folder(a, team) == folder(b, team)
    # one commit per journal row, its subject in a person's words
    log = remote_log(remote)
    assert any("accepted: The launch moved to Friday" in line for line in log)
    assert any("accepted: Press kit is in Drive" in line for line in log)


def test_the_same_note_edited_on_both_becomes_a_conflict_card_never_a_silent_overwrite(pair):
    a, b, team = pair
    b.sync()
    (venue,) = [n for n in T.show(a.mem, team).as_dict()["notes"]]
    T.edit(a.mem, team, venue["note"], "Venue is the Baner office", venue["rev"], PERSON)
    T.edit(b.mem, team, venue["note"], "Venue is the Kharadi office", venue["rev"], PERSON)
    a.sync()
    r = b.sync().folders[0]
    assert (r.new_conflicts, r.conflicts) == (1, 1)
    a.sync()
    for c in (a, b):
        (n,) = T.show(c.mem, team).as_dict()["notes"]
        (card,) = [x for x in cards(c, team) if x["conflict"]]
        assert n["text"] == "Venue is the Kharadi office"               # the desktop merged: a tie keeps its own
        assert (card["text"], card["host"], card["replaces"]) == ("Venue is the Baner office", "laptop", n["note"])
        assert card["replaces_text"] == n["text"] and not card["stale"]
        # no revision either computer handed out before the merge is taken for the merged note
        with pytest.raises(TeamConflict):
            T.edit(c.mem, team, n["note"], "Venue is somewhere else", venue["rev"] + 1, PERSON)
    assert folder(a, team) == folder(b, team)
    status = sync.status(b.mem).folders[0].as_dict()
    assert status["conflicts"] == 1 and status["conflicted"] == [f"cards/{card['card']}.json"]
    assert "conflict card" in b.ok("sync", "status").stdout
    # the person chooses on either computer; the choice reaches the other
    T.accept(a.mem, team, card["card"], card["rev"], PERSON)
    rounds(a, b)
    assert notes(b, team) == [("launch/venue", "Venue is the Baner office")] and cards(b, team)[0]["key"] == \
        "launch/press"
    assert sync.status(b.mem).folders[0].conflicts == []


def test_a_card_accepted_on_one_computer_and_rejected_on_the_other_stays_accepted(pair):
    """The rule: the acceptance stands (a card is accepted when a note lists it; no accepted note is lost by a
    sync); the rejection stays in the card's file and in the journals."""
    a, b, team = pair
    b.sync()
    (press,) = [c for c in cards(a, team) if c["key"] == "launch/press"]
    T.accept(a.mem, team, press["card"], press["rev"], PERSON)
    T.reject(b.mem, team, press["card"], press["rev"], PERSON)
    rounds(a, b, a)
    for c in (a, b):
        assert ("launch/press", "Press kit is in Drive") in notes(c, team) and cards(c, team) == []
        assert json.loads(folder(c, team)[f"cards/{press['card']}.json"])["state"] == "rejected"
        assert {r.file for r in T.journal(c.mem, team)} >= {f"cards/{press['card']}.json"}
    assert folder(a, team) == folder(b, team)


def test_one_card_accepted_on_both_computers_is_one_note(pair):
    a, b, team = pair
    b.sync()
    (press,) = [c for c in cards(a, team) if c["key"] == "launch/press"]
    for c in (a, b):
        T.accept(c.mem, team, press["card"], press["rev"], PERSON)
    rounds(a, b, a)
    for c in (a, b):
        assert notes(c, team) == [("launch/press", "Press kit is in Drive"), ("launch/venue", "Venue is the Pune office")]
        assert cards(c, team) == []
    assert folder(a, team) == folder(b, team)


def test_a_rename_and_members_changed_on_both_merge(pair):
    a, b, team = pair
    b.sync()
    T.rename(a.mem, team, "Launch Q4", PERSON)
    b.mem.store.init("ledger")
    T.set_bots(b.mem, team, [BOT, "ledger"], PERSON)
    rounds(a, b, a)
    for c in (a, b):
        (t,) = T.list_teams(c.mem)
        assert (t.name, t.bots, t.rev) == ("Launch Q4", (BOT, "ledger"), 3)


# ----- what never leaves, what is refused


def test_a_credential_in_a_team_file_stops_its_push_with_one_line_naming_the_file(tmp_path, remote):
    a = computer(tmp_path, "laptop", remote.as_uri())
    team = T.create(a.mem, "Launch", [BOT], PERSON).team.team
    n = T.accept(a.mem, team, T.propose(a.mem, team, "Deploys on Tuesdays", PERSON).card.card, 1, PERSON).note
    path = a.mem.home.root / "teams" / team / "notes" / f"{n.note}.json"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    path.write_text(path.read_text().replace("Deploys on Tuesdays", f"Deploys with {token}"))   # by hand
    r = a.cli("sync", "add", "--team", team)
    assert r.returncode == 4
    assert f"team-{team}/notes/{n.note}.json holds a credential" in r.stderr and token not in r.stderr
    assert subprocess.run(["git", "--git-dir", str(remote), "rev-parse", "--verify", "-q", "main"],
                          capture_output=True).returncode != 0          # nothing was pushed
    log = subprocess.run(["git", "--git-dir", str(remote), "log", "--all", "-p"], capture_output=True, text=True)
    assert token not in log.stdout


def test_a_rewritten_remote_is_refused_for_a_team_as_for_a_bot(pair, remote, tmp_path):
    a, b, team = pair
    b.sync()
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    (other / "x.md").write_text("x\n")
    subprocess.run(["git", "-C", str(other), "add", "."], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "x"],
                   check=True)
    subprocess.run(["git", "-C", str(other), "push", "-qf", remote.as_uri(), "HEAD:main"], check=True)
    T.propose(b.mem, team, "Written on the desktop", PERSON)
    with pytest.raises(Rewritten, match="rewritten"):
        b.sync()
    r = b.cli("sync", "now")
    assert r.returncode == 4 and "rewritten" in r.stderr
    assert any(c["text"] == "Written on the desktop" for c in cards(b, team))
    assert isinstance(Rewritten("x"), Refused)


def test_a_record_of_a_newer_format_on_the_remote_syncs_nothing_of_the_team(pair):
    a, b, team = pair
    b.sync()
    (venue,) = T.show(a.mem, team).as_dict()["notes"]
    T.propose(a.mem, team, "Sent along", PERSON)              # a row, so the round looks at the folder
    path = a.mem.home.root / "teams" / team / "notes" / f"{venue['note']}.json"
    d = json.loads(path.read_text())
    d["format"] = 3                                           # as a newer botmemory there would write it
    path.write_text(json.dumps(d, indent=1) + "\n")
    a.sync()
    before = folder(b, team)
    r = b.sync().folders[0]
    assert "format 3" in (r.note or "") and "update botmemory" in (r.note or "")
    assert folder(b, team) == before and r.came_in == 0


# ----- three computers, a loopback git daemon


def test_three_computers_over_a_git_daemon_converge_and_every_edit_is_a_note_or_a_card(tmp_path, daemon):
    bare(daemon.base / "memory.git")
    url = daemon.url + "memory.git"
    a, b, c = (computer(tmp_path, h, url) for h in ("laptop", "desktop", "studio"))
    team = T.create(a.mem, "Launch", [BOT], PERSON).team.team
    n = T.accept(a.mem, team, T.propose(a.mem, team, "Venue is Pune", PERSON, key="launch/venue").card.card, 1,
                 PERSON).note
    for x in (a, b, c):
        x.ok("sync", "add", "--team", team)
    a.sync()
    for x, text in ((a, "Venue is Baner"), (b, "Venue is Kharadi"), (c, "Venue is Aundh")):
        T.edit(x.mem, team, n.note, text, n.rev, PERSON)
        T.propose(x.mem, team, f"Proposed on {x.host}", PERSON)
    rounds(a, b, c, a, b)
    assert folder(a, team) == folder(b, team) == folder(c, team)
    (note,) = T.show(a.mem, team).as_dict()["notes"]
    conflict = sorted(x["text"] for x in cards(a, team) if x["conflict"])
    assert sorted([note["text"], *conflict]) == ["Venue is Aundh", "Venue is Baner", "Venue is Kharadi"]
    assert sorted(x["text"] for x in cards(a, team) if not x["conflict"]) == [
        "Proposed on desktop", "Proposed on laptop", "Proposed on studio"]
    assert note["rev"] > 2 and len({v.rev for v in T.history(a.mem, team, note["note"])}) == len(
        T.history(a.mem, team, note["note"]))


# ----- the schedule and the panel's line


def test_a_team_change_is_pending_for_the_schedule_and_its_line_says_where_it_is(pair):
    a, b, team = pair
    fid = f"team-{team}"
    assert sync.pending(a.mem, [fid]) == set()
    T.propose(a.mem, team, "Something new", PERSON)
    assert sync.pending(a.mem, [fid]) == {fid}
    s = team_sync.state(a.mem, team)
    assert (s.synced, s.ahead, s.conflicts) == (True, 1, 0) and "1 change not sent yet" in s.line()
    a.sync()
    assert sync.pending(a.mem, [fid]) == set() and team_sync.state(a.mem, "Launch").ahead == 0
    sync.remove(b.mem, fid)
    assert team_sync.state(b.mem, team).line() == "Not synced to your other computers"
