"""Sync as operations: setup, add, now, status, resolve, remove, and the schedule ``watch`` and the tray run.

Each takes the opened :class:`Memory` first and returns a result with ``as_dict()``. The mechanisms are the
``sync`` wing's (``core/sync/``); the faces call only these.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..base.errors import BadInput, BotMemoryError
from ..base.log import get_logger
from ..store.files import FileResult, save
from ..store.memory import Memory
from ..store.writer import Actor, Change
from ..sync import keys
from ..sync.engine import SYNCED_REF, Engine, Rewritten, RoundResult
from ..sync.folder import BotFolder, MergesItself, SyncFolder
from ..sync.git import Git, SyncError, Unreachable, check_git, shown_url
from ..sync.schedule import Scheduler, Status
from ..sync.state import FolderSpec, Paths, Settings, host_name, read_settings, read_state, write_settings, write_state

logger = get_logger(__name__)

RESOLVE = Actor("person", "resolve")

FolderFactory = Callable[[Memory, FolderSpec], SyncFolder]
FOLDER_KINDS: dict[str, FolderFactory] = {}
"""How a synced folder of a kind is opened (``bot`` here; team folders register theirs)."""


def register_folder_kind(kind: str, factory: FolderFactory) -> None:
    """Let the engine sync folders of *kind* (``settings.json`` names the kind of each folder)."""
    FOLDER_KINDS[kind] = factory


def _bot_folder(mem: Memory, spec: FolderSpec) -> SyncFolder:
    from .folders import gauge  # not `from . import folders`: that asks ops' __getattr__ first

    def measure() -> int:
        return gauge(mem, spec.id).files[0].unloaded_lines

    return BotFolder(mem, spec.id, spec.key, measure=measure)


register_folder_kind("bot", _bot_folder)


def _team_folder(mem: Memory, spec: FolderSpec) -> SyncFolder:
    from .team_sync import factory

    return factory(mem, spec)


register_folder_kind("team", _team_folder)


# ----- results


@dataclass(frozen=True)
class SetupResult:
    remote: str
    host: str
    branch: str
    changes: list[Change] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"remote": self.remote, "host": self.host, "branch": self.branch}


@dataclass(frozen=True)
class AddResult:
    id: str
    key: str
    synced: RoundResult | None = None
    waits: str | None = None           # why the first sync did not happen now
    changes: list[Change] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"id": self.id, "key": self.key}
        if self.synced is not None and self.synced.folders:
            d.update({k: v for k, v in self.synced.folders[0].as_dict().items() if k not in ("id", "key")})
        if self.waits:
            d["waits"] = self.waits
        return d


@dataclass(frozen=True)
class FolderStatus:
    id: str
    key: str
    last_sync: str | None
    ahead: int
    behind: int
    conflicts: list[dict[str, Any]]
    note: str | None = None
    pushed_out: int = 0
    kind: str = "bot"

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"id": self.id, "key": self.key, "last_sync": self.last_sync, "ahead": self.ahead,
                                "behind": self.behind, "conflicts": len(self.conflicts),
                                "conflicted": [c["path"] for c in self.conflicts]}
        if self.kind != "bot":
            d["kind"] = self.kind
        if self.note:
            d["note"] = self.note
        if self.pushed_out:
            d["pushed_out"] = self.pushed_out
        return d


@dataclass(frozen=True)
class StatusResult:
    remote: str | None
    host: str
    last_round: str | None
    error: str | None
    folders: list[FolderStatus]

    def as_dict(self) -> dict[str, object]:
        return {"remote": shown_url(self.remote) if self.remote else None, "host": self.host,
                "last_round": self.last_round, "error": self.error, "folders": [f.as_dict() for f in self.folders]}


@dataclass(frozen=True)
class RemoveResult:
    id: str
    key: str

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "key": self.key, "removed": True}


# ----- the operations


def paths(mem: Memory) -> Paths:
    return Paths(mem.home)


def _settings(mem: Memory) -> Settings:
    s = read_settings(paths(mem))
    if not s.remote:
        raise BadInput("sync is not set up on this computer: `botmemory sync setup REMOTE` chooses the remote "
                       "(any git URL you own, file:// included)")
    return s


def check_remote(remote: str) -> str:
    """A remote as git will be given it: a URL, an scp-like ``user@host:path``, or a local path (made absolute)."""
    remote = remote.strip()
    if not remote or remote.startswith("-") or any(ord(c) < 32 for c in remote):
        raise BadInput(f"bad remote {remote!r}: give a git URL (https://…, ssh://…, git@host:path, file://…) or a path")
    scheme = remote.split("://", 1)[0].lower() if "://" in remote else ""
    if "::" in remote.split("/", 1)[0] or scheme in ("ext", "fd"):
        raise BadInput(f"bad remote {remote!r}: the {scheme or remote.split('::')[0]} transport runs commands; "
                       "give a git URL or a path")
    if not scheme and keys.normalize_remote(remote) is None:
        raise BadInput(f"bad remote {remote!r}: give a git URL (https://…, ssh://…, git@host:path, file://…) or a path")
    if not scheme and remote.startswith(("/", "~", ".")):
        return str(Path(remote).expanduser().absolute())
    return remote


def _local_path(remote: str) -> Path | None:
    if remote.startswith("file://"):
        return Path(unquote(urlsplit(remote).path))
    if remote.startswith("/"):
        return Path(remote)
    return None


def setup(mem: Memory, remote: str, *, host: str | None = None) -> SetupResult:
    """Choose the remote for this computer: an empty or new local path is made a bare repository; the remote
    must answer. Setting it up again (also with the same remote) starts over: every folder's next round merges
    with what the remote holds, losing nothing."""
    check_git()
    remote = check_remote(remote)
    p = paths(mem)
    local = _local_path(remote)
    if local is not None and not local.exists():
        local.parent.mkdir(parents=True, exist_ok=True)
        Git(local).run("init", "-q", "--bare", str(local))
    with p.lock().held(60.0):
        git = Git(p.repo, pid_file=p.pid)
        git.clear_leftovers()
        settings = read_settings(p)
        if not (p.repo / "HEAD").is_file():
            git.init(settings.branch)
        git.set_remote(remote)
        try:
            _, branch = git.remote_head()
        except Unreachable as e:
            raise Unreachable(f"cannot reach {shown_url(remote)}: {e}; nothing was set up") from None
        settings.remote = remote
        settings.branch = branch or settings.branch or "main"
        if host is not None:
            from ..sync.state import clean_host

            settings.host = clean_host(host) if host.strip() else None
        git.update_ref(SYNCED_REF, None)
        state = read_state(p)
        state.synced = state.error = None
        for fs in state.folders.values():
            fs.base = fs.tree = fs.mark = None
        write_state(p, state)
        write_settings(p, settings)
    return SetupResult(shown_url(remote), host_name(settings), settings.branch)


def default_key(mem: Memory, bot: str) -> str:
    """A folder's key when none is given: a Claude Code project's normalized git remote URL, else its id."""
    folder = mem.home.folder(bot)
    if folder is not None and folder.layout.name == "claude-code":
        project = keys.project_of(folder.path, folder.name)
        key = keys.project_key(project) if project is not None else None
        if key and folder.path.parent.name == "agent-memory":
            return f"{key}/agent-memory/{folder.path.name}"     # a subagent's memory in that project
        if key:
            return key
    return bot


def add(mem: Memory, bot: str, *, name: str | None = None, kind: str = "bot", sync: bool = True) -> AddResult:
    """Sync *bot* under *name* (default: :func:`default_key`); its first round merges what the remote holds."""
    from .team_sync import PREFIX, team_of

    p = paths(mem)
    _settings(mem)
    if kind == "bot":
        try:
            mem.home.require_bot(bot)
        except BadInput:
            if team_of(f"team-{bot}") is not None or team_of(bot) is not None:
                raise BadInput(f"{bot} is not a bot or tracked folder; a team syncs with "
                               f"`botmemory sync add --team {bot.removeprefix('team-')}`") from None
            raise
    elif kind not in FOLDER_KINDS:
        raise BadInput(f"unknown kind of synced folder {kind!r}")
    key = keys.check_key(name) if name is not None else default_key(mem, bot)
    if kind != "team" and key.startswith(PREFIX):
        raise BadInput(f"keys starting with {PREFIX!r} are the teams': give {bot} another --name")
    with p.lock().held(60.0):
        settings = read_settings(p)
        other = next((f for f in settings.folders if f.key == key and f.id != bot), None)
        if other is not None:
            raise BadInput(f"{other.id} is synced under {key!r} already: give {bot} another --name")
        spec = settings.folder(bot)
        if spec is not None and spec.key != key:
            state = read_state(p)
            state.folders.pop(bot, None)
            write_state(p, state)
            spec.key = key
        elif spec is None:
            settings.folders.append(FolderSpec(bot, key, kind))
        write_settings(p, settings)
    if not sync:
        return AddResult(bot, key)
    try:
        result = now(mem, [bot])
    except (SyncError, Rewritten) as e:
        return AddResult(bot, key, waits=str(e))
    return AddResult(bot, key, result)


def add_team(mem: Memory, team: str, *, sync: bool = True) -> AddResult:
    """``sync add --team TEAM``: sync a team's folder under ``team/<key>``; TEAM is its key (the same on every
    computer; the team need not be here yet: its first sync brings it) or the name of a team that is here."""
    from .team_sync import KIND, folder_id, repo_key, team_key

    key = team_key(mem, team)
    return add(mem, folder_id(key), name=repo_key(key), kind=KIND, sync=sync)


def folder_of(settings: Settings, ref: str) -> str:
    """The synced id *ref* names: a synced id, or a team's key (``t-…``: its id is ``team-t-…``)."""
    if settings.folder(ref) is not None:
        return ref
    if settings.folder(f"team-{ref}") is not None:
        return f"team-{ref}"
    return ref


