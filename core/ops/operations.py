"""The operations: the one way into core for the CLI, the agents' tools, the hooks and the desktop.

Each takes the opened :class:`Memory` first and returns a result with its
``changes`` (one :class:`Change` per file written; ``Change.id`` is its journal
row) — the way Anki's collection methods return ``OpChanges``: remember,
forget, prefer, save, rm, undo, tidy, recall, search. A read (recall, search)
has no changes.

The policy lives here, in one place: a bot's writes are refused while memory is
off for it (:func:`~botmemory.core.store.files.check_bot_writes`); a folder whose agent
writes its own memory refuses remember, prefer and tidy (exit 4, with the
reason); a tracked folder is recalled, searched and forgotten by its kind
(``agents``); search finds nothing while memory is off. The modules below hold
the mechanisms (``update``, ``files``, ``recall``, ``agents``, ``upkeep``), and
:meth:`Store.apply` keeps the file rules only.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from ..notes import update
from ..notes.update import ForgetResult, PreferResult, RememberResult, RoomResult
from ..recall.query import Hit, RecallResult
from ..store.files import FileResult, UndoResult, check_bot_writes, rm, save, undo
from ..store.memory import Memory
from ..store.writer import Actor, Change
from ..upkeep.tidy import TidyReport
from . import folders as agents

__all__ = [  # save, rm and undo are files.py's, named here too so every operation has one address
    "FileResult", "ForgetResult", "PreferResult", "RecallResult", "RememberResult", "SearchResult", "TidyReport",
    "UndoResult", "forget", "forget_everywhere", "move_overflow", "prefer", "recall", "redact", "remember", "rm", "save",
    "search", "tidy", "undo", "undo_overflow",
]


def remember(mem: Memory, bot: str, text: str, actor: Actor, *, until: str | date | None = None) -> RememberResult:
    """Add one dated entry to MEMORY.md, keeping it within the budget (``update.remember``); *until*: the last
    day the note is true (a date, or YYYY-MM-DD)."""
    if isinstance(until, str):
        from ..disk.paths import parse_day

        until = parse_day(until, "--until")
    agents.refuse(mem, bot, "remember")
    check_bot_writes(mem, bot, actor)
    return update.remember(mem.store, bot, text, actor, until=until)


def forget(mem: Memory, bot: str, words: Sequence[str], actor: Actor, *,
           dry_run: bool = False) -> ForgetResult | agents.Forgotten:
    """Take out every note of *bot* that mentions all *words* (a tracked folder: by its kind's entries);
    *dry_run*: say what would go, write nothing."""
    check_bot_writes(mem, bot, actor)
    if mem.home.is_tracked(bot):
        return agents.forget(mem, bot, words, actor, dry_run=dry_run)
    return update.forget(mem.store, bot, words, actor, dry_run=dry_run)


def forget_everywhere(mem: Memory, words: Sequence[str], actor: Actor, *, dry_run: bool = False,
                      workspaces: bool = False) -> list[agents.Forgotten]:
    """Forget in every tracked folder at once (``forget --all``; *workspaces*: the home's bots too)."""
    return agents.forget_everywhere(mem, words, actor, dry_run=dry_run, workspaces=workspaces)


def prefer(mem: Memory, bot: str, text: str, actor: Actor) -> PreferResult:
    """Add a standing preference to About me once, as a line learned by *bot*.

    About me is the home's, not a workspace's: its change is a row of the home's own journal
    (``PreferResult.row``; docs/ARCHITECTURE.md, "About me"), so the result has no changes.
    """
    mem.home.require_bot(bot)
    agents.refuse(mem, bot, "prefer")
    check_bot_writes(mem, bot, actor)
    return update.prefer(mem.home, bot, text, mem.today, actor)


def move_overflow(mem: Memory, bot: str, actor: Actor, *, expected_hash: str | None = None) -> RoomResult:
    """**Make room**: move the entries the overflow preview lists to the archive, in one write of both files."""
    check_bot_writes(mem, bot, actor)
    return update.move_overflow(mem.store, bot, actor, expected_hash=expected_hash)


def undo_overflow(mem: Memory, bot: str, room: RoomResult, actor: Actor) -> UndoResult:
    """Undo a Make room as one change (both files back), while neither file changed since (else Conflict)."""
    changes = update.undo_overflow(mem.store, bot, room, actor)
    return UndoResult(" ".join(c.id for c in room.changes), changes)


def redact(mem: Memory, bot: str, path: str, actor: Actor, expected_hash: str | None = None) -> FileResult:
    """Take the credentials out of one file of a tracked folder, on request (``agents.redact_file``). Its row says
    how it came about (``how: redact``): its diff is empty, as the journal never keeps a credential."""
    check_bot_writes(mem, bot, actor)
    change = agents.redact_file(mem, bot, path, Actor(actor.who, "redact", actor.chat), expected_hash)
    return FileResult(path, change.after_hash if change else None, [change] if change else [])


def tidy(mem: Memory, bot: str, *, model: bool = True) -> TidyReport:
    """**Tidy up now**: the tidy-up of MEMORY.md and topics, remembered as the last run (``upkeep.tidy_now``)."""
    from ..upkeep.schedule import tidy_now

    agents.refuse(mem, bot, "tidy")
    return tidy_now(mem, bot, model=model)


def recall(mem: Memory, bot: str, message: str) -> RecallResult:
    """The notes recall puts in front of *message*, or why there are none (``RecallResult.why``)."""
    from .find import recall_in

    return recall_in(mem.home, bot, message, mem.today)


@dataclass(frozen=True)
class SearchResult:
    """Session search: the units holding every word, newest first (a read: no changes)."""

    hits: list[Hit]
    changes: list[Change] = field(default_factory=list)

    def as_list(self) -> list[dict[str, object]]:
        return [h.as_dict() for h in self.hits]


def search(mem: Memory, bot: str, words: Sequence[str], since: str | date | None = None,
           until: str | date | None = None, *,
           names: tuple[str, str, str] = ("search", "--since", "--until")) -> SearchResult:
    """Session search over *bot*'s memory: every word, in the range (``since``/``until``: dates, or ``24h``,
    ``3d``, ``yesterday``); it needs words or a range. Nothing is found while memory is switched off for it."""
    from .find import search_in

    return SearchResult(search_in(mem.home, bot, words, since, until, mem.today, names=names))

