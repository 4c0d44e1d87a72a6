"""Team memory through every face: the CLI contract (README "Teams", docs/TEAMS.md "Rules"), the routes under
/api/teams through a real server (409 stale with the current note, 428 without a revision), and the MCP tools
(memory_update and session_search with scope team)."""
from __future__ import annotations

import io
import json
import sys

import pytest

from botmemory.core import ApiServer, Memory
from botmemory.core.disk import config
from botmemory.core.faces import mcp_tools
from botmemory.core.faces.cli import main
from botmemory.core.ops import team as T
from botmemory.core.store.writer import Actor

from ..conftest import BOT, TODAY
from .test_server import call

PERSON = Actor.person("cli")


def run(capsys, mem: Memory, *args: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = main(["--root", str(mem.home.root), "--today", TODAY, *args])
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys, mem: Memory, *args: str, **kw) -> str:
    code, out, err = run(capsys, mem, *args, **kw)
    assert code == 0, (args, out, err)
    return out


def js(capsys, mem: Memory, *args: str, **kw):
    return json.loads(ok(capsys, mem, *args, "--json", **kw))


# ----- the command line


def test_the_cli_contract_end_to_end(capsys, mem, monkeypatch):
    team = js(capsys, mem, "team", "create", "Launch", "--bots", BOT)["team"]
    assert ok(capsys, mem, "team", "list") .startswith(f"{team}  Launch  bots: {BOT}")
    p = js(capsys, mem, "team", "propose", team, "The launch is on Thursday", "--key", "launch/date", "--bot", BOT,
           "--title", "Launch")
    assert p["replaces"] is None
    shown = js(capsys, mem, "team", "show", team)
    assert set(shown) >= {"notes", "cards", "loaded_bytes", "max_bytes", "not_loaded"} and shown["max_bytes"] == 6000
    card = shown["cards"][0]
    assert set(card) >= {"card", "text", "rev", "replaces"}
    assert run(capsys, mem, "team", "accept", team, card["card"])[0] == 2              # no --rev
    code, out, err = run(capsys, mem, "team", "accept", team, card["card"], "--rev", str(card["rev"] + 1))
    assert code == 3 and out == "The launch is on Thursday" and "changed since you saw it" in err
    ok(capsys, mem, "team", "accept", team, card["card"], "--rev", str(card["rev"]))
    note = js(capsys, mem, "team", "show", team)["notes"][0]
    assert set(note) >= {"note", "key", "title", "text", "rev", "pinned", "loads"} and note["loads"] is True
    # a correction under the same key and a new title
    p2 = js(capsys, mem, "team", "propose", team, "The launch moved to Friday", "--key", "launch/date", "--title",
            "Launch day")
    assert p2["replaces"] == note["note"]
    ok(capsys, mem, "team", "accept", team, p2["card"], "--rev", str(p2["rev"]))
    # edit reads stdin, with the note's revision
    note = js(capsys, mem, "team", "show", team)["notes"][0]
    code, out, _ = run(capsys, mem, "team", "edit", team, note["note"], stdin="nope", monkeypatch=monkeypatch)
    assert code == 2
    code, out, _ = run(capsys, mem, "team", "edit", team, note["note"], "--rev", "1", "--json",
                       stdin="The launch moved to Monday", monkeypatch=monkeypatch)
    assert code == 3 and json.loads(out) == {"conflict": True, "text": "The launch moved to Friday",
                                             "hash": str(note["rev"])}
    ok(capsys, mem, "team", "edit", team, note["note"], "--rev", str(note["rev"]), stdin="The launch moved to Monday",
       monkeypatch=monkeypatch)
    history = js(capsys, mem, "team", "history", team, note["note"])
    assert [v["text"] for v in history] == ["The launch moved to Monday", "The launch moved to Friday",
                                            "The launch is on Thursday"]
    now = js(capsys, mem, "team", "show", team)["notes"][0]
    r = js(capsys, mem, "team", "restore", team, note["note"], str(history[-1]["rev"]), "--rev", str(now["rev"]))
    assert r["text"] == "The launch is on Thursday" and r["rev"] == now["rev"] + 1
    ok(capsys, mem, "team", "pin", team, note["note"])
    assert js(capsys, mem, "team", "show", team)["notes"][0]["pinned"] is True
    assert run(capsys, mem, "team", "rm", team, note["note"])[0] == 2
    ok(capsys, mem, "team", "rm", team, note["note"], "--rev", str(r["rev"]))
    assert js(capsys, mem, "team", "show", team)["notes"] == []
    rows = js(capsys, mem, "team", "journal", team)
    assert rows[0]["file"] == f"notes/{note['note']}.json" and rows[0]["bot"] == f"team-{team}"
    ok(capsys, mem, "team", "undo", team, rows[0]["id"])
    assert [n["text"] for n in js(capsys, mem, "team", "show", team)["notes"]] == ["The launch is on Thursday"]
    ok(capsys, mem, "team", "rename", team, "Launch crew")
    assert js(capsys, mem, "team", "show", "launch crew")["team"] == team
    ok(capsys, mem, "team", "delete", team)
    assert js(capsys, mem, "team", "list") == []
    assert js(capsys, mem, "team", "list", "--all")[0]["retired"]