def engine(mem: Memory) -> Engine:
    """The engine for every folder this home syncs."""
    settings = read_settings(paths(mem))
    folders: dict[str, SyncFolder] = {}
    bots = set(mem.home.bots())
    for spec in settings.folders:
        factory = FOLDER_KINDS.get(spec.kind)
        if factory is None:
            logger.warning("%s is a synced folder of an unknown kind %r: left out", spec.id, spec.kind)
            continue
        if spec.kind == "bot" and spec.id not in bots:
            continue
        try:
            folders[spec.id] = factory(mem, spec)
        except BotMemoryError as e:
            logger.warning("%s is left out of sync: %s", spec.id, e)
    return Engine(paths(mem), folders, host_name(settings))


def now(mem: Memory, only: Iterable[str] | None = None) -> RoundResult:
    """``sync now``: pull, merge, push every synced folder (or *only* these). :class:`Unreachable` (exit 1, one
    line) when the remote cannot be reached; nothing is lost, and it is tried again later."""
    settings = _settings(mem)
    return engine(mem).run(None if only is None else [folder_of(settings, i) for i in only])


def status(mem: Memory) -> StatusResult:
    """Per folder: its key, the last sync, rows not pushed yet (``ahead``), commits of the remote it has not
    taken yet as of the last fetch (``behind``), and its open conflicts. No network."""
    p = paths(mem)
    settings = read_settings(p)
    state = read_state(p)
    eng = engine(mem) if settings.remote else None
    git = Git(p.repo, pid_file=None)
    tracking = f"refs/remotes/origin/{settings.branch}"
    have_repo = (p.repo / "HEAD").is_file()
    tip = git.rev(tracking) if have_repo else None
    out: list[FolderStatus] = []
    for spec in settings.folders:
        fs = state.folder(spec.id)
        ahead = 0
        folder = eng.folders.get(spec.id) if eng is not None else None
        note = fs.note
        conflicts = list(fs.conflicts)
        if folder is not None:
            try:
                rows, _, found = folder.rows_since(fs.mark)
                ahead = (len([r for r in rows if r.how != "sync" and folder.accepts(r.file)])
                         if fs.mark is not None else 0)
                if isinstance(folder, MergesItself):
                    conflicts = folder.open_conflicts()
            except BotMemoryError as e:
                note = str(e)
        elif spec.kind == "bot":
            note = note or f"{spec.id} is not a bot or tracked folder of this home any more"
        behind = 0
        if tip is not None and fs.base != tip:
            args = ["rev-list", "--count", f"{fs.base}..{tip}" if fs.base else tip, "--", keys.key_dir(spec.key)]
            try:
                done = git.run(*args, check=False)
                behind = int(done.text.strip() or 0) if done.code == 0 else 0
            except (SyncError, ValueError):
                behind = 0
        out.append(FolderStatus(spec.id, spec.key, fs.last_sync, ahead, behind, conflicts, note,
                                fs.pushed_out, spec.kind))
    return StatusResult(settings.remote, host_name(settings), state.last_round, state.error, out)


