"""Undo: a change's own lines reversed against the file as it is now; or, ``whole``, its whole earlier text back.

A journal row keeps its earlier text and its own lines (``Row.edits``). Undoing
it replays the inverse of those lines against today's text, a three-way merge
on lines (``text.merge.replay``: the text the change left is the base). It
applies when the lines the change touched are as it left them, whatever else
changed in the file; where they are not, that is a clash (:class:`UndoConflict`,
exit 3): nothing is written, and the person sees both texts — the file now and
the file with the change's lines put back in every clash — and picks (``force``).

A line of the earlier text that held a credential is kept redacted, so it
never comes back: the undo brings back every other line and names it
(``withheld``). An undo that would bring back nothing else is refused.

A created file is removed again while it is as the change left it (its hash
is checked); with lines added since, only the change's own lines go (a
workspace's MEMORY.md is never deleted: it is emptied). A deleted file is
written again, merged with whatever took its place.

``whole`` is the whole-file restore: the earlier text back exactly. It is
for the newest row of a file, and the hash check guards it — the file must
still be what the row left, else :class:`UndoConflict`.

:func:`plan_row` is pure (the row, the file as it is now, what the row left):
the journal view shows it before anything is written; :func:`undo_row` plans
and writes under the workspace lock. The home's journal (About me) uses
:func:`plan_row` on its own file.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import BadInput, Conflict, Refused
from ..base.wording import counted
from ..disk.paths import FileKind, Home
from ..disk.safeio import FileText
from ..text.merge import Clash, Hunk, align, edit_script, inverse, join_lines, replay, split_lines
from .journal import UNDO_ACTOR, Row, keep_limit
from .memory import Memory
from .writer import Change, Write

SHOWN_LINES = 8
"""How many lines a message names before it says how many more there are."""


@dataclass(frozen=True)
class UndoPlan:
    """What undoing a row would do to its file, worked out before anything is written."""

    row: Row
    file: str
    now_text: str | None          # the file now (None: it does not exist)
    now_hash: str | None
    text: str | None              # what the undo would write (None: remove the file)
    back: list[str] = field(default_factory=list)       # lines that come back
    gone: list[str] = field(default_factory=list)       # lines the undo takes out
    withheld: list[str] = field(default_factory=list)   # lines that held a credential: they do not come back
    clashes: list[Clash] = field(default_factory=list)  # where the row's lines changed since
    forced: str | None = None     # the text with the row's lines put back in every clash
    whole: bool = False
    deletable: bool = True        # the file may be removed (a workspace's MEMORY.md is emptied instead)

    def lines_back(self, force: bool = False) -> list[str]:
        """The lines the undo brings back (with *force*, also those it puts in the clashes)."""
        return self.back + ([ln for c in self.clashes for ln in c.back] if force else [])

    def lines_gone(self, force: bool = False) -> list[str]:
        """The lines the undo takes out (with *force*, also what the clashes held)."""
        return self.gone + ([ln for c in self.clashes for ln in c.now] if force else [])

    def written(self, force: bool = False) -> str | None:
        """The text the undo writes (with *force*: the forced one where there are clashes); None removes the
        file. A created file left with nothing but the change's own lines is removed again."""
        text = self.forced if self.clashes and force else self.text
        if text == "" and self.row.before_hash is None and self.deletable:
            return None
        return text

    @property
    def changes_file(self) -> bool:
        """True when the undo writes something (the file's text changes, or it is created or removed)."""
        return self.written() != self.now_text

    @property
    def removes_file(self) -> bool:
        return self.written() is None and self.now_text is not None

    def describe(self) -> str:
        """What the undo will do, in words (the journal view shows it before Undo is pressed)."""
        if self.clashes:
            return (f"{counted(len(self.clashes), 'place')} {self.file} now differs from what this change "
                    "left: Undo shows both texts and writes nothing until you pick one.")
        if not self.changes_file and not self.withheld:
            return f"Nothing to undo: {self.file} already holds what this change replaced."
        if self.removes_file:
            return f"Undo removes {self.file} again (it was created by this change)."
        parts: list[str] = []
        if self.now_text is None:
            parts.append(f"writes {self.file} again")
        if self.back:
            parts.append("brings back " + _shown(self.back))
        if self.gone:
            parts.append("takes out " + _shown(self.gone))
        text = "Undo " + (", ".join(parts) if parts else f"puts {self.file} back") + "."
        if self.withheld:
            text += (f" {_shown(self.withheld)} held a credential, which the journal keeps only redacted: "
                     f"{'it does' if len(self.withheld) == 1 else 'they do'} not come back.")
        return text

    def as_dict(self) -> dict[str, Any]:
        return {"row": self.row.id, "file": self.file, "changes_file": self.changes_file,
                "removes_file": self.removes_file, "back": self.back, "gone": self.gone,
                "withheld": self.withheld, "clashes": [c.as_dict() for c in self.clashes],
                "whole": self.whole, "describe": self.describe()}


