"""About me's learned lines: the facts bots added on their own, and taking one out.

A learned line in ``<home>/about-me.md`` is ``- YYYY-MM-DD · learned by BOT · TEXT``
(:func:`botmemory.core.notes.update.prefer` writes them). :func:`learned_lines` lists
them newest first, each with a stable id (a hash of the line), and
:func:`remove_learned` takes one out of About me and keeps its text under
``removed`` in ``<home>/profile-learned.json``, so the fact is never added again
(``prefer`` refuses it). Lines the person wrote by hand are never listed here.
"""
from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..base.errors import BadInput, Conflict, Refused
from ..disk.paths import Home
from ..disk.safeio import FileText, atomic_write, read_file
from ..store.files import UndoResult
from ..store.home_journal import ABOUT_ME, catch_up, record
from ..store.journal import HOME, UNDO_ACTOR, Journal, Row
from ..store.undo import UndoConflict, plan_row
from ..store.writer import Actor
from .update import _home_lock, _read_learned_strict, _write_learned, same_fact

_LEARNED = re.compile(r"- (\d{4}-\d{2}-\d{2}) · learned by ([^·\n]+?) · (.+)")


@dataclass(frozen=True)
class LearnedLine:
    id: str
    line: str
    day: date
    bot: str
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "line": self.line, "date": self.day.isoformat(), "bot": self.bot, "text": self.text}


def line_id(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]


def _parse(lines: list[str]) -> list[tuple[int, LearnedLine]]:
    out = []
    for i, raw in enumerate(lines):
        m = _LEARNED.fullmatch(raw.rstrip())
        if m is None:
            continue
        try:
            day = date.fromisoformat(m.group(1))
        except ValueError:
            continue
        line = raw.rstrip()
        out.append((i, LearnedLine(line_id(line), line, day, m.group(2).strip(), m.group(3).strip())))
    return out


def learned_lines(home: Home) -> list[LearnedLine]:
    """The learned lines of About me, newest first (by date, then the later in the file)."""
    ft = read_file(home.about_me)
    if ft is None:
        return []
    found = _parse(ft.text.split("\n"))
    found.sort(key=lambda p: (p[1].day, p[0]), reverse=True)
    return [ll for _, ll in found]


def remove_learned(home: Home, line_id_: str, today: date, actor: Actor | None = None) -> LearnedLine:
    """Take learned line *line_id_* out of About me; its fact is never added again.

    BadInput when no learned line has that id (or About me is not valid UTF-8).
    The change is a row of the home's journal by *actor* (the panel's Remove by
    default); undoing it puts the line back and lets the fact be added again.
    """
    with _home_lock(home).held():
        ft = read_file(home.about_me)
        if ft is not None and not ft.valid:
            raise BadInput("about-me.md is not valid UTF-8; botmemory will not rewrite it")
        lines = ft.text.split("\n") if ft else []
        hits = [(i, ll) for i, ll in _parse(lines) if ll.id == line_id_]
        if not hits:
            raise BadInput(f"no learned line {line_id_!r} in About me")
        gone = hits[0][1]
        data = _read_learned_strict(home)  # a damaged file is refused, never overwritten
        learned_before = copy.deepcopy(data)
        removed = data["removed"] if isinstance(data.get("removed"), list) else []
        if not any(isinstance(r, dict) and same_fact(str(r.get("text", "")), gone.text) for r in removed):
            removed.append({"text": gone.text, "bot": gone.bot, "at": today.isoformat()})
        data["removed"] = removed
        _write_learned(home, data)  # first: a crash between the two leaves the fact refused, not re-learnable
        drop = {j for j, _ in hits}
        keep = [line for i, line in enumerate(lines) if i not in drop]
        after = "\n".join(keep)
        atomic_write(home.about_me, after.encode("utf-8"))
        record(home, actor or Actor.person("panel"), ft, after, from_bot=gone.bot, learned_before=learned_before,
               learned_after=data)
    return gone