def merge_note(mem: Memory, bot: str) -> str | None:
    """What the gauge adds when the last sync's merge pushed lines of *bot* out of what its agent loads."""
    from ..base.wording import counted

    fs = read_state(paths(mem)).folders.get(bot)
    if fs is None or not fs.pushed_out:
        return None
    return (f"the sync of {fs.last_sync or 'late'} merged in lines from another computer and pushed "
            f"{counted(fs.pushed_out, 'line')} past what loads")


def resolve(mem: Memory, bot: str, path: str, text: str | None = None) -> FileResult:
    """``sync resolve``: *text* is the resolved text of *bot*'s conflicted *path* (a row ``how: resolve``,
    undoable); None: the file as it is now (edited in the panel, say). The next round sends it, and the other
    computers drop the conflict."""
    p = paths(mem)
    settings = _settings(mem)
    bot = folder_of(settings, bot)
    spec = settings.folder(bot)
    if spec is None:
        raise BadInput(f"{bot} is not synced (`botmemory sync status` lists the synced folders)")
    if spec.kind == "team":
        raise BadInput(f"{bot} is a team: its conflicts are conflict cards; accept or reject them in the Team tab "
                       f"or with `botmemory team show {bot.removeprefix('team-')}` and `team accept|reject`")
    state = read_state(p)
    conflicted = [c for c in state.folder(bot).conflicts if c.get("path") == path]
    if not conflicted:
        open_ = ", ".join(c["path"] for c in state.folder(bot).conflicts) or "none"
        raise BadInput(f"{bot} has no conflict in {path} (conflicts: {open_})")
    if text is None:
        ft = mem.store.read(bot, path)
        text = ft.text if ft is not None else ""
    result = save(mem, bot, path, text, RESOLVE, create=False)
    with p.lock().held(60.0):
        state = read_state(p)
        fs = state.folder(bot)
        fs.conflicts = [c for c in fs.conflicts if c.get("path") != path]
        if path not in fs.resolved:
            fs.resolved.append(path)
        write_state(p, state)
    return result


