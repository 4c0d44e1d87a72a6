"""The recent-work brief of a Claude Code project: what Claude said last in each of the project's other sessions.

A Claude Code session starts knowing nothing of what the project's other sessions did yesterday. This brief is
the newest thing Claude said in each of them over the last two days (today and yesterday, by the home's date:
``--today`` stands for it), one line each, newest first, within the brief's limits (:data:`.recent.MAX_LINES`
lines, about 350 tokens), the current session left out:

``today 09:05 · session · "Fix the flaky login test" · you said: "The test waited on a timer; it now …"``

A session is named by the prompt that led to that message. With *across* (a second switch, off by default),
the other projects' sessions are in it too, each named by its project (``session in billing-api``).

It is read from Claude Code's own transcripts, newest first by modification time, each only from its end
(:func:`botmemory.core.kinds.claude_code_sessions.newest`), and stops once it has its lines: a project with
hundreds of transcripts and gigabytes of tool output costs a few tails. Every text is redacted before it is
put in a line.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from pathlib import Path

from ..kinds.claude_code_sessions import Projects, Transcript, newest, subdirs, transcripts
from .recent import MAX_LINES, Brief, Said, fit

HEADER = ("What you did lately in this project's other Claude Code sessions (the newest thing you said in each, "
          "today and yesterday; session_search finds more):")
HEADER_ACROSS = ("What you did lately in your other Claude Code sessions, this project's and other projects' "
                 "(the newest thing you said in each, today and yesterday; session_search finds more in this "
                 "project's):")
TITLE_MAX = 60
SAID_KEPT = 500
"""What a line's ``said`` keeps of a message (the block quotes less: :data:`.recent.SAID_MAX`)."""


def window(today: date) -> tuple[datetime, datetime]:
    """The brief's two days as local times: yesterday's start (inclusive) to tomorrow's start (exclusive)."""
    start = datetime.combine(today - timedelta(days=1), time.min).astimezone()
    return start, datetime.combine(today + timedelta(days=1), time.min).astimezone()


def is_current(session: str, current: str | None) -> bool:
    """Whether *session* is the one the brief is for: *current* is its id, or its chat (``Claude Code <id…>``)."""
    if not current:
        return False
    current = current.strip()
    if current.startswith("Claude Code "):
        prefix = current[len("Claude Code "):].strip()
        return bool(prefix) and session.startswith(prefix)
    return session == current


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def session_brief(memory: Path, today: date, user_home: Path, env: Mapping[str, str], *, current: str | None = None,
                  cwd: str | None = None, across: bool = False) -> Brief:
    """The brief for a session of the project whose memory folder is *memory* (*cwd*: the session's folder,
    when known; *current*: the session left out); *across*: the other projects' sessions too."""
    from ..redact import redact

    start, end = window(today)
    after = start.timestamp()
    projects = Projects(user_home, env)
    own = projects.dirs_of(memory, cwd)
    found: list[tuple[Transcript, str]] = [(t, "") for d in own for t in transcripts(d) if t.mtime >= after]
    if across:
        mine = set(own)
        for d in subdirs(projects.base):
            if d in mine:
                continue
            recent = [t for t in transcripts(d) if t.mtime >= after]
            if recent:
                name = redact(projects.name_of(d))
                found.extend((t, name) for t in recent)
    found.sort(key=lambda f: f[0].mtime, reverse=True)
    lines: list[Said] = []
    for t, project in found:
        if len(lines) >= MAX_LINES:
            break
        if is_current(t.session, current):
            continue
        got = newest(t.path, start, end)
        if got is None:
            continue
        title = _cut(_one_line(redact(got.asked)), TITLE_MAX) if got.asked else ""
        lines.append(Said(got.said.at.date(), got.said.at.strftime("%H:%M"),
                          title or f"Claude Code {t.session[:8]}", "session",
                          _cut(_one_line(redact(got.said.text)), SAID_KEPT), session=t.session, project=project))
    lines.sort(key=lambda s: (s.day, s.time), reverse=True)
    kept, text = fit(lines, today, HEADER_ACROSS if across else HEADER)
    return Brief(kept, [], text)
