"""A team's folder on every computer: the team kind of synced folder, and its operations.

A team syncs like a bot (``sync add --team KEY`` on each computer, the key being the team's, which never
changes): its folder ``<home>/teams/<key>/`` is the repository's folder of the key ``team/<key>``, and its
synced id is its journal's, ``team-<key>`` (so ``watch`` and the tray see its changes as they see a bot's).
Every change of the team goes out as one commit per row of the team's journal; every change that comes in
is written through the team wing (``Teams.put``: the team's lock, hashes checked, formats checked, texts
redacted) as a row of the team's journal, ``how: sync``, ``host`` the other computer, undoable like any.

Its files are records, not lines, so the engine hands the files both computers changed to
:meth:`TeamFolder.merge` (``team.merge``: fields three ways, revisions above both, the other side's text of a
note edited on both a conflict card — never a silent overwrite). Its open conflicts are those cards, settled
with Accept or Reject (the Team tab, ``team accept|reject``), not with ``sync resolve``.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..base.errors import BadInput, BotMemoryError
from ..store.memory import Memory
from ..store.writer import Actor
from ..sync.folder import LocalRow, MergeView, OwnMerge, journal_rows_since
from ..sync.state import FolderSpec, read_settings, read_state
from ..team.files import conflict_cards, journal_id, kind_of_rel, read_folder, read_team
from ..team.merge import merge_folder
from ..team.migrate import upgrade
from ..team.records import is_id
from ..team.teams import Teams, now_iso
from ..text.diff import diff_lines

KIND = "team"
PREFIX = "team/"
"""The repository key of team *k* is ``team/<k>``; no other folder may be synced under a key starting so."""


def repo_key(team: str) -> str:
    return f"{PREFIX}{team}"


def folder_id(team: str) -> str:
    """The synced id of a team: its journal's (``team-<key>``)."""
    return journal_id(team)


def team_of(folder_id_: str) -> str | None:
    """The team key of a synced id ``team-<key>`` (None for any other id)."""
    key = folder_id_.removeprefix("team-")
    return key if key != folder_id_ and is_id("team", key) else None


class TeamFolder:
    """A team's folder as the sync engine sees it (``SyncFolder`` and ``MergesItself``)."""

    journaled = True

    def __init__(self, mem: Memory, team: str, key: str) -> None:
        self.mem = mem
        self.team = team
        self._key = key

    @property
    def id(self) -> str:
        return folder_id(self.team)

    @property
    def key(self) -> str:
        return self._key

    def accepts(self, rel: str) -> bool:
        try:
            kind_of_rel(rel)
        except BadInput:
            return False
        return True

    def read(self) -> dict[str, str]:
        return read_folder(self.mem.home, self.team)

    def prepare(self) -> str | None:
        upgrade(self.mem.home)        # a team still in format 1 is migrated before its folder is read
        return None

    def rows_since(self, mark: str | None) -> tuple[list[LocalRow], str | None, bool]:
        return journal_rows_since(self.mem, self.id, mark)

    def write(self, writes: Sequence[tuple[str, str | None, str | None]], actor: Actor) -> int:
        return Teams(self.mem).put(self.team, writes, actor)

    def unloaded(self) -> int | None:
        return None

    # ----- MergesItself

    def merge(self, view: MergeView) -> OwnMerge:
        hosts: dict[str, str | None] = {}

        def host(where: str) -> str | None:
            if where == "ours":
                return view.here
            if where not in hosts:
                hosts[where] = view.there(where).host
            return hosts[where]

        out = merge_folder(self.team, view.ours, view.desired, view.both, at=now_iso(),
                           day=self.mem.today.isoformat(), host=host)
        actors: dict[str, Actor] = {}
        for m in out.made:
            who = view.there(m.rel) if m.side == "theirs" else None
            actors[m.rel] = Actor("person", "sync", None, (who.host if who else None) or view.here)
        return OwnMerge(out.texts, actors, len(out.made), out.notes)

    def open_conflicts(self) -> list[dict[str, Any]]:
        if read_team(self.mem.home, self.team) is None:
            return []
        if not any(c.conflict and c.state == "pending" for c in conflict_cards(self.mem.home, self.team)):
            return []                     # (the notes are read only when a conflict card may wait)
        st = Teams(self.mem).state(self.team)
        return [{"path": f"cards/{c.card}.json", "card": c.card, "note": c.replaces, "host": c.host,
                 "at": c.proposed, "text": c.text} for c in st.pending() if c.conflict]

    def describe(self, row: LocalRow) -> str | None:
        return describe(row)


