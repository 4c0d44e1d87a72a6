"""A team folder changed on two computers, put together (docs/TEAMS.md, "Across computers"). Pure: texts in,
texts out; no I/O.

The sync engine takes a file changed on one side only from that side; this module decides the rest, record by
record, so that nothing accepted is lost and nothing is overwritten silently:

- **A note changed on both** (:func:`merge_note`): its fields are merged three ways against the last synced
  record (pin, state, key, the cards it accepted). When both sides changed its text, the side with the higher
  ``rev`` keeps the note (the local one on a tie) and the other side's text becomes a **conflict card**
  replacing it. Every text a side had accepted is either the note's text afterwards or a pending conflict
  card: a note deleted on one computer and edited on the other stays deleted, and the edited text is a card
  (with the note's key: accepting it brings the fact back).
- **Revisions stay monotonic across computers.** When both sides made revisions of one record, every number
  above the last synced one names two different records; the merged record takes ``max(both) + 1`` and the
  versions both sides made are renumbered above both (the other side's first, the kept text's last), so no
  ``--rev`` anyone saw on either computer passes for the merged note, and a pending replacement card that was
  proposed against one side's text is stale. A side that is above the other and already holds every version
  the other made (this merge, written by a round stopped before it saved its base) is the merge: it is kept as
  it is, not renumbered again (which would make the conflict card made against it stale).
- **A card changed on both** (:func:`merge_card`): a decision is kept: ``rejected`` before ``withdrawn``
  before ``pending``.
- **team.json changed on both** (:func:`merge_team`): name and retirement three ways (both renamed: the higher
  ``rev``'s name, else the local one), member bots as sets (added on either side: in; removed on either: out).
- **One fact twice** (:func:`same_facts`): two accepted notes with the same key, or that accepted the same
  card (two computers accepting one card, or two cards of one key, each making a new note) are one fact: the
  older note is kept (the smaller ``created``, then id, so every computer chooses the same), the other is
  deleted (its cards stay accepted) and, when it said something else, its text is a conflict card.
- A card accepted on one computer and rejected on the other: two different files (the note lists the card;
  the card says ``rejected``): **the acceptance stands** (a card is accepted when a note lists it), the
  rejection stays in the card's file and both rows in the journals.

Conflict cards get an id derived from the note, the revision and the text they keep, so a round that is
killed and run again makes the same card once.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping

from ..base.record import record, replace
from .files import kind_of_rel, parse, render
from .records import MAX_VERSIONS, Card, Note, Team, Version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _V = TypeVar("_V")

CARD_ORDER = ("rejected", "withdrawn", "pending")
"""When both computers changed a card's state differently, the first of these in this order is kept."""


@record(frozen=True)
class Kept:
    """A text a side had accepted that the merged note does not show: it becomes a conflict card."""

    title: str
    text: str
    side: str                # "ours" or "theirs": whose text it is
    rev: int                 # that side's rev of the note
    who: str                 # who made that text (its version's who)
    bot: str | None = None


@record(frozen=True)
class Made:
    """A conflict card the merge made: its file and text, and which side's text it keeps."""

    rel: str
    text: str
    side: str


@record(frozen=True)
class Outcome:
    """What the merge decided for a team folder: texts to keep (new files too), the cards it made."""

    texts: dict[str, str | None]
    made: tuple[Made, ...] = ()
    notes: tuple[str, ...] = ()      # what it did, in a person's words (the round's log)


def _three(base: _V | None, ours: _V, theirs: _V, prefer: _V, known: bool) -> _V:
    """Three-way choice of one field: the side that changed it; both changed differently → *prefer*."""
    if ours == theirs:
        return ours
    if known and base == ours:
        return theirs
    if known and base == theirs:
        return ours
    return prefer


def _set_merge(base: Iterable[str] | None, ours: Iterable[str], theirs: Iterable[str]) -> tuple[str, ...]:
    """Members kept by both, plus what either side added; what either removed is out. Ours' order first."""
    o, t = list(ours), list(theirs)
    b = set(base) if base is not None else set(o) & set(t)
    keep = (b & set(o) & set(t)) | (set(o) - b) | (set(t) - b)
    out = [x for x in o if x in keep]
    out += [x for x in t if x in keep and x not in out]
    return tuple(out)