# ----- About me's own journal: undo


def home_rows(home: Home, limit: int | None = 50) -> list[Row]:
    """The rows of the home's journal (About me), newest first; an edit made elsewhere since the last row is
    recorded first."""
    catch_up(home)
    return Journal(home).list(HOME, limit=limit)


def later_text(journal: Journal, row: Row, now: FileText | None) -> str | None:
    """What an older row (one without its own lines) left: About me now while it is that, else the next
    row's earlier text."""
    if row.edits is not None:
        return None
    if now is not None and now.hash == row.after_hash:
        return now.text
    found = None
    for r in journal.rows(HOME):
        if r.id == row.id:
            break
        if r.file == row.file and r.before_hash == row.after_hash and r.earlier_text is not None:
            found = r.earlier_text
    return found


def reverse_learned(data: dict[str, Any], delta: dict[str, Any] | None) -> dict[str, Any]:
    """*data* (``profile-learned.json``) with a row's entries reversed: those it added dropped (while still there),
    those it dropped added back (unless there again)."""
    out = copy.deepcopy(data)
    for k, part in (delta or {}).items():
        if not isinstance(part, dict):
            continue
        entries = list(out.get(k, [])) if isinstance(out.get(k), list) else []
        for e in part.get("added", []):
            if e in entries:
                entries.remove(e)
        for e in part.get("dropped", []):
            if e not in entries:
                entries.append(e)
        out[k] = entries
    return out


def undo_home(home: Home, row_id: str, *, force: bool = False, expected_hash: str | None = None,
              whole: bool = False) -> UndoResult:
    """Undo a row of the home's journal: About me's lines reversed against About me as it is now (as a bot
    file's, ``store.undo``), and the ``profile-learned.json`` entries that rode with it reversed. The undo is
    itself a row. A clash is :class:`UndoConflict` (nothing written) unless *force*."""
    journal = Journal(home)
    with _home_lock(home).held():
        row = journal.find(HOME, row_id)
        if not row.undoable:
            raise Refused(f"row {row_id} cannot be undone: {row.reason}")
        ft = read_file(home.about_me)
        if ft is not None and not ft.valid:
            raise BadInput("about-me.md is not valid UTF-8; botmemory will not rewrite it")
        after = ft.text if ft is not None else None
        plan = None
        if row.file == ABOUT_ME:
            plan = plan_row(row, ft, later_text(journal, row, ft), whole=whole)
            if expected_hash is not None and plan.now_hash != expected_hash:
                raise Conflict(ABOUT_ME, plan.now_text or "", plan.now_hash or "")
            if plan.clashes and not force:
                raise UndoConflict(plan)
            after = plan.written(force)
        learned_before = _read_learned_strict(home)
        learned_after = reverse_learned(learned_before, row.learned)
        if after == (ft.text if ft is not None else None) and learned_after == learned_before:
            if plan is not None and plan.withheld:
                raise Refused(f"row {row_id} cannot be undone: the lines it would bring back held a credential, "
                              f"which the journal keeps only redacted: {', '.join(plan.withheld)}")
            return UndoResult(row_id, file=row.file)
        if learned_after != learned_before:
            _write_learned(home, learned_after)
        if after != (ft.text if ft is not None else None):
            if after is None:
                home.about_me.unlink()
            else:
                atomic_write(home.about_me, after.encode("utf-8"))
        undo = record(home, UNDO_ACTOR, ft, after, learned_before=learned_before, learned_after=learned_after,
                      undoes=row_id, journal=journal)
    forced = force and plan is not None and bool(plan.clashes)
    return UndoResult(row_id, [], plan.lines_back(forced) if plan else [], plan.lines_gone(forced) if plan else [],
                      plan.withheld if plan else [], row.file, after is None and ft is not None, whole,
                      row=undo.id if undo is not None else None)
