"""Format 1 → format 2, atomically, on first use.

**Format 1** (docs/TEAMS.md) kept a whole team in one file, ``teams/<key>.json``:
``{"version": 1, "team", "name", "bots", "created", "deleted", "deleted_at",
"entries": [{"id", "key", "title", "text", "status", "pinned", "rev", "bot",
"at"}]}``, where ``status`` is accepted, pending, rejected, superseded or
deleted, and a correction left the entry it replaced behind as
``superseded``. Two computers changing one team changed the same file, so it
could not merge.

**Format 2** is the team folder of :mod:`.files`. An entry becomes:

- accepted or deleted: a note; the superseded entries with its key (older
  first) become its earlier versions, so the history is kept;
- superseded with no live entry of its key: a deleted note holding them;
- pending or rejected: a card (a pending card replaces the accepted note with
  its key, at that note's revision).

Ids are derived from the team key and the entry's id, so two computers
migrating the same file write the same folder.

**Atomic:** the new folder is written whole under a temporary name
(``teams/.<key>.migrating-<random>``), fsynced, then renamed to
``teams/<key>`` in one step; only then is the old file moved into it as
``v1.json`` (kept for recovery, never read again). A crash before the rename
leaves the old file as it was (the temporary folder is removed at the next
try); after it, the new folder is complete and the next run only moves the
old file in. Nothing reads a half-written team.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..base.errors import BadInput
from ..base.log import get_logger
from ..disk.paths import Home
from ..disk.safeio import fsync_dir, make_dirs
from .files import CARDS, NOTES, TEAM_FILE, folder, names, parse, read_text, render, teams_dir, teams_locked, write_text
from .records import Card, Note, Team, Version, check_key, check_name, check_title, is_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

logger = get_logger(__name__)

OLD_FILE = "v1.json"
"""The format-1 file, moved into the migrated folder for recovery."""
_TEMP = ".migrating-"


def pending(home: Home) -> list[str]:
    """The keys of teams still in format 1 (``teams/<key>.json``)."""
    return [n[:-5] for n in names(home, teams_dir(home)) if n.endswith(".json") and is_id("team", n[:-5])]


def upgrade(home: Home) -> list[str]:
    """Migrate every format-1 team (under the teams lock); the keys migrated. Cheap when there is none."""
    if not pending(home):
        return []
    done = []
    with teams_locked(home):
        for key in pending(home):     # again, under the lock: another process may have done it
            migrate(home, key)
            done.append(key)
    return done


def _id(kind: str, key: str, what: str) -> str:
    # hashlib, redaction and shutil load when a team is migrated: every `load` imports this module
    import hashlib

    return f"{kind}-{hashlib.sha256(f'{key}/{what}'.encode()).hexdigest()[:10]}"


def _str(e: dict[str, Any], name: str, shown: str, *, optional: bool = False) -> str | None:
    v = e.get(name)
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise BadInput(f"{shown} is damaged: an entry's {name!r} is not text (botmemory left it as it is)")
    return v


def convert(old: dict[str, Any], key: str, shown: str, now: str) -> tuple[Team, list[Note], list[Card]]:
    """The format-2 records of a format-1 team (pure)."""
    from ..redact import redact

    if old.get("version") != 1:
        raise BadInput(f"{shown} is not a format-1 team file")
    if old.get("team") not in (None, key):
        raise BadInput(f"{shown} is damaged: it names team {old.get('team')!r} (botmemory left it as it is)")
    bots = old.get("bots", [])
    entries = old.get("entries", [])
    if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots) or not isinstance(entries, list) \
            or not all(isinstance(e, dict) for e in entries):
        raise BadInput(f"{shown} is damaged: 'bots' or 'entries' is not a list (botmemory left it as it is)")
    created = _str(old, "created", shown, optional=True) or now
    retired = (_str(old, "deleted_at", shown, optional=True) or now) if old.get("deleted") else None
    team = Team(key, check_name(redact(str(_str(old, "name", shown)))), tuple(bots), created, retired, 1)

    def cleaned(e: dict[str, Any]) -> dict[str, Any]:
        status = _str(e, "status", shown)
        if status not in ("accepted", "pending", "rejected", "superseded", "deleted"):
            raise BadInput(f"{shown} is damaged: an entry's status is {status!r} (botmemory left it as it is)")
        rev = e.get("rev", 1)
        if type(rev) is not int or rev < 1:
            raise BadInput(f"{shown} is damaged: an entry's 'rev' is not a whole number (botmemory left it as it is)")
        at = _str(e, "at", shown, optional=True) or created
        return {"id": str(e.get("id", "")), "key": check_key(_str(e, "key", shown, optional=True)),
                "title": check_title(redact(_str(e, "title", shown, optional=True) or "")),
                "text": redact(str(_str(e, "text", shown))), "status": status, "pinned": e.get("pinned") is True,
                "rev": rev, "bot": _str(e, "bot", shown, optional=True), "at": at}

    rows = sorted((cleaned(e) for e in entries), key=lambda e: (e["rev"], e["at"]))
    groups: dict[str, list[dict[str, Any]]] = {}
    for e in rows:
        if e["status"] in ("accepted", "superseded", "deleted"):
            groups.setdefault(e["key"] or f"#{e['id']}", []).append(e)
    notes: list[Note] = []
    for group, items in groups.items():
        live = [e for e in items if e["status"] != "superseded"]
        current = next((e for e in reversed(live) if e["status"] == "accepted"), live[-1] if live else items[-1])
        older = [e for e in items if e is not current and e["status"] == "superseded"]
        rev = max(current["rev"], len(older) + 1)
        versions = [Version(i + 1, e["title"], e["text"], e["at"], e["at"][:10], "person", "migrate", e["bot"])
                    for i, e in enumerate(older)]
        versions.append(Version(rev, current["title"], current["text"], current["at"], current["at"][:10],
                                "person", "migrate", current["bot"]))
        state = "accepted" if current["status"] == "accepted" else "deleted"
        first = versions[0]
        note = Note(_id("n", key, group), current["key"], current["title"], current["text"], rev,
                    bool(current["pinned"]), state, first.at, current["at"], current["at"][:10], (),
                    tuple(versions[-50:]))
        notes.append(note)
    by_key = {n.key: n for n in notes if n.accepted and n.key}
    cards: list[Card] = []
    for e in rows:
        if e["status"] in ("pending", "rejected"):
            target = by_key.get(e["key"]) if e["status"] == "pending" else None
            cards.append(Card(_id("c", key, e["id"] or e["text"]), e["text"], e["title"], e["key"], e["rev"],
                              e["status"], e["at"], e["at"][:10], "bot" if e["bot"] else "person", "migrate",
                              e["bot"], None, (), target.note if target else None,
                              target.rev if target else None))
    return team, notes, cards


def migrate(home: Home, key: str) -> None:
    """Migrate team *key* from ``teams/<key>.json`` to ``teams/<key>/`` (call with the teams lock held)."""
    import shutil
    from datetime import UTC, datetime

    base = teams_dir(home)
    old_path = base / f"{key}.json"
    final = folder(home, key)
    for name in names(home, base):         # a migration a crash interrupted: its half-written folder goes
        if name.startswith(f".{key}{_TEMP}"):
            shutil.rmtree(base / name, ignore_errors=True)    # never follows a link inside
    text = read_text(home, old_path)
    if text is None:
        return
    if (final / TEAM_FILE).is_file():      # the rename happened; only the old file was left behind
        _keep_old(home, old_path, final)
        return
    shown = old_path.relative_to(home.root).as_posix()
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    team, notes, cards = convert(parse(text, shown), key, shown, now)
    temp = base / f".{key}{_TEMP}{os.urandom(4).hex()}"
    make_dirs(temp / NOTES, home.root)
    make_dirs(temp / CARDS, home.root)
    try:
        write_text(home, temp / TEAM_FILE, render(team.as_dict()))
        for n in notes:
            write_text(home, temp / NOTES / f"{n.note}.json", render(n.as_dict()))
        for c in cards:
            write_text(home, temp / CARDS / f"{c.card}.json", render(c.as_dict()))
        fsync_dir(temp)
        os.rename(temp, final)             # the one step that makes the new format real
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    fsync_dir(base)
    _keep_old(home, old_path, final)
    logger.info("team %s migrated from format 1 to 2 (%d notes, %d cards)", key, len(notes), len(cards))


def _keep_old(home: Home, old_path: Path, final: Path) -> None:
    os.replace(old_path, final / OLD_FILE)
    fsync_dir(final)
    fsync_dir(old_path.parent)
