"""A team's records as they are kept on disk (format 2): the team, its notes, its cards, a note's versions.

Pure: no I/O. Each record is one JSON object whose first field is ``"format": 2``;
:func:`check_format` refuses a format this botmemory does not know with one
line. ``as_dict`` and ``from_dict`` are each other's inverse; ``from_dict``
raises :class:`BadInput` naming the file when an object is not a record
(``docs/TEAMS.md`` lists every field).

- :class:`Team` (``team.json``): the key that never changes, the name, the
  member bots, and when it was retired (deleted).
- :class:`Note` (``notes/<note>.json``): an accepted fact (or a deleted one:
  ``state: deleted``), its stable ``key``, its ``rev``, whether it is pinned,
  the cards accepted into it, and its last :data:`MAX_VERSIONS` text versions.
- :class:`Card` (``cards/<card>.json``): a proposal. It is pending until a
  note lists it in ``cards`` (accepted) or its own ``state`` says
  ``rejected`` or ``withdrawn``: accepting writes the note only, so every
  change is one file and one journal row.
"""
from __future__ import annotations

import os
import re
import unicodedata

from ..base.errors import BadInput, Refused
from ..base.record import record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 2
"""The format this botmemory writes."""
READS = (1, 2)
"""The formats it reads: 1 is migrated to 2 on first use (:mod:`.migrate`)."""
MAX_VERSIONS = 50
"""A note keeps its last 50 text versions (the current one included); each can be restored."""
MAX_TITLE_CHARS = 120
MAX_NAME_CHARS = 80
MAX_KEY_CHARS = 120

NOTE_STATES = ("accepted", "deleted")
CARD_STATES = ("pending", "rejected", "withdrawn")

_KEY = re.compile(r"[a-z0-9][a-z0-9._-]*(?:/[a-z0-9._-]+)*")
_ID = {"team": re.compile(r"t-[0-9a-f]{10}"), "note": re.compile(r"n-[0-9a-f]{10}"),
       "card": re.compile(r"c-[0-9a-f]{10}")}
KEY_RULE = ("a key is lowercase letters, digits, '.', '_' and '-', in parts joined by '/' "
            f"(like tapa/sequence-02/colour), at most {MAX_KEY_CHARS} characters")


def new_id(kind: str) -> str:
    """A fresh id: ``t-``, ``n-`` or ``c-`` and ten random hex digits."""
    return f"{kind[0]}-{os.urandom(5).hex()}"


def is_id(kind: str, text: str) -> bool:
    return _ID[kind].fullmatch(text) is not None


def check_key(key: str | None) -> str | None:
    """A stable key as kept (lowercase), None for none; BadInput when it breaks :data:`KEY_RULE`."""
    if key is None or not key.strip():
        return None
    k = key.strip().lower()
    if len(k) > MAX_KEY_CHARS or not _KEY.fullmatch(k):
        raise BadInput(f"bad key {key!r}: {KEY_RULE}")
    return k


def _no_controls(text: str, what: str) -> None:
    for i, ch in enumerate(text):
        if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r":
            raise BadInput(f"the {what} holds a control character (U+{ord(ch):04X} at character {i + 1})")


def check_name(name: str) -> str:
    """A team's name: one line of 1 to 80 characters, spaces folded."""
    n = " ".join(name.split())
    if not n:
        raise BadInput("a team needs a name")
    if len(n) > MAX_NAME_CHARS:
        raise BadInput(f"a team's name is at most {MAX_NAME_CHARS} characters")
    _no_controls(n, "name")
    return n


def check_title(title: str | None) -> str:
    t = " ".join((title or "").split())
    if len(t) > MAX_TITLE_CHARS:
        raise BadInput(f"a note's title is at most {MAX_TITLE_CHARS} characters")
    _no_controls(t, "title")
    return t


