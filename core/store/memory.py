"""One home, opened: the store with its listeners wired. The CLI and the desktop both start here.

Pass the returned :class:`Memory` in; nothing in core reaches for a global.

Every change the store makes is committed here, in this order:

1. its rows are kept as *intents* (:mod:`.intents`) once every new text is on
   disk beside its file and before the first rename — a full disk or a
   refused write stops the batch there, nothing changed;
2. the files are replaced;
3. the rows are journaled, each carrying what its shadow needs (the after-hash,
   and the span that rebuilds the after-text from the earlier one);
4. the shadow copies are updated, noting the newest row they reflect;
5. the intents are cleared.

When the file had changed outside since its last row (its text before the
write is not its shadow), that change is recorded first, as its own row — so
the rows of a file form a chain without gaps (each row's before-hash is the
previous row's after-hash).

A kill, a full disk or a refused write between two steps is repaired at the
next hold of the workspace (:meth:`Memory.repair`, any start: a write, a
scan, a turn): intents whose rows the journal lacks are journaled as meant
(one row per write, its own author) when the file shows the rename happened;
shadows older than the journal's newest row are brought up to it (the newest
row is trusted over a shadow that disagrees). Journaling never fails a write
or a turn: a row or a shadow that cannot be written is one warning line, and
the repair catches up once it can.
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from functools import cached_property

from ..base.errors import BotMemoryError, Refused
from ..base.log import get_logger
from ..base.record import replace
from ..disk.paths import Home, check_bot_id, check_owner
from ..disk.paths import today as local_today
from ..disk.safeio import TooLarge, hash_file, open_dir_nofollow, read_file
from ..text.entries import clean_title
from .writer import Actor, Change, Store, new_change_id

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:  # the journal and shadows load on first use: a gauge or a load never needs them
    from .intents import Intents
    from .journal import Journal, Row
    from .shadows import Index, Shadow, Shadows

logger = get_logger(__name__)

RowListener = Callable[["Row"], None]


class Memory:
    """The opened home: the store with its listeners — the journal, the shadows, the intents — wired."""

    def __init__(self, home: Home, store: Store, row_listeners: list[RowListener] | None = None) -> None:
        self.home, self.store = home, store
        self.row_listeners: list[RowListener] = row_listeners if row_listeners is not None else []
        """Called with every row this process records (any thread; must not block)."""
        self._local = threading.local()
        self._behind: set[str] = set()
        """Bots with a write of this process whose rows wait as intents (the journal could not be written)."""
        self.store.listeners.append(self._on_change)
        self.store.intend = self._intend
        self.store.abandon = self._abandon
        self.store.on_lock.append(self.repair)

    def __repr__(self) -> str:
        return f"Memory(home={self.home!r})"

    @cached_property
    def journal(self) -> Journal:
        from .journal import Journal

        return Journal(self.home)

    @cached_property
    def shadows(self) -> Shadows:
        from .shadows import Shadows

        return Shadows(self.home)

    @cached_property
    def intents(self) -> Intents:
        from .intents import Intents

        return Intents(self.home)

    @property
    def today(self) -> date:
        return self.store.today

    @classmethod
    def open(cls, root: str | None = None, today: str | None = None) -> Memory:
        from ..kinds.tracked import attach

        located = Home.locate(root)
        check_owner(located.root)          # root on another user's home: refused, one line
        home = attach(located)             # the tracked agent folders are bots too
        store = Store(home, today=local_today(today))
        return cls(home, store)

    def _intend(self, changes: Sequence[Change], temps: Sequence[str | None]) -> None:
        """Keep the rows of *changes* as intents before their files are replaced (step 1)."""
        from .journal import make_row

        rows = [make_row(c) for c in changes]
        self.intents.add(changes[0].bot, rows, temps)
        intended: dict[str, Row] = self._local.__dict__.setdefault("intended", {})
        for c, r in zip(changes, rows):
            intended[c.id] = r

    def _abandon(self, changes: Sequence[Change]) -> bool:
        """Intended changes that were not made (a failure before their rename): marked, so the repair drops
        them. True once marked."""
        intended: dict[str, Row] = self._local.__dict__.setdefault("intended", {})
        for c in changes:
            intended.pop(c.id, None)
        if changes:
            self.intents.mark(changes[0].bot, "undone", [c.id for c in changes])
        return True

    def _on_change(self, changes: Sequence[Change]) -> None:
        from .journal import make_row

        bot = changes[0].bot
        intended: dict[str, Row] = self._local.__dict__.setdefault("intended", {})
        mine = {c.id for c in changes if c.id in intended}
        rows = [intended.pop(c.id) if c.id in intended else make_row(c) for c in changes]
        written: list[Row] = []
        try:
            with self.store.locked(bot):   # still held by the write: nothing can change the shadows in between
                if bot in self._behind:    # an earlier write of this process was not journaled: it goes first
                    self._repair_gap(bot)
                    self._repair_intents(bot, keep=mine)
                outside = self._outside_before(bot, changes)
                written = self.commit(bot, [c for c, _ in outside] + list(changes),
                                      [r for _, r in outside] + rows)
                if written:
                    self._clear_intents(bot, {r.id for r in written})
        except (OSError, BotMemoryError) as e:
            logger.warning("could not journal the change of %s (%s): it stands, and its row is written at the "
                           "next start", bot, _why(e))
        if not written and mine:   # the rows wait as intents, marked as having happened, for the repair
            self._behind.add(bot)
            try:
                self.intents.mark(bot, "done", sorted(mine))
            except (OSError, BotMemoryError) as e:
                logger.info("could not mark the intents of %s as done: %s", bot, _why(e))

    def _clear_intents(self, bot: str, journaled: set[str]) -> None:
        """Clear the intents once the journal holds every one of them (an intent of a write that failed
        before its rename is left for the repair, which drops it)."""
        try:
            self.intents.clear_journaled(bot, journaled)
        except (OSError, BotMemoryError) as e:
            logger.info("the intents of %s are cleared at the next start: %s", bot, e)

    def _outside_before(self, bot: str, changes: Sequence[Change]) -> list[tuple[Change, Row]]:
        """What changed outside in the files of *changes* since their last row: one change and row per file
        whose text before the write is not its shadow (attributed like a scan would: to the open turn's
        chat while a turn is open, else to "changed outside the app")."""
        from .journal import make_row

        try:
            index = self.shadows.load(bot)
            if index is not None and not self._current(bot, index):
                self._repair_gap(bot)            # a shadow update failed earlier in this hold
                index = self.shadows.load(bot)
            current = index is None or self._current(bot, index)
        except (OSError, BotMemoryError) as e:
            logger.warning("could not read the shadows of %s before a write: %s", bot, _why(e))
            return []
        if index is None:   # no baseline yet: the write takes it
            return []
        if not current:   # still behind the journal: never record from a stale copy
            logger.info("the shadows of %s are behind the journal: outside changes are recorded at the "
                        "next scan", bot)
            return []
        pending = [c for c in changes
                   if (index.files[c.file].hash if c.file in index.files else None) != c.before_hash]
        if not pending:
            return []
        latest = self.journal.latest_hashes(bot, [c.file for c in pending])   # a row whose shadow update failed
        pending = [c for c in pending if latest.get(c.file, "") != c.before_hash]
        chat = self._open_turn_chat(bot)
        actor = Actor.bot(chat, "task") if chat is not None else Actor("person", "outside")
        out: list[tuple[Change, Row]] = []
        for c in pending:
            sh = index.files.get(c.file)
            earlier = self.shadows.text(bot, c.file, sh) if sh is not None else None
            lost = sh is not None and earlier is None
            at = c.at - timedelta(milliseconds=1)
            found = Change(bot, c.file, "" if lost else earlier, sh.hash if sh else None, c.before, c.before_hash,
                           actor, at, before_valid=sh.valid if sh else True, id=new_change_id(at))
            row = make_row(found, earlier_secret=sh.secret if sh else False)
            if lost:
                row = replace(row, earlier_text=None, undoable=False,
                              reason="the app's copy of its earlier text was lost, so it cannot be put back")
            out.append((found, row))
        return out

    def _open_turn_chat(self, bot: str) -> str | None:
        """The chat of the oldest open turn of *bot* (the records turns.py keeps), or None."""
        folder = self.home.state_dir / "turns" / check_bot_id(bot)
        oldest: tuple[float, str] | None = None
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        except (FileNotFoundError, NotADirectoryError):
            return None
        for name in names:
            try:
                ft = read_file(folder / name, self.home.root)
                d = json.loads(ft.text) if ft else None
                if not isinstance(d, dict):
                    continue
                began, chat = float(d["began"]), clean_title(str(d["chat"]))
            except (OSError, BotMemoryError, ValueError, TypeError, KeyError, RecursionError):
                continue
            if oldest is None or began < oldest[0]:
                oldest = (began, chat)
        return oldest[1] if oldest else None

    def commit(self, bot: str, changes: Sequence[Change], rows: Sequence[Row],
               touched: Mapping[str, Shadow] | None = None) -> list[Row]:
        """Journal *rows*, then bring the shadows up to date with *changes* (under the workspace lock).

        Returns the rows written. Journaling never fails a write or a turn: when
        the rows cannot be written, a warning is logged, they are dropped, and
        the shadows stay as they were (the next scan records the changes).
        """
        rows = self.journal.within_limit(rows)   # an earlier text past memory.journalKeepMB is not kept
        with self.store.locked(bot):
            try:
                self.journal.append(bot, rows)
            except OSError as e:
                logger.warning("could not write %d row(s) to the journal of %s (%s): the change stands, and "
                               "`botmemory watch --once` records it once the journal can be written",
                               len(rows), bot, _why(e))
                try:
                    self.shadows.keep_before(bot, changes, row=self._newest(bot))
                except (OSError, BotMemoryError) as e2:
                    logger.warning("could not keep the shadows of %s as they were: %s", bot, _why(e2))
                return []
            except BaseException:
                self.shadows.keep_before(bot, changes, row=self._newest(bot))
                raise
            try:
                self.shadows.update(bot, changes, touched, row=rows[-1].id if rows else None)
            except (OSError, BotMemoryError) as e:
                logger.warning("could not update the shadow copies of %s (%s): the change and its row stand; "
                               "the copies are brought up to date at the next start", bot, _why(e))
        self._announce(rows)
        return list(rows)

    def _announce(self, rows: Sequence[Row]) -> None:
        """Hand journaled rows to :meth:`capture_rows` and the row listeners."""
        sink: list[Row] | None = getattr(self._local, "sink", None)
        if sink is not None:
            sink.extend(rows)
        for row in rows:
            for listener in self.row_listeners:
                try:
                    listener(row)
                except Exception:
                    logger.exception("a row listener failed for row %s", row.id)

    @contextmanager
    def capture_rows(self) -> Iterator[list[Row]]:
        """Collect the rows this thread records inside the block."""
        outer: list[Row] | None = getattr(self._local, "sink", None)
        rows: list[Row] = []
        self._local.sink = rows
        try:
            yield rows
        finally:
            self._local.sink = outer
            if outer is not None:
                outer.extend(rows)

    # ----- repair: the row and its shadow, and writes killed after their rename

    def _newest(self, bot: str) -> str | None:
        try:
            return self.journal.newest_id(bot)
        except (OSError, BotMemoryError):
            return None

    def _current(self, bot: str, index: Index) -> bool:
        """Whether the shadows reflect the journal's newest row (nothing was journaled past them)."""
        newest = self.journal.newest_id(bot)
        return newest is None or newest == index.row

    def repair(self, bot: str) -> None:
        """Close any gap a kill, a full disk or a refused write left (at every fresh hold of the workspace):
        shadows behind the journal are brought up to its newest rows, then intents the journal lacks are
        journaled when their rename happened. Never fails the command that holds the workspace: what cannot
        be repaired now is one warning line, and tried again at the next start."""
        try:
            with self.store.locked(bot):
                self._repair_gap(bot)
                if self.intents.pending(bot):
                    self._repair_intents(bot)
        except Refused as e:   # a link in the bookkeeping: the command itself refuses it, in its own line
            logger.info("not repairing %s: %s", bot, e)
        except (OSError, BotMemoryError) as e:
            logger.warning("could not bring the journal and shadow copies of %s up to date (%s); tried again "
                           "at the next start", bot, _why(e))

    def _repair_gap(self, bot: str) -> None:
        """Rows journaled whose shadows were never updated: the newest row of each file wins over a shadow
        that disagrees with it. Its text is rebuilt from the row (:meth:`Row.after_text`), else read from the
        file while the file still is that text, else only its hash is kept (the next change of that file
        says its earlier text was lost)."""
        from .shadows import Seen

        index = self.shadows.load(bot)
        if index is None:
            return
        newest = self.journal.newest_id(bot)
        if newest is None or newest == index.row:
            return
        latest: dict[str, Row] = {}
        for r in self.journal.rows_after(bot, index.row):
            latest[r.file] = r
        seen: list[Seen] = []
        gone: list[str] = []
        lost: dict[str, tuple[str, bool]] = {}
        for rel, r in latest.items():
            sh = index.files.get(rel)
            if (sh.hash if sh is not None else None) == r.after_hash:
                continue
            if r.after_hash is None:
                gone.append(rel)
                continue
            rebuilt = r.after_text()
            if rebuilt is not None:
                seen.append(Seen(rel, rebuilt[0], r.after_hash, True, secret=rebuilt[1], fresh=False))
                continue
            try:
                ft = self.store.read(bot, rel)
            except (OSError, BotMemoryError):
                ft = None
            if ft is not None and ft.hash == r.after_hash:
                seen.append(Seen(rel, ft.text, ft.hash, ft.valid))
            else:
                lost[rel] = (r.after_hash, True)
        self.shadows.bring_up_to(bot, seen, gone, lost, newest)
        if seen or gone or lost:
            logger.info("brought the shadow copies of %s up to the journal: %s", bot,
                        ", ".join(sorted([s.rel for s in seen] + gone + list(lost))))

    def _repair_intents(self, bot: str, keep: Collection[str] = ()) -> None:
        """Writes whose rows were kept as intents but never journaled (killed between the rename and the
        row, or the journal could not be written). An intent happened when it was marked done after its
        rename, or when its file, as it is now, shows it (walking back from the file's hash through each
        intent's after- and before-hash). Those are journaled as meant, each after an outside row for
        whatever changed in between, and the shadows brought up to them; the rest are dropped. *keep*: the
        intents of the write being committed now (left in place)."""
        from .journal import make_row

        kept = self.intents.read(bot)
        pending = [r for r in kept.rows if r.id not in keep and r.id not in kept.undone]
        done = self.journal.has_rows(bot, [r.id for r in pending])
        pending = [r for r in pending if r.id not in done]
        happened = {r.id for r in pending if r.id in kept.done}
        for rel in {r.file for r in pending}:
            try:
                ft = self.store.read(bot, rel)
                state = ft.hash if ft is not None else None
            except TooLarge:
                got = hash_file(self.home.file(bot, rel), self.home.trust_root(bot))
                state = got[0] if got else None
            mine = [p for p in pending if p.file == rel]
            newest_undone = bool(mine) and state == mine[-1].before_hash   # the file shows it never happened
            for r in reversed(mine):
                renamed = r.id in kept.temps and not newest_undone and not self._temp_left(bot, rel,
                                                                                            kept.temps[r.id])
                if r.id in happened or r.after_hash == state or renamed:
                    happened.add(r.id)
                    state = r.before_hash
                newest_undone = False
        meant = [r for r in pending if r.id in happened]
        if meant:
            index = self.shadows.load(bot)
            if index is not None and not self._current(bot, index):
                return   # the shadows could not be brought up to the journal: tried again at the next start
            chat = self._open_turn_chat(bot)
            actor = Actor.bot(chat, "task") if chat is not None else Actor("person", "outside")
            known: dict[str, tuple[str | None, str | None, bool]] = {}   # file: hash, text, secret (last recorded)
            for rel in {r.file for r in meant}:
                sh = index.files.get(rel) if index is not None else None
                known[rel] = (sh.hash, self.shadows.text(bot, rel, sh), sh.secret) if sh is not None else \
                    (None, None, False)
            rows: list[Row] = []
            for r in meant:
                was = known[r.file]
                if index is not None and was[0] != r.before_hash and r.before_hash is not None:
                    t = _parse_at(r.at) - timedelta(milliseconds=1)
                    lost = was[0] is not None and was[1] is None
                    found = Change(bot, r.file, "" if lost else was[1], was[0], r.earlier_text or "", r.before_hash,
                                   actor, t, id=new_change_id(t))
                    row = make_row(found, earlier_secret=was[2])
                    if lost:
                        row = replace(row, earlier_text=None, undoable=False,
                                      reason="the app's copy of its earlier text was lost, so it cannot be put back")
                    rows.append(row)
                rows.append(r)
                rebuilt = r.after_text()
                known[r.file] = (r.after_hash, rebuilt[0] if rebuilt else None, rebuilt[1] if rebuilt else False)
            try:
                self.journal.append(bot, rows)
            except OSError as e:
                logger.warning("could not write %d row(s) to the journal of %s (%s): they are written at the "
                               "next start", len(rows), bot, _why(e))
                return
            logger.info("journaled %d write(s) of %s that were cut off before their rows", len(meant), bot)
            self._announce(rows)
            self._repair_gap(bot)
        for r in pending:   # a replacement that never happened: its temp file, left as evidence, goes
            if r.id not in happened and r.id in kept.temps:
                self._remove_temp(bot, r.file, kept.temps[r.id])
        self._behind.discard(bot)
        self.intents.keep_only(bot, kept, set(keep))

    def _remove_temp(self, bot: str, rel: str, temp: str) -> None:
        from ..disk.safeio import TEMP_SUFFIX

        if not temp.endswith(TEMP_SUFFIX) or "/" in temp:
            return
        try:
            with open_dir_nofollow(self.home.trust_root(bot), self.home.file(bot, rel).parent) as d:
                d.unlink(temp)
        except (OSError, BotMemoryError):
            pass

    def _temp_left(self, bot: str, rel: str, temp: str) -> bool:
        """Whether the temp file of an intended replacement is still beside the file (its rename never
        happened); True when that cannot be looked at (the safe answer: not renamed)."""
        path = self.home.file(bot, rel)
        try:
            with open_dir_nofollow(self.home.trust_root(bot), path.parent) as d:
                d.lstat(temp)
            return True
        except FileNotFoundError:
            return False
        except (OSError, BotMemoryError):
            return True

    def undo(self, bot: str, row_id: str, *, whole: bool = False) -> Change | None:
        """Undo row *row_id*: its own lines reversed against the file as it is now (``store.undo``); *whole*:
        its whole earlier text back, while the file is as the row left it. The undo is itself a row
        (``who: person, how: undo``). Returns None when there was nothing to write; Conflict when the lines
        it touched changed since; Refused when the row cannot be undone; BadInput for an unknown row.
        """
        from .undo import undo_row

        return undo_row(self, bot, row_id, whole=whole).change


def _why(e: BaseException) -> str:
    """An error's cause in a few words (an OSError's text without its errno prefix)."""
    if isinstance(e, OSError) and e.strerror:
        return f"{e.strerror}: {e.filename}" if e.filename else e.strerror
    return str(e)


def _parse_at(at: str) -> datetime:
    """A row's ``at`` (ISO 8601 UTC) as a time; the epoch when it cannot be read."""
    try:
        return datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return datetime(1970, 1, 1, tzinfo=UTC)
