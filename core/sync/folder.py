"""What the engine syncs: a folder with an id, a key, and the files a filter lets through.

The engine knows a folder only through :class:`SyncFolder`: read its files, record what changed outside
first, list the journal rows since a mark (one commit each goes out), write what came in, measure what its
agent loads. Two kinds are here:

- :class:`BotFolder`: a bot's workspace or a tracked agent folder, through the home's ``Store`` (hash-checked,
  atomic, 0600, no links, redaction) and its journal (every write a row ``how: sync``);
- :class:`PlainFolder`: any local directory and a file filter, written atomically without links, redacted;
  no journal of its own (its changes go out as one commit a round).

A folder whose files are records rather than lines (a team's, ``ops.team_sync``) also implements
:class:`MergesItself`: the engine hands it the files both sides changed and takes its decisions.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..base.errors import BadInput, BotMemoryError, Conflict
from ..base.log import get_logger
from ..disk.paths import FileKind
from ..disk.safeio import MAX_FILE_BYTES, Folders, WorkspaceLock, atomic_write, read_file, remove_file, text_hash
from ..store.writer import Actor, Write

if TYPE_CHECKING:
    from ..store.journal import Row
    from ..store.memory import Memory

logger = get_logger(__name__)

MAX_ROWS = 2000
"""At most this many rows go out as commits of their own in one round; past it they go as one commit."""


@dataclass(frozen=True)
class LocalRow:
    """A journal row as the engine sends it: one commit each."""

    id: str
    at: str
    who: str
    how: str
    chat: str | None
    file: str
    before_hash: str | None
    after_hash: str | None
    earlier_text: str | None
    diff: str

    @classmethod
    def of(cls, row: Row) -> LocalRow:
        return cls(row.id, row.at, row.who, row.how, row.chat, row.file, row.before_hash, row.after_hash,
                   row.earlier_text, row.diff)


class SyncFolder(Protocol):
    """A folder the engine syncs."""

    @property
    def id(self) -> str: ...

    @property
    def key(self) -> str: ...

    @property
    def journaled(self) -> bool:
        """Whether its changes are journal rows (else the engine compares its files every round)."""
        ...

    def accepts(self, rel: str) -> bool:
        """Whether *rel* (a path relative to the folder, ``/``-separated) is one of its files."""
        ...

    def read(self) -> dict[str, str]:
        """Its files' texts (files that are not UTF-8, too large or behind a link are left out, with a log)."""
        ...

    def prepare(self) -> str | None:
        """Record what changed outside since the last row; why it cannot sync now (a turn is open), or None."""
        ...

    def rows_since(self, mark: str | None) -> tuple[list[LocalRow], str | None, bool]:
        """The rows after *mark*, oldest first; the newest row's id (``""``: there are none); and whether *mark*
        was found. *mark* None: nothing is returned, the newest id is the first mark; ``""``: every row."""
        ...

    def write(self, writes: Sequence[tuple[str, str | None, str | None]], actor: Actor) -> int:
        """Write ``(rel, text or None to delete, expected sha-256 or None for "absent")`` as *actor*, every hash
        checked first (:class:`Conflict`: nothing written). Returns how many files changed."""
        ...

    def unloaded(self) -> int | None:
        """How many lines of what its agent loads do not load now (None: not known)."""
        ...


@dataclass(frozen=True)
class MergeView:
    """What a folder that merges its own files (:class:`MergesItself`) is shown of one round."""

    ours: Mapping[str, str]                       # its files here now
    desired: Mapping[str, str | None]             # what the engine keeps of each file (None: absent)
    both: Mapping[str, tuple[str | None, str | None, str | None]]   # files changed on both sides: base, ours, theirs
    here: str                                     # this computer's name
    there: Callable[[str], Actor]                 # who made the remote's newest change of a file


@dataclass(frozen=True)
class OwnMerge:
    """A folder's own decisions for one round: texts to keep otherwise than the engine would (new files too),
    who each of those is recorded as, and how many conflicts it kept its own way (cards, for a team)."""

    texts: Mapping[str, str | None]
    actors: Mapping[str, Actor] = field(default_factory=dict)
    conflicts: int = 0
    notes: tuple[str, ...] = ()


