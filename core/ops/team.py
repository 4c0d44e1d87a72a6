"""The team operations: the one way into team memory for the CLI, the routes, the MCP tools, capture's
proposals and the desktop. Each takes the opened :class:`Memory` first and returns a result with ``as_dict()``.

The policy is here: member bots must exist; a bot's proposal is refused while
memory is switched off for it (as its own writes are) and when it is not a
member; an edit, delete, restore, accept or reject without the revision it
was based on is :class:`RevisionMissing` (exit 2, HTTP 428); a stale one is
:class:`~botmemory.core.team.teams.TeamConflict` (exit 3, HTTP 409, the
record as it is now). Search finds nothing while memory is off for the bot.
The mechanisms are in the ``team`` wing.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..base.errors import BadInput
from ..disk.config import bot_settings
from ..store.files import check_bot_writes
from ..store.journal import Row
from ..store.memory import Memory
from ..store.writer import Actor
from ..team.files import State
from ..team.loading import Plan, member_plans, note_line, plan
from ..team.records import Card, Note, Team, Version
from ..team.teams import TeamConflict, TeamNotFound, Teams, unchanged_since

__all__ = [
    "CardResult", "NoteResult", "ProposeResult", "RevisionMissing", "TeamConflict", "TeamHit", "TeamHits", "TeamNotFound",
    "TeamResult", "TeamShow", "TeamUndo", "accept", "card_view", "create", "delete", "edit", "history", "journal",
    "keep_other_side", "list_teams", "need_rev", "pin", "propose", "reject", "remove", "rename", "restore", "search",
    "set_bots", "show", "teams_of", "undo",
]


class RevisionMissing(BadInput):
    """A change that must name the revision it was based on did not (exit 2; HTTP 428 Precondition Required)."""


def need_rev(rev: int | str | None, what: str) -> int:
    """The revision given, as a number; RevisionMissing when there is none, BadInput when it is not one."""
    if rev is None or (isinstance(rev, str) and not rev.strip()):
        raise RevisionMissing(f"{what} needs the revision it is based on (--rev R, as `botmemory team show` "
                              "prints it): nothing was changed")
    if isinstance(rev, bool) or not (isinstance(rev, int) or rev.strip().isdigit()):
        raise BadInput(f"bad revision {rev!r}: a revision is a whole number, as `botmemory team show` prints it")
    return int(rev)


@dataclass(frozen=True)
class TeamResult:
    team: Team
    row: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**self.team.listed(), "row": self.row}


@dataclass(frozen=True)
class ProposeResult:
    card: Card
    team: Team
    replaces: Note | None = None
    row: str | None = None        # None: the same card was pending already (nothing written)

    def as_dict(self) -> dict[str, Any]:
        return {"card": self.card.card, "replaces": self.replaces.note if self.replaces else None,
                "replaces_text": self.replaces.text if self.replaces else None, "rev": self.card.rev,
                "team": self.team.team, "key": self.card.key, "new": self.row is not None, "row": self.row}


@dataclass(frozen=True)
class NoteResult:
    note: Note
    team: Team
    row: str | None = None        # None: nothing changed

    def as_dict(self) -> dict[str, Any]:
        return {**self.note.shown(), "state": self.note.state, "team": self.team.team, "changed": self.row is not None,
                "row": self.row}


@dataclass(frozen=True)
class CardResult:
    card: Card
    team: Team
    row: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"card": self.card.card, "state": self.card.state, "rev": self.card.rev, "team": self.team.team,
                "row": self.row}


def card_view(st: State, c: Card) -> dict[str, Any]:
    """A pending card as ``team show`` lists it: with the accepted text it would replace, and ``stale`` when
    that note moved on since the card was proposed (it cannot be accepted then)."""
    now = st.notes.get(c.replaces) if c.replaces else st.by_key(c.key)
    stale = (now is None or not unchanged_since(now, c.replaces_rev)) if c.replaces else now is not None
    return {"card": c.card, "text": c.text, "title": c.title, "key": c.key, "rev": c.rev,
            "replaces": c.replaces, "replaces_rev": c.replaces_rev,
            "replaces_text": now.text if now is not None and now.accepted else None, "stale": stale,
            "bot": c.bot, "who": c.who, "how": c.how, "chat": c.chat, "day": c.day, "quotes": list(c.quotes),
            "conflict": c.conflict, "host": c.host}


@dataclass(frozen=True)
class TeamShow:
    """A team as the panel and ``team show`` present it: its notes in load order (each saying whether it
    loads), its pending cards, and how much loads."""

    team: Team
    plan: Plan
    cards: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        notes = [{**n.shown(), "loads": ok} for n, ok in zip(self.plan.notes, self.plan.loads, strict=True)]
        return {**self.team.listed(), "notes": notes, "cards": self.cards, "loaded": self.plan.loaded,
                "loaded_bytes": self.plan.loaded_bytes, "max_bytes": self.plan.max_bytes,
                "not_loaded": self.plan.not_loaded}


@dataclass(frozen=True)
class TeamUndo:
    file: str
    row: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "changed": self.row is not None, "row": self.row}


@dataclass(frozen=True)
class TeamHit:
    """A team note found by ``session_search`` with scope ``team`` (loaded or not)."""

    team: Team
    note: Note
    loads: bool

    @property
    def file(self) -> str:
        return f"team:{self.team.team}/{self.note.note}"

    @property
    def day(self) -> date:
        try:
            return date.fromisoformat(self.note.day)
        except ValueError:
            return date(1970, 1, 1)

    @property
    def text(self) -> str:
        return " ".join(note_line(self.note)[2:].split())

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "date": self.day.isoformat(), "text": self.text, "team": self.team.team,
                "team_name": self.team.name, "note": self.note.note, "key": self.note.key, "title": self.note.title,
                "loads": self.loads}


@dataclass(frozen=True)
class TeamHits:
    hits: list[TeamHit] = field(default_factory=list)

    def as_list(self) -> list[dict[str, Any]]:
        return [h.as_dict() for h in self.hits]


# ----- the teams


def list_teams(mem: Memory, *, retired: bool = False) -> list[Team]:
    return Teams(mem).all(retired=retired)


def teams_of(mem: Memory, bot: str) -> list[Team]:
    """The teams *bot* is a member of."""
    return Teams(mem).of_bot(bot)


def _members(mem: Memory, bots: Sequence[str]) -> list[str]:
    out = [b.strip() for b in bots if b.strip()]
    for b in out:
        mem.home.require_bot(b)
    return out


def create(mem: Memory, name: str, bots: Sequence[str], actor: Actor) -> TeamResult:
    """A new team under a new key (never a retired one's: a new team with an old name starts empty)."""
    team, row = Teams(mem).create(name, _members(mem, bots), actor)
    return TeamResult(team, row)


def rename(mem: Memory, team: str, name: str, actor: Actor) -> TeamResult:
    """Rename: the key, the notes and the pending cards stay."""
    t, row = Teams(mem).rename(team, name, actor)
    return TeamResult(t, row)


def set_bots(mem: Memory, team: str, bots: Sequence[str], actor: Actor) -> TeamResult:
    t, row = Teams(mem).set_bots(team, _members(mem, bots), actor)
    return TeamResult(t, row)


def delete(mem: Memory, team: str, actor: Actor) -> TeamResult:
    """Retire the team's key: nothing of it loads or is found; its records stay on disk for recovery."""
    t, row = Teams(mem).delete(team, actor)
    return TeamResult(t, row)


def show(mem: Memory, team: str) -> TeamShow:
    teams = Teams(mem)
    t = teams.resolve(team)
    st = teams.state(t.team)
    return TeamShow(st.team, plan(list(st.notes.values())), [card_view(st, c) for c in st.pending()])


# ----- cards


def propose(mem: Memory, team: str, text: str, actor: Actor, *, title: str | None = None, key: str | None = None,
            bot: str | None = None, quotes: Sequence[str] = ()) -> ProposeResult:
    """A pending card for a person to accept; *bot*: the member bot proposing it (refused while memory is
    switched off for it, as its own writes are)."""
    if bot is not None:
        mem.home.require_bot(bot)
        check_bot_writes(mem, bot, actor)
    teams = Teams(mem)
    card, replaces, row = teams.propose(team, text, actor, title=title, key=key, bot=bot, quotes=quotes,
                                        chat=actor.chat)
    return ProposeResult(card, teams.resolve(team), replaces, row)


def keep_other_side(mem: Memory, team: str, note: str, text: str, *, title: str | None = None,
                    host: str | None = None) -> ProposeResult:
    """The other computer's text of a note edited on two computers (what a sync merge hands back): a conflict
    card replacing that note, for a person to choose — never a silent overwrite of either side."""
    teams = Teams(mem)
    card, replaces, row = teams.propose(team, text, Actor("person", "sync"), title=title, host=host,
                                        replaces=note)
    return ProposeResult(card, teams.resolve(team), replaces, row)


def accept(mem: Memory, team: str, card: str, rev: int | str | None, actor: Actor) -> NoteResult:
    r = need_rev(rev, "accepting a card")
    teams = Teams(mem)
    note, row = teams.accept(team, card, r, actor)
    return NoteResult(note, teams.resolve(team), row)


def reject(mem: Memory, team: str, card: str, rev: int | str | None, actor: Actor) -> CardResult:
    r = need_rev(rev, "rejecting a card")
    teams = Teams(mem)
    c, row = teams.reject(team, card, r, actor)
    return CardResult(c, teams.resolve(team), row)


# ----- notes


def edit(mem: Memory, team: str, note: str, text: str, rev: int | str | None, actor: Actor, *,
         title: str | None = None) -> NoteResult:
    r = need_rev(rev, "editing a note")
    teams = Teams(mem)
    n, row = teams.edit(team, note, r, text, actor, title=title)
    return NoteResult(n, teams.resolve(team), row)


def remove(mem: Memory, team: str, note: str, rev: int | str | None, actor: Actor) -> NoteResult:
    r = need_rev(rev, "deleting a note")
    teams = Teams(mem)
    n, row = teams.remove(team, note, r, actor)
    return NoteResult(n, teams.resolve(team), row)


def pin(mem: Memory, team: str, note: str, on: bool, actor: Actor) -> NoteResult:
    teams = Teams(mem)
    n, row = teams.pin(team, note, on, actor)
    return NoteResult(n, teams.resolve(team), row)


def history(mem: Memory, team: str, note: str) -> list[Version]:
    """The note's kept text versions, newest first (the first is the current text)."""
    teams = Teams(mem)
    st = teams.state(teams.resolve(team).team)
    n = st.notes.get(note)
    if n is None:
        raise TeamNotFound(f"no note {note!r} in team {st.team.name}")
    return list(reversed(n.versions))


def restore(mem: Memory, team: str, note: str, version: int | str, rev: int | str | None,
            actor: Actor) -> NoteResult:
    r = need_rev(rev, "restoring a version")
    if isinstance(version, str) and not version.strip().isdigit():
        raise BadInput(f"bad version {version!r}: a version is the number `botmemory team history` prints")
    teams = Teams(mem)
    n, row = teams.restore(team, note, int(version), r, actor)
    return NoteResult(n, teams.resolve(team), row)


# ----- the journal


def journal(mem: Memory, team: str, limit: int | None = 50) -> list[Row]:
    teams = Teams(mem)
    return teams.rows(teams.resolve(team).team, limit)


def undo(mem: Memory, team: str, row_id: str, actor: Actor | None = None) -> TeamUndo:
    """Undo one row of the team's journal: the record it changed reads as before, as a new revision."""
    teams = Teams(mem)
    file, row = teams.undo(team, row_id) if actor is None else teams.undo(team, row_id, actor)
    return TeamUndo(file, row)


# ----- search


def search(mem: Memory, bot: str, words: Sequence[str] = (), since: str | date | None = None,
           until: str | date | None = None) -> TeamHits:
    """``session_search`` with scope ``team``: the accepted notes of *bot*'s teams holding every word, the
    ones that do not load included (no words and no range: all of them); newest first. ``since``/``until``:
    dates, or ``24h``, ``3d``, ``yesterday``. Nothing while memory is switched off for the bot."""
    from ..recall.search import matcher, parse_when

    mem.home.require_bot(bot)
    start = parse_when(since, mem.today, "since") if isinstance(since, str) else since
    end = parse_when(until, mem.today, "until") if isinstance(until, str) else until
    if start is not None and end is not None and start > end:
        raise BadInput(f"since {start.isoformat()} is after until {end.isoformat()}: nothing can match")
    if not bot_settings(mem.home, bot).memory:
        return TeamHits([])
    match = matcher(words) if words else None
    hits = [TeamHit(t, n, ok) for t, p in member_plans(mem.home, bot) for n, ok in zip(p.notes, p.loads, strict=True)]
    hits = [h for h in hits if (start is None or h.day >= start) and (end is None or h.day <= end)
            and (match is None or match(h.text))]
    hits.sort(key=lambda h: (-h.day.toordinal(), h.team.name.casefold(), h.note.note))
    return TeamHits(hits)