class UndoConflict(Conflict):
    """The lines a row touched changed since (exit 3): nothing written. ``text``/``hash`` are the file now;
    ``undone`` the file with the row's lines put back in every clash (what ``force`` writes)."""

    def __init__(self, plan: UndoPlan) -> None:
        super().__init__(plan.file, plan.now_text or "", plan.now_hash or "")
        self.plan = plan
        self.undone = plan.forced if plan.forced is not None else (plan.text or "")
        where = "; ".join(f"line {c.at + 1} is now {_quote(c.now)}, the change left {_quote(c.left)}"
                          for c in plan.clashes[:3])
        if plan.whole:
            self.args = (f"{plan.file} changed since row {plan.row.id}: the whole earlier text goes back only "
                         "while the file is as that row left it (undo without --whole brings back only the "
                         "row's own lines)",)
        else:
            self.args = (f"the lines row {plan.row.id} touched in {plan.file} changed since ({where}); "
                         "nothing was written",)

    def extra(self) -> dict[str, Any]:
        return {"undone": self.undone, "clashes": [c.as_dict() for c in self.plan.clashes], "row": self.plan.row.id}

    def shown(self) -> str:
        now = self.text if self.text.endswith("\n") or not self.text else self.text + "\n"
        return (f"{now}{_RULE} the file with row {self.plan.row.id} undone (undo --force writes it) {_RULE}\n"
                f"{self.undone}")


_RULE = "=" * 7


def _quote(lines: Sequence[str]) -> str:
    if not lines:
        return "nothing"
    first = lines[0] if len(lines[0]) <= 60 else lines[0][:59] + "…"
    return f'"{first}"' + (f" (+{counted(len(lines) - 1, 'line')})" if len(lines) > 1 else "")


def _shown(lines: Sequence[str]) -> str:
    real = [ln for ln in lines if ln.strip()] or list(lines)
    head = ", ".join(_quote([ln]) for ln in real[:SHOWN_LINES])
    more = len(real) - SHOWN_LINES
    return head + (f" and {counted(more, 'more line')}" if more > 0 else "")


def _redacted(line: str) -> str:
    """A line of the file now as the journal would keep it (how it is compared with the row's lines)."""
    from ..redact import contains_secret, redact

    return redact(line) if contains_secret(line) else line


