"""The team routes under ``/api/teams``: what each does, without HTTP (``routes.route`` hands them the path).

=======  ============================================  =====================================================
GET      /api/teams?all=1                              the teams (``all``: deleted ones too)
POST     /api/teams                                    {name, bots?}: a new team and its key
GET      /api/teams/:team                              notes (with ``loads``), pending cards, bytes loaded
PATCH    /api/teams/:team                              {name?, bots?}: rename, set the member bots
DELETE   /api/teams/:team                              retire it (its records stay on disk)
POST     /api/teams/:team/cards                        {text, title?, key?, bot?}: propose
POST     /api/teams/:team/cards/:card/accept           {rev}
POST     /api/teams/:team/cards/:card/reject           {rev}
GET      /api/teams/:team/notes/:note                  one note
PUT      /api/teams/:team/notes/:note                  {text, title?, rev}: edit
DELETE   /api/teams/:team/notes/:note?rev=             delete (``rev`` in the query or the body)
POST     /api/teams/:team/notes/:note/pin              {pinned?: true|false}
GET      /api/teams/:team/notes/:note/history          its kept versions, newest first
POST     /api/teams/:team/notes/:note/restore          {version, rev}
GET      /api/teams/:team/journal?limit=               the team's changes, newest first
POST     /api/teams/:team/journal/:row/revert          undo that change
=======  ============================================  =====================================================

``:team`` is the key (or the name of a team that is not deleted). A change
that needs a revision and names none is ``428`` (Precondition Required); a
stale one is ``409`` with ``text`` and ``rev`` (the record as it is now) and
``current`` (the whole note or card); an unknown team, card or note is
``404``. Writes are the person's (``who: person, how: api``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import ops
from ..ops import Actor, BadInput, Memory
from .routes import HttpError, Query, _body, _one, _text_field

JOURNAL_MAX = 1000


def _actor() -> Actor:
    return Actor.person("api")


def _guarded(fn: Callable[[], Any]) -> Callable[[], Any]:
    """*fn* with the team errors as their statuses: 428, 409 with the current record, 404."""

    def run() -> Any:
        try:
            return fn()
        except ops.RevisionMissing as e:
            raise HttpError(428, str(e)) from None
        except ops.TeamConflict as e:
            raise HttpError(409, str(e), extra={"text": e.text, "rev": e.current.get("rev"),
                                                "current": e.current}) from None
        except ops.TeamNotFound as e:
            raise HttpError(404, str(e)) from None

    return run


def _opt_text(b: Mapping[str, Any], name: str) -> str | None:
    v = b.get(name)
    if v is not None and not isinstance(v, str):
        raise BadInput(f"{name!r} must be a string")
    return v


def _bots(b: Mapping[str, Any]) -> list[str] | None:
    v = b.get("bots")
    if v is None:
        return None
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise BadInput("'bots' must be a list of bot ids")
    return list(v)


def _rev(b: Mapping[str, Any]) -> int | str | None:
    v = b.get("rev")
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, str))):
        raise BadInput("'rev' must be the revision as a number")
    return v


def create(mem: Memory, body: Any) -> dict[str, Any]:
    b = _body(body)
    return ops.team_create(mem, _text_field(b, "name"), _bots(b) or [], _actor()).as_dict()


def change(mem: Memory, team: str, body: Any) -> dict[str, Any]:
    b = _body(body)
    name, bots = _opt_text(b, "name"), _bots(b)
    if name is None and bots is None:
        raise BadInput("give 'name' or 'bots'")
    out: dict[str, Any] = {}
    if name is not None:
        out = ops.team_rename(mem, team, name, _actor()).as_dict()
    if bots is not None:
        out = ops.team_set_bots(mem, team, bots, _actor()).as_dict()
    return out


def propose(mem: Memory, team: str, body: Any) -> dict[str, Any]:
    b = _body(body)
    bot = _opt_text(b, "bot")
    actor = Actor("bot", "api", _opt_text(b, "chat")) if bot is not None else _actor()
    return ops.team_propose(mem, team, _text_field(b, "text"), actor, title=_opt_text(b, "title"),
                       key=_opt_text(b, "key"), bot=bot).as_dict()


def note(mem: Memory, team: str, nid: str) -> dict[str, Any]:
    versions = ops.team_history(mem, team, nid)
    show = ops.team_show(mem, team)
    for n, loads in zip(show.plan.notes, show.plan.loads, strict=True):
        if n.note == nid:
            return {**n.shown(), "state": n.state, "loads": loads, "versions": len(versions)}
    raise HttpError(404, f"note {nid} was deleted")


def edit(mem: Memory, team: str, nid: str, body: Any) -> dict[str, Any]:
    b = _body(body)
    return ops.team_edit(mem, team, nid, _text_field(b, "text"), _rev(b), _actor(), title=_opt_text(b, "title")).as_dict()


def remove(mem: Memory, team: str, nid: str, query: Query, body: Any) -> dict[str, Any]:
    rev: int | str | None = _one(query, "rev", required=False)
    if rev is None and isinstance(body, dict):
        rev = _rev(body)
    return ops.team_remove(mem, team, nid, rev, _actor()).as_dict()


def pin(mem: Memory, team: str, nid: str, body: Any) -> dict[str, Any]:
    b = _body(body) if body is not None else {}
    on = b.get("pinned", True)
    if not isinstance(on, bool):
        raise BadInput("'pinned' must be true or false")
    return ops.team_pin(mem, team, nid, on, _actor()).as_dict()


def restore(mem: Memory, team: str, nid: str, body: Any) -> dict[str, Any]:
    b = _body(body)
    version = b.get("version")
    if isinstance(version, bool) or not isinstance(version, (int, str)):
        raise BadInput("'version' is missing: the version's number from the history")
    return ops.team_restore(mem, team, nid, version, _rev(b), _actor()).as_dict()


def journal(mem: Memory, team: str, query: Query) -> list[dict[str, Any]]:
    raw = _one(query, "limit", required=False)
    if raw is not None and (not raw.isdigit() or int(raw) > JOURNAL_MAX):
        raise BadInput(f"?limit= must be a number from 0 to {JOURNAL_MAX}")
    rows = ops.team_journal(mem, team, int(raw) if raw is not None else 50)
    return [{k: v for k, v in r.as_dict().items() if k != "earlier_text"} for r in rows]


def methods(mem: Memory, rest: list[str], query: Query, body: Any) -> dict[str, Callable[[], Any]]:
    """The handlers for ``/api/teams/<rest…>`` by method ({} for a path that is no team route)."""
    out: dict[str, Callable[[], Any]] = {}
    n = len(rest)
    if n == 0:
        out = {"GET": lambda: [t.listed() for t in ops.team_list(mem, retired=_one(query, "all", required=False)
                                                                   in ("1", "true"))],
               "POST": lambda: create(mem, body)}
    elif n == 1:
        t = rest[0]
        out = {"GET": lambda: ops.team_show(mem, t).as_dict(), "PATCH": lambda: change(mem, t, body),
               "DELETE": lambda: ops.team_delete(mem, t, _actor()).as_dict()}
    elif n == 2 and rest[1] == "cards":
        out = {"GET": lambda: ops.team_show(mem, rest[0]).cards, "POST": lambda: propose(mem, rest[0], body)}
    elif n == 4 and rest[1] == "cards" and rest[3] in ("accept", "reject"):
        decide = ops.team_accept if rest[3] == "accept" else ops.team_reject
        out = {"POST": lambda: decide(mem, rest[0], rest[2], _rev(_body(body)), _actor()).as_dict()}
    elif n == 3 and rest[1] == "notes":
        out = {"GET": lambda: note(mem, rest[0], rest[2]), "PUT": lambda: edit(mem, rest[0], rest[2], body),
               "DELETE": lambda: remove(mem, rest[0], rest[2], query, body)}
    elif n == 4 and rest[1] == "notes" and rest[3] == "pin":
        out = {"POST": lambda: pin(mem, rest[0], rest[2], body)}
    elif n == 4 and rest[1] == "notes" and rest[3] == "history":
        out = {"GET": lambda: [v.as_dict() for v in ops.team_history(mem, rest[0], rest[2])]}
    elif n == 4 and rest[1] == "notes" and rest[3] == "restore":
        out = {"POST": lambda: restore(mem, rest[0], rest[2], body)}
    elif n == 2 and rest[1] == "journal":
        out = {"GET": lambda: journal(mem, rest[0], query)}
    elif n == 4 and rest[1] == "journal" and rest[3] == "revert":
        out = {"POST": lambda: ops.team_undo(mem, rest[0], rest[2]).as_dict()}
    return {m: _guarded(fn) for m, fn in out.items()}
