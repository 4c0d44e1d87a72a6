"""Where a team lives on disk, reading and writing its records, and its locks.

``<home>/teams/<key>/`` — beside the workspaces, never inside one (a bot's
file tools cannot reach it):

    teams/
    └── t-3fa9c1d2e4/          one folder per team, named by its key
        ├── team.json          the name, the member bots, retired or not
        ├── notes/n-….json     one file per note (its versions inside)
        └── cards/c-….json     one file per proposal

One file per note and per card, and every change writes exactly one file, so
the folder merges file by file when it is synced between computers
(docs/TEAMS.md). Files are JSON, 0600, written atomically through
:func:`~botmemory.core.disk.safeio.atomic_write` (never through a symbolic
link); every text in them was redacted before it got here. A record whose
format this botmemory does not know is refused with one line
(:func:`.records.check_format`).

The team's lock is the home's lock file of its journal id (``team-<key>``),
the one its journal appends under; creating and renaming also hold the teams
lock (names are unique among teams that are not retired).
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..base.errors import BadInput, Busy
from ..base.record import record
from ..disk.paths import Home
from ..disk.safeio import Folders, WorkspaceLock, atomic_write, open_dir_nofollow, read_file, read_in
from .records import Card, Note, Team, check_format, is_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TEAMS = "teams"
TEAM_FILE = "team.json"
NOTES = "notes"
CARDS = "cards"


def teams_dir(home: Home) -> Path:
    return home.root / TEAMS


def journal_id(key: str) -> str:
    """The id the team's journal goes under in ``<home>/memory-journal/`` (``team-<key>.ndjson``)."""
    return f"team-{key}"


def folder(home: Home, key: str) -> Path:
    return teams_dir(home) / key


def rel_of(kind: str, rid: str) -> str:
    """A record's path inside its team folder: ``team.json``, ``notes/<id>.json``, ``cards/<id>.json``."""
    return TEAM_FILE if kind == "team" else f"{NOTES if kind == 'note' else CARDS}/{rid}.json"


def kind_of_rel(rel: str) -> tuple[str, str]:
    """(kind, id) of a path inside a team folder; BadInput for any other path."""
    if rel == TEAM_FILE:
        return "team", ""
    sub, _, name = rel.partition("/")
    rid = name.removesuffix(".json")
    kind = {NOTES: "note", CARDS: "card"}.get(sub)
    if kind is None or not name.endswith(".json") or not is_id(kind, rid):
        raise BadInput(f"{rel!r} is not a file of a team")
    return kind, rid


# ----- reading


def read_text(home: Home, path: Path) -> str | None:
    """A team file's text; None when it does not exist (never through a link)."""
    ft = read_file(path, home.root)
    if ft is None:
        return None
    if not ft.valid:
        raise BadInput(f"{_shown(home, path)} is damaged: not valid UTF-8 (botmemory left it as it is)")
    return ft.text


def _shown(home: Home, path: Path) -> str:
    try:
        return path.relative_to(home.root).as_posix()
    except ValueError:
        return str(path)


def parse(text: str, shown: str) -> dict[str, Any]:
    """A record's JSON object, its format checked (one line when it is one this botmemory does not read)."""
    try:
        d = json.loads(text)
    except (ValueError, RecursionError):
        raise BadInput(f"{shown} is damaged: not JSON (botmemory left it as it is)") from None
    check_format(d, shown)
    assert isinstance(d, dict)
    return d


def read_record(home: Home, path: Path) -> tuple[dict[str, Any], str] | None:
    """(the record, its text) of one file, or None when it does not exist."""
    text = read_text(home, path)
    if text is None:
        return None
    return parse(text, _shown(home, path)), text


def render(d: dict[str, Any]) -> str:
    """A record as written: one field a line (short diffs in the journal, clean merges), UTF-8 as is."""
    return json.dumps(d, ensure_ascii=False, indent=1) + "\n"


def write_text(home: Home, path: Path, text: str) -> None:
    atomic_write(path, text.encode("utf-8"), home.root)


def names(home: Home, path: Path) -> list[str]:
    """The entries of a folder below the home (never through a link); [] when it is missing."""
    try:
        with open_dir_nofollow(home.root, path) as d:
            return sorted(d.listdir())
    except (FileNotFoundError, NotADirectoryError):
        return []


def team_keys(home: Home) -> list[str]:
    """The keys of every team folder (retired ones too), oldest name first."""
    return [n for n in names(home, teams_dir(home)) if is_id("team", n)]


@record(frozen=True)
class State:
    """A team as read at one moment: its record, its notes and its cards by id."""

    team: Team
    notes: dict[str, Note]
    cards: dict[str, Card]

    def accepted_into(self) -> dict[str, str]:
        """Card id -> the note that accepted it (a deleted note's cards stay accepted)."""
        return {c: n.note for n in self.notes.values() for c in n.cards}

    def status(self, card: Card) -> str:
        """pending, accepted, rejected or withdrawn."""
        if card.card in self.accepted_into():
            return "accepted"
        return card.state

    def pending(self) -> list[Card]:
        """The cards waiting for a person, oldest first."""
        taken = self.accepted_into()
        return sorted((c for c in self.cards.values() if c.state == "pending" and c.card not in taken),
                      key=lambda c: (c.proposed, c.card))

    def accepted(self) -> list[Note]:
        return [n for n in self.notes.values() if n.accepted]

    def by_key(self, key: str | None) -> Note | None:
        """The accepted note with this stable key (None for no key)."""
        if key is None:
            return None
        return next((n for n in self.notes.values() if n.accepted and n.key == key), None)