def remove(mem: Memory, bot: str) -> RemoveResult:
    """``sync remove``: stop syncing *bot* here (the remote keeps its history; nothing local changes)."""
    p = paths(mem)
    with p.lock().held(60.0):
        settings = read_settings(p)
        bot = folder_of(settings, bot)
        spec = settings.folder(bot)
        if spec is None:
            raise BadInput(f"{bot} is not synced (synced: {', '.join(f.id for f in settings.folders) or 'none'})")
        settings.folders = [f for f in settings.folders if f.id != bot]
        write_settings(p, settings)
        state = read_state(p)
        state.folders.pop(bot, None)
        write_state(p, state)
    return RemoveResult(spec.id, spec.key)


# ----- the schedule (watch, the tray)


class _Synced:
    """The synced folders' ids, read again only when ``settings.json`` changed (asked on every journal event)."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem
        self._seen: tuple[int, int] | None = None
        self._ids: set[str] = set()

    def __call__(self) -> set[str]:
        path = paths(self.mem).settings
        try:
            st = os.stat(path)
            key = (st.st_mtime_ns, st.st_size)
        except OSError:
            return set()
        if key != self._seen:
            self._ids = {f.id for f in read_settings(paths(self.mem)).folders}
            self._seen = key
        return self._ids


def pending(mem: Memory, ids: Iterable[str]) -> set[str]:
    """Which of *ids* have journal rows that would go out (rows a round wrote itself do not count)."""
    p = paths(mem)
    state = read_state(p)
    eng = engine(mem)
    out: set[str] = set()
    for i in ids:
        folder = eng.folders.get(i)
        fs = state.folder(i)
        if folder is None:
            continue
        if fs.base is None or fs.mark is None:
            out.add(i)
            continue
        try:
            rows, _, found = folder.rows_since(fs.mark)
        except BotMemoryError:
            continue
        if not found or any(r.how != "sync" for r in rows):
            out.add(i)
    return out


class _Cached:
    """A file's value, read again only when the file changed (the remote is asked every few seconds)."""

    def __init__(self, path: Path, read: Callable[[], Any]) -> None:
        self.path, self.read = path, read
        self._seen: tuple[int, int] | None = None
        self._value: Any = None

    def __call__(self) -> Any:
        try:
            st = os.stat(self.path)
            key = (st.st_mtime_ns, st.st_size)
        except OSError:
            key = (0, 0)
        if key != self._seen:
            self._value, self._seen = self.read(), key
        return self._value


