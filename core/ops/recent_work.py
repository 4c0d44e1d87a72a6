"""The recent-work brief as an operation: what *bot* did lately in its other conversations.

For a workspace: its daily log lines of today and yesterday (``brief.recent``). A tracked agent folder keeps
no turn log of botmemory's, so its brief is empty here; memory switched off for the bot: empty too.
"""
from __future__ import annotations

from datetime import timedelta

from ..base.errors import BotMemoryError
from ..base.log import get_logger
from ..brief.recent import Brief, Said, compose, is_room, parse_log
from ..disk import config
from ..disk.paths import log_path
from ..store.memory import Memory

logger = get_logger(__name__)

__all__ = ["Brief", "Said", "brief"]


def brief(mem: Memory, bot: str, chat: str | None = None, *, room: bool | None = None) -> Brief:
    """The brief *bot* gets now in *chat* (left out of it); *room*: whether *chat* is a room (else as its log
    lines say), which decides the chips."""
    mem.home.require_bot(bot)
    if mem.home.is_tracked(bot) or not config.bot_settings(mem.home, bot).memory:
        return Brief()
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