def _ident(v: Version) -> tuple[str, str, str, str | None]:
    """A version apart from its number and moment: the same change made on both computers (one card accepted
    twice, one text typed twice), or one a merge put in already."""
    return (v.title, v.text, v.how, v.card)


def _common_rev(ours: Note, theirs: Note) -> int:
    """Without a base (the file appeared on both sides): the last revision both kept alike."""
    mine = {(v.rev, _ident(v)) for v in ours.versions}
    same = [v.rev for v in theirs.versions if (v.rev, _ident(v)) in mine]
    return max(same, default=0)


def _holds(side: Note, rest: Note, brev: int) -> bool:
    """Whether *side* is above *rest* and already holds every version *rest* made since *brev*: *side* is this
    merge done before (a round that wrote the merged note and was stopped before it saved its base)."""
    mine = {_ident(v) for v in side.versions if v.rev > brev}
    return side.rev > rest.rev and all(_ident(v) in mine for v in rest.versions if v.rev > brev)


def _same_record(merged: Note, side: Note) -> bool:
    """Whether the merge's fields and text are *side*'s (its revisions and rev apart)."""
    return ((merged.title, merged.text, merged.at, merged.day, merged.state, merged.pinned, merged.key,
             set(merged.cards)) == (side.title, side.text, side.at, side.day, side.state, side.pinned, side.key,
                                    set(side.cards)))


def merge_note(base: Note | None, ours: Note, theirs: Note) -> tuple[Note, list[Kept]]:
    """The note both computers changed, merged (module docstring); and the accepted texts it does not show,
    for conflict cards."""
    known = base is not None
    brev = base.rev if base is not None else _common_rev(ours, theirs)
    ours_wins = ours.rev >= theirs.rev
    w, lo = (ours, theirs) if ours_wins else (theirs, ours)
    o_txt, t_txt = (ours.title, ours.text), (theirs.title, theirs.text)
    b_txt = (base.title, base.text) if base is not None else None
    if o_txt == t_txt:
        text_side = w
    elif known and b_txt == o_txt:
        text_side = theirs
    elif known and b_txt == t_txt:
        text_side = ours
    else:
        text_side = w
    other = theirs if text_side is ours else ours
    state = _three(base.state if base else None, ours.state, theirs.state, w.state, known)
    pinned = _three(base.pinned if base else None, ours.pinned, theirs.pinned, w.pinned, known)
    key = _three(base.key if base else None, ours.key, theirs.key, w.key, known)
    cards = _set_merge(base.cards if base else None, ours.cards, theirs.cards)

    o_moved, t_moved = ours.rev > brev, theirs.rev > brev
    if o_moved and t_moved:
        top = max(ours.rev, theirs.rev)
        kept_new = [v for v in text_side.versions if v.rev > brev]
        seen = {_ident(v) for v in kept_new}
        other_new = [v for v in other.versions if v.rev > brev and _ident(v) not in seen]
        common = [v for v in w.versions if v.rev <= brev]
        fresh = [replace(v, rev=top + i) for i, v in enumerate([*other_new, *kept_new], 1)]
        versions = tuple([*common, *fresh][-MAX_VERSIONS:])
        rev = top + max(1, len(fresh))
    elif o_moved or t_moved:
        moved = ours if o_moved else theirs
        versions, rev = moved.versions, moved.rev
    else:
        versions, rev = w.versions, w.rev
    merged = Note(w.note, key, text_side.title, text_side.text, rev, pinned, state, w.created, text_side.at,
                  text_side.day, cards, versions)
    if o_moved and t_moved:
        for side, rest in ((ours, theirs), (theirs, ours)):
            if _holds(side, rest, brev) and _same_record(merged, side):
                merged = side            # a merge already: renumbering it again would make its cards stale
                break

    lost: list[Kept] = []
    for side, name in ((ours, "ours"), (theirs, "theirs")):
        if not side.accepted:
            continue
        said = (side.title, side.text)
        if known and said == b_txt:
            continue                     # it did not change the text: nothing of it to keep
        if merged.accepted and said == (merged.title, merged.text):
            continue
        last = side.versions[-1] if side.versions else None
        lost.append(Kept(side.title, side.text, name, side.rev, last.who if last else "person",
                         last.bot if last else None))
    return merged, lost


