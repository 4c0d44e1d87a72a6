"""The hash-checked file API and the file rules.

Every mutation of a memory file goes through :meth:`Store.apply`: take the
workspace lock, check each expected hash, redact, write atomically in the order
given (the archive before the file it came from), and hand a :class:`Change`
record for each replaced file to the listeners (the journal, the shadow copies)
once the batch is written, which the UI refreshes from. A listener that fails
never fails the write.
"""
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime, timezone
from pathlib import Path

from ..base.errors import BadInput, BotMemoryError, Conflict, Refused, named
from ..base.log import get_logger
from ..base.record import field, record, replace
from ..base.wording import counted
from ..disk.paths import ARCHIVE_FILE, MEMORY_FILE, FileKind, Home, check_owner
from ..disk.safeio import (
    FileText,
    Staged,
    Stager,
    TooLarge,
    WorkspaceLock,
    append_file,
    append_file_hashed,
    atomic_write,
    clean_stale_temps,
    cut_file,
    file_mode,
    hash_file,
    make_dirs,
    open_dir_nofollow,
    read_file,
    read_text,
    remove_file,
    text_hash,
)

logger = get_logger(__name__)

WHO = ("bot", "person", "upkeep", "import", "unknown")


@record(frozen=True)
class Actor:
    """Who changes a file and how: ``who`` is bot/person/upkeep/import/unknown, ``how`` task/panel/cli/…"""

    who: str
    how: str
    chat: str | None = None
    host: str | None = None     # the other computer a change came from (``how: sync``)

    @classmethod
    def person(cls, how: str = "cli") -> Actor:
        return cls("person", how)

    @classmethod
    def bot(cls, chat: str | None, how: str = "task") -> Actor:
        return cls("bot", how, chat)


@record(frozen=True)
class Change:
    """One file replaced, created or deleted: what the journal stores and the UI refreshes from."""

    bot: str
    file: str
    before: str | None          # earlier text (None: the file did not exist)
    before_hash: str | None
    after: str | None           # new text (None: the file was deleted)
    after_hash: str | None
    actor: Actor
    at: datetime
    before_valid: bool = True   # False when the earlier bytes were not UTF-8
    id: str = ""                # the journal row id this change is recorded under
    unkept: str | None = None   # why the earlier text was not kept (the row cannot be undone)
    appended: bool = False      # ``after`` is only what was appended (the file was never read whole)
    size_before: int | None = None   # an append with hashes: the file's size before it (what a cut goes back to)
    cut: str | None = None      # a cut (the undo of an append): the text taken off the end; ``after`` is None
    undoes: str | None = None   # an undo: the journal row it undid


def new_change_id(at: datetime) -> str:
    """A row id that sorts by time: milliseconds since the epoch in hex, then 6 random hex digits. A clock
    set before 1970 counts as the epoch itself (a row id is never negative: ``undo`` takes every id made)."""
    ms = min(max(0, int(at.timestamp() * 1000)), 0xFFFF_FFFF_FFFF)
    return f"{ms:012x}-{os.urandom(3).hex()}"


@record(frozen=True)
class Write:
    """One file's new text (None deletes it), optionally checked against the hash it was opened with."""

    file: str
    text: str | None
    expected_hash: str | None = None
    checked: bool = False       # True: ``expected_hash`` None means "must not exist"
    append: bool = False        # ``text`` is appended to the file, which is never read whole
    hashed: bool = False        # an append that records the file's hashes and size, so that it can be cut back
    cut_to: int | None = None   # cut the file back to this many bytes, while its hash is ``expected_hash``
    undoes: str | None = None   # an undo of this journal row (a tracked folder's MEMORY.md its agent created
    #                             may then be deleted: the agent made it, the undo takes it away again)


Listener = Callable[[Sequence[Change]], None]
"""Called once per batch (one :meth:`Store.apply`) with the changes it made, in write order."""
Intend = Callable[[Sequence[Change], Sequence["str | None"]], None]
"""Called once per batch with the replacements and deletions it is about to make (and the temp file of
each replacement's new text), after every new text is on disk beside its file and before the first
rename: what it raises stops the batch, nothing changed."""
Abandon = Callable[[Sequence[Change]], bool]
"""Called with the replacements and deletions of a batch that were intended but not made (a failure);
True when that is now on record (their temp files need not stay as evidence)."""
OnLock = Callable[[str], None]
"""Called with the bot at every fresh hold of its workspace lock, before anything else (repairs)."""