def plan_row(row: Row, now: FileText | None, later: str | None = None, *, whole: bool = False,
             deletable: bool = True) -> UndoPlan:
    """What undoing *row* does to its file as it is now (*now*; None: it does not exist).

    *later*: the text the row left, when the row does not keep its own lines (an
    older row: found in the journal's chain); *deletable*: the file may be
    removed (not a workspace's MEMORY.md, which is emptied instead). Refused
    when the row cannot be undone; BadInput when the file is not UTF-8.
    """
    if not row.undoable:
        raise Refused(f"row {row.id} cannot be undone: {row.reason}")
    if now is not None and not now.valid:
        raise BadInput(f"{row.file} is not valid UTF-8; botmemory will not rewrite it (fix its encoding first)")
    created = row.before_hash is None
    if not created and row.earlier_text is None:
        raise Refused(f"row {row.id} cannot be undone: it holds no earlier text")
    before = row.earlier_text or ""
    now_text = now.text if now is not None else None
    now_hash = now.hash if now is not None else None
    if whole:
        return _plan_whole(row, now_text, now_hash, deletable)
    if created and now is None:
        return UndoPlan(row, row.file, None, None, None, deletable=deletable)
    if created and now_hash == row.after_hash:
        return UndoPlan(row, row.file, now_text, now_hash, None if deletable else "",
                        gone=[ln for ln in split_lines(now_text or "") if ln], deletable=deletable)
    edits: Sequence[Hunk] | None = row.edits
    if edits is None:
        if later is None:
            raise Refused(f"row {row.id} was written before rows kept their own lines, and the text it left is "
                          "no longer known: `undo --whole` puts its whole earlier text back")
        edits = edit_script(split_lines(before), split_lines(later))
    secret = set(row.secret_lines)
    base_lines = split_lines(before)
    after = _apply(base_lines, edits)
    back_script = inverse(base_lines, edits, (lambda i: i in secret) if secret else None)
    merged = replay(after, back_script, split_lines(now_text or ""), key=_redacted)
    p = UndoPlan(row, row.file, now_text, now_hash, join_lines(merged.lines), merged.back, merged.gone,
                 merged.withheld, merged.clashes, join_lines(merged.forced) if merged.clashes else None,
                 deletable=deletable)
    if p.text == "" and created and deletable:
        p = UndoPlan(row, row.file, now_text, now_hash, None, p.back, p.gone, p.withheld, p.clashes, p.forced,
                     deletable=deletable)
    return p


def _apply(lines: list[str], edits: Sequence[Hunk]) -> list[str]:
    from ..text.merge import apply_script

    try:
        return apply_script(lines, edits)
    except ValueError:
        raise Refused("the row's own lines do not fit its earlier text (a damaged row): "
                      "`undo --whole` puts its whole earlier text back") from None


def _plan_whole(row: Row, now_text: str | None, now_hash: str | None, deletable: bool) -> UndoPlan:
    """The whole earlier text back: only while the file is as the row left it (else one clash, the whole
    file: *force* writes it anyway)."""
    if row.secret_lines:
        lines = split_lines(row.earlier_text or "")
        held = [lines[i] for i in row.secret_lines if i < len(lines)]
        raise Refused(f"row {row.id} cannot be undone whole: its earlier text held a credential "
                      f"({_shown(held)}), which the journal keeps only redacted; undo without --whole brings "
                      "back every other line")
    created = row.before_hash is None
    text = None if created and deletable else "" if created else row.earlier_text
    back = [] if created else split_lines(row.earlier_text or "")
    gone = split_lines(now_text) if now_text else []
    if now_hash == row.after_hash:
        return UndoPlan(row, row.file, now_text, now_hash, text, back, gone, whole=True, deletable=deletable)
    clash = Clash(0, tuple(split_lines(now_text or "")), (), tuple(split_lines(text or "")))
    return UndoPlan(row, row.file, now_text, now_hash, now_text, clashes=[clash], forced=text or "", whole=True,
                    deletable=deletable)


def later_text_of(mem: Memory, bot: str, row: Row, now: FileText | None) -> str | None:
    """The text an older row (one without its own lines) left: the file now while it is what the row left,
    else the earlier text of the next row of the same file (the journal is a chain)."""
    if row.edits is not None:
        return None
    if now is not None and now.hash == row.after_hash:
        return now.text
    if now is None and row.after_hash is None:
        return ""
    found: str | None = None
    for r in _newer(mem.journal.rows(bot), row.id):
        if r.file == row.file and r.before_hash == row.after_hash and r.earlier_text is not None:
            found = r.earlier_text   # the oldest such row after it is the one that follows it
    return found


def _newer(rows: Iterator[Row], row_id: str) -> Iterator[Row]:
    for r in rows:
        if r.id == row_id:
            return
        yield r


def plan(mem: Memory, bot: str, row_id: str, *, whole: bool = False) -> UndoPlan:
    """What undoing row *row_id* of *bot* would do now (nothing is written)."""
    mem.home.require_bot(bot)
    row = mem.journal.find(bot, row_id)
    if not row.undoable:
        raise Refused(f"row {row_id} cannot be undone: {row.reason}")
    now = mem.store.read(bot, row.file)
    deletable = not (mem.home.classify(bot, row.file) is FileKind.MEMORY and not mem.home.is_tracked(bot))
    return plan_row(row, now, later_text_of(mem, bot, row, now), whole=whole, deletable=deletable)


