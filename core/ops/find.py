"""Recall and session search as one rule for every face: the light door.

``botmemory recall`` runs before every turn of a harness, so this module takes a :class:`Home` (not the
opened :class:`Memory`, whose store, journal and shadows a read does not need) and imports only recall's
and search's own modules — :mod:`botmemory.core.faces.entry`'s fast path and the full operations
(:func:`botmemory.core.ops.operations.recall`, ``search``) both answer through it, so the two can never
differ: a Hermes folder says it keeps no topics, search needs words or a range, memory switched off finds
nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from ..base.errors import BadInput
from ..disk.paths import Home
from ..recall.passages import WHY_NO_MATCH, RecallResult
from ..recall.passages import Hit as Hit

WHY_NO_TOPICS = "This agent loads all of its memory every session and keeps no topics: recall adds nothing."


def open_home(root: str | None, today: str | None = None, bot: str | None = None) -> tuple[Home, date]:
    """The home at *root* (``--root``, else the usual places) and today's date; it serves its tracked folders
    too unless *bot* is one of its workspaces (a workspace's recall never reads tracked.json)."""
    from ..disk.paths import check_bot_id, check_owner
    from ..disk.paths import today as local_today

    home = Home.locate(root)
    check_owner(home.root)      # root on another user's home: refused, one line (its index would be root's)
    if bot is None or not (home.workspaces / check_bot_id(bot)).is_dir():   # a bad id: BadInput, never a path
        from ..kinds.tracked import attach

        home = attach(home)
    return home, local_today(today)


def recall_in(home: Home, bot: str, message: str, today: date, *, deadline: float | None = None,
              inline: int | None = None) -> RecallResult:
    """The notes recall puts in front of *message* for *bot* (a workspace or a tracked folder); *deadline* and
    *inline*: see :func:`botmemory.core.recall.query.recall` (a hook that must answer in time)."""
    from ..recall import query

    result = query.recall(home, bot, message, today, deadline=deadline, inline=inline)
    if not result.notes and result.why == WHY_NO_MATCH and home.kind_name(bot) == "hermes":
        return RecallResult([], "", WHY_NO_TOPICS)
    return result


def search_range(since: str | date | None, until: str | date | None, today: date, words: Sequence[str] = (), *,
                 names: tuple[str, str, str] = ("search", "--since", "--until")) -> tuple[date | None, date | None]:
    """``since``/``until`` as dates (``24h``, ``3d``, ``yesterday``, a date); a search needs words or one of them.
    *names*: the command and its two options as the caller's face spells them (for the messages)."""
    from ..recall.search import parse_when

    what, since_name, until_name = names
    start = parse_when(since, today, since_name) if isinstance(since, str) else since
    end = parse_when(until, today, until_name) if isinstance(until, str) else until
    if not words and start is None and end is None:
        raise BadInput(f"{what} needs words, {since_name} or {until_name}")
    return start, end


def search_in(home: Home, bot: str, words: Sequence[str], since: str | date | None, until: str | date | None,
              today: date, *, names: tuple[str, str, str] = ("search", "--since", "--until")) -> list[Hit]:
    """Session search over *bot*'s memory: units holding every word in the range, newest first; nothing is
    found in the memory files while memory is switched off for *bot*. For a tracked Claude Code folder, the
    project's session transcripts too (:mod:`botmemory.core.recall.sessions`: hits with ``"session"``)."""
    from ..disk import config
    from ..recall.search import search

    home.require_bot(bot)
    start, end = search_range(since, until, today, words, names=names)
    on = config.bot_settings(home, bot).memory
    hits = search(home, bot, words, start, end, include_memory=on)
    if on and home.kind_name(bot) == "claude-code":     # a Claude Code project's own sessions too
        import os
        from pathlib import Path

        from ..recall.sessions import search_sessions

        more = search_sessions(home.workspace(bot), words, start, end, Path.home(), os.environ)
        if more:   # by day, newest first; within a day the memory's hits, then the sessions' newest first
            hits = sorted([*hits, *more], key=lambda h: -h.date.toordinal())
    return hits