def _refuse_credential_name(rel: str) -> None:
    """A new topic whose name looks like a credential is refused (Refused), as a bot id is (``init``):
    the name goes outside the workspace, in journal rows, shadows and the recall index. The message
    does not repeat the name."""
    from ..redact import contains_secret  # only here: creating a topic is rare

    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    if contains_secret(stem):
        raise Refused("that topic name looks like a credential (a token or key); botmemory never writes one "
                      "to disk outside the workspace (journal rows, shadows, the index name files): choose another name")


@record()
class Store:
    home: Home
    today: date = field(default_factory=date.today)
    listeners: list[Listener] = field(default_factory=list)
    intend: Intend | None = None
    abandon: Abandon | None = None
    on_lock: list[OnLock] = field(default_factory=list)
    _cleaned: set[str] = field(default_factory=set)
    _repairing: set[str] = field(default_factory=set)

    # ----- reading

    def read(self, bot: str, rel: str) -> FileText | None:
        """A memory file's text and hash, or None when it does not exist.

        Nothing between the home and the file may be a symbolic link (Refused, naming it)."""
        return read_file(self.home.file(bot, rel), self.home.trust_root(bot))

    def text(self, bot: str, rel: str) -> str:
        """A memory file's text ("" when it does not exist), read as :meth:`read` reads it, not hashed."""
        return read_text(self.home.file(bot, rel), self.home.trust_root(bot)) or ""

    # ----- workspace

    def init(self, bot: str) -> bool:
        """Create the workspace layout (idempotent); True when something was created. No journal row."""
        refuse_for_agent(self.home, bot, "init")
        ws = self.home.workspace(bot)
        from ..redact import contains_secret  # only here: creating a workspace is rare
        if contains_secret(bot):  # the id names folders and files outside the workspace (locks, journal, index)
            raise Refused("that bot id looks like a credential (a token or key); "
                          "botmemory never writes one to disk outside the workspace: choose another name")
        with self.locked(bot):
            make_dirs(ws / "memory", self.home.root)
            created = read_file(ws / MEMORY_FILE, self.home.root) is None
            if created:
                atomic_write(ws / MEMORY_FILE, b"", self.home.root)
        return created

    def ensure(self, bot: str) -> None:
        """The workspace is created on first use (a tracked folder must exist: nothing is created in it)."""
        if self.home.is_tracked(bot):
            self.home.require_bot(bot)
            return
        ws = self.home.workspace(bot)  # validates the id
        if not (ws / MEMORY_FILE).is_file() or ws.is_symlink():
            self.init(bot)

    @contextmanager
    def locked(self, bot: str) -> Iterator[None]:
        lock = WorkspaceLock.for_file(self.home.lock_file(bot), self.home.root)
        with lock.held() as first:
            if first and bot not in self._repairing:
                # repairs first: a temp file a killed write left tells whether its rename happened
                self._repairing.add(bot)
                try:
                    for hook in self.on_lock:
                        hook(bot)
                finally:
                    self._repairing.discard(bot)
            if bot not in self._cleaned and bot not in self._repairing:
                layout = self.home.layout(bot)
                root = self.home.trust_root(bot)
                if layout is None:
                    clean_stale_temps(self.home.workspace(bot), root=root)
                else:
                    clean_stale_temps(self.home.workspace(bot), layout.temp_dirs, root=root)
                self._cleaned.add(bot)
            yield

    # ----- writing

    def apply(self, bot: str, writes: Sequence[Write], actor: Actor, *,
              allow_log: bool = False, check: Callable[[], None] | None = None) -> list[Change]:
        """Write several files in order under one hold of the lock. Returns the changes made.

        Every expected hash is checked before anything is written, so a conflict
        changes nothing. *check* runs under the lock before the writes (for
        rules that depend on the current state). The file rules only: who may
        write (the memory switch, a kind's refusals) is the operations' (``ops``).
        """
        tracked = self.home.is_tracked(bot)
        if tracked:
            self.home.require_bot(bot)   # a tracked folder that is gone is never created again by a write
            check_owner(self.home.workspace(bot), "the folder")
        with self.locked(bot):
            self._check_bookkeeping()
            plans: list[tuple[Write, FileText | None, str | None]] = []
            for w in writes:
                kind = self.home.classify(bot, w.file)
                if kind is FileKind.LOG and not allow_log and w.text is not None:
                    raise Refused(f"{w.file} is a daily log: the bot's own record is read-only (it can be deleted)")
                if kind is FileKind.MEMORY and w.text is None and not (tracked and w.undoes):
                    raise Refused("MEMORY.md can be emptied but never deleted: the bot expects it to exist")
                if w.append:
                    if w.text is None:
                        raise ValueError("an append needs text")
                    plans.append((w, None, redact(w.text)))
                    continue
                if w.cut_to is not None:   # checked now (streamed), and again as it is cut
                    got = hash_file(self.home.file(bot, w.file), self.home.trust_root(bot))
                    if got is None or got[0] != w.expected_hash or got[1] < w.cut_to:
                        raise Conflict(w.file, "", got[0] if got else "")
                    plans.append((w, None, None))
                    continue
                current = self._current(bot, w)
                if current is None and w.text is not None and kind is FileKind.TOPIC:
                    _refuse_credential_name(w.file)
                if w.expected_hash is not None or w.checked:
                    now_hash = current.hash if current else None
                    if now_hash != w.expected_hash:
                        raise Conflict(w.file, current.text if current else "", now_hash or "")
                if current is not None and not current.valid and w.text is not None:
                    raise BadInput(f"{w.file} is not valid UTF-8; botmemory will not rewrite it "
                                   "(fix its encoding in another editor first)")
                # a tracked agent's folder gets exactly what the person asked for: a credential in it is
                # shown as a warning and taken out by an explicit, undoable `redact` (never silently)
                new = None if w.text is None else (w.text if tracked else redact(w.text))
                plans.append((w, current, new))
            if check is not None:
                check()
            return self._write_all(bot, plans, actor)

    def _write_all(self, bot: str, plans: Sequence[tuple[Write, FileText | None, str | None]],  # noqa: C901
                   actor: Actor) -> list[Change]:
        """Write the planned files in two steps: every new text first, beside its file (a full disk or a
        refused write stops here, nothing changed; named, :func:`errors.named`), then the intents
        (:attr:`intend`), then each file replaced, deleted, appended to or cut, in order."""
        root = self.home.trust_root(bot)
        with Stager() as stager:
            steps: list[tuple[Write, FileText | None, str | None, Staged | None, Change | None]] = []
            try:
                for w, current, new in plans:
                    path = self.home.file(bot, w.file)
                    if w.append or w.cut_to is not None or current is not None:
                        self._check_writable(path, root, w.file)
                    if w.append or w.cut_to is not None:
                        if w.append and new:
                            _check_room(path, len(new.encode("utf-8")))
                        steps.append((w, current, new, None, None))
                        continue
                    if new is None:
                        planned = None if current is None else _undoing(w, self._change(bot, w.file, current, None,
                                                                                         actor))
                        steps.append((w, current, new, None, planned))
                        continue
                    if current is not None and current.text == new and current.valid:
                        continue
                    fresh = stager.stage(path, new.encode("utf-8"), root)
                    steps.append((w, current, new, fresh, _undoing(w, self._change(bot, w.file, current, new, actor))))
            except OSError as e:
                raise (named(e, "nothing was written") or e) from e
            intended = [(c, st.tmp if st is not None else None) for _, _, _, st, c in steps if c is not None]
            if intended and self.intend is not None:
                for st in stager.staged:   # from here a temp file that was not renamed stays, as evidence
                    st.evidence = True
                try:
                    self.intend([c for c, _ in intended], [t for _, t in intended])
                except BaseException as e:
                    self._abandon(stager, [c for c, _ in intended])
                    if isinstance(e, OSError):
                        raise (named(e, "nothing was written") or e) from e
                    raise
            changes: list[Change] = []
            made = 0
            try:
                for w, current, new, staged, planned in steps:
                    change: Change | None
                    if w.cut_to is not None:
                        change = self._cut(bot, w, actor)
                    elif w.append:
                        change = self._write_one(bot, w.file, current, new, actor, append=True, hashed=w.hashed)
                    elif staged is not None:
                        staged.commit()
                        change = planned
                    elif planned is not None:
                        remove_file(self.home.file(bot, w.file), root)
                        change = planned
                    else:
                        change = None
                    if change is not None:
                        changes.append(change)
                    made += 1
            except OSError as e:
                done = ("nothing was written" if not changes
                        else f"{counted(len(changes), 'file was', 'files were')} written before it")
                raise (named(e, done) or e) from e
            finally:  # what was written is recorded, even when a later file of the batch failed
                if made < len(steps) and intended:
                    self._abandon(stager, [c for _, _, _, _, c in steps[made:] if c is not None])
                if changes:
                    self.notify(changes)
            return changes

    def _abandon(self, stager: Stager, left: Sequence[Change]) -> None:
        """Intended changes not made: on record (:attr:`abandon`), their temp files go; else they stay, and
        the next start tells by them that those renames never happened."""
        if not left or self.abandon is None:
            return
        try:
            kept = self.abandon(left)
        except (OSError, BotMemoryError) as e:   # the repair tells by the file and its temp file instead
            logger.info("could not mark %d intended change(s) as not made: %s", len(left), e)
            return
        if kept:
            for st in stager.staged:
                if not st.done:
                    st.evidence = False

    def _change(self, bot: str, rel: str, current: FileText | None, new: str | None, actor: Actor) -> Change:
        """The change a replacement or a deletion is about to make (its row id and time: now)."""
        at = datetime.now(timezone.utc)
        return Change(
            id=new_change_id(at), bot=bot, file=rel,
            before=current.text if current else None, before_hash=current.hash if current else None,
            after=new, after_hash=None if new is None else text_hash(new), actor=actor, at=at,
            before_valid=current.valid if current else True,
            unkept=current.unkept if current else None,
        )

    def _check_writable(self, path: Path, root: Path, rel: str) -> None:
        """A file its owner made read-only is never written (not silently turned 0600): Refused, naming it."""
        mode = file_mode(path, root)
        if mode is not None and not mode & stat.S_IWUSR:
            raise Refused(f"{rel} is read-only (mode {mode:04o}): botmemory does not change a file you made "
                          f"read-only; make it writable first (chmod u+w)")

    def write(self, bot: str, rel: str, text: str, actor: Actor, *, expected_hash: str | None = None,
              allow_log: bool = False, checked: bool = False) -> Change | None:
        """Replace one file. *checked* with no *expected_hash*: create it only if it is still absent."""
        changes = self.apply(bot, [Write(rel, text, expected_hash, checked or expected_hash is not None)], actor,
                             allow_log=allow_log)
        return changes[0] if changes else None

    def delete(self, bot: str, rel: str, actor: Actor, *, expected_hash: str | None = None) -> Change | None:
        """Delete a topic or a daily log (:func:`delete_refusal`: never MEMORY.md, never the archive)."""
        why = delete_refusal(self.home.classify(bot, rel))
        if why is not None:
            raise Refused(why)
        if self._current(bot, Write(rel, None)) is None:
            raise BadInput(f"{rel} does not exist")
        changes = self.apply(bot, [Write(rel, None, expected_hash)], actor)
        return changes[0] if changes else None

    def _check_bookkeeping(self) -> None:
        """The journal and botmemory's own folder must not be links either: a change whose row
        cannot be kept is not made (Refused, naming the link)."""
        for folder in (self.home.journal_dir, self.home.state_dir):
            try:
                with open_dir_nofollow(self.home.root, folder):
                    pass
            except (FileNotFoundError, NotADirectoryError):
                pass

    def _current(self, bot: str, w: Write) -> FileText | None:
        """The file as it is now. A file too large to read can still be deleted: its text is then not
        kept (``valid=False``, hash of the streamed bytes) and the row says so."""
        try:
            return self.read(bot, w.file)
        except TooLarge as e:
            if w.text is not None:
                raise
            got = hash_file(self.home.file(bot, w.file), self.home.trust_root(bot))
            if got is None:
                return None
            return FileText("", got[0], False, unkept=f"it was {e.size / 1e6:.0f} MB, larger than botmemory reads")

    def _write_one(self, bot: str, rel: str, current: FileText | None, new: str | None,
                   actor: Actor, *, append: bool = False, hashed: bool = False) -> Change | None:
        """Append *new* to *rel* (the archive past 1 MB, never read whole)."""
        assert append and new is not None
        path = self.home.file(bot, rel)
        root = self.home.trust_root(bot)
        if not new:
            return None
        if hashed:
            got = append_file_hashed(path, new.encode("utf-8"), root)
            at = datetime.now(timezone.utc)
            return Change(id=new_change_id(at), bot=bot, file=rel, before=None, before_hash=got.hash_before,
                          after=new, after_hash=got.hash_after, actor=actor, at=at, appended=True,
                          size_before=got.size,
                          unkept=f"the archive is appended to, not rewritten: its earlier text "
                                 f"({got.size / 1e6:.1f} MB) was not kept")
        size, _ = append_file(path, new.encode("utf-8"), root)
        at = datetime.now(timezone.utc)
        return Change(id=new_change_id(at), bot=bot, file=rel, before=None, before_hash=None,
                      after=new, after_hash=None, actor=actor, at=at, appended=True,
                      unkept=f"the archive is appended to, not rewritten: its earlier text "
                             f"({size / 1e6:.1f} MB) was not kept")

    def _cut(self, bot: str, w: Write, actor: Actor) -> Change:
        """Cut *w*'s file back to ``w.cut_to`` bytes (the undo of a hashed append), never read whole."""
        assert w.cut_to is not None and w.expected_hash is not None
        tail, left = cut_file(self.home.file(bot, w.file), w.cut_to, w.expected_hash, self.home.trust_root(bot))
        at = datetime.now(timezone.utc)
        return Change(id=new_change_id(at), bot=bot, file=w.file, before=None, before_hash=w.expected_hash,
                      after=None, after_hash=left, actor=actor, at=at,
                      cut=tail.decode("utf-8", errors="replace"),
                      unkept=f"{w.file} was cut back to its size before the append ({w.cut_to / 1e6:.1f} MB), "
                             "not rewritten: its earlier text was not kept")

    def notify(self, changes: Sequence[Change]) -> None:
        """Hand one batch's changes to every listener, after all its files were replaced."""
        for listener in self.listeners:
            try:
                listener(changes)
            except Exception:  # journaling never fails a write
                logger.exception("a change listener failed for %s (%s); the write stands",
                                 changes[0].bot, ", ".join(c.file for c in changes))


