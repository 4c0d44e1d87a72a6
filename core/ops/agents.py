"""The agents' memory folders on this computer: finding them, tracking and untracking them.

A tracked folder is a "bot" of its kind everywhere after (``bots``, the gauge, the journal, the panel); its
journal and bookkeeping live in the home, never in the agent's folder.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..base.errors import BadInput
from ..kinds import AGENT_NAMES, get
from ..kinds.tracked import Candidate, Tracked
from ..store.memory import Memory

__all__ = ["AGENT_NAMES", "Candidate", "Found", "Tracked", "discover", "kind_label", "track", "untrack"]


@dataclass(frozen=True)
class Found:
    """What ``agents`` finds: the folders, and the agents' settings that could not be read (defaults used)."""

    folders: list[Candidate]
    unread: list[str] = field(default_factory=list)

    def as_list(self) -> list[dict[str, object]]:
        return [c.as_dict() for c in self.folders]


def discover(mem: Memory) -> Found:
    """The memory folders of Claude Code, OpenClaw and Hermes on this computer, tracked or not."""
    from ..kinds.tracked import discover as find

    folders, unread = find(mem.home)
    return Found(list(folders), list(unread))


def track(mem: Memory, bot: str | None = None, *, path: str | None = None, agent: str | None = None) -> Tracked:
    """Serve a found folder (by its id) or the folder at *path* of kind *agent*, and take its baseline at once:
    the shadows of what it holds now, so the agent's first change after this is journaled (and can be undone)
    like any other. Tracking a folder already tracked changes nothing, its shadows included."""
    from ..kinds.tracked import track as add

    if path is None and agent is not None:
        raise BadInput("--agent goes with --path DIR")
    t = add(mem.home, bot, path=path, agent=agent)
    with mem.store.locked(t.id):
        if mem.shadows.load(t.id) is None and t.path.is_dir():
            mem.shadows.baseline(t.id)
    return t


def untrack(mem: Memory, bot: str) -> Tracked:
    """Stop serving a tracked folder; nothing in it is touched and its journal stays in the home."""
    from ..kinds.tracked import untrack as remove

    return remove(mem.home, bot)


def kind_label(name: str) -> str:
    """A kind as people name it (``claude-code`` → *Claude Code*)."""
    return get(name).label