def test_bad_team_commands_are_one_line_and_exit_2(capsys, mem):
    for args in (("team",), ("team", "show", "nosuch"), ("team", "create", ""), ("team", "create", "X", "--bots", "nobody"),
                 ("team", "accept", "nosuch", "c-0000000000", "--rev", "1")):
        code, _, err = run(capsys, mem, *args)
        assert code == 2 and err.startswith("botmemory: ") and err.count("\n") == 1, (args, err)


def test_search_with_scope_team(capsys, mem):
    team = T.create(mem, "Launch", [BOT], PERSON).team.team
    c = T.propose(mem, team, "The launch moved to Friday", PERSON).card
    T.accept(mem, team, c.card, c.rev, PERSON)
    hits = js(capsys, mem, "search", BOT, "--scope", "team", "friday")
    assert [h["text"] for h in hits] == ["The launch moved to Friday"] and hits[0]["team_name"] == "Launch"
    assert ok(capsys, mem, "search", BOT, "--scope", "team") == f"team Launch · {TODAY} · The launch moved to Friday\n"
    assert js(capsys, mem, "search", BOT, "friday")[0]["file"].startswith(f"team:{team}/")   # ordinary search too
    assert js(capsys, mem, "search", BOT, "--scope", "team", "thursday") == []


def test_load_shows_a_member_bots_team_notes(capsys, mem):
    team = T.create(mem, "Launch", [BOT], PERSON).team.team
    c = T.propose(mem, team, "The launch moved to Friday", PERSON).card
    T.accept(mem, team, c.card, c.rev, PERSON)
    assert "## Team memory: Launch" in ok(capsys, mem, "load", BOT)


# ----- the routes


@pytest.fixture
def api(mem: Memory):
    server = ApiServer(mem, 0, opener=lambda t, f: None).start()
    yield server
    server.stop()


