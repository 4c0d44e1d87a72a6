"""Turns: a bot's turn begins and ends; open turns; the day's log line; turns left open expire.

``turn_begin`` records what changed before the turn as outside changes and
notes the turn; until it ends, that bot's changes are the bot's work.
``turn_end`` records what differs as ``who: bot, how: task`` in the turn's chat
and appends the day's log line. Of two open turns of one bot, a change lands
under whichever ends first. A turn left open for :data:`TURN_TIMEOUT_S` ends by
itself. Outside changes (:func:`scan`, ``watch --once``) are recorded only while
no turn of the bot is open.
"""
from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.errors import BadInput, BotMemoryError, LinkRefused, Refused
from ..base.log import get_logger
from ..disk import config
from ..disk.paths import Home, check_bot_id, log_path
from ..disk.safeio import atomic_write, open_dir_nofollow, read_file
from ..redact import redact
from ..store.journal import Row
from ..store.writer import Actor, Write, new_change_id
from ..text.entries import DOT, append_text, chat_source, clean_title
from .reconcile import outside_actor, reconcile_bot

if TYPE_CHECKING:
    from ..store.memory import Memory

logger = get_logger(__name__)

TURN_TIMEOUT_S = 30 * 60
LOG_SAID_MAX = 300


def scan(mem: Memory, bots: Sequence[str] | None = None) -> list[Row]:
    """``watch --once``: record outside changes in every workspace (or *bots*).

    Turns left open too long end first; a bot with a turn open is skipped (its
    changes are the turn's).
    """
    rows: list[Row] = []
    for bot in (bots if bots is not None else mem.home.bots()):
        try:
            rows += reconcile_outside(mem, bot) or []
        except BotMemoryError as e:
            logger.warning("could not reconcile %s: %s", bot, e)
    if bots is None:   # About me, edited elsewhere: a row of its own journal (the first scan takes a baseline)
        from ..store.home_journal import catch_up

        try:
            rows += catch_up(mem.home, mem.journal)
        except (OSError, BotMemoryError) as e:
            logger.warning("could not reconcile About me: %s", e)
    return rows


def reconcile_outside(mem: Memory, bot: str, only: Iterable[str] | None = None) -> list[Row] | None:
    """Record *bot*'s outside changes; None (recording nothing) while a turn of *bot* is open.

    Turns open too long end first. The check and the recording hold the
    workspace lock together, so a turn cannot begin in between.
    """
    with mem.capture_rows() as rows, mem.store.locked(bot):   # also the rows a repair at the start wrote
        expire_turns(mem, bot)
        if open_turns(mem, bot):
            return None
        reconcile_bot(mem, bot, outside_actor(mem, bot), only=only)
    return list(rows)


@dataclass(frozen=True)
class Turn:
    id: str
    bot: str
    chat: str
    began: float     # seconds since the epoch

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "bot": self.bot, "chat": self.chat, "began": self.began}


_TURN_ID = re.compile(r"[0-9a-f]{12}-[0-9a-f]{6}")


def _turn_dir(home: Home, bot: str) -> Path:
    return home.state_dir / "turns" / check_bot_id(bot)


def open_turns(mem: Memory, bot: str) -> list[Turn]:
    """The turns of *bot* that began and have not ended, oldest first."""
    folder = _turn_dir(mem.home, bot)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    out: list[Turn] = []
    for name in names:
        if not name.endswith(".json") or not _TURN_ID.fullmatch(name[:-5]):
            continue
        try:
            ft = read_file(folder / name, mem.home.root)
        except BotMemoryError as e:
            logger.warning("cannot read the turn record %s of %s: %s", name, bot, e)
            continue
        try:
            d = json.loads(ft.text) if ft else None
            if not isinstance(d, dict):
                raise TypeError("not a turn record")
            out.append(Turn(str(d["id"]), bot, clean_title(str(d["chat"])), float(d["began"])))
        except (ValueError, TypeError, KeyError, RecursionError):
            logger.warning("removing an unreadable turn record %s of %s", name, bot)
            _remove_turn(mem.home, bot, name[:-5])
    return sorted(out, key=lambda t: (t.began, t.id))


def turn_open(mem: Memory, bot: str) -> bool:
    """True while a turn of *bot* is open (upkeep waits for it)."""
    return bool(open_turns(mem, bot))


def _remove_turn(home: Home, bot: str, turn_id: str) -> None:
    try:
        with open_dir_nofollow(home.root, _turn_dir(home, bot)) as d:
            d.unlink(f"{turn_id}.json")
    except (FileNotFoundError, NotADirectoryError):
        pass


