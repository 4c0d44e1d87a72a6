"""Tracked folders: the memory folders of other agents that botmemory serves like its own workspaces.

The registry is ``<home>/botmemory/tracked.json`` (written atomically, under a
lock), a list of ``{"id", "agent", "path", "name"}``. An id is lowercase
``[a-z0-9-]``, unique among the tracked folders and the home's workspaces,
and stays what it was when the folder was tracked. ``discover`` finds the
folders the agents keep on this computer (``~`` is ``Path.home()``); a found
folder's id depends on its own path only, so it stays the same when another
project appears.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from .. import kinds
from ..base.errors import BadInput, Refused
from ..base.log import get_logger
from ..base.record import record
from ..disk.paths import Folder, Home
from ..disk.safeio import WorkspaceLock, atomic_write, read_file

logger = get_logger(__name__)

MAX_ID = 64
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


@record(frozen=True)
class Tracked:
    id: str
    agent: str
    path: Path
    name: str

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "agent": self.agent, "path": str(self.path), "name": self.name}


@record(frozen=True)
class Candidate:
    id: str
    agent: str
    path: Path
    name: str
    tracked: bool

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "agent": self.agent, "path": str(self.path), "name": self.name,
                "tracked": self.tracked}


def registry_file(home: Home) -> Path:
    return home.state_dir / "tracked.json"


_cache: dict[str, tuple[tuple[int, int, int], dict[str, Tracked]]] = {}
_SEE_MISSING = os.access in os.supports_follow_symlinks


def read(home: Home, where: str | None = None) -> dict[str, Tracked]:
    """The tracked folders by id ({} when there are none or the registry cannot be read). *where*: the
    registry's path as a string, when the caller keeps it (every path of a bot asks: one lstat then)."""
    name = where if where is not None else str(registry_file(home))
    if _SEE_MISSING and not os.access(name, os.F_OK, follow_symlinks=False):   # no registry: asked at every path,
        return {}                                                               # so without an exception
    try:
        st = os.lstat(name)
    except OSError:
        return {}
    key = (st.st_mtime_ns, st.st_size, st.st_ino)
    hit = _cache.get(name)
    if hit is not None and hit[0] == key:
        return hit[1]
    path = Path(name)
    out: dict[str, Tracked] = {}
    try:
        ft = read_file(path)
        data = json.loads(ft.text) if ft is not None and ft.valid else {}
    except (ValueError, OSError, BadInput) as e:
        logger.warning("could not read %s (%s): no folders are tracked until it is fixed", path, e)
        data = {}
    items = data.get("folders") if isinstance(data, dict) else None
    for d in items if isinstance(items, list) else []:
        if not isinstance(d, dict):
            continue
        i, agent, p, shown = d.get("id"), d.get("agent"), d.get("path"), d.get("name")
        if isinstance(i, str) and _ID.fullmatch(i) and isinstance(agent, str) and isinstance(p, str):
            out[i] = Tracked(i, agent, Path(p), shown if isinstance(shown, str) else Path(p).name)
    _cache[name] = (key, out)
    return out


class Registry:
    """The home's :class:`~botmemory.core.disk.paths.FolderSource`: ``tracked.json`` read fresh when it changed."""

    def __init__(self, root: Path) -> None:
        self.home = Home(root)
        self._name = str(registry_file(self.home))
        self._seen: tuple[int, dict[str, Tracked]] | None = None
        self._folders: dict[str, Folder] = {}

    def folders(self) -> dict[str, Folder]:
        records = read(self.home, self._name)
        if self._seen is None or self._seen[1] is not records:
            out = {}
            for t in records.values():
                try:
                    out[t.id] = Folder(t.id, t.path, t.name, kinds.get(t.agent))
                except BadInput:
                    logger.warning("%s in %s has an unknown kind %r: left out", t.id, registry_file(self.home),
                                   t.agent)
            self._folders = out
            self._seen = (id(records), records)
        return self._folders


def attach(home: Home) -> Home:
    """*home* serving its tracked folders too (``Memory.open`` does this)."""
    if home.source is not None:
        return home
    return Home(home.root, Registry(home.root))