@dataclass(frozen=True)
class Undone:
    """An undo written: its plan, and the change that wrote it (None: nothing to write)."""

    plan: UndoPlan
    change: Change | None
    forced: bool = False     # the clashes were resolved by the row's lines


def undo_row(mem: Memory, bot: str, row_id: str, *, whole: bool = False, force: bool = False,
             expected_hash: str | None = None) -> Undone:
    """Undo row *row_id*: plan it and write it under the workspace lock, hash-checked.

    A clash is :class:`UndoConflict` (nothing written) unless *force*, which
    puts the row's lines in every clash; *expected_hash*: the file must still
    be what the person saw (the text a conflict showed), else :class:`Conflict`.
    Refused when the only lines to bring back held a credential (naming them).
    """
    with mem.store.locked(bot):
        p = plan(mem, bot, row_id, whole=whole)
        force = force and bool(p.clashes)
        if expected_hash is not None and p.now_hash != expected_hash:
            raise Conflict(p.file, p.now_text or "", p.now_hash or "")
        if p.clashes and not force:
            raise UndoConflict(p)
        text = p.written(force)
        if text == p.now_text:
            if p.withheld:
                raise Refused(_withheld_message(p))
            return Undone(p, None)
        changes = mem.store.apply(bot, [Write(p.file, text, p.now_hash, checked=True, undoes=row_id)], UNDO_ACTOR,
                                  allow_log=True)
    return Undone(p, changes[0] if changes else None, force)


def _withheld_message(p: UndoPlan) -> str:
    return (f"row {p.row.id} cannot be undone: the lines it would bring back held a credential, which the "
            f"journal keeps only redacted: {_shown(p.withheld)}")


def withheld_message(row_id: str, withheld: Sequence[str], others: bool) -> str:
    """The line naming the lines of a row that did not come back (they held a credential): exit 4 says it."""
    return (f"{counted(len(withheld), 'line')} of row {row_id} did not come back: {_shown(withheld)} held a "
            "credential, which the journal keeps only redacted" + ("; every other line came back" if others else ""))


def foresee(home: Home, bot: str | None, rel: str, now: FileText | None, new_text: str | None) -> list[str]:
    """What the row of a change about to be made could not bring back, said before it is made (the CLI puts it
    on stderr, the panel in its dialog): *now* is the file as read (None: it does not exist yet), *new_text*
    what will be written (None: the file is deleted); *bot* None for About me.

    A file larger than the journal keeps (``memory.journalKeepMB``) cannot be undone at all; a line holding a
    credential that the change takes out or rewrites (a workspace's writes redact it) is kept only redacted,
    so undo cannot bring that line back.
    """
    if now is None or not now.valid:   # not UTF-8: a save is refused, and rm says why its row cannot be undone
        return []
    limit = keep_limit(home)
    size = len(now.text.encode("utf-8"))
    if size > limit:
        return [f"{rel} is {_size(size)}, larger than the {_size(limit)} of earlier text the journal keeps "
                "(memory.journalKeepMB in config.json): this change cannot be undone"]
    from ..redact import contains_secret, redact

    if not contains_secret(now.text):
        return []
    raw = bot is None or home.is_tracked(bot)        # a tracked folder and About me are written as given
    written = "" if new_text is None else new_text if raw else redact(new_text)
    now_lines = split_lines(now.text)
    m = align(now_lines, split_lines(written))
    out = []
    for i, line in enumerate(now_lines):
        if m[i] < 0 and line.strip() and contains_secret(line):
            shown = redact(line).strip()
            shown = shown if len(shown) <= 70 else shown[:69] + "…"
            out.append(f'{rel} line {i + 1} holds a credential ("{shown}"): the journal keeps only its redacted '
                       "copy, so undoing this change cannot bring that line back")
    return out


def _size(n: int) -> str:
    from .journal import _mb

    return _mb(n)


__all__ = ["UndoConflict", "UndoPlan", "Undone", "foresee", "later_text_of", "plan", "plan_row", "undo_row",
           "withheld_message"]