@runtime_checkable
class MergesItself(Protocol):
    """A folder whose files are records, not lines: the engine does not merge a file both sides changed on
    entries but hands every such file to :meth:`merge`, which decides the whole folder; its open conflicts
    are its own (:meth:`open_conflicts`), not the engine's (no ``sync resolve``)."""

    def merge(self, view: MergeView) -> OwnMerge:
        """Raise a :class:`BotMemoryError` to sync nothing of the folder this round (the message says why)."""
        ...

    def open_conflicts(self) -> list[dict[str, Any]]:
        """Its conflicts waiting for a person, each with a ``path``."""
        ...

    def describe(self, row: LocalRow) -> str | None:
        """A row in a person's words, for its commit's subject (None: the engine's own)."""
        ...


def journal_rows_since(mem: Memory, journal_id: str, mark: str | None) -> tuple[list[LocalRow], str | None, bool]:
    """:meth:`SyncFolder.rows_since` over the journal *journal_id* of the home (a bot's, a team's)."""
    newest: str | None = None
    rows: list[LocalRow] = []
    for row in mem.journal.rows(journal_id):
        if newest is None:
            newest = row.id
        if mark is None or row.id == mark:
            return rows[::-1], newest, mark is not None
        if len(rows) >= MAX_ROWS:
            break
        rows.append(LocalRow.of(row))
    if mark == "" and len(rows) < MAX_ROWS:     # the journal was empty at the mark: every row is new
        return rows[::-1], newest or "", True
    if mark is not None and len(rows) < MAX_ROWS:
        logger.warning("the journal of %s no longer holds row %s, where sync stopped: its changes go as one commit",
                       journal_id, mark)
    return [], newest or "", False


class BotFolder:
    """A bot's workspace or a tracked folder, through the store and the journal of the opened home."""

    def __init__(self, mem: Memory, bot: str, key: str, *, measure: Callable[[], int] | None = None) -> None:
        self.mem = mem
        self.bot = bot
        self._key = key
        self._measure = measure

    @property
    def id(self) -> str:
        return self.bot

    @property
    def key(self) -> str:
        return self._key

    journaled = True

    def accepts(self, rel: str) -> bool:
        try:
            self.mem.home.classify(self.bot, rel)
        except BotMemoryError:
            return False
        return True

    def read(self) -> dict[str, str]:
        self.mem.home.require_bot(self.bot)
        out: dict[str, str] = {}
        for rel in self.mem.home.memory_files(self.bot):
            try:
                ft = self.mem.store.read(self.bot, rel)
            except BotMemoryError as e:
                logger.warning("not syncing %s/%s: %s", self.bot, rel, e)
                continue
            if ft is None:
                continue
            if not ft.valid:
                logger.warning("not syncing %s/%s: it is not valid UTF-8", self.bot, rel)
                continue
            out[rel] = ft.text
        return out

    def prepare(self) -> str | None:
        from ..outside.turns import reconcile_outside

        self.mem.home.require_bot(self.bot)
        if reconcile_outside(self.mem, self.bot) is None:
            return f"a turn of {self.bot} is open: it syncs when the turn ends"
        return None

    def rows_since(self, mark: str | None) -> tuple[list[LocalRow], str | None, bool]:
        return journal_rows_since(self.mem, self.bot, mark)

    def write(self, writes: Sequence[tuple[str, str | None, str | None]], actor: Actor) -> int:
        from ..redact import redact

        batch = []
        for rel, text, expected in writes:
            if text is None and self.mem.home.classify(self.bot, rel) is FileKind.MEMORY:
                text = ""          # MEMORY.md is emptied, never deleted
            batch.append(Write(rel, None if text is None else redact(text), expected, checked=True))
        if not batch:
            return 0
        self.mem.home.require_bot(self.bot)
        return len(self.mem.store.apply(self.bot, batch, actor, allow_log=True))

    def unloaded(self) -> int | None:
        if self._measure is None:
            return None
        try:
            return self._measure()
        except BotMemoryError as e:
            logger.info("could not measure %s: %s", self.bot, e)
            return None


