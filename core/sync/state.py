"""What sync keeps on this computer, under ``<home>/botmemory/sync/`` (outside every workspace):

- ``settings.json``: the remote, its branch, this computer's name if set (``host``), and the synced folders
  (``id``, ``key``, ``kind``); what the person chose, changed by ``sync setup/add/remove``;
- ``state.json``: what the engine knows: the last commit this computer agreed on with the remote
  (``synced``), and per folder its base (the commit and tree it last synced), the journal row it sent up to
  (``mark``), when it last synced, what came in and went out, its open conflicts;
- ``repo/``: botmemory's own bare git directory (never checked out), ``git.pid`` while a git runs.

Both files are written atomically (0600) under the sync lock (``<home>/botmemory/locks/_sync.lock``).
"""
from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import BadInput
from ..base.log import get_logger
from ..disk.paths import Home
from ..disk.safeio import WorkspaceLock, atomic_write, read_file

logger = get_logger(__name__)

DEFAULT_BRANCH = "main"
HOST_MAX = 64


@dataclass(frozen=True)
class Paths:
    home: Home

    @property
    def dir(self) -> Path:
        return self.home.state_dir / "sync"

    @property
    def repo(self) -> Path:
        return self.dir / "repo"

    @property
    def settings(self) -> Path:
        return self.dir / "settings.json"

    @property
    def state(self) -> Path:
        return self.dir / "state.json"

    @property
    def pid(self) -> Path:
        return self.dir / "git.pid"

    @property
    def marks(self) -> Path:
        return self.dir / "fast-import.marks"

    def lock(self) -> WorkspaceLock:
        return WorkspaceLock.for_file(self.home.state_dir / "locks" / "_sync.lock", self.home.root)


@dataclass
class FolderSpec:
    id: str
    key: str
    kind: str = "bot"


@dataclass
class Settings:
    remote: str | None = None
    branch: str = DEFAULT_BRANCH
    host: str | None = None
    folders: list[FolderSpec] = field(default_factory=list)

    def folder(self, folder_id: str) -> FolderSpec | None:
        return next((f for f in self.folders if f.id == folder_id), None)


@dataclass
class FolderState:
    base: str | None = None          # the commit this folder last synced at (None: never yet)
    tree: str | None = None          # its folder's tree in that commit (None: the folder was not there)
    mark: str | None = None          # the newest journal row that went out (or was there when it was added)
    last_sync: str | None = None
    last_in: int = 0
    last_out: int = 0
    pushed_out: int = 0              # lines the last merge pushed past what the agent loads
    note: str | None = None          # why it did not sync the last time (a turn open, a credential)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    resolved: list[str] = field(default_factory=list)   # conflicts resolved here, not yet said to the remote


@dataclass
class State:
    synced: str | None = None
    last_round: str | None = None    # when the last round ended (with or without success)
    last_ok: str | None = None       # when a round last reached the remote
    error: str | None = None         # why the last round failed (None: it did not)
    folders: dict[str, FolderState] = field(default_factory=dict)

    def folder(self, folder_id: str) -> FolderState:
        return self.folders.setdefault(folder_id, FolderState())


def _read_json(path: Path, root: Path) -> dict[str, Any]:
    try:
        ft = read_file(path, root)
    except (OSError, BadInput) as e:
        logger.warning("could not read %s: %s", path, e)
        return {}
    if ft is None:
        return {}
    try:
        data = json.loads(ft.text)
    except (ValueError, RecursionError) as e:
        logger.warning("could not read %s (%s): starting from nothing", path, e)
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, root: Path, data: dict[str, Any]) -> None:
    atomic_write(path, (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8"), root)


def _str(v: object) -> str | None:
    return v if isinstance(v, str) else None


def read_settings(paths: Paths) -> Settings:
    d = _read_json(paths.settings, paths.home.root)
    folders = []
    for f in d.get("folders") or []:
        if isinstance(f, dict) and isinstance(f.get("id"), str) and isinstance(f.get("key"), str):
            kind = f.get("kind")
            folders.append(FolderSpec(f["id"], f["key"], kind if isinstance(kind, str) else "bot"))
    return Settings(_str(d.get("remote")), _str(d.get("branch")) or DEFAULT_BRANCH, _str(d.get("host")), folders)


def write_settings(paths: Paths, s: Settings) -> None:
    d: dict[str, Any] = {"version": 1, "remote": s.remote, "branch": s.branch,
                         "folders": [asdict(f) for f in s.folders]}
    if s.host:
        d["host"] = s.host
    _write_json(paths.settings, paths.home.root, d)


def read_state(paths: Paths) -> State:
    d = _read_json(paths.state, paths.home.root)
    folders: dict[str, FolderState] = {}
    for fid, f in (d.get("folders") or {}).items():
        if not isinstance(f, dict):
            continue
        conflicts = [c for c in f.get("conflicts") or [] if isinstance(c, dict) and isinstance(c.get("path"), str)]
        folders[fid] = FolderState(
            _str(f.get("base")), _str(f.get("tree")), _str(f.get("mark")), _str(f.get("last_sync")),
            int(f.get("last_in") or 0), int(f.get("last_out") or 0), int(f.get("pushed_out") or 0),
            _str(f.get("note")), conflicts,
            [r for r in f.get("resolved") or [] if isinstance(r, str)])
    return State(_str(d.get("synced")), _str(d.get("last_round")), _str(d.get("last_ok")), _str(d.get("error")),
                 folders)


def write_state(paths: Paths, s: State) -> None:
    _write_json(paths.state, paths.home.root, {"version": 1, "synced": s.synced, "last_round": s.last_round,
                                               "last_ok": s.last_ok, "error": s.error,
                                               "folders": {k: asdict(v) for k, v in sorted(s.folders.items())}})


_HOST_BAD = re.compile(r"[\x00-\x1f\x7f<>\"]+")


def clean_host(name: str) -> str:
    """A computer's name as commits and rows carry it: one line, no ``<>"``, at most 64 characters."""
    name = " ".join(_HOST_BAD.sub(" ", name).split())[:HOST_MAX].strip()
    return name or "computer"


def host_name(settings: Settings | None = None) -> str:
    """This computer's name: ``$BOTMEMORY_HOST``, else the ``host`` setting, else ``socket.gethostname()``."""
    env = os.environ.get("BOTMEMORY_HOST", "").strip()
    if env:
        return clean_host(env)
    if settings is not None and settings.host:
        return clean_host(settings.host)
    try:
        return clean_host(socket.gethostname())
    except OSError:
        return "computer"


__all__ = ["DEFAULT_BRANCH", "FolderSpec", "FolderState", "Paths", "Settings", "State", "clean_host", "host_name",
           "read_settings", "read_state", "write_settings", "write_state"]
