"""A bot's turns and what runs beside them: turn begin / end (and capture's queue), watching for outside
edits, the periodic upkeep a watcher runs (the nightly tidy-up, recall's index, capture of quiet chats),
capture and organizing on request, About me's learned lines.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..base.errors import BadInput
from ..base.log import get_logger
from ..store.journal import Row
from ..store.memory import Memory
from ..store.writer import Actor

logger = get_logger(__name__)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..notes.about_me import LearnedLine
    from ..outside.watcher import Watcher
    from ..upkeep.capture import CaptureReport
    from ..upkeep.organize import OrganizeReport
    from ..upkeep.tidy import TidyReport


def turn_begin(mem: Memory, bot: str, chat: str) -> str:
    """A turn of *bot* in *chat* begins; returns its id. What changed before it is recorded as outside changes."""
    from ..outside.turns import turn_begin as begin

    return begin(mem, bot, chat)


@dataclass(frozen=True)
class TurnEnd:
    """A turn's end: the rows of what the bot changed in it, and whether it waits for capture (or why not)."""

    turn: str
    rows: list[Row]
    capture: str | None = None      # None: not asked; "pending"; else why the turn is not captured

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"turn": self.turn, "rows": [r.id for r in self.rows]}
        if self.capture is not None:
            d["capture"] = self.capture
        return d


def turn_end(mem: Memory, bot: str, turn_id: str, said: str | None = None, *, tools: Sequence[str] = (),
             failed: bool = False, transcript: str | None = None, started_by: str = "person",
             room: bool = False) -> TurnEnd:
    """The turn ends: what differs is the bot's work in its chat, then the day's log line. With *transcript*
    (its messages), the turn waits for capture, kept as its location, never its text."""
    from ..outside.turns import open_turns
    from ..outside.turns import turn_end as end

    chat = None
    if transcript is not None:
        from ..upkeep.capture_queue import STARTERS

        if started_by not in STARTERS:
            raise BadInput(f"bad --started-by {started_by!r}: one of {', '.join(STARTERS)}")
        path = Path(transcript).expanduser()
        if not path.is_file() or path.is_symlink():
            raise BadInput(f"the transcript {transcript!r} is not a readable file; nothing was recorded")
        chat = next((t.chat for t in open_turns(mem, bot) if t.id == turn_id), None)
    rows = end(mem, bot, turn_id, said, tools=tools, failed=failed, room=room)
    capture = None
    if transcript is not None and chat is not None:
        from ..upkeep.capture_queue import note_turn

        why = note_turn(mem, bot, turn_id, chat, transcript, failed=failed, started_by=started_by, room=room)
        capture = why or "pending"
    return TurnEnd(turn_id, rows, capture)


def turn_open(mem: Memory, bot: str) -> bool:
    """Is a turn of *bot* open now (the nightly tidy-up waits for it)."""
    from ..outside.turns import turn_open as is_open

    return is_open(mem, bot)


def scan(mem: Memory, bots: Sequence[str] | None = None) -> list[Row]:
    """``watch --once``: every folder compared with what botmemory last knew; differences become rows."""
    from ..outside.turns import scan as scan_all

    return scan_all(mem, bots)


def watcher(mem: Memory, on_rows: Callable[[list[Row]], None] | None = None,
            on_presence: Callable[[str, bool], None] | None = None) -> Watcher:
    """The live watcher (not started): outside edits become rows, handed to *on_rows* from its thread (and to
    the journal's row listeners); *on_presence* hears (bot, present) when a tracked folder goes away or comes
    back."""
    from ..outside.watcher import Watcher

    return Watcher(mem, on_rows, on_presence=on_presence)


@dataclass
class Periodic:
    """What one round of the periodic work did, per bot: the nightly tidy-up and capture (JSON reports)."""

    tidied: dict[str, dict[str, Any]] = field(default_factory=dict)
    captured: dict[str, dict[str, Any]] = field(default_factory=dict)


def periodic(mem: Memory, now: datetime | None = None, *, tidy: bool = True, index: bool = True,
             capture: bool = True) -> Periodic:
    """One round of what a watcher runs every minute: the nightly tidy-up where it is due (never while a turn is
    open), each bot's recall index kept current, and capture of chats gone quiet (each step unless switched off
    here: the tray app runs them at their own pace). A step that fails is logged and the others still run."""
    out = Periodic()
    if tidy:
        try:
            from ..upkeep.schedule import run_due

            out.tidied = run_due(mem, now or datetime.now().astimezone(), lambda b: turn_open(mem, b))
        except Exception:  # noqa: BLE001 - one step's failure never stops the others
            logger.exception("the nightly tidy-up check failed")
    if index:
        try:
            from ..recall.query import refresh_index

            for bot in mem.home.bots():
                refresh_index(mem.home, bot)
        except Exception:  # noqa: BLE001
            logger.exception("keeping the recall index current failed")
    if capture:
        try:
            from ..upkeep.capture import capture_due

            out.captured = capture_due(mem)
        except Exception:  # noqa: BLE001
            logger.exception("the capture check failed")
    return out


def capture(mem: Memory, bot: str, *, organize: bool = True) -> CaptureReport:
    """Notice facts in *bot*'s pending turns now (one helper call per chat), then organize MEMORY.md."""
    from ..upkeep.capture import capture as run
    from ..upkeep.tidy import check_allowed
    from .folders import refuse

    refuse(mem, bot, "capture")
    check_allowed(mem, bot)
    return run(mem, bot, organize=organize)


def organize(mem: Memory, bot: str) -> OrganizeReport:
    """File detail in MEMORY.md into topics now (with a helper model)."""
    from ..upkeep.organize import organize as run
    from ..upkeep.tidy import check_allowed
    from .folders import refuse

    refuse(mem, bot, "organize")
    check_allowed(mem, bot)
    return run(mem, bot)


def learned(mem: Memory) -> list[LearnedLine]:
    """About me's lines added by bots, newest first, each with its id."""
    from ..notes.about_me import learned_lines

    return learned_lines(mem.home)


def remove_learned(mem: Memory, line_id: str, actor: Actor | None = None) -> LearnedLine:
    """Take a learned line out of About me for good: the fact is never added again. The change is a row of
    About me's own journal by *actor* (the panel's Remove when not given): undoing it puts the line back."""
    from ..notes.about_me import remove_learned as remove

    return remove(mem.home, line_id, mem.today, actor)


def report_text(report: TidyReport | CaptureReport | OrganizeReport) -> str:
    """A tidy-up's, capture's or organizing's report as the CLI prints it."""
    from ..upkeep import capture, organize, tidy

    if isinstance(report, tidy.TidyReport):
        return tidy.summary(report)
    if isinstance(report, capture.CaptureReport):
        return capture.summary(report)
    return organize.summary(report)
