"""The home's own journal: About me (``<home>/about-me.md``) and the ``profile-learned.json`` entries that ride
with its changes, journaled like a bot's files.

About me belongs to the home, not to a workspace, and every bot reads it, so
its rows live in their own file beside the bots', ``<home>/memory-journal/@home.ndjson``
(:data:`~botmemory.core.store.journal.HOME`, never a bot id), written under the
home lock that About me is written under. Its shadow — what the app last knew
of About me, redacted — is ``<home>/botmemory/shadows/@home.json``: before a
change is recorded, an edit made elsewhere since (Settings, an editor) is
recorded first as its own "changed outside the app" row, so About me's rows
form a chain like a bot file's.

A row says who: ``person`` (``prefer`` and ``forget`` from the CLI, Remove in
the panel), ``bot`` (``prefer`` in a chat, ``from_bot`` naming it) or
``upkeep`` (``capture``'s learned lines); its ``learned`` field holds the
``profile-learned.json`` entries the change added and dropped (forgotten words,
removed facts), which an undo drops and adds back (``notes.about_me``).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from ..base.errors import BotMemoryError
from ..base.log import get_logger
from ..disk.paths import Home
from ..disk.safeio import FileText, WorkspaceLock, atomic_write, read_file, text_hash
from .journal import HOME, Journal, Row, make_row
from .writer import Actor, Change, new_change_id

logger = get_logger(__name__)

ABOUT_ME = "about-me.md"
LEARNED = "profile-learned.json"
LEARNED_KEYS = ("forgotten", "removed")
OUTSIDE = Actor("person", "outside")


def home_lock(home: Home) -> WorkspaceLock:
    """The lock About me and ``profile-learned.json`` are written under (and the home's journal appended)."""
    return WorkspaceLock.for_file(home.state_dir / "locks" / "_home.lock", home.root)


def _shadow_path(home: Home) -> Any:
    return home.state_dir / "shadows" / f"{HOME}.json"


@dataclass(frozen=True)
class HomeShadow:
    """What the app last knew of About me: its hash (None: no file) and its redacted text."""

    hash: str | None
    text: str
    secret: bool = False


def read_shadow(home: Home) -> HomeShadow | None:
    """About me's shadow, or None when no baseline was taken (or it is damaged: a new one is taken)."""
    try:
        ft = read_file(_shadow_path(home), home.root)
    except (OSError, BotMemoryError) as e:
        logger.warning("cannot read About me's shadow: %s", e)
        return None
    if ft is None:
        return None
    try:
        d = json.loads(ft.text)
    except (ValueError, RecursionError):
        return None
    if not (isinstance(d, dict) and (d.get("hash") is None or isinstance(d.get("hash"), str))
            and isinstance(d.get("text"), str) and isinstance(d.get("secret"), bool)):
        return None
    return HomeShadow(d["hash"], d["text"], d["secret"])


def save_shadow(home: Home, text: str | None) -> None:
    """Keep *text* (None: About me does not exist) as what the app last knew, redacted."""
    from ..redact import contains_secret, redact

    secret = text is not None and contains_secret(text)
    kept = (redact(text) if secret else text) if text is not None else ""
    data = {"hash": text_hash(text) if text is not None else None, "text": kept, "secret": secret}
    atomic_write(_shadow_path(home), json.dumps(data, ensure_ascii=False).encode("utf-8"), home.root)


def learned_delta(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``profile-learned.json`` entries a change added and dropped, per list; None when none."""
    out: dict[str, Any] = {}
    for k in LEARNED_KEYS:
        was = [e for e in before.get(k, []) if isinstance(e, dict)] if isinstance(before.get(k), list) else []
        now = [e for e in after.get(k, []) if isinstance(e, dict)] if isinstance(after.get(k), list) else []
        added = [e for e in now if e not in was]
        dropped = [e for e in was if e not in now]
        if added or dropped:
            out[k] = {"added": added, "dropped": dropped}
    return out or None


def describe_delta(delta: Mapping[str, Any] | None) -> str:
    """The learned entries of a row in words, for its diff (``profile-learned.json``'s part)."""
    if not delta:
        return ""
    lines = []
    for k in LEARNED_KEYS:
        part = delta.get(k)
        if not isinstance(part, dict):
            continue
        for tag, key in (("+", "added"), ("-", "dropped")):
            for e in part.get(key, []):
                what = " ".join(str(w) for w in e.get("words", [])) if k == "forgotten" else str(e.get("text", ""))
                label = "forgotten words" if k == "forgotten" else "removed from About me, never added again"
                lines.append(f"{tag}{label}: {what}")
    return f"--- a/{LEARNED}\n+++ b/{LEARNED}\n" + "\n".join(lines) + "\n" if lines else ""


def catch_up(home: Home, journal: Journal | None = None) -> list[Row]:
    """Record an edit of About me made outside the app since its last row (the first call takes a baseline
    silently). Returns the rows written."""
    journal = journal or Journal(home)
    with home_lock(home).held():
        try:
            ft = read_file(home.about_me)
        except BotMemoryError as e:
            logger.warning("cannot read About me: %s", e)
            return []
        sh = read_shadow(home)
        if sh is None:
            save_shadow(home, ft.text if ft is not None and ft.valid else None)
            return []
        rows = _outside(home, sh, ft, datetime.now(UTC))
        if rows:
            _append(journal, rows)
            save_shadow(home, ft.text if ft is not None else None)
        return rows


def _outside(home: Home, sh: HomeShadow, ft: FileText | None, at: datetime) -> list[Row]:
    """The row of an outside edit: About me now (*ft*) is not what its shadow says."""
    now_hash = ft.hash if ft is not None else None
    if now_hash == sh.hash:
        return []
    before = sh.text if sh.hash is not None else None
    change = Change(HOME, ABOUT_ME, before, sh.hash, ft.text if ft is not None else None, now_hash, OUTSIDE, at,
                    before_valid=True, id=new_change_id(at))
    return [make_row(change, earlier_secret=sh.secret)]


def record(home: Home, actor: Actor, before: FileText | None, after: str | None, *, from_bot: str | None = None,
           learned_before: Mapping[str, Any] | None = None, learned_after: Mapping[str, Any] | None = None,
           undoes: str | None = None, journal: Journal | None = None) -> Row | None:
    """Journal one change of About me, made just now under the held home lock: *before* as it was read
    (None: no file), *after* as written (the same text: About me did not change). The entries of
    ``profile-learned.json`` it added or dropped (*learned_before* → *learned_after*) ride with it; a change of
    those alone is a row of ``profile-learned.json``. Journaling never fails the change: a row that cannot be
    written is logged and dropped. Returns the row, or None when nothing changed.
    """
    journal = journal or Journal(home)
    delta = learned_delta(learned_before or {}, learned_after or {}) if learned_after is not None else None
    before_text = before.text if before is not None else None
    about_changed = before_text != after
    if not about_changed and delta is None:
        return None
    at = datetime.now(UTC)
    rows: list[Row] = []
    try:
        sh = read_shadow(home)
        if sh is not None:
            rows += _outside(home, sh, before, at - timedelta(milliseconds=1))
        if about_changed:
            change = Change(HOME, ABOUT_ME, before_text, before.hash if before is not None else None, after,
                            text_hash(after) if after is not None else None, actor, at,
                            before_valid=before.valid if before is not None else True, id=new_change_id(at),
                            undoes=undoes)
            row = make_row(change)
            if delta:
                row = replace(row, diff=row.diff + describe_delta(delta))
        else:   # profile-learned.json alone: its entries are what an undo reverses
            was, now = _json(learned_before or {}), _json(learned_after or {})
            change = Change(HOME, LEARNED, was, text_hash(was), now, text_hash(now), actor, at,
                            id=new_change_id(at), undoes=undoes)
            row = replace(make_row(change), diff=describe_delta(delta))
        rows.append(replace(row, from_bot=from_bot, learned=delta))
        _append(journal, rows)
        save_shadow(home, after)
    except (OSError, BotMemoryError) as e:
        logger.warning("could not journal a change of About me (%s): the change stands", e)
        return None
    return rows[-1]


def _json(data: Mapping[str, Any]) -> str:
    return json.dumps(dict(data), indent=2, ensure_ascii=False) + "\n"


def _append(journal: Journal, rows: Sequence[Row]) -> None:
    journal.append(HOME, journal.within_limit(rows))


__all__ = ["ABOUT_ME", "HomeShadow", "LEARNED", "catch_up", "describe_delta", "home_lock", "learned_delta",
           "read_shadow", "record", "save_shadow"]