def _field(line: str, name: str) -> Any:
    prefix = f'"{name}": '
    s = line.strip()
    if not s.startswith(prefix):
        return None
    try:
        return json.loads(s[len(prefix):].rstrip(","))
    except ValueError:
        return None


def describe(row: LocalRow) -> str | None:
    """A team row in a person's words (a commit's subject): what was proposed, accepted, edited, rejected."""
    try:
        kind, _ = kind_of_rel(row.file)
    except BadInput:
        return None
    added: dict[str, Any] = {}
    for tag, line in diff_lines(row.diff):
        if tag == "+":
            for name in ("text", "state", "name", "retired", "pinned"):
                v = _field(line, name)
                if v is not None and name not in added:
                    added[name] = v
    created = row.before_hash is None
    text = added.get("text")
    if kind == "team":
        if created:
            return f"team created: {added.get('name', '')}"
        if added.get("retired"):
            return "team deleted"
        return f"renamed: {added['name']}" if "name" in added else "members changed"
    if kind == "card":
        return f"proposed: {text or ''}" if created else str(added.get("state", "changed"))
    if created:
        return f"accepted: {text or ''}"
    if added.get("state") == "deleted":
        return "deleted"
    if text is not None:
        return f"now: {text}"
    if "pinned" in added:
        return "pinned" if added["pinned"] else "unpinned"
    return None


def factory(mem: Memory, spec: FolderSpec) -> TeamFolder:
    team = team_of(spec.id)
    if team is None:
        raise BadInput(f"{spec.id} is not a team's synced id (team-<key>)")
    return TeamFolder(mem, team, spec.key)


def team_key(mem: Memory, team: str) -> str:
    """The key of *team*: a key as given (the team need not be on this computer yet: its first sync brings it),
    or the name of a team that is here."""
    ref = team.strip()
    if ref.startswith("team-") and is_id("team", ref[5:]):
        ref = ref[5:]
    if is_id("team", ref):
        return ref
    return Teams(mem).resolve(ref).team


# ----- the panel's line


@dataclass(frozen=True)
class TeamSync:
    """A team's sync as the Team tab says it."""

    team: str
    set_up: bool                 # sync is set up on this computer
    synced: bool                 # this team is one of its folders
    last_sync: str | None = None
    ahead: int = 0               # rows not sent yet
    conflicts: int = 0           # conflict cards waiting
    note: str | None = None      # why it did not sync the last time
    error: str | None = None     # why the last round failed

    def as_dict(self) -> dict[str, object]:
        return {"team": self.team, "set_up": self.set_up, "synced": self.synced, "last_sync": self.last_sync,
                "ahead": self.ahead, "conflicts": self.conflicts, "note": self.note, "error": self.error}

    def line(self) -> str:
        from ..base.wording import counted

        if not self.set_up:
            return "Not synced: `botmemory sync setup REMOTE` sets up sync on this computer"
        if not self.synced:
            return "Not synced to your other computers"
        parts = [f"Synced {_local(self.last_sync)}" if self.last_sync else "Not synced yet"]
        if self.ahead:
            parts.append(f"{counted(self.ahead, 'change')} not sent yet")
        if self.conflicts:
            parts.append(f"{counted(self.conflicts, 'conflict card')} (Pending)")
        if self.error:
            parts.append(f"waits: {self.error}")
        elif self.note:
            parts.append(self.note)
        return " · ".join(parts)


def _local(at: str) -> str:
    try:
        return datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone().strftime("%H:%M")
    except ValueError:
        return at


def state(mem: Memory, team: str) -> TeamSync:
    """Whether *team* syncs here, when it last did, what waits to go, its conflict cards (no network)."""
    from .sync import paths

    key = team_key(mem, team)
    p = paths(mem)
    settings = read_settings(p)
    fid = folder_id(key)
    spec = settings.folder(fid)
    if not settings.remote or spec is None:
        return TeamSync(key, bool(settings.remote), False)
    st = read_state(p)
    fs = st.folder(fid)
    f = TeamFolder(mem, key, spec.key)
    ahead, conflicts = 0, 0
    try:
        if fs.mark is not None:
            rows, _, _ = f.rows_since(fs.mark)
            ahead = len([r for r in rows if r.how != "sync"])
        conflicts = len(f.open_conflicts())
    except BotMemoryError:
        pass
    return TeamSync(key, True, True, fs.last_sync, ahead, conflicts, fs.note, st.error)


__all__ = ["KIND", "PREFIX", "TeamFolder", "TeamSync", "describe", "factory", "folder_id", "repo_key", "state",
           "team_key", "team_of"]