def test_the_routes_with_409_and_428(api, mem):
    status, made, _ = call(api, "POST", "/api/teams", {"name": "Launch", "bots": [BOT]})
    assert status == 200
    team = made["team"]
    status, card, _ = call(api, "POST", f"/api/teams/{team}/cards", {"text": "The launch is on Thursday",
                                                                      "key": "launch/date", "bot": BOT})
    assert status == 200 and card["replaces"] is None
    accept = f"/api/teams/{team}/cards/{card['card']}/accept"
    assert call(api, "POST", accept, {})[0] == 428
    status, body, _ = call(api, "POST", accept, {"rev": card["rev"] + 3})
    assert status == 409 and body["text"] == "The launch is on Thursday" and body["current"]["card"] == card["card"]
    status, note, _ = call(api, "POST", accept, {"rev": card["rev"]})
    assert status == 200
    n = f"/api/teams/{team}/notes/{note['note']}"
    assert call(api, "PUT", n, {"text": "The launch is on Friday"})[0] == 428
    status, body, _ = call(api, "PUT", n, {"text": "The launch is on Friday", "rev": note["rev"]})
    assert status == 200 and body["rev"] == note["rev"] + 1
    status, body, _ = call(api, "PUT", n, {"text": "The launch is on Monday", "rev": note["rev"]})
    assert status == 409 and body["text"] == "The launch is on Friday" and body["current"]["note"] == note["note"]
    assert body["rev"] == note["rev"] + 1
    status, shown, _ = call(api, "GET", f"/api/teams/{team}")
    assert status == 200 and shown["notes"][0]["text"] == "The launch is on Friday" and shown["max_bytes"] == 6000
    assert call(api, "POST", f"{n}/pin", {"pinned": True})[1]["pinned"] is True
    status, versions, _ = call(api, "GET", f"{n}/history")
    assert [v["text"] for v in versions] == ["The launch is on Friday", "The launch is on Thursday"]
    status, restored, _ = call(api, "POST", f"{n}/restore", {"version": versions[-1]["rev"], "rev": body["rev"]})
    assert status == 200 and restored["text"] == "The launch is on Thursday"
    assert call(api, "DELETE", n)[0] == 428
    assert call(api, "DELETE", f"{n}?rev={restored['rev']}")[0] == 200
    assert call(api, "GET", n)[0] == 404
    status, rows, _ = call(api, "GET", f"/api/teams/{team}/journal?limit=1")
    assert status == 200 and "earlier_text" not in rows[0]
    assert call(api, "POST", f"/api/teams/{team}/journal/{rows[0]['id']}/revert")[0] == 200
    assert call(api, "GET", n)[1]["text"] == "The launch is on Thursday"
    assert call(api, "PATCH", f"/api/teams/{team}", {"name": "Launch crew"})[1]["name"] == "Launch crew"
    assert call(api, "GET", "/api/teams/nosuch")[0] == 404
    assert call(api, "GET", f"/api/teams/{team}/cards/x")[0] == 404
    assert call(api, "PUT", f"/api/teams/{team}")[0] == 405
    assert call(api, "DELETE", f"/api/teams/{team}")[0] == 200
    assert call(api, "GET", "/api/teams")[1] == [] and len(call(api, "GET", "/api/teams?all=1")[1]) == 1
    who = {(r.who, r.how) for r in T.journal(mem, team)}
    assert ("person", "api") in who and ("bot", "api") in who


# ----- the MCP tools


def test_memory_update_with_scope_team_proposes_and_session_search_finds_team_notes(mem):
    team = T.create(mem, "Launch", [BOT], PERSON).team.team
    r = json.loads(mcp_tools.call(mem, BOT, "memory_update", {"action": "remember", "scope": "team",
                                                               "text": "The launch moved to Friday",
                                                               "key": "launch/date"}, client="Claude Code"))
    assert r["team"] == team and r["replaces"] is None and "pending" in r["status"]
    card = T.show(mem, team).cards[0]
    assert card["bot"] == BOT and card["how"] == "mcp" and card["chat"] == "Claude Code"
    assert json.loads(mcp_tools.call(mem, BOT, "session_search", {"scope": "team", "query": "friday"})) == []
    T.accept(mem, team, card["card"], card["rev"], PERSON)
    hits = json.loads(mcp_tools.call(mem, BOT, "session_search", {"scope": "team", "query": "friday"}))
    assert [h["text"] for h in hits] == ["The launch moved to Friday"]
    assert json.loads(mcp_tools.call(mem, BOT, "session_search", {"query": "friday"}))[0]["file"].startswith("team:")


def test_memory_update_scope_team_refusals(mem):
    with pytest.raises(Exception, match="in no team"):
        mcp_tools.call(mem, BOT, "memory_update", {"action": "remember", "scope": "team", "text": "x y z"})
    team = T.create(mem, "Launch", [BOT], PERSON).team.team
    with pytest.raises(Exception, match="scope team takes action remember"):
        mcp_tools.call(mem, BOT, "memory_update", {"action": "forget", "scope": "team", "words": "launch"})
    with pytest.raises(Exception, match="goes with scope team"):
        mcp_tools.call(mem, BOT, "memory_update", {"action": "remember", "text": "x y z", "key": "a/b"})
    config.set_bot_setting(mem.home, BOT, "memory", False)
    with pytest.raises(Exception, match="memory is switched off"):
        mcp_tools.call(mem, BOT, "memory_update", {"action": "remember", "scope": "team", "text": "x y z"})
    assert T.show(mem, team).cards == []