def _check_room(path: Path, size: int) -> None:
    """An append that cannot fit is refused before it starts (a full disk mid-append would leave part of
    a line): OSError ENOSPC when the file system has less than *size* and a margin free."""
    try:
        vfs = os.statvfs(path.parent)
    except (OSError, AttributeError):   # pragma: no cover - Windows has no statvfs: the append says it
        return
    free = (vfs.f_bfree if hasattr(os, "geteuid") and os.geteuid() == 0 else vfs.f_bavail) * vfs.f_frsize
    if free < size + 64 * 1024:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def delete_refusal(kind: FileKind) -> str | None:
    """Why a file of *kind* cannot be deleted, or None: deleting removes a topic or a daily log (docs/RULES.md
    "Homes and workspaces"). The one rule the CLI's ``rm``, the routes' DELETE and the panel's Delete follow."""
    if kind is FileKind.MEMORY:
        return "MEMORY.md can be emptied but never deleted: the bot expects it to exist"
    if kind is FileKind.ARCHIVE:
        return (f"{ARCHIVE_FILE} is the archive, where notes MEMORY.md could not keep went: only a topic "
                "or a daily log is deleted (empty the archive with `save` if you must)")
    return None


def refuse_for_agent(home: Home, bot: str, command: str) -> None:
    """Refuse *command* (exit 4) for a folder whose agent writes its own memory, with the reason."""
    layout = home.layout(bot)
    if layout is not None and layout.writes_own_memory:
        raise Refused(f"{command} does not apply to {bot}: {layout.refusal}")


def redact(text: str) -> str:
    """Redaction, imported on first use (its patterns take a while to compile)."""
    from ..redact import redact as _redact

    return _redact(text)


def _undoing(w: Write, change: Change) -> Change:
    """*change* marked as the undo of the row *w* undoes (``undoes``), when it is one."""
    return change if w.undoes is None else replace(change, undoes=w.undoes)
