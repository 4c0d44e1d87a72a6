"""About me's learned lines: the facts bots added on their own, and taking one out.

A learned line in ``<home>/about-me.md`` is ``- YYYY-MM-DD · learned by BOT · TEXT``
(:func:`botmemory.core.notes.update.prefer` writes them). :func:`learned_lines` lists
them newest first, each with a stable id (a hash of the line), and
:func:`remove_learned` takes one out of About me and keeps its text under
``removed`` in ``<home>/profile-learned.json``, so the fact is never added again
(``prefer`` refuses it). Lines the person wrote by hand are never listed here.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..base.errors import BadInput
from ..disk.paths import Home
from ..disk.safeio import atomic_write, read_file
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


def remove_learned(home: Home, line_id_: str, today: date) -> LearnedLine:
    """Take learned line *line_id_* out of About me; its fact is never added again.

    BadInput when no learned line has that id (or About me is not valid UTF-8).
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
        removed = data["removed"] if isinstance(data.get("removed"), list) else []
        if not any(isinstance(r, dict) and same_fact(str(r.get("text", "")), gone.text) for r in removed):
            removed.append({"text": gone.text, "bot": gone.bot, "at": today.isoformat()})
        data["removed"] = removed
        _write_learned(home, data)  # first: a crash between the two leaves the fact refused, not re-learnable
        drop = {j for j, _ in hits}
        keep = [line for i, line in enumerate(lines) if i not in drop]
        atomic_write(home.about_me, "\n".join(keep).encode("utf-8"))
    return gone
