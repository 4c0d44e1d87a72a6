"""The recent-work brief: the newest thing a bot said in each of its *other* conversations, lately.

The spec's "What a bot knows about its other conversations": every turn's prompt carries a short block —
``today 09:05 · 1:1 · "Invoice reconciliation" · you said: "Sent the three flagged invoices…"`` — one line a
conversation, newest first, over the last two days (today and yesterday, by the home's date: ``--today``
stands for it), at most ten lines and about 350 tokens, the current conversation left out.

It is read from what botmemory already records when a turn ends: the day's log line
(``memory/log/YYYY-MM-DD.md``: ``- HH:MM · chat "T" · what the bot said last [· tools: …] [· failed]``, or
``room "T"`` for a room's turn). Those lines were redacted when they were written; the brief redacts them
again, so a line edited by hand since cannot carry a credential into a prompt.

When a brief is shown in a room and names a private 1:1 chat, the room is told once per chat (``chips``),
the same rule as recalled messages.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from ..text.entries import DOT, clean_title

MAX_LINES = 10
MAX_CHARS = 1400            # about 350 tokens at four characters a token
SAID_MAX = 160              # what one line quotes of what was said
HEADER = ("What you did lately in your other conversations (the newest thing you said in each; "
          "ask session_search for more):")

# - 09:05 · chat "Invoices" · Sent the three flagged invoices to Milind. · tools: mail · failed
_LINE = re.compile(r'^- (?P<hh>[0-2]\d):(?P<mm>[0-5]\d)' + re.escape(DOT) + r'(?P<kind>chat|room) "(?P<chat>[^"]*)"'
                   + re.escape(DOT) + r'(?P<rest>.*)$')
_TAIL = re.compile(re.escape(DOT) + r'(?:tools: [^\n]*|failed)$')


@dataclass(frozen=True)
class Said:
    """One conversation's newest line: when, which chat, 1:1 or room, and what the bot said."""

    day: date
    time: str                 # HH:MM, the computer's clock when the turn ended
    chat: str
    kind: str                 # "1:1" or "room"; "session" for a Claude Code session
    said: str
    failed: bool = False
    session: str = ""         # a Claude Code session's id
    project: str = ""         # a Claude Code session of another project: that project's name

    @property
    def at(self) -> str:
        return f"{self.day.isoformat()}T{self.time}"

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"at": self.at, "chat": self.chat, "kind": self.kind, "said": self.said}
        if self.session:
            d["session"] = self.session
        if self.project:
            d["project"] = self.project
        return d


@dataclass(frozen=True)
class Brief:
    """The brief a bot gets now: its lines, newest first, the chips a room is shown, and the block's text."""

    lines: list[Said] = field(default_factory=list)
    chips: list[str] = field(default_factory=list)     # private 1:1 chats a brief shown in a room names
    text: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"lines": [s.as_dict() for s in self.lines], "chips": [{"chat": c} for c in self.chips],
                "text": self.text}


def parse_log(text: str, day: date) -> Iterable[Said]:
    """The turn lines of one daily log (other lines — a person's notes in it — are skipped)."""
    for raw in text.splitlines():
        m = _LINE.match(raw)
        if m is None:
            continue
        rest, failed = m.group("rest"), False
        while True:   # the suffixes a log line may end with, from the end
            t = _TAIL.search(rest)
            if t is None:
                break
            failed = failed or t.group(0).endswith("failed")
            rest = rest[:t.start()]
        said = rest.strip()
        yield Said(day, f"{m.group('hh')}:{m.group('mm')}", m.group("chat"),
                   "room" if m.group("kind") == "room" else "1:1",
                   "" if said == "(said nothing)" else said, failed)


def _when(s: Said, today: date) -> str:
    return f"{'today' if s.day == today else 'yesterday' if s.day == today - timedelta(days=1) else s.day} {s.time}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def line_text(s: Said, today: date) -> str:
    """``today 09:05 · 1:1 · "Invoices" · you said: "Sent the three flagged invoices…"``"""
    what = f'you said: "{_cut(s.said, SAID_MAX)}"' if s.said else "you said nothing"
    kind = f"{s.kind} in {s.project}" if s.project else s.kind
    return DOT.join([_when(s, today), kind, f'"{s.chat}"', what + (" (the turn failed)" if s.failed else "")])


def compose(saids: Sequence[Said], today: date, current: str | None = None, in_room: bool = False) -> Brief:
    """The brief from every turn line of the window, oldest first as the logs hold them: each conversation's
    newest, the current one left out."""
    from ..redact import redact

    current_title = clean_title(current) if current else None
    newest: dict[tuple[str, str], tuple[tuple[date, str, int], Said]] = {}
    for i, s in enumerate(saids):    # in the order written: of two lines in the same minute, the later is newer
        key, when = (s.kind, s.chat), (s.day, s.time, i)
        if s.chat != current_title and (key not in newest or when >= newest[key][0]):
            newest[key] = (when, s)
    ordered = [s for _, s in sorted(newest.values(), key=lambda w: w[0], reverse=True)][:MAX_LINES]
    ordered = [Said(s.day, s.time, s.chat, s.kind, redact(s.said), s.failed) for s in ordered]
    kept, text = fit(ordered, today, HEADER)
    chips = [s.chat for s in kept if s.kind == "1:1"] if in_room else []
    return Brief(kept, list(dict.fromkeys(chips)), text)


def fit(ordered: Sequence[Said], today: date, header: str) -> tuple[list[Said], str]:
    """The lines that fit the brief's limits (:data:`MAX_LINES`, :data:`MAX_CHARS` with *header*), newest
    first as given, and the block's text ("" when none)."""
    kept: list[Said] = []
    rendered: list[str] = []
    size = len(header)
    for s in ordered[:MAX_LINES]:
        line = "- " + line_text(s, today)
        if size + 1 + len(line) > MAX_CHARS:
            break
        kept.append(s)
        rendered.append(line)
        size += 1 + len(line)
    return kept, (header + "\n" + "\n".join(rendered)) if rendered else ""


def is_room(saids: Iterable[Said], chat: str) -> bool:
    """Was *chat* a room when its turns were logged."""
    title = clean_title(chat)
    return any(s.chat == title and s.kind == "room" for s in saids)