def turn_begin(mem: Memory, bot: str, chat: str) -> str:
    """A turn of *bot* in *chat* begins: what changed before it is recorded as outside changes."""
    chat = clean_title(chat)   # one line, redacted: the open-turn file is kept outside the workspace
    if not chat:
        raise BadInput("a turn needs the chat it belongs to (--chat T)")
    mem.store.ensure(bot)  # the workspace is created the first time the bot runs a turn
    with mem.store.locked(bot):
        expire_turns(mem, bot)
        if not open_turns(mem, bot):  # with another turn open, changes since are that turn's
            reconcile_bot(mem, bot, outside_actor(mem, bot))
        now = time.time()
        turn = Turn(new_change_id(datetime.now(UTC)), bot, chat, now)
        atomic_write(_turn_dir(mem.home, bot) / f"{turn.id}.json", json.dumps(turn.as_dict()).encode("utf-8"),
                     mem.home.root)
    return turn.id


def turn_end(mem: Memory, bot: str, turn_id: str, said: str | None = None, *,
             tools: Sequence[str] = (), failed: bool = False, room: bool = False,
             only: Iterable[str] | None = None) -> list[Row]:
    """The turn ends: what differs is the bot's work in its chat; then the day's log line (sourced to the
    room, for a room's turn).

    *only*: the files known to be this turn's work (another turn of the bot is open: the rest may be its);
    default every file."""
    if not _TURN_ID.fullmatch(turn_id):
        raise BadInput(f"bad turn id {turn_id!r}: `botmemory turn begin` prints it")
    mem.home.require_bot(bot)
    with mem.store.locked(bot):   # two calls ending the same turn: the second finds it gone
        turn = next((t for t in open_turns(mem, bot) if t.id == turn_id), None)
        if turn is None:
            raise BadInput(f"no open turn {turn_id} of {bot} (it ended already, or never began)")
        return _end(mem, turn, said, tools, failed, room, only)


def _end(mem: Memory, turn: Turn, said: str | None, tools: Sequence[str], failed: bool,
         room: bool = False, only: Iterable[str] | None = None) -> list[Row]:
    bot = turn.bot
    link: LinkRefused | None = None
    with mem.capture_rows() as rows, mem.store.locked(bot):
        reconcile_bot(mem, bot, Actor.bot(turn.chat, "task"), only=only)
        _remove_turn(mem.home, bot, turn.id)
        if config.bot_settings(mem.home, bot).memory and not mem.home.is_tracked(bot):  # never in an agent's folder
            try:
                _append_log(mem, bot, turn.chat, log_line(turn.chat, said, tools, failed, room=room))
            except LinkRefused as e:  # the turn is recorded; the log line is refused, and that is said
                link = e
            except BotMemoryError as e:  # the log line never fails a turn
                logger.warning("could not append the log line of %s: %s", bot, e)
    if link is not None:
        raise Refused(f"{link} (the turn's changes were recorded; its log line was not written)")
    return list(rows)


def log_line(chat: str, said: str | None, tools: Sequence[str] = (), failed: bool = False,
             now: datetime | None = None, *, room: bool = False) -> str:
    """``- HH:MM · chat "T" · what the bot said last [· tools: a, b] [· failed]`` (``room "T"`` for a room)"""
    when = (now or datetime.now()).strftime("%H:%M")
    text = " ".join(redact(said or "").split())   # redacted before it is joined or cut: a key block is found whole
    if len(text) > LOG_SAID_MAX:
        text = text[:LOG_SAID_MAX - 1].rstrip() + "…"
    source = chat_source(chat, "")[5:]
    parts = [f"- {when}", "room" + source.removeprefix("chat") if room else source, text or "(said nothing)"]
    names = [" ".join(redact(t).split()) for t in tools if t.strip()]   # one line each
    if names:
        parts.append("tools: " + ", ".join(names))
    if failed:
        parts.append("failed")
    return DOT.join(parts)


def _append_log(mem: Memory, bot: str, chat: str, line: str) -> None:
    rel = log_path(mem.today)
    ft = mem.store.read(bot, rel)
    text = append_text(ft.text if ft else "", line)
    mem.store.apply(bot, [Write(rel, text, ft.hash if ft else None, checked=True)], Actor.bot(chat),
                    allow_log=True)


def expire_turns(mem: Memory, bot: str, now: float | None = None) -> list[Row]:
    """End every turn of *bot* open for longer than :data:`TURN_TIMEOUT_S` (as failed turns)."""
    now = time.time() if now is None else now
    rows: list[Row] = []
    for turn in open_turns(mem, bot):
        if now - turn.began >= TURN_TIMEOUT_S:
            logger.info("turn %s of %s was open for 30 minutes: ending it", turn.id, bot)
            rows += _end(mem, turn, "(the turn did not end within 30 minutes)", (), True)
    return rows


__all__ = [
    "TURN_TIMEOUT_S", "Turn", "expire_turns", "log_line", "open_turns", "reconcile_outside", "scan",
    "turn_begin", "turn_end", "turn_open",
]