def merge_card(base: Card | None, ours: Card, theirs: Card) -> Card:
    """The card both computers changed: a decision is kept (:data:`CARD_ORDER`), its rev above both."""
    known = base is not None
    w = ours if ours.rev >= theirs.rev else theirs
    if ours.state == theirs.state:
        state_side = w
    elif known and base is not None and base.state == ours.state:
        state_side = theirs
    elif known and base is not None and base.state == theirs.state:
        state_side = ours
    else:
        state_side = min((ours, theirs), key=lambda c: CARD_ORDER.index(c.state) if c.state in CARD_ORDER else 9)
    brev = base.rev if base is not None else min(ours.rev, theirs.rev)
    rev = max(ours.rev, theirs.rev) + 1 if ours.rev > brev and theirs.rev > brev else max(ours.rev, theirs.rev)
    return replace(w, state=state_side.state, decided=state_side.decided, rev=rev)


def merge_team(base: Team | None, ours: Team, theirs: Team) -> Team:
    """team.json changed on both: name three ways (the higher rev's, else ours), members as sets, retired if
    either side retired it (the earlier date)."""
    known = base is not None
    w = ours if ours.rev >= theirs.rev else theirs
    name = _three(base.name if base else None, ours.name, theirs.name, w.name, known)
    bots = _set_merge(base.bots if base else None, ours.bots, theirs.bots)
    retired: str | None
    if ours.retired and theirs.retired:
        retired = min(ours.retired, theirs.retired)
    else:
        retired = _three(base.retired if base else None, ours.retired, theirs.retired,
                         ours.retired or theirs.retired, known)
    brev = base.rev if base is not None else min(ours.rev, theirs.rev)
    rev = max(ours.rev, theirs.rev) + 1 if ours.rev > brev and theirs.rev > brev else max(ours.rev, theirs.rev)
    return replace(w, name=name, bots=bots, retired=retired, rev=rev)


def card_id(team: str, note: str, rev: int, title: str, text: str) -> str:
    """A conflict card's id: the same note, revision and text give the same card (a round run again)."""
    h = hashlib.sha256(f"{team}\n{note}\n{rev}\n{title}\n{text}".encode()).hexdigest()
    return f"c-{h[:10]}"


def conflict_card(cid: str, note: Note, title: str, text: str, *, who: str, how: str, host: str | None,
                  at: str, day: str, bot: str | None = None) -> Card:
    """The other side's text of *note* as a pending conflict card: it replaces the note while the note is
    accepted (at its rev now), else it carries the note's key (accepting it brings the fact back)."""
    live = note.accepted
    return Card(cid, text, title, note.key, 1, "pending", at, day, who, how, bot, None, (),
                note.note if live else None, note.rev if live else None, None, True, host)


def _parsed(text: str, rel: str) -> dict[str, Any]:
    return parse(text, rel)


def same_facts(final: Mapping[str, str], came: Iterable[str]) -> dict[str, tuple[Note, Note]]:
    """Accepted notes that are one fact (the same key, or a card both list) where a merge put them together:
    ``rel -> (the note deleted, the note kept)``. A group counts only when one of its notes came in and one
    was here (what a computer did alone, an undo say, is left as it is)."""
    came = set(came)
    if not any(rel.startswith("notes/") for rel in came):
        return {}
    notes: dict[str, Note] = {}
    for rel, text in final.items():
        if rel.startswith("notes/"):
            n = Note.from_dict(_parsed(text, rel), rel)
            if n.accepted:
                notes[rel] = n
    parent = {rel: rel for rel in notes}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first: dict[tuple[str, str], str] = {}
    for rel, n in sorted(notes.items()):
        for label in ([("key", n.key)] if n.key else []) + [("card", c) for c in n.cards]:
            if label in first:
                parent[find(rel)] = find(first[label])
            else:
                first[label] = rel
    groups: dict[str, list[str]] = {}
    for rel in notes:
        groups.setdefault(find(rel), []).append(rel)
    out: dict[str, tuple[Note, Note]] = {}
    for members in groups.values():
        if len(members) < 2 or all(m in came for m in members) or not any(m in came for m in members):
            continue
        keep = min(members, key=lambda r: (notes[r].created, notes[r].note))
        for r in members:
            if r != keep:
                out[r] = (replace(notes[r], state="deleted", rev=notes[r].rev + 1), notes[keep])
    return out