def read_team(home: Home, key: str) -> Team | None:
    got = read_record(home, folder(home, key) / TEAM_FILE)
    if got is None:
        return None
    return Team.from_dict(got[0], _shown(home, folder(home, key) / TEAM_FILE))


def _records(home: Home, folders: Folders, path: Path, kind: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(id, record, its path as shown) of each ``<id>.json`` in *path*, the folder opened once, no link followed."""
    shown = f"{_shown(home, path)}/"
    try:
        d = folders.dir(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name, regular in folders.list(path):
        if not (regular and name.endswith(".json") and is_id(kind, name[:-5])):
            continue
        ft = read_in(d, name, shown + name)
        if ft is None:
            continue
        if not ft.valid:
            raise BadInput(f"{shown}{name} is damaged: not valid UTF-8 (botmemory left it as it is)")
        yield name[:-5], parse(ft.text, shown + name), shown + name


def read_state(home: Home, key: str, *, cards: bool = True) -> State:
    """Every record of team *key* (BadInput when it has no team.json); *cards* False: its notes only, without
    their earlier versions (what loading and search need)."""
    base = folder(home, key)
    team = read_team(home, key)
    if team is None:
        raise BadInput(f"no team {key!r} in {home.root}")
    with Folders(home.root) as folders:
        notes = {rid: Note.from_dict(d, shown, versions=cards)
                 for rid, d, shown in _records(home, folders, base / NOTES, "note")}
        found = {rid: Card.from_dict(d, shown)
                 for rid, d, shown in _records(home, folders, base / CARDS, "card")} if cards else {}
    return State(team, notes, found)


def read_folder(home: Home, key: str) -> dict[str, str]:
    """Every record file of team *key* as text, by its path inside the team folder (``team.json``,
    ``notes/<id>.json``, ``cards/<id>.json``; nothing else, ``v1.json`` neither): what sync carries. A file
    that is not UTF-8 is BadInput; a folder on the way that is a link, Refused. {} when the team is not here."""
    base = folder(home, key)
    out: dict[str, str] = {}
    with Folders(home.root) as folders:
        wanted = [(base, ""), (base / NOTES, f"{NOTES}/"), (base / CARDS, f"{CARDS}/")]
        for path, prefix in wanted:
            try:
                d = folders.dir(path)
            except (FileNotFoundError, NotADirectoryError):
                continue
            for name, regular in folders.list(path):
                rel = prefix + name
                if not regular:
                    continue
                try:
                    kind_of_rel(rel)
                except BadInput:
                    continue
                ft = read_in(d, name, f"{_shown(home, path)}/{name}")
                if ft is None:
                    continue
                if not ft.valid:
                    raise BadInput(f"{_shown(home, path)}/{name} is damaged: not valid UTF-8 (botmemory left it as it is)")
                out[rel] = ft.text
    return out


def conflict_cards(home: Home, key: str) -> list[Card]:
    """The conflict cards of team *key* (``"conflict": true``, as botmemory writes them), whatever their state,
    read without its notes; the other cards are passed over by a look at their bytes (every accepted card stays
    a file, so a team has many)."""
    path = folder(home, key) / CARDS
    shown = f"{_shown(home, path)}/"
    out = []
    with Folders(home.root) as folders:
        try:
            d = folders.dir(path)
        except (FileNotFoundError, NotADirectoryError):
            return []
        for name, regular in folders.list(path):
            if not (regular and name.endswith(".json") and is_id("card", name[:-5])):
                continue
            ft = read_in(d, name, shown + name)
            if ft is None or '"conflict": true' not in ft.text:
                continue
            if not ft.valid:
                raise BadInput(f"{shown}{name} is damaged: not valid UTF-8 (botmemory left it as it is)")
            out.append(Card.from_dict(parse(ft.text, shown + name), shown + name))
    return out


# ----- locks


def _lock(home: Home, path: Path) -> WorkspaceLock:
    return WorkspaceLock.for_file(path, home.root)


@contextmanager
def team_locked(home: Home, key: str, name: str | None = None) -> Iterator[None]:
    """Hold the team's lock (the one its journal appends under), across processes."""
    try:
        with _lock(home, home.lock_file(journal_id(key))).held():
            yield
    except Busy:
        raise Busy(f"team {name or key} is busy: another botmemory is writing it; try again") from None


@contextmanager
def teams_locked(home: Home) -> Iterator[None]:
    """Hold the lock on the set of teams (creating, renaming, migrating)."""
    try:
        with _lock(home, home.state_dir / "locks" / "teams.lock").held():
            yield
    except Busy:
        raise Busy("the teams are busy: another botmemory is creating or renaming one; try again") from None
