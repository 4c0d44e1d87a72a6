"""Every change to a team: create, rename, members, delete; propose, accept, reject; edit, delete, pin,
restore a note; undo any of them. One change writes one file and one journal row.

Revisions: a note and a card each have a ``rev``. An edit, a delete or a
restore names the note's rev it was based on, an accept or a reject the
card's; when it is no longer the current one the change is refused with
:class:`TeamConflict` (exit 3, HTTP 409) carrying the record as it is now,
and nothing is written. A rev only grows: an undo is a new revision too, so a
rev names one text for ever. A pending card that replaces an accepted note
remembers that note's rev; once the note moved on, the card cannot be
accepted (the reviewer would approve a correction of a fact that is no
longer there). The check and the write happen under the team's lock, so of
two processes accepting the same card one wins and the other gets the
conflict.

Journal: ``<home>/memory-journal/team-<key>.ndjson``, the same rows as a
bot's (``store.journal``), ``file`` being the path inside the team folder
and ``earlier_text`` the record before. :meth:`Teams.undo` puts a row's
earlier record back as a new revision (so it can be undone in turn).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime

from ..base.errors import BadInput, Conflict, Refused
from ..base.log import get_logger
from ..base.record import replace
from ..disk.paths import check_bot_id
from ..disk.safeio import text_hash
from ..redact import contains_secret, redact
from ..store.journal import Row, make_row
from ..store.memory import Memory
from ..store.writer import Actor, Change, new_change_id
from ..text.entries import check_entry_text, clean_title
from .files import (
    TEAM_FILE,
    State,
    folder,
    journal_id,
    kind_of_rel,
    parse,
    read_record,
    read_state,
    read_team,
    read_text,
    rel_of,
    render,
    team_keys,
    team_locked,
    teams_locked,
    write_text,
)
from .merge import conflict_card
from .migrate import upgrade
from .records import Card, Note, Team, Version, check_key, check_name, check_title, is_id, new_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

logger = get_logger(__name__)

UNDO = Actor("person", "undo")


class TeamConflict(Conflict):
    """A stale or missing precondition: the revision given is not the current one (exit 3, HTTP 409).

    ``current`` is the note or card as it is now (``text`` its text, ``hash`` its rev as text)."""

    def __init__(self, message: str, current: dict[str, Any]) -> None:
        super().__init__(str(current.get("note") or current.get("card") or ""), str(current.get("text", "")),
                         str(current.get("rev", "")))
        self.args = (message,)
        self.current = current


class TeamNotFound(BadInput):
    """No such team, note or card (exit 2; HTTP 404)."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def clean_text(text: str, what: str = "note") -> str:
    """A note's or card's text as kept: checked like a memory entry (1,000 characters, 20 lines), redacted."""
    t = text.strip("\n")
    why = check_entry_text(t)
    if why:
        raise BadInput(why.replace("the entry", f"the {what}").replace("one entry", f"one {what}"))
    return redact(t)


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    return value


def incoming_record(text: str, shown: str) -> str:
    """A record's text as it came from another computer, checked (a JSON record of a format this botmemory
    reads: else BadInput or Refused, one line) and with every text in it redacted (kept as it came when it
    holds none)."""
    d = parse(text, shown)
    if not contains_secret(text):
        return text
    return render(_redacted(d))


def unchanged_since(note: Note, rev: int | None) -> bool:
    """Whether *note* is accepted and still says what it said at revision *rev* (the same rev, or a later
    one with the same title and text, after an undo or a restore)."""
    if not note.accepted or rev is None:
        return False
    if note.rev == rev:
        return True
    then = max((v for v in note.versions if v.rev <= rev), key=lambda v: v.rev, default=None)   # the text at rev
    return then is not None and (then.title, then.text) == (note.title, note.text)