def merge_folder(team: str, ours: Mapping[str, str], desired: Mapping[str, str | None],  # noqa: C901
                 both: Mapping[str, tuple[str | None, str | None, str | None]], *, at: str, day: str,
                 host: Callable[[str], str | None]) -> Outcome:
    """A team folder's round, put together.

    *ours*: its files here now; *desired*: what the engine would keep of each file (one side's text where only
    that side changed it); *both*: the files both sides changed, as ``(base, ours, theirs)`` texts;
    *host(where)*: the computer a text comes from (``"ours"`` for this one, a file's path for the remote's
    newest change of it). Returns the texts to keep otherwise than *desired*, conflict cards included.
    Raises BadInput for a damaged record and Refused for a format this botmemory does not read: nothing is
    written then."""
    texts: dict[str, str | None] = {}
    notes: list[str] = []
    lost: list[tuple[str, Note, Kept]] = []       # (the note's file, the note, a text it does not show)

    # every text that would come in is a record this botmemory reads (else nothing is written)
    for rel, text in desired.items():
        if text is not None and text != ours.get(rel):
            _parsed(text, rel)
    # a team's records are never deleted (deleting a note is a state): a file gone from the remote stays
    for rel, text in desired.items():
        if text is None and rel in ours and rel not in both:
            texts[rel] = ours[rel]

    for rel, (b, o, t) in sorted(both.items()):
        kind, _ = kind_of_rel(rel)
        if o is None or t is None:          # deleted on one side, changed on the other: the record stays
            texts[rel] = o if o is not None else t
            continue
        bd = _parsed(b, rel) if b is not None else None
        od, td = _parsed(o, rel), _parsed(t, rel)
        if kind == "team":
            texts[rel] = render(merge_team(Team.from_dict(bd, rel) if bd else None, Team.from_dict(od, rel),
                                           Team.from_dict(td, rel)).as_dict())
        elif kind == "card":
            texts[rel] = render(merge_card(Card.from_dict(bd, rel) if bd else None, Card.from_dict(od, rel),
                                           Card.from_dict(td, rel)).as_dict())
        else:
            note, gone = merge_note(Note.from_dict(bd, rel) if bd else None, Note.from_dict(od, rel),
                                    Note.from_dict(td, rel))
            texts[rel] = render(note.as_dict())
            lost += [(rel, note, k) for k in gone]
            if gone:
                notes.append(f"{note.note} was changed on both computers")

    # the folder as it will be: one fact twice is one fact
    final: dict[str, str] = dict(ours)
    for rel, text in {**desired, **texts}.items():
        if text is None:
            final.pop(rel, None)
        else:
            final[rel] = text
    came = {rel for rel, text in {**desired, **texts}.items() if text is not None and text != ours.get(rel)}
    retired = same_facts(final, came)
    for rel, (gone_note, keeper) in sorted(retired.items()):
        texts[rel] = final[rel] = render(gone_note.as_dict())
        notes.append(f"{gone_note.note} and {keeper.note} were one fact accepted twice: {keeper.note} is kept")
        if (gone_note.title, gone_note.text) != (keeper.title, keeper.text):
            last = gone_note.versions[-1] if gone_note.versions else None
            lost.append((rel, gone_note, Kept(gone_note.title, gone_note.text, "theirs" if rel in came else "ours",
                                              gone_note.rev - 1, last.who if last else "person",
                                              last.bot if last else None)))

    made: list[Made] = []
    for rel, note, k in lost:
        target = retired[rel][1] if rel in retired else note
        cid = card_id(team, note.note, k.rev, k.title, k.text)
        crel = f"cards/{cid}.json"
        if crel in final:
            continue                     # made already (a round stopped and run again)
        card = conflict_card(cid, target, k.title, k.text, who=k.who, how="sync",
                             host=host("ours" if k.side == "ours" else rel), at=at, day=day, bot=k.bot)
        texts[crel] = final[crel] = render(card.as_dict())
        made.append(Made(crel, k.text, k.side))
    return Outcome(texts, tuple(made), tuple(notes))
