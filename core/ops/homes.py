"""A home folder as Settings shows it before opening it: its bots, the agent folders it tracks, and one sentence.

:func:`describe_home` reads only (``workspaces/``, ``config.json``, ``botmemory/tracked.json``); it creates
nothing, so Settings can check any folder the person types. A home that only tracks agent folders (someone who
runs Claude Code and no OpenMausBot: botmemory's own data folder) is a home like any other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..base.wording import counted
from ..disk.paths import Home
from ..kinds import get as get_kind

__all__ = ["HomeInfo", "describe_home"]

LISTED = 5


@dataclass(frozen=True)
class HomeInfo:
    """What a folder is as a home: ``ok`` when botmemory can open it, the sentence Settings shows, its workspaces
    and its tracked folders (id -> the name people read, with the agent's name)."""

    root: Path
    ok: bool
    message: str
    workspaces: list[str] = field(default_factory=list)
    tracked: dict[str, str] = field(default_factory=dict)

    @property
    def bots(self) -> list[str]:
        return sorted([*self.workspaces, *self.tracked])


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def _home_relative(name: str) -> str:
    """A tracked folder's name as a sentence shows it: a path in the person's home folder starts with ``~``."""
    home = str(Path.home())
    return "~" + name[len(home):] if name.startswith(home + "/") else name


def describe_home(root: str | Path) -> HomeInfo:
    """Whether *root* is a home botmemory can open, and what is in it (nothing is written)."""
    from ..kinds.tracked import read, registry_file

    text = str(root).strip()
    if not text:
        return HomeInfo(Path(), False, "Choose the home folder (normally ~/.openmausbot).")
    path = Path(text).expanduser()
    if not path.exists():
        return HomeInfo(path, False, f"{path} does not exist.")
    if not path.is_dir():
        return HomeInfo(path, False, f"{path} is a file, not a folder.")
    home = Home(path.absolute())
    if not (home.workspaces.is_dir() or home.config_file.is_file() or registry_file(home).is_file()):
        return HomeInfo(path, False, (
            f"{path} does not look like an OpenMausBot home: it has neither a workspaces folder "
            "nor a config.json. OpenMausBot makes its home (normally ~/.openmausbot) when it first "
            "runs; choose that folder."))
    bots = home.workspace_names()
    tracked = {t.id: f"{t.name} · {get_kind(t.agent).label}" for t in read(home).values()}
    listed = sorted(_home_relative(name) for name in tracked.values())
    if bots:
        message = f"An OpenMausBot home with {counted(len(bots), 'bot')}: {_listed(bots)}."
        if tracked:
            message += f" It also tracks {counted(len(tracked), 'agent folder')}."
    elif tracked:
        message = (f"botmemory's home for the agents' memory folders: it tracks "
                   f"{counted(len(tracked), 'folder')} ({_listed(listed)}).")
    else:
        message = "An OpenMausBot home with no bots yet."
    return HomeInfo(path, True, message, bots, tracked)
