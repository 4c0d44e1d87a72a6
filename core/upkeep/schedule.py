"""Memory upkeep's schedule, its last run, and the heavy-bot line.

The nightly tidy-up runs once a day after ``memory.tidyHour`` (default 3), or
at the next check when the computer was asleep at that hour, never while a
turn of that bot is open. :func:`tidy_due` is that rule as a pure function;
``watch`` and the desktop app call :func:`run_due` at each check.

A bot's last run and its report are kept outside the workspace, in
``<home>/botmemory/upkeep/<bot>.json``::

    {"last_run": "2026-10-15T03:00:12+02:00", "report": {...}, "error": null}

The heavy-bot check (:func:`heavy_line`) adds up the person's own text a bot
loads every turn, as far as this computer knows it:

- MEMORY.md as it loads (cut to the budget, expired entries left out);
- About me, ``<home>/about-me.md``;
- the bot's instructions: ``<home>/bots/<bot>/instructions.md`` when it exists,
  else an ``instructions`` text in ``<home>/settings/<bot>.json``.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from ..base.errors import BotMemoryError
from ..base.log import get_logger
from ..base.record import record
from ..disk import config
from ..disk.paths import MEMORY_FILE, Home, check_bot_id
from ..disk.safeio import atomic_write, read_file
from ..store.memory import Memory
from ..text import budget
from ..text import entries as E

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from typing import Any

    from .tidy import TidyReport

logger = get_logger(__name__)

MAX_CLOCK_SKEW = timedelta(days=1)
"""A last run further in the future than this is not trusted (the clock was far off)."""
HEAVY_TOTAL_BYTES = 24 * 1024
HEAVY_MEMORY_BYTES = 8 * 1024
HEAVY_LINE = "This bot loads a lot every turn."


# ----- the schedule


def _same_kind(value: datetime, like: datetime) -> datetime:
    """*value* made comparable with *like* (both aware or both naive, local time)."""
    if (value.tzinfo is None) == (like.tzinfo is None):
        return value
    if like.tzinfo is None:
        return value.astimezone().replace(tzinfo=None)
    return value.astimezone()


def last_slot(now: datetime, tidy_hour: int) -> datetime:
    """The most recent moment at *tidy_hour* o'clock at or before *now* (on *now*'s clock)."""
    slot = now.replace(hour=tidy_hour, minute=0, second=0, microsecond=0)
    if slot > now:
        slot = (now - timedelta(days=1)).replace(hour=tidy_hour, minute=0, second=0, microsecond=0)
    return slot


def tidy_due(last_run: datetime | None, now: datetime, tidy_hour: int, open_turns: bool) -> bool:
    """Is a tidy-up due now? Pure.

    Due when no run happened since the most recent *tidy_hour* o'clock — so
    once a day after that hour, and at the first check after it when the
    computer slept through it. Never while a turn is open. A last run in the
    future means the clock moved back: not due again for that day, unless it
    is more than a day ahead (then the stored time is not trusted).
    """
    if open_turns:
        return False
    if not 0 <= tidy_hour <= 23:
        tidy_hour = config.DEFAULT_TIDY_HOUR
    if last_run is None:
        return True
    last_run = _same_kind(last_run, now)
    if last_run > now:
        return last_run - now > MAX_CLOCK_SKEW
    return last_run < last_slot(now, tidy_hour)


# ----- the state of the last run


@record(frozen=True)
class UpkeepState:
    last_run: datetime | None = None
    report: dict[str, Any] | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"last_run": self.last_run.isoformat() if self.last_run else None,
                "report": self.report, "error": self.error}


def state_file(home: Home, bot: str) -> Path:
    return home.state_dir / "upkeep" / f"{check_bot_id(bot)}.json"


def read_state(home: Home, bot: str) -> UpkeepState:
    """The last tidy-up of a bot as stored; an unreadable file counts as none."""
    try:
        ft = read_file(state_file(home, bot), home.root)
    except BotMemoryError as e:
        logger.warning("upkeep state of %s unreadable: %s", bot, e)
        return UpkeepState()
    if ft is None:
        return UpkeepState()
    try:
        data = json.loads(ft.text)
        if not isinstance(data, dict):
            raise ValueError("not an object")  # noqa: TRY004 - a damaged state file, handled below
        last = data.get("last_run")
        when = datetime.fromisoformat(last) if isinstance(last, str) else None
    except (ValueError, RecursionError):
        logger.warning("upkeep state of %s is not valid; treating it as never run", bot)
        return UpkeepState()
    report = data.get("report")
    error = data.get("error")
    return UpkeepState(when, report if isinstance(report, dict) else None,
                       error if isinstance(error, str) else None)


def write_state(home: Home, bot: str, state: UpkeepState) -> None:
    data = json.dumps(state.as_dict(), indent=2, ensure_ascii=False) + "\n"
    atomic_write(state_file(home, bot), data.encode("utf-8"), home.root)


def _now() -> datetime:
    return datetime.now().astimezone()


def tidy_now(mem: Memory, bot: str, *, model: bool = True, now: datetime | None = None) -> TidyReport:
    """**Tidy up now** (and the CLI's ``tidy``): run the tidy-up and remember it as the last run."""
    from .tidy import tidy

    report = tidy(mem, bot, model=model)
    if model:
        report.organized = _organize(mem, bot)
    write_state(mem.home, bot, UpkeepState(now or _now(), report.as_dict()))
    return report


def run_due(mem: Memory, now: datetime, open_turns: Callable[[str], bool]) -> dict[str, dict[str, Any]]:
    """Run the tidy-up of every bot for which one is due now; their reports by bot.

    Bots with memory or upkeep switched off are left alone. A tidy-up that
    fails is logged and stored as that day's run, so it is not retried at
    every check.
    """
    hour = config.tidy_hour(mem.home)
    out: dict[str, dict[str, Any]] = {}
    for bot in mem.home.workspace_names():   # a tracked agent folder is never tidied: its agent keeps it
        s = config.bot_settings(mem.home, bot)
        if not (s.memory and s.upkeep):
            continue
        state = read_state(mem.home, bot)
        if not tidy_due(state.last_run, now, hour, open_turns(bot)):
            continue
        from .tidy import tidy

        try:
            tidied = tidy(mem, bot)
            tidied.organized = _organize(mem, bot)
            report = tidied.as_dict()
        except BotMemoryError as e:
            logger.warning("nightly tidy-up of %s failed: %s", bot, e)
            write_state(mem.home, bot, UpkeepState(now, None, str(e)))
            out[bot] = {"error": str(e)}
            continue
        write_state(mem.home, bot, UpkeepState(now, report))
        logger.info("nightly tidy-up of %s: %s", bot, report)
        out[bot] = report
    return out


def _organize(mem: Memory, bot: str) -> dict[str, Any]:
    """The organizing pass that follows a tidy-up (core/organize.py); its failure never fails the tidy-up."""
    from .organize import organize

    try:
        return organize(mem, bot).as_dict()
    except BotMemoryError as e:
        logger.warning("organizing %s failed: %s", bot, e)
        return {"error": str(e)}


# ----- a heavy bot


def _size(path: Path) -> int:
    try:
        ft = read_file(path)
    except BotMemoryError:
        return 0
    return len(ft.text.encode("utf-8")) if ft else 0


def loaded_memory_bytes(mem: Memory, bot: str) -> int:
    """The bytes of MEMORY.md a turn loads: cut to the budget, expired entries left out."""
    loaded, _ = budget.loaded_text(mem.store.text(bot, MEMORY_FILE))
    doc = E.parse(loaded)
    return sum(len(line.encode("utf-8")) + 1 for b in doc.blocks
               if not (b.kind is E.BlockKind.ENTRY and b.expired(mem.today)) for line in b.lines)


def instructions_bytes(home: Home, bot: str) -> int:
    """The bot's own instructions, where this computer knows them (see the module notes)."""
    path = home.root / "bots" / check_bot_id(bot) / "instructions.md"
    if path.is_file():
        return _size(path)
    try:
        ft = read_file(home.settings_file(bot), home.root)
    except BotMemoryError:
        return 0
    if ft is None:
        return 0
    try:
        data = json.loads(ft.text)
    except (ValueError, RecursionError):
        return 0
    text = data.get("instructions") if isinstance(data, dict) else None
    return len(text.encode("utf-8")) if isinstance(text, str) else 0


def heavy_line(mem: Memory, bot: str) -> str | None:
    """*This bot loads a lot every turn.* when its own text passes 24 KB with 8 KB or more of memory."""
    s = config.bot_settings(mem.home, bot)
    if not (s.memory and s.upkeep):
        return None
    memory = loaded_memory_bytes(mem, bot)
    if memory < HEAVY_MEMORY_BYTES:
        return None
    total = memory + _size(mem.home.about_me) + instructions_bytes(mem.home, bot)
    return HEAVY_LINE if total > HEAVY_TOTAL_BYTES else None
