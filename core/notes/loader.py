"""What a new turn loads, read from disk: MEMORY.md cut to the budget and the topic index."""
from __future__ import annotations

from ..base.errors import BotMemoryError
from ..base.log import get_logger
from ..disk import config
from ..disk.paths import MEMORY_FILE
from ..store.memory import Memory
from ..team.loading import with_teams
from ..text import frontmatter
from ..text.budget import Topic, compose_block

logger = get_logger(__name__)


def topics(mem: Memory, bot: str) -> list[Topic]:
    """Every topic with its frontmatter; an unreadable topic is listed by name."""
    out = []
    for rel in mem.home.topics(bot):
        fm = None
        try:
            ft = mem.store.read(bot, rel)
            if ft is not None:
                fm = frontmatter.read(ft.text)
        except BotMemoryError as e:
            logger.info("topic %s listed by name only: %s", rel, e)
        out.append(Topic(rel, fm))
    return out


def load_block(mem: Memory, bot: str) -> str:
    """Exactly the memory block a new turn gets, then its teams' accepted notes; nothing when memory is off."""
    if not config.bot_settings(mem.home, bot).memory:
        return ""
    return with_teams(compose_block(mem.store.text(bot, MEMORY_FILE), topics(mem, bot), mem.today), mem.home, bot)