def remote_moved(mem: Memory, *, branch: Callable[[], str] | None = None,
                 synced: Callable[[], str | None] | None = None) -> bool:
    """Whether the remote's branch is not at the commit this computer last synced (one ``git ls-remote``)."""
    p = paths(mem)
    check_git()
    if not (p.repo / "HEAD").is_file():
        return True
    b = branch() if branch is not None else _settings(mem).branch
    s = synced() if synced is not None else read_state(p).synced
    return Git(p.repo, pid_file=None).remote_tip(b) != s


def scheduler(mem: Memory, on_status: Callable[[Status], None] | None = None, **timing: float) -> Scheduler | None:
    """The schedule for ``watch`` and the tray (not started), or None when sync is not set up here."""
    p = paths(mem)
    settings = read_settings(p)
    if not settings.remote:
        return None

    def run_round(ids: set[str] | None) -> tuple[int, int, int, int, tuple[str, ...]]:
        result = now(mem, None if ids is None else sorted(ids))
        notes = tuple(f"{f.id}: {f.note}" for f in result.folders if f.note)
        return (sum(f.came_in for f in result.folders), sum(f.went_out for f in result.folders),
                sum(f.conflicts for f in result.folders), sum(f.pushed_out for f in result.folders), notes)

    state = read_state(p)
    last = None
    if state.last_ok:
        try:
            last = datetime.fromisoformat(state.last_ok.replace("Z", "+00:00")).timestamp()
        except ValueError:
            last = None
    conflicts = sum(len(f.conflicts) for f in state.folders.values())
    branch = _Cached(p.settings, lambda: read_settings(p).branch)
    synced = _Cached(p.state, lambda: read_state(p).synced)
    s = Scheduler(mem.home.journal_dir, _Synced(mem), run_round,
                  lambda: remote_moved(mem, branch=branch, synced=synced), lambda ids: pending(mem, ids), on_status,
                  last_sync=last, **timing)
    s.status = Status(last_sync=last, conflicts=conflicts, error=state.error)
    return s


def wait_synced(s: Scheduler, rounds: int, timeout: float) -> bool:
    """Wait until *s* has run *rounds* rounds (tests and benchmarks)."""
    deadline = time.monotonic() + timeout
    while s.rounds < rounds and time.monotonic() < deadline:
        time.sleep(0.05)
    return s.rounds >= rounds


__all__ = ["AddResult", "FOLDER_KINDS", "FolderStatus", "RemoveResult", "SetupResult", "StatusResult", "add",
           "add_team", "check_remote", "default_key", "engine", "folder_of", "now", "pending", "register_folder_kind",
           "remote_moved", "remove", "resolve", "scheduler", "setup", "status"]
