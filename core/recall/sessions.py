"""Session search over a Claude Code project's own sessions: its transcripts, read as conversations.

For a tracked Claude Code folder, ``session_search`` (``botmemory search ID``, MCP) also looks in the
transcripts of the project's sessions (:func:`botmemory.core.kinds.claude_code_sessions.Projects.dirs_of`):
the person's words and Claude's text, never a tool's output. A message matches as a memory unit does
(:mod:`.search`: every word, whole words, plural ``s`` folded), dated by its own timestamp (local time), so
``--since yesterday`` with no words is "what did we do since yesterday". A transcript last written before
*since* is not opened; in the others only the lines whose bytes hold every (ASCII) word are parsed.

Each message is redacted before it is matched or shown (a credential pasted into a prompt is never a hit's
text, nor found by its own characters); a hit shows at most :data:`SNIPPET` characters around the first word,
names its session (``file`` is ``session:<id>``, ``"session"`` the id) and its time (``"at"``). Newest first,
at most :data:`MAX_HITS`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, time
from pathlib import Path

from ..base.record import record
from ..kinds.claude_code_sessions import Projects, messages, transcripts
from ..text.words import normalize
from .passages import Hit
from .search import _Query

MAX_HITS = 200
SNIPPET = 400
BEFORE = 120
"""How much of a message before the first word a snippet keeps."""


@record(frozen=True)
class SessionHit(Hit):
    """A message of a Claude Code session: ``file`` is ``session:<id>``; *session* the id, *at* its local time
    (``YYYY-MM-DDTHH:MM``), *who* ``person`` or ``claude``."""

    session: str = ""
    at: str = ""
    who: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "date": self.date.isoformat(), "text": self.text, "session": self.session,
                "at": self.at, "who": self.who}

    def plain(self) -> str:
        return f"{self.file} · {self.at.replace('T', ' ')} · {self.who}: {self.text}"


def _snippet(text: str, query: _Query | None) -> str:
    text = " ".join(text.split())
    if len(text) <= SNIPPET:
        return text
    at = 0
    if query is not None:
        low = normalize(text)
        hits = [i for k in sorted(query.keys, key=len, reverse=True) if (i := low.find(k)) >= 0]
        at = max(min(hits) - BEFORE, 0) if hits and len(low) == len(text) else 0
    out = text[at:at + SNIPPET - 2].strip()
    return ("…" if at else "") + out + ("…" if at + SNIPPET - 2 < len(text) else "")


def search_sessions(memory: Path, words: Sequence[str], since: date | None, until: date | None,
                    user_home: Path, env: Mapping[str, str]) -> list[SessionHit]:
    """The messages of the project's sessions (the project whose auto memory is *memory*) holding every word,
    dated within [since, until]; newest first, at most :data:`MAX_HITS`."""
    from ..redact import redact

    query = _Query.of(words) if words else None
    after = datetime.combine(since, time.min).astimezone().timestamp() if since is not None else None
    keys = query.ascii if query is not None else ()
    specials = query.specials if query is not None else ()

    def keep(raw: bytes) -> bool:      # the cheap test first, as search's in_file
        if any(probe in raw and s in raw for probe, s in specials):
            return True
        low = raw.lower()
        return all(k in low for k in keys)

    found: list[tuple[datetime, SessionHit]] = []
    for folder in Projects(user_home, env).dirs_of(memory):
        for t in transcripts(folder):
            if after is not None and t.mtime < after:
                continue
            for m in messages(t.path, keep if keys else None):
                day = m.at.date()
                if since is not None and day < since or until is not None and day > until:
                    continue
                text = redact(m.text)
                if query is not None and not query.matches(text):
                    continue
                found.append((m.at, SessionHit(f"session:{t.session}", day, _snippet(text, query), t.session,
                                               m.at.strftime("%Y-%m-%dT%H:%M"),
                                               "person" if m.role == "person" else "claude")))
    found.sort(key=lambda f: f[0], reverse=True)
    return [h for _, h in found[:MAX_HITS]]
