"""The recent-work brief as an operation: what *bot* did lately in its other conversations.

For a workspace: its daily log lines of today and yesterday (``brief.recent``). For a tracked Claude Code
folder: the newest thing Claude said in each of the project's other sessions (``brief.sessions``, read from
Claude Code's transcripts; with the project's "other projects too" switch, theirs as well). Other tracked
agent folders keep no turn log of botmemory's, so their brief is empty; memory switched off for the bot: empty
too.

The Claude Code brief's switches (``brief.switches``), per project: whether a session's start is told
(:func:`set_brief_switch`, what ``connect claude-code --brief`` and Settings → Agents turn on) and whether other
projects' sessions are in it. :func:`brief_projects` lists the projects a person can switch.
"""
from __future__ import annotations

import os
from datetime import date, timedelta
from pathlib import Path

from ..base.errors import BadInput, BotMemoryError
from ..base.log import get_logger
from ..brief import switches
from ..brief.recent import Brief, Said, compose, is_room, parse_log
from ..brief.switches import Switch
from ..disk import config
from ..disk.paths import Home, log_path
from ..store.memory import Memory

logger = get_logger(__name__)

__all__ = ["Brief", "BriefSwitch", "Said", "brief", "brief_projects", "brief_switch", "claude_brief",
           "set_brief_switch"]

BriefSwitch = Switch


def brief(mem: Memory, bot: str, chat: str | None = None, *, room: bool | None = None) -> Brief:
    """The brief *bot* gets now in *chat* (left out of it); *room*: whether *chat* is a room (else as its log
    lines say), which decides the chips. For a Claude Code folder *chat* is the current session (its id, or its
    chat ``Claude Code <id…>``)."""
    mem.home.require_bot(bot)
    if not config.bot_settings(mem.home, bot).memory:
        return Brief()
    if mem.home.is_tracked(bot):
        if mem.home.kind_name(bot) != "claude-code":
            return Brief()
        return claude_brief(mem.home, mem.home.workspace(bot), mem.today, current=chat)
    saids: list[Said] = []
    for back in (1, 0):
        day = mem.today - timedelta(days=back)
        try:
            ft = mem.store.read(bot, log_path(day))
        except BotMemoryError as e:   # a log that is a link, or unreadable: left out, and said in the log
            logger.info("the brief of %s leaves out %s: %s", bot, log_path(day), e)
            continue
        if ft is not None:
            saids.extend(parse_log(ft.text, day))
    in_room = room if room is not None else (chat is not None and is_room(saids, chat))
    return compose(saids, mem.today, chat, in_room)


def claude_brief(home: Home, folder: Path, today: date, *, current: str | None = None, cwd: str | None = None,
                 across: bool | None = None) -> Brief:
    """The brief of the Claude Code project whose auto memory folder is *folder*: its other sessions' newest
    messages (*current*: the session left out; *cwd*: the session's folder, when known); *across*: other
    projects' sessions too (None: as the project's switch says)."""
    from ..brief.sessions import session_brief

    if across is None:
        across = switches.switch_for(home, folder).across
    return session_brief(folder, today, Path.home(), os.environ, current=current, cwd=cwd, across=across)


def _memory_folder(project: str | Path) -> tuple[Path, str]:
    """A Claude Code project's auto memory folder and the project's own folder (its git root), from any folder
    of the project; BadInput when auto memory is off there."""
    from ..kinds import claude_code_paths as where

    p = Path(project).expanduser().absolute()
    if not p.is_dir():
        raise BadInput(f"{project}: no such folder")
    folder = where.memory_dir(str(p), Path.home(), os.environ)
    if folder is None:
        raise BadInput(f"auto memory is off for {p}: Claude Code keeps no memory folder there, so it has no "
                       "brief of its sessions")
    return folder, where.project_root(str(p))


def brief_switch(home: Home, project: str | Path) -> Switch:
    """The brief's switches of the Claude Code project in *project* (any folder of it)."""
    folder, root = _memory_folder(project)
    got = switches.switch_for(home, folder)
    return got if got.project else Switch(got.folder, root, got.brief, got.across)


def set_brief_switch(home: Home, project: str | Path, *, brief: bool | None = None,
                     across: bool | None = None) -> Switch:
    """Turn the brief at a session's start (*brief*) and other projects' sessions in it (*across*) on or off
    for the Claude Code project in *project* (None: leave as it is)."""
    folder, root = _memory_folder(project)
    return switches.set_switch(home, folder, root, brief=brief, across=across)


def brief_projects(home: Home) -> list[Switch]:
    """The Claude Code projects whose brief a person can switch: every project's memory folder Claude Code keeps
    (``agents``' discovery), and any with a switch on; by project."""
    from ..kinds.claude_code import KIND

    found, _unread = KIND.discover(Path.home(), os.environ)
    on = switches.read(home)
    out: dict[str, Switch] = {}
    for f in found:
        if f.slug.startswith("claude-agent-"):      # a subagent's memory: not a project's
            continue
        k = switches.key(f.path)
        s = on.get(k)
        out[k] = Switch(k, s.project if s and s.project else f.name.split(" · ")[0], s.brief if s else False,
                        s.across if s else False)
    for k, s in on.items():
        out.setdefault(k, s)
    return sorted(out.values(), key=lambda s: (s.project or s.folder).lower())