def check_format(d: object, shown: str) -> int:
    """The format of the record *d* read from *shown*: Refused (one line) for one this botmemory does not read."""
    if not isinstance(d, dict):
        raise BadInput(f"{shown} is damaged: not a JSON object (botmemory left it as it is)")
    fmt = d.get("format", d.get("version"))
    if type(fmt) is not int:
        raise BadInput(f"{shown} is damaged: it says no format (botmemory left it as it is)")
    if fmt not in READS:
        raise Refused(f"{shown} is team-memory format {fmt}; this botmemory reads formats "
                      f"{READS[0]} to {READS[-1]}: update botmemory (nothing was changed)")
    return fmt


class _Fields:
    """Reads the fields of one record, naming the file and the field when one is wrong."""

    def __init__(self, d: dict[str, Any], shown: str) -> None:
        self.d = d
        self.shown = shown

    def bad(self, name: str, want: str) -> BadInput:
        return BadInput(f"{self.shown} is damaged: {name!r} is not {want} (botmemory left it as it is)")

    def text(self, name: str, *, optional: bool = False) -> Any:
        v = self.d.get(name)
        if v is None and optional:
            return None
        if not isinstance(v, str):
            raise self.bad(name, "text")
        return v

    def number(self, name: str, *, optional: bool = False) -> Any:
        v = self.d.get(name)
        if v is None and optional:
            return None
        if type(v) is not int or v < 0:
            raise self.bad(name, "a whole number")
        return v

    def flag(self, name: str) -> bool:
        v = self.d.get(name, False)
        if not isinstance(v, bool):
            raise self.bad(name, "true or false")
        return v

    def texts(self, name: str) -> tuple[str, ...]:
        v = self.d.get(name, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.bad(name, "a list of text")
        return tuple(v)

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        v = self.text(name)
        if v not in choices:
            raise self.bad(name, " or ".join(choices))
        return str(v)


@record(frozen=True)
class Team:
    team: str                      # the key: never changes
    name: str
    bots: tuple[str, ...]
    created: str                   # ISO 8601 UTC
    retired: str | None = None     # when it was deleted: the key is never used again
    rev: int = 1

    def as_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "team": self.team, "name": self.name, "bots": list(self.bots),
                "created": self.created, "retired": self.retired, "rev": self.rev}

    @classmethod
    def from_dict(cls, d: dict[str, Any], shown: str) -> Team:
        f = _Fields(d, shown)
        return cls(f.text("team"), f.text("name"), f.texts("bots"), f.text("created"), f.text("retired", optional=True),
                   f.number("rev"))

    def listed(self) -> dict[str, Any]:
        """What ``team list`` shows of it."""
        return {"team": self.team, "name": self.name, "bots": list(self.bots), "retired": self.retired}


@record(frozen=True)
class Version:
    """One text version of a note: the revision it became current at, and who made it how."""

    rev: int
    title: str
    text: str
    at: str                        # ISO 8601 UTC
    day: str                       # YYYY-MM-DD: botmemory's today (--today) when it was made
    who: str                       # person | bot | upkeep
    how: str                       # accept | edit | restore | undo | migrate
    bot: str | None = None         # the bot that proposed it
    card: str | None = None        # the card it came from
    restored: int | None = None    # restore: the version's rev it brought back

    def as_dict(self) -> dict[str, Any]:
        return {"rev": self.rev, "title": self.title, "text": self.text, "at": self.at, "day": self.day,
                "who": self.who, "how": self.how, "bot": self.bot, "card": self.card, "restored": self.restored}

    @classmethod
    def from_dict(cls, d: object, shown: str) -> Version:
        if not isinstance(d, dict):
            raise BadInput(f"{shown} is damaged: a version is not a JSON object (botmemory left it as it is)")
        f = _Fields(d, shown)
        return cls(f.number("rev"), f.text("title"), f.text("text"), f.text("at"), f.text("day"), f.text("who"),
                   f.text("how"), f.text("bot", optional=True), f.text("card", optional=True),
                   f.number("restored", optional=True))


