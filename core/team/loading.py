"""What a member bot loads of its teams: accepted notes, pinned first, within 6,000 bytes a team.

The order is fixed: pinned notes first, then the others newest first (by the
day and time their text last changed), then by id. Notes load whole, in that
order, while the lines loaded so far and the next one fit in
:data:`TEAM_MAX_BYTES` (UTF-8, each line with its newline); the first that
does not fit and every one after it do not load, and the block says how many
(``session_search`` with scope ``team`` finds them). Proposals, deleted notes
and the earlier versions of a note never load, nor are they found.

The team section follows the bot's own block (``botmemory load``), one per
team, opened by its own heading so it is never mistaken for MEMORY.md::

    ## Team memory: Launch (shared by atlas, ledger, scout; accepted by a person)
    - Launch date: The launch moved to Friday
    [Team Launch: 2 more notes did not load (6,000 bytes a team); session_search with scope "team" finds them]

A team that cannot be read (a format this botmemory does not know, a damaged
file) is left out of the block with a warning in the log: a turn never fails
because of a team.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..base.errors import BotMemoryError
from ..base.log import get_logger
from ..base.record import record
from ..disk.paths import Home
from .files import read_state, read_team, team_keys, teams_dir
from .migrate import upgrade
from .records import Note, Team

logger = get_logger(__name__)

TEAM_MAX_BYTES = 6000
"""How much of a team's accepted notes loads into each member bot's turn."""


def note_line(note: Note) -> str:
    """A note as it loads: ``- TITLE: TEXT`` (``- TEXT`` without a title), further lines indented."""
    head = f"{note.title}: " if note.title else ""
    first, *rest = note.text.split("\n")
    return "\n".join([f"- {head}{first}", *(f"  {line}" if line.strip() else "" for line in rest)])


def order(notes: Sequence[Note]) -> list[Note]:
    """Accepted notes in load order: pinned first, then newest first, then by id."""
    live = [n for n in notes if n.accepted]
    live.sort(key=lambda n: n.note)
    live.sort(key=lambda n: n.at, reverse=True)
    live.sort(key=lambda n: not n.pinned)
    return live


@record(frozen=True)
class Plan:
    """Which of a team's accepted notes load: the notes in load order, a flag each, the bytes used."""

    notes: tuple[Note, ...]
    loads: tuple[bool, ...]
    loaded_bytes: int
    max_bytes: int = TEAM_MAX_BYTES

    @property
    def loaded(self) -> int:
        return sum(self.loads)

    @property
    def not_loaded(self) -> int:
        return len(self.loads) - self.loaded


def plan(notes: Sequence[Note], max_bytes: int = TEAM_MAX_BYTES) -> Plan:
    ordered = order(notes)
    used = 0
    loads: list[bool] = []
    for n in ordered:
        size = len(note_line(n).encode("utf-8")) + 1
        fits = (not loads or loads[-1]) and used + size <= max_bytes
        loads.append(fits)
        if fits:
            used += size
    return Plan(tuple(ordered), tuple(loads), used, max_bytes)


def cut_notice(team: Team, not_loaded: int) -> str:
    many = "note did" if not_loaded == 1 else "notes did"
    return (f"[Team {team.name}: {not_loaded} more {many} not load ({TEAM_MAX_BYTES:,} bytes a team); "
            'session_search with scope "team" finds them]')


def section(team: Team, p: Plan) -> str:
    """One team's part of the loaded block ("" when it has no accepted note)."""
    if not p.notes:
        return ""
    lines = [f"## Team memory: {team.name} (shared by {', '.join(sorted(team.bots)) or 'no bot'}; "
             "accepted by a person)"]
    lines += [note_line(n) for n, ok in zip(p.notes, p.loads, strict=True) if ok]
    if p.not_loaded:
        lines.append(cut_notice(team, p.not_loaded))
    return "\n".join(lines) + "\n"


def member_plans(home: Home, bot: str) -> list[tuple[Team, Plan]]:
    """The plan of every team *bot* is a member of (not retired), by name; a team that cannot be read
    is left out, with a warning in the log."""
    if not teams_dir(home).is_dir():
        return []
    try:
        upgrade(home)
        keys = team_keys(home)
    except (BotMemoryError, OSError) as e:
        logger.warning("the teams could not be read, so none loads: %s", e)
        return []
    out: list[tuple[Team, Plan]] = []
    for key in keys:
        try:
            team = read_team(home, key)
            if team is None or team.retired is not None or bot not in team.bots:
                continue
            out.append((team, plan(list(read_state(home, key, cards=False).notes.values()))))
        except (BotMemoryError, OSError) as e:
            logger.warning("team %s left out of what %s loads: %s", key, bot, e)
    out.sort(key=lambda tp: (tp[0].name.casefold(), tp[0].team))
    return out


def with_teams(block: str, home: Home, bot: str) -> str:
    """*block* (the bot's own) followed by the sections of its teams, a blank line between."""
    parts = [s for s in (section(t, p) for t, p in member_plans(home, bot)) if s]
    if not parts:
        return block
    return "\n".join([block.rstrip("\n") + "\n", *parts] if block else parts)
