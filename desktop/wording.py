"""How the app words what it shows: folders as a person reads them, bots by their names.

A small module of its own, below every view, so views share it without importing one another (the panel
and the welcome page once imported each other for ``pretty_path``).
"""
from __future__ import annotations

from pathlib import Path


def pretty_path(path: Path | str) -> str:
    """A folder as a person reads it: ``~/.openmausbot/workspaces/scout``."""
    p = Path(path)
    try:
        return "~/" + p.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(p)


def shown_name(name: str) -> str:
    """A bot's name as shown: a name that is a path under the home folder starts with ``~``."""
    return pretty_path(name) if name.startswith("/") else name