@record(frozen=True)
class Note:
    note: str
    key: str | None
    title: str
    text: str
    rev: int
    pinned: bool
    state: str                     # accepted | deleted
    created: str
    at: str                        # when its text last changed
    day: str
    cards: tuple[str, ...] = ()    # the cards accepted into it
    versions: tuple[Version, ...] = ()   # oldest first, the current text last

    @property
    def accepted(self) -> bool:
        return self.state == "accepted"

    def with_version(self, v: Version) -> Note:
        """This note with *v* as its current text (at most :data:`MAX_VERSIONS` kept)."""
        return replace(self, title=v.title, text=v.text, rev=v.rev, at=v.at, day=v.day,
                       versions=(*self.versions, v)[-MAX_VERSIONS:])

    def as_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "note": self.note, "key": self.key, "title": self.title, "text": self.text,
                "rev": self.rev, "pinned": self.pinned, "state": self.state, "created": self.created,
                "at": self.at, "day": self.day, "cards": list(self.cards),
                "versions": [v.as_dict() for v in self.versions]}

    @classmethod
    def from_dict(cls, d: dict[str, Any], shown: str, *, versions: bool = True) -> Note:
        """The note of record *d*; *versions* False leaves its earlier versions unread (what loads needs none)."""
        f = _Fields(d, shown)
        raw = d.get("versions", []) if versions else []
        if not isinstance(raw, list):
            raise f.bad("versions", "a list")
        return cls(f.text("note"), f.text("key", optional=True), f.text("title"), f.text("text"), f.number("rev"),
                   f.flag("pinned"), f.choice("state", NOTE_STATES), f.text("created"), f.text("at"), f.text("day"),
                   f.texts("cards"), tuple(Version.from_dict(v, shown) for v in raw))

    def shown(self) -> dict[str, Any]:
        """The fields ``team show`` gives of it (``loads`` is added by the loading plan)."""
        return {"note": self.note, "key": self.key, "title": self.title, "text": self.text, "rev": self.rev,
                "pinned": self.pinned, "day": self.day}


@record(frozen=True)
class Card:
    card: str
    text: str
    title: str
    key: str | None
    rev: int
    state: str                     # pending | rejected | withdrawn (accepted: a note lists it)
    proposed: str                  # ISO 8601 UTC
    day: str
    who: str                       # bot | person | upkeep
    how: str                       # cli | mcp | api | panel | capture | sync
    bot: str | None = None         # the bot that proposed it
    chat: str | None = None
    quotes: tuple[str, ...] = ()   # capture: the person's words it rests on
    replaces: str | None = None    # the accepted note with the same key when it was proposed
    replaces_rev: int | None = None   # … and that note's rev then: approval is refused once it moved on
    decided: str | None = None
    conflict: bool = False         # made from the other side of a note edited on two computers
    host: str | None = None        # … the computer it came from

    def as_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "card": self.card, "text": self.text, "title": self.title, "key": self.key,
                "rev": self.rev, "state": self.state, "proposed": self.proposed, "day": self.day, "who": self.who,
                "how": self.how, "bot": self.bot, "chat": self.chat, "quotes": list(self.quotes),
                "replaces": self.replaces, "replaces_rev": self.replaces_rev, "decided": self.decided,
                "conflict": self.conflict, "host": self.host}

    @classmethod
    def from_dict(cls, d: dict[str, Any], shown: str) -> Card:
        f = _Fields(d, shown)
        return cls(f.text("card"), f.text("text"), f.text("title"), f.text("key", optional=True), f.number("rev"),
                   f.choice("state", CARD_STATES), f.text("proposed"), f.text("day"), f.text("who"), f.text("how"),
                   f.text("bot", optional=True), f.text("chat", optional=True), f.texts("quotes"),
                   f.text("replaces", optional=True), f.number("replaces_rev", optional=True),
                   f.text("decided", optional=True), f.flag("conflict"), f.text("host", optional=True))
