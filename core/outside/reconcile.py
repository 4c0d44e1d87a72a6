"""Comparing a workspace with its shadows: what differs becomes journal rows.

**Scan** (``watch --once``, :func:`botmemory.core.outside.turns.scan`): compare every
memory file with its shadow — size, modification time and inode first, the
hash only when they differ or the file changed too recently to trust its time
stamp — and record a ``who: person, how: outside`` row for what changed, was
created or was deleted. A deleted and a created file with the same text are a
rename. The first scan of a workspace with no shadows records nothing: it takes
the baseline. A scan never writes a memory file.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.errors import BadInput, BotMemoryError, HardLinkRefused, Refused
from ..base.log import get_logger
from ..disk.safeio import Folders, say_hard_link
from ..store.journal import Row, make_row
from ..store.shadows import Index, Shadow, folder_files
from ..store.writer import Actor, Change, new_change_id

if TYPE_CHECKING:
    from ..store.memory import Memory

logger = get_logger(__name__)

OUTSIDE = Actor("person", "outside")
OUTSIDE_UNKNOWN = Actor("unknown", "outside")
"""An outside change in a folder whose agent reports no turns: the agent's or a person's, nobody can tell."""


def outside_actor(mem: Memory, bot: str) -> Actor:
    """Who made a change nobody announced: a person, unless the folder's agent reports no turns."""
    layout = mem.home.layout(bot)
    return OUTSIDE if layout is None or layout.reports_turns else OUTSIDE_UNKNOWN


@dataclass
class _Found:
    change: Change
    secret: bool = False
    lost: bool = False
    renamed_from: str | None = None
    renamed_to: str | None = None


def _pair_renames(found: list[_Found]) -> None:
    """A deleted file and a created file with the same text are one rename."""
    deleted: dict[str, list[_Found]] = {}
    for f in found:
        if f.change.after is None and f.change.before_hash is not None:
            deleted.setdefault(f.change.before_hash, []).append(f)
    for f in found:
        c = f.change
        if c.before is None and c.after_hash is not None and deleted.get(c.after_hash):
            gone = deleted[c.after_hash].pop(0)
            f.renamed_from, gone.renamed_to = gone.change.file, c.file


def reconcile_bot(mem: Memory, bot: str, actor: Actor = OUTSIDE, *,
                  only: Iterable[str] | None = None) -> list[Row]:
    """Record what differs between *bot*'s memory files and their shadows, as *actor*'s changes.

    *only*: the workspace-relative paths to compare (default: every memory file
    and every shadow). With no shadows yet this takes the baseline silently.
    """
    ws = mem.home.workspace(bot)
    with mem.store.locked(bot):
        index = mem.shadows.load(bot)
        if index is None:
            if ws.is_dir():
                n = mem.shadows.baseline(bot, row=mem.journal.newest_id(bot))
                logger.info("took the baseline of %s: %d file(s)", bot, n)
            return []
        if not mem._current(bot, index):   # rows the shadows missed (repaired at every start; once more here)
            mem._repair_gap(bot)
            index = mem.shadows.load(bot)
            if index is None or not mem._current(bot, index):
                logger.warning("the shadow copies of %s are behind its journal and could not be brought up to "
                               "date: outside changes are recorded at the next scan", bot)
                return []
        with Folders(mem.home.trust_root(bot)) as folders:
            return _compare(mem, bot, actor, ws, index, only, folders)


def _compare(mem: Memory, bot: str, actor: Actor, ws: Path, index: Index, only: Iterable[str] | None,  # noqa: C901
             folders: Folders) -> list[Row]:
    """reconcile_bot's comparison, reading every file through *folders* (never through a link)."""
    if only is None:
        candidates = set(folder_files(mem.home, bot, ws, folders)) | set(index.files)
    else:
        candidates = set()
        for rel in only:
            try:
                mem.home.classify(bot, rel)
            except BadInput:
                continue
            candidates.add(rel)
    found: list[_Found] = []
    touched: dict[str, Shadow] = {}
    recopy: list[Change] = []
    for rel in sorted(candidates):
        path = ws / rel
        try:
            st = folders.lstat(path)
        except HardLinkRefused as e:  # a file with another name: neither read nor taken as deleted
            say_hard_link(e)
            continue
        except Refused as e:  # a linked folder: neither read nor taken as deleted
            logger.warning("not comparing %s/%s: %s", bot, rel, e)
            continue
        except OSError as e:
            logger.warning("could not look at %s/%s: %s", bot, rel, e)
            continue
        sh = index.files.get(rel)
        if st is None:
            if sh is not None:
                before = mem.shadows.text(bot, rel, sh)
                at = datetime.now(UTC)
                found.append(_Found(Change(bot, rel, before or "", sh.hash, None, None, actor, at,
                                           before_valid=sh.valid, id=new_change_id(at)),
                                    sh.secret, before is None))
            continue
        if sh is not None and sh.same_stat(st):
            continue
        try:
            ft = folders.read(path)
        except HardLinkRefused as e:
            say_hard_link(e)
            continue
        except (OSError, BotMemoryError) as e:
            logger.warning("could not read %s/%s: %s", bot, rel, e)
            continue
        if ft is None:
            continue
        if sh is not None and ft.hash == sh.hash:
            if sh.lost:   # only its hash was known: keep a copy now that the file shows that text
                recopy.append(Change(bot, rel, None, sh.hash, ft.text, ft.hash, actor, datetime.now(UTC)))
            else:
                touched[rel] = sh.seen_again(st)
            continue
        # when it happened: the file's time stamp (a change made while nothing watched keeps its time)
        at = min(datetime.now(UTC), datetime.fromtimestamp(st.st_mtime_ns / 1e9, UTC))
        before = mem.shadows.text(bot, rel, sh) if sh is not None else None
        lost = sh is not None and before is None
        found.append(_Found(Change(bot, rel, "" if lost else before, sh.hash if sh else None, ft.text, ft.hash,
                                   actor, at, before_valid=sh.valid if sh else True, id=new_change_id(at)),
                            sh.secret if sh else False, lost))
    known: list[Change] = []
    if found:
        # a row was written but its shadow update failed: the journal has this change already
        latest = mem.journal.latest_hashes(bot, [f.change.file for f in found])
        known = [f.change for f in found if latest.get(f.change.file, "") == f.change.after_hash]
        found = [f for f in found if f.change not in known]
    _pair_renames(found)
    found.sort(key=lambda f: f.renamed_from is not None)   # a rename reads "from" as the newer row
    rows = [_row(f) for f in found]
    return mem.commit(bot, [f.change for f in found] + known + recopy, rows, touched=touched)


def _row(f: _Found) -> Row:
    c = f.change
    diff = None
    if f.renamed_from is not None:
        diff = f"renamed from {f.renamed_from} (same text)\n"
    elif f.renamed_to is not None:
        diff = f"renamed to {f.renamed_to} (same text)\n"
    row = make_row(c, earlier_secret=f.secret, diff=diff, renamed_from=f.renamed_from, renamed_to=f.renamed_to)
    if f.lost:
        row = replace(row, earlier_text=None, undoable=False,
                      reason="the app's copy of its earlier text was lost, so it cannot be put back")
    return row


__all__ = ["OUTSIDE", "OUTSIDE_UNKNOWN", "outside_actor", "reconcile_bot"]