class Teams:
    """The teams of one opened home."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem
        self.home = mem.home

    # ----- reading

    def keys(self) -> list[str]:
        upgrade(self.home)
        return team_keys(self.home)

    def all(self, *, retired: bool = False) -> list[Team]:
        """Every team (with *retired*: deleted ones too), by name."""
        out = []
        for k in self.keys():
            t = read_team(self.home, k)
            if t is not None and (retired or t.retired is None):
                out.append(t)
        return sorted(out, key=lambda t: (t.name.casefold(), t.team))

    def of_bot(self, bot: str) -> list[Team]:
        """The teams *bot* is a member of (not retired)."""
        return [t for t in self.all() if bot in t.bots]

    def resolve(self, ref: str) -> Team:
        """A team by its key (retired ones too) or by the name of one that is not retired."""
        upgrade(self.home)
        if is_id("team", ref):
            t = read_team(self.home, ref)
            if t is not None:
                return t
        folded = " ".join(ref.split()).casefold()
        named = [t for t in self.all() if t.name.casefold() == folded]
        if len(named) == 1:
            return named[0]
        known = ", ".join(f"{t.name} ({t.team})" for t in self.all()) or "none"
        raise TeamNotFound(f"no team {ref!r} (teams: {known}); `botmemory team create NAME` makes one")

    def state(self, key: str) -> State:
        return read_state(self.home, key)

    def rows(self, key: str, limit: int | None = 50) -> list[Row]:
        return self.mem.journal.list(journal_id(key), limit=limit)

    # ----- writing

    @contextmanager
    def _changing(self, ref: str) -> Iterator[State]:
        """The team's state read under its lock, for one change; refused for a retired team."""
        team = self.resolve(ref)
        with team_locked(self.home, team.team, team.name):
            state = self.state(team.team)
            if state.team.retired is not None:
                raise Refused(f"team {state.team.name} ({state.team.team}) was deleted on "
                              f"{state.team.retired[:10]}; its records stay on disk under teams/{state.team.team}/ "
                              "for recovery, but it takes no changes")
            yield state

    def _write(self, team: Team, kind: str, rid: str, before: str | None, record: dict[str, Any],
               actor: Actor, *, text: str | None = None) -> str | None:
        """Write one record (*text*: as given, else rendered) and journal it; the row id (None when the row
        could not be written)."""
        rel = rel_of(kind, rid)
        after = render(record) if text is None else text
        write_text(self.home, folder(self.home, team.team) / rel, after)
        at = datetime.now(UTC)
        jid = journal_id(team.team)
        row = make_row(Change(jid, rel, before, text_hash(before) if before is not None else None, after,
                              text_hash(after), actor, at, id=new_change_id(at)))
        try:
            self.mem.journal.append(jid, [row])
        except OSError as e:  # journaling never fails a change (as a bot's)
            logger.warning("could not write the journal row of team %s (%s): the change stands", team.name, e)
            return None
        for listener in self.mem.row_listeners:
            try:
                listener(row)
            except Exception:
                logger.exception("a row listener failed for row %s", row.id)
        return row.id

    def _before(self, team: Team, kind: str, rid: str) -> str | None:
        return read_text(self.home, folder(self.home, team.team) / rel_of(kind, rid))

    def _check_bots(self, bots: Sequence[str]) -> tuple[str, ...]:
        out: list[str] = []
        for b in bots:
            b = check_bot_id(b.strip())
            if b not in out:
                out.append(b)
        return tuple(out)

    def _name_free(self, name: str, but: str | None = None) -> None:
        for t in self.all():
            if t.team != but and t.name.casefold() == name.casefold():
                raise BadInput(f"a team named {t.name!r} exists already ({t.team}): choose another name")

    def create(self, name: str, bots: Sequence[str], actor: Actor) -> tuple[Team, str | None]:
        name = check_name(name)
        if contains_secret(name):
            raise Refused("that team name looks like a credential (a token or key): choose another name")
        members = self._check_bots(bots)
        with teams_locked(self.home):
            self._name_free(name)
            while True:
                key = new_id("team")
                if not folder(self.home, key).exists() and not self.mem.journal.active(journal_id(key)).exists():
                    break
            team = Team(key, name, members, now_iso())
            with team_locked(self.home, key, name):
                row = self._write(team, "team", "", None, team.as_dict(), actor)
        return team, row

    def rename(self, ref: str, name: str, actor: Actor) -> tuple[Team, str | None]:
        name = check_name(name)
        if contains_secret(name):
            raise Refused("that team name looks like a credential (a token or key): choose another name")
        with teams_locked(self.home), self._changing(ref) as st:
            if st.team.name == name:
                return st.team, None
            self._name_free(name, but=st.team.team)
            team = replace(st.team, name=name, rev=st.team.rev + 1)
            return team, self._write(team, "team", "", self._before(team, "team", ""), team.as_dict(), actor)

    def set_bots(self, ref: str, bots: Sequence[str], actor: Actor) -> tuple[Team, str | None]:
        members = self._check_bots(bots)
        with self._changing(ref) as st:
            if st.team.bots == members:
                return st.team, None
            team = replace(st.team, bots=members, rev=st.team.rev + 1)
            return team, self._write(team, "team", "", self._before(team, "team", ""), team.as_dict(), actor)

    def delete(self, ref: str, actor: Actor) -> tuple[Team, str | None]:
        """Retire the team: its key is never used again; its records stay on disk (not a secure erase)."""
        with self._changing(ref) as st:
            team = replace(st.team, retired=now_iso(), rev=st.team.rev + 1)
            return team, self._write(team, "team", "", self._before(team, "team", ""), team.as_dict(), actor)

    # ----- cards

    def propose(self, ref: str, text: str, actor: Actor, *, title: str | None = None, key: str | None = None,
                bot: str | None = None, quotes: Sequence[str] = (), chat: str | None = None,
                host: str | None = None, replaces: str | None = None) -> tuple[Card, Note | None, str | None]:
        """A pending card; (the card, the accepted note it would replace, the row id — None when an identical
        card was pending already and is returned instead).

        *replaces* (with *host*): the other computer's text of a note edited on two computers, kept as a
        conflict card that replaces that note rather than overwriting either side."""
        body = clean_text(text, "proposal")
        head = redact(check_title(title))
        k = check_key(key)
        if k is not None and contains_secret(k):
            raise Refused("that key looks like a credential (a token or key): choose another key")
        with self._changing(ref) as st:
            if bot is not None and bot not in st.team.bots:
                raise Refused(f"{bot} is not a member of team {st.team.name} "
                              f"(members: {', '.join(st.team.bots) or 'none'})")
            if replaces is not None:     # a conflict card: built as a sync merge builds one (team.merge)
                was = self._note(st, replaces)
                card = conflict_card(new_id("card"), was, head, body, who=actor.who, how=actor.how, host=host,
                                     at=now_iso(), day=self.mem.today.isoformat(), bot=bot)
                return (card, was if was.accepted else None,
                        self._write(st.team, "card", card.card, None, card.as_dict(), actor))
            target = st.by_key(k)
            same = [n for n in st.accepted() if same_text(n.text, body) and (k is None or n.key == k)]
            if same:
                raise Refused(f"team {st.team.name} has this note already ({same[0].note})")
            for c in st.pending():
                if c.key == k and same_text(c.text, body) and c.title == head:
                    return c, target, None
            card = Card(new_id("card"), body, head, k, 1, "pending", now_iso(), self.mem.today.isoformat(),
                        actor.who, actor.how, bot, clean_title(chat) if chat else None,
                        tuple(redact(q) for q in quotes), target.note if target else None,
                        target.rev if target else None, None, False, None)
            return card, target, self._write(st.team, "card", card.card, None, card.as_dict(), actor)

    def _card(self, st: State, cid: str) -> Card:
        card = st.cards.get(cid)
        if card is None:
            raise TeamNotFound(f"no card {cid!r} in team {st.team.name} (`botmemory team show {st.team.team}` lists them)")
        return card

    def _note(self, st: State, nid: str) -> Note:
        note = st.notes.get(nid)
        if note is None:
            raise TeamNotFound(f"no note {nid!r} in team {st.team.name} (`botmemory team show {st.team.team}` lists them)")
        return note

    def _card_at(self, st: State, card: Card, rev: int) -> None:
        status = st.status(card)
        if status == "accepted":
            note = st.notes[st.accepted_into()[card.card]]
            raise TeamConflict(f"card {card.card} was accepted already (note {note.note}); nothing was changed",
                               {**self._card_now(st, card), "note": note.note, "text": note.text})
        if rev != card.rev:
            raise TeamConflict(f"card {card.card} changed since you saw it (revision {rev}, now {card.rev}: "
                               f"{status}); nothing was changed", self._card_now(st, card))
        if status != "pending":
            raise Refused(f"card {card.card} is {status}: it can no longer be decided (propose it again)")

    def _card_now(self, st: State, card: Card) -> dict[str, Any]:
        return {"card": card.card, "text": card.text, "title": card.title, "key": card.key, "rev": card.rev,
                "status": st.status(card), "replaces": card.replaces}

    def accept(self, ref: str, cid: str, rev: int, actor: Actor) -> tuple[Note, str | None]:
        """Accept a pending card at the revision the reviewer saw: the note with its key gets its text as a new
        version (the earlier one stays in the history), or a new note is made."""
        with self._changing(ref) as st:
            card = self._card(st, cid)
            self._card_at(st, card, rev)
            target = st.by_key(card.key)
            if card.replaces is not None:
                was = st.notes.get(card.replaces)
                if was is None or not unchanged_since(was, card.replaces_rev):
                    now = was.shown() if was is not None else {"note": card.replaces, "text": "", "rev": None}
                    raise TeamConflict(f"the note this card would replace ({card.replaces}) changed since the card "
                                       "was proposed: read it again; the card was not accepted",
                                       {**now, "state": was.state if was else "gone", "card": card.card})
                target = was
            elif target is not None:
                raise TeamConflict(f"a note with the key {card.key} ({target.note}) was accepted since the card was "
                                   "proposed: read it again; the card was not accepted",
                                   {**target.shown(), "card": card.card})
            at, day = now_iso(), self.mem.today.isoformat()
            if target is None:
                v = Version(1, card.title, card.text, at, day, actor.who, "accept", card.bot, card.card)
                note = Note(new_id("note"), card.key, card.title, card.text, 1, False, "accepted", at, at, day,
                            (card.card,), (v,))
                return note, self._write(st.team, "note", note.note, None, note.as_dict(), actor)
            v = Version(target.rev + 1, card.title or target.title, card.text, at, day, actor.who, "accept",
                        card.bot, card.card)
            note = replace(target.with_version(v), cards=(*target.cards, card.card))
            before = self._before(st.team, "note", note.note)
            return note, self._write(st.team, "note", note.note, before, note.as_dict(), actor)

    def reject(self, ref: str, cid: str, rev: int, actor: Actor) -> tuple[Card, str | None]:
        with self._changing(ref) as st:
            card = self._card(st, cid)
            self._card_at(st, card, rev)
            new = replace(card, state="rejected", rev=card.rev + 1, decided=now_iso())
            return new, self._write(st.team, "card", cid, self._before(st.team, "card", cid), new.as_dict(), actor)

    # ----- notes

    def _note_at(self, st: State, note: Note, rev: int) -> None:
        if rev != note.rev:
            raise TeamConflict(f"note {note.note} changed since you opened it (revision {rev}, now {note.rev}); "
                               "nothing was saved: the current text is shown", {**note.shown(), "state": note.state})
        if not note.accepted:
            raise Refused(f"note {note.note} was deleted: undo its deletion in the team's journal to bring it back")

    def edit(self, ref: str, nid: str, rev: int, text: str, actor: Actor, *,
             title: str | None = None) -> tuple[Note, str | None]:
        body = clean_text(text)
        with self._changing(ref) as st:
            note = self._note(st, nid)
            self._note_at(st, note, rev)
            head = note.title if title is None else redact(check_title(title))
            if note.text == body and note.title == head:
                return note, None
            v = Version(note.rev + 1, head, body, now_iso(), self.mem.today.isoformat(), actor.who, "edit")
            new = note.with_version(v)
            return new, self._write(st.team, "note", nid, self._before(st.team, "note", nid), new.as_dict(), actor)

    def remove(self, ref: str, nid: str, rev: int, actor: Actor) -> tuple[Note, str | None]:
        """Delete a note: it stops loading and is found nowhere; its file stays (undo brings it back)."""
        with self._changing(ref) as st:
            note = self._note(st, nid)
            self._note_at(st, note, rev)
            new = replace(note, state="deleted", rev=note.rev + 1)
            return new, self._write(st.team, "note", nid, self._before(st.team, "note", nid), new.as_dict(), actor)

    def pin(self, ref: str, nid: str, on: bool, actor: Actor) -> tuple[Note, str | None]:
        """Pinned notes load first. Not a new revision: the text did not change."""
        with self._changing(ref) as st:
            note = self._note(st, nid)
            if not note.accepted:
                raise Refused(f"note {nid} was deleted: it cannot be pinned")
            if note.pinned == on:
                return note, None
            new = replace(note, pinned=on)
            return new, self._write(st.team, "note", nid, self._before(st.team, "note", nid), new.as_dict(), actor)

    def restore(self, ref: str, nid: str, version: int, rev: int, actor: Actor) -> tuple[Note, str | None]:
        """Bring back the text of one of the note's kept versions, as a new revision."""
        with self._changing(ref) as st:
            note = self._note(st, nid)
            self._note_at(st, note, rev)
            old = next((v for v in note.versions if v.rev == version), None)
            if old is None:
                kept = ", ".join(str(v.rev) for v in reversed(note.versions))
                raise BadInput(f"note {nid} keeps no version {version} (kept: {kept})")
            if old.text == note.text and old.title == note.title:
                return note, None
            v = Version(note.rev + 1, old.title, old.text, now_iso(), self.mem.today.isoformat(), actor.who,
                        "restore", old.bot, old.card, old.rev)
            new = note.with_version(v)
            return new, self._write(st.team, "note", nid, self._before(st.team, "note", nid), new.as_dict(), actor)

    # ----- what another computer changed (sync)

    def put(self, key: str, writes: Sequence[tuple[str, str | None, str | None]], actor: Actor) -> int:
        """Write records as they came from another computer, ``(path in the team folder, text, the sha-256 it
        must have now or None for "absent")``: every hash is checked first, under the team's lock
        (:class:`Conflict`: nothing written); each text must be a record of a format this botmemory reads, and
        its texts are redacted. One journal row each (*actor*: ``how: sync``, ``host``). A record is never
        deleted (None is skipped: deleting is a state). Returns how many files changed. Written on a retired
        team too: what another computer did to it is kept."""
        if not is_id("team", key):
            raise BadInput(f"bad team key {key!r}")
        base = folder(self.home, key)
        with team_locked(self.home, key):
            now: dict[str, str | None] = {}
            for rel, _, expected in writes:
                kind_of_rel(rel)
                before = read_text(self.home, base / rel)
                got = text_hash(before) if before is not None else None
                if got != expected:
                    raise Conflict(rel, before or "", got or "")
                now[rel] = before
            todo: list[tuple[str, str]] = []
            for rel, text, _ in writes:
                if text is None:
                    continue
                new = incoming_record(text, f"teams/{key}/{rel}")
                if new != now[rel]:
                    todo.append((rel, new))
            team = Team(key, key, (), "")      # (the journal's name for it, in a warning)
            for rel, new in sorted(todo, key=lambda w: (w[0] != TEAM_FILE, w[0])):   # team.json first
                kind, rid = kind_of_rel(rel)
                self._write(team, kind, rid, now[rel], {}, actor, text=new)
            return len(todo)

    # ----- undo

    def undo(self, ref: str, row_id: str, actor: Actor = UNDO) -> tuple[str, str | None]:
        """Put back the record a journal row changed, as it was before that row, as a new revision.

        Returns (the file, the undo's row id; None when the record already is as it was)."""
        team = self.resolve(ref)
        jid = journal_id(team.team)
        with teams_locked(self.home), team_locked(self.home, team.team, team.name):
            try:
                row = self.mem.journal.find(jid, row_id)
            except BadInput:
                raise TeamNotFound(f"no row {row_id!r} in the journal of team {team.name} "
                               f"(`botmemory team journal {team.team}` lists them)") from None
            if not row.undoable:
                raise Refused(f"row {row_id} cannot be undone: {row.reason}")
            if row.secret_lines:   # the record is put back whole, and its kept copy is redacted
                raise Refused(f"row {row_id} cannot be undone: its earlier text held a credential, which the "
                              "journal keeps only redacted")
            kind, rid = kind_of_rel(row.file)
            earlier: dict[str, Any] | None = None
            if row.before_hash is not None:
                if row.earlier_text is None:
                    raise Refused(f"row {row_id} cannot be undone: it holds no earlier text")
                earlier = parse(row.earlier_text, f"row {row_id}")
            path = folder(self.home, team.team) / row.file
            got = read_record(self.home, path)
            if got is None:
                if earlier is None:
                    return row.file, None
                return row.file, self._write(team, kind, rid, None, earlier, actor)
            current, before = got
            new = self._undone(kind, current, earlier, row.file)
            if new == current:
                return row.file, None
            return row.file, self._write(team, kind, rid, before, new, actor)

    def _undone(self, kind: str, current: dict[str, Any], earlier: dict[str, Any] | None,
                shown: str) -> dict[str, Any]:
        """The record to write so that it reads as *earlier* again, at a revision after *current*."""
        at, day = now_iso(), self.mem.today.isoformat()
        if kind == "team":
            cur = Team.from_dict(current, shown)
            if earlier is None:     # undoing the creation: the team is retired
                return replace(cur, retired=cur.retired or at, rev=cur.rev + 1).as_dict()
            was = Team.from_dict(earlier, shown)
            back = replace(cur, name=was.name, bots=was.bots, retired=was.retired, rev=cur.rev + 1)
            if back.retired is None:
                self._name_free(back.name, but=back.team)
            if (back.name, back.bots, back.retired) == (cur.name, cur.bots, cur.retired):
                return current
            return back.as_dict()
        if kind == "card":
            card = Card.from_dict(current, shown)
            state = "withdrawn" if earlier is None else Card.from_dict(earlier, shown).state
            if state == card.state:
                return current
            return replace(card, state=state, rev=card.rev + 1, decided=None if state == "pending" else at).as_dict()
        note = Note.from_dict(current, shown)
        if earlier is None:         # undoing the acceptance that made it: gone, and its cards pending again
            if note.state == "deleted" and not note.cards:
                return current
            return replace(note, state="deleted", cards=(), rev=note.rev + 1).as_dict()
        old = Note.from_dict(earlier, shown)
        new = note
        if (old.title, old.text) != (note.title, note.text):
            new = new.with_version(Version(note.rev + 1, old.title, old.text, at, day, UNDO.who, "undo"))
        elif (old.key, old.state, old.cards) != (note.key, note.state, note.cards):
            new = replace(new, rev=note.rev + 1)
        new = replace(new, key=old.key, state=old.state, cards=old.cards, pinned=old.pinned)
        return current if new == note else new.as_dict()