class PlainFolder:
    """Any local directory and a file filter: files written atomically (0600, never through a link), redacted.

    It keeps no journal: what changed in it goes out as one commit a round, and what comes in is handed to
    *on_change* (``(rel, text before, text after, actor)``), for a caller that records it.
    """

    def __init__(self, folder_id: str, key: str, directory: Path, accepts: Callable[[str], bool], *,
                 lock_file: Path | None = None,
                 on_change: Callable[[str, str | None, str | None, Actor], None] | None = None) -> None:
        self._id = folder_id
        self._key = key
        self.directory = directory
        self._accepts = accepts
        self.lock_file = lock_file or directory.parent / f".{directory.name}.sync.lock"
        self.on_change = on_change

    @property
    def id(self) -> str:
        return self._id

    @property
    def key(self) -> str:
        return self._key

    journaled = False

    def accepts(self, rel: str) -> bool:
        parts = rel.split("/")
        if any(p in ("", ".", "..") or p.startswith(".") for p in parts):
            return False
        return self._accepts(rel)

    def read(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.directory.is_symlink() or not self.directory.is_dir():
            return out
        with Folders(self.directory) as folders:
            stack = [""]
            while stack:
                prefix = stack.pop()
                try:
                    entries = folders.list(self.directory / prefix if prefix else self.directory)
                except (OSError, BotMemoryError) as e:
                    logger.warning("not syncing %s/%s: %s", self.directory, prefix, e)
                    continue
                for name, regular in entries:
                    rel = f"{prefix}/{name}" if prefix else name
                    if name.startswith("."):
                        continue
                    if not regular:      # a folder (a link or anything else lists nothing: refused, or not one)
                        stack.append(rel)
                        continue
                    if not self.accepts(rel):
                        continue
                    try:
                        ft = folders.read(self.directory / rel)
                    except (OSError, BotMemoryError) as e:
                        logger.warning("not syncing %s: %s", self.directory / rel, e)
                        continue
                    if ft is not None and ft.valid:
                        out[rel] = ft.text
        return out

    def prepare(self) -> str | None:
        if self.directory.is_symlink():
            return f"{self.directory} is a symbolic link; botmemory does not read or write through links"
        if not self.directory.is_dir():
            return f"{self.directory} is not there"
        return None

    def rows_since(self, mark: str | None) -> tuple[list[LocalRow], str | None, bool]:
        return [], None, False

    def write(self, writes: Sequence[tuple[str, str | None, str | None]], actor: Actor) -> int:
        from ..redact import redact

        n = 0
        with WorkspaceLock.for_file(self.lock_file).held():
            current: dict[str, str | None] = {}
            for rel, _, expected in writes:
                if not self.accepts(rel):
                    raise BadInput(f"{rel} is not a file of {self.id}")
                ft = read_file(self.directory / rel, self.directory)
                got = ft.hash if ft is not None else None
                if got != expected:
                    raise Conflict(rel, ft.text if ft else "", got or "")
                current[rel] = ft.text if ft is not None else None
            for rel, text, _ in writes:
                path = self.directory / rel
                if text is None:
                    if current[rel] is not None:
                        remove_file(path, self.directory)
                        n += 1
                else:
                    new = redact(text)
                    if len(new.encode("utf-8")) > MAX_FILE_BYTES:
                        raise BadInput(f"{rel} would be larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
                    if current[rel] == new:
                        continue
                    atomic_write(path, new.encode("utf-8"), self.directory)
                    n += 1
                if self.on_change is not None:
                    try:
                        self.on_change(rel, current[rel], None if text is None else redact(text), actor)
                    except Exception:
                        logger.exception("on_change failed for %s/%s", self.id, rel)
        return n

    def unloaded(self) -> int | None:
        return None


def text_sha(text: str | None) -> str | None:
    """The store's hash of a text (None for an absent file)."""
    return None if text is None else text_hash(text)


__all__ = ["BotFolder", "LocalRow", "MAX_ROWS", "MergeView", "MergesItself", "OwnMerge", "PlainFolder", "SyncFolder",
           "journal_rows_since", "text_sha"]
