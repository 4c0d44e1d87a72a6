"""The Claude Code brief's switches, per project: ``<home>/botmemory/claude-code-brief.json``.

A project is its auto memory folder (what Claude Code keys a project by: the git root, worktrees included).
Two switches each, both off until the person turns them on (``botmemory connect claude-code --brief``, Settings
→ Agents): ``brief`` (a session's start is told what the project's other sessions did lately) and ``across``
(the other projects' sessions too). The file is ``{"version": 1, "projects": {"<memory folder>": {"brief",
"across", "project"}}}``, ``project`` being the project's folder as a person reads it; written atomically
under a lock, read fresh on every call (a change applies to the next session).
"""
from __future__ import annotations

import json
from pathlib import Path

from ..base.errors import BotMemoryError
from ..base.log import get_logger
from ..base.record import record
from ..disk.paths import Home
from ..disk.safeio import WorkspaceLock, atomic_write, read_file

logger = get_logger(__name__)

FILE = "claude-code-brief.json"


@record(frozen=True)
class Switch:
    """One project's switches: its memory folder, its folder, the brief at a session's start, other projects too."""

    folder: str
    project: str = ""
    brief: bool = False
    across: bool = False

    def as_dict(self) -> dict[str, object]:
        return {"folder": self.folder, "project": self.project, "brief": self.brief, "across": self.across}


def path(home: Home) -> Path:
    return home.state_dir / FILE


def read(home: Home) -> dict[str, Switch]:
    """Every project's switches by memory folder ({} when none, or the file cannot be read: all off)."""
    try:
        ft = read_file(path(home), home.root)
        data = json.loads(ft.text) if ft is not None and ft.valid else {}
    except (ValueError, RecursionError, OSError, BotMemoryError) as e:     # a broken file is "all off"
        logger.warning("could not read %s (%s): the Claude Code brief is off until it is fixed", path(home), e)
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    out: dict[str, Switch] = {}
    for folder, s in (projects.items() if isinstance(projects, dict) else ()):
        if isinstance(folder, str) and isinstance(s, dict):
            project = s.get("project")
            out[folder] = Switch(folder, project if isinstance(project, str) else "", s.get("brief") is True,
                                 s.get("across") is True)
    return out


def key(folder: Path) -> str:
    """A memory folder as the file keys it (absolute, no trailing slash)."""
    return str(folder).rstrip("/") or "/"


def switch_for(home: Home, folder: Path) -> Switch:
    return read(home).get(key(folder)) or Switch(key(folder))


def set_switch(home: Home, folder: Path, project: str, *, brief: bool | None = None,
               across: bool | None = None) -> Switch:
    """Turn a project's switches on or off (None: as they are); returns them as they are now."""
    with WorkspaceLock.for_file(home.state_dir / "locks" / "_claude_brief.lock").held():
        switches = read(home)
        k = key(folder)
        old = switches.get(k) or Switch(k)
        new = Switch(k, project or old.project, old.brief if brief is None else brief,
                     old.across if across is None else across)
        if new == old and k in switches:
            return new
        switches[k] = new
        data = {"version": 1, "projects": {f: {"brief": s.brief, "across": s.across, "project": s.project}
                                           for f, s in sorted(switches.items()) if s.brief or s.across}}
        atomic_write(path(home), (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8"), home.root)
        return new