def _write(home: Home, folders: Mapping[str, Tracked]) -> None:
    data = {"version": 1, "folders": [t.as_dict() for t in sorted(folders.values(), key=lambda t: t.id)]}
    atomic_write(registry_file(home), (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def _lock(home: Home) -> WorkspaceLock:
    return WorkspaceLock.for_file(home.state_dir / "locks" / "_tracked.lock")


def slugify(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "folder"


def _short_hash(path: Path) -> str:
    import hashlib  # only when an id is made: a gauge or a load never needs it (5 ms of a process)

    return hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:6]


def _unique(slug: str, path: Path, taken: set[str], exact: bool = True) -> str:
    """A found folder's id, decided by its own path alone (so no id changes when another folder appears): its
    slug when the kind says no other folder can have it (*exact*), else the slug and a hash of the path.
    An id taken by a tracked folder or a workspace also gets the hash."""
    base = slugify(slug)
    if exact and len(base) <= MAX_ID and base not in taken:
        return base
    return f"{base[:MAX_ID - 7].rstrip('-')}-{_short_hash(path)}"


def _resolved(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p.absolute()


def discover(home: Home, user_home: Path | None = None,
             env: Mapping[str, str] | None = None) -> tuple[list[Candidate], list[str]]:
    """Every agent memory folder on this computer, tracked or not, and the settings files that could not be read."""
    user_home = user_home if user_home is not None else Path.home()
    env = env if env is not None else os.environ
    tracked = read(home)
    by_path = {_resolved(t.path): t for t in tracked.values()}
    taken = set(tracked) | set(home.workspace_names())
    out: list[Candidate] = []
    unread: list[str] = []
    for name in kinds.AGENT_NAMES:
        found, problems = kinds.get(name).discover(user_home, env)
        unread += problems
        for f in found:
            t = by_path.get(_resolved(f.path))
            if t is not None:
                out.append(Candidate(t.id, t.agent, f.path, t.name, True))
                continue
            i = _unique(f.slug, _resolved(f.path), taken, f.exact)
            taken.add(i)
            out.append(Candidate(i, f.agent, f.path, f.name, False))
    known = {_resolved(c.path) for c in out}
    for t in tracked.values():   # tracked by --path, or gone: listed too
        if _resolved(t.path) not in known:
            out.append(Candidate(t.id, t.agent, t.path, t.name, True))
    return out, unread


def track(home: Home, bot: str | None = None, *, path: str | None = None, agent: str | None = None) -> Tracked:
    """Track a found folder by its id, or a folder by its path and kind. Idempotent."""
    with _lock(home).held():
        tracked = dict(read(home))
        if path is None:
            if bot is None:
                raise BadInput("track needs an id from `botmemory agents`, or --path DIR --agent KIND")
            if bot in tracked:
                return tracked[bot]
            found, _ = discover(home)
            match = [c for c in found if c.id == bot]
            if not match:
                ids = ", ".join(c.id for c in found) or "none found"
                raise BadInput(f"no agent folder with id {bot!r} (found: {ids}); "
                               "`botmemory track --path DIR --agent KIND` tracks any folder")
            c = match[0]
            t = Tracked(c.id, c.agent, c.path, c.name)
        else:
            if agent is None:
                raise BadInput("track --path needs --agent KIND "
                               f"({', '.join(kinds.AGENT_NAMES)})")
            if agent == "openmausbot":
                raise Refused("the home's own workspaces are served already: `botmemory --root HOME` opens another home")
            kind = kinds.get(agent)
            folder = Path(path).expanduser().absolute()
            if folder.is_symlink():
                raise BadInput(f"{folder} is a symbolic link: track the folder it points to")
            if not folder.is_dir():
                raise BadInput(f"{folder} is not a folder")
            for t in tracked.values():
                if _resolved(t.path) == _resolved(folder):
                    return t
            taken = set(tracked) | set(home.workspace_names())
            if bot is not None:
                if not _ID.fullmatch(bot):
                    raise BadInput(f"bad id {bot!r}: use lowercase letters, digits and '-' (at most 64)")
                if bot in taken:
                    raise BadInput(f"the id {bot!r} is taken")
                i = bot
            else:
                i = _unique(f"{kind.name}-{folder.name}", _resolved(folder), taken)
            t = Tracked(i, kind.name, folder, str(folder))
        if t.id in home.workspace_names():
            raise BadInput(f"the id {t.id!r} is a workspace of this home already")
        tracked[t.id] = t
        _write(home, tracked)
        return t


def untrack(home: Home, bot: str) -> Tracked:
    """Stop serving a tracked folder. Its journal stays in the home; nothing in the folder is touched."""
    with _lock(home).held():
        tracked = dict(read(home))
        t = tracked.pop(bot, None)
        if t is None:
            raise BadInput(f"{bot!r} is not tracked (tracked: {', '.join(sorted(read(home))) or 'none'})")
        _write(home, tracked)
        return t
