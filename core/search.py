"""Session search over memory (``session_search``): every word, within a date range, read from the files.

:mod:`.recall` describes the matching (whole words, plural ``s`` folded, Chinese and Japanese as written).
"""
from __future__ import annotations


import logging
import os
from collections.abc import Sequence
from datetime import date, timedelta

from .entries import scan, search_text
from .errors import BadInput, BotMemoryError
from .paths import FileKind, Home, parse_day
from .safeio import read_file
from .words import cjk_runs, normalize, is_cjk_token
from .passages import Hit, _DAY, _REL_WHEN, _local_day, _topic_body, _words, fold

logger = logging.getLogger(__name__)


def parse_when(text: str, today: date, what: str) -> date:
    """A day from ``24h`` (today and yesterday), ``3d`` (three days before today), ``yesterday``,
    ``today`` or ``YYYY-MM-DD``. ``Nh`` is rounded up to whole days."""
    t = text.strip().lower()
    try:
        if t == "today":
            return today
        if t == "yesterday":
            return today - timedelta(days=1)
        m = _REL_WHEN.fullmatch(t)
        if m:
            n = int(m.group(1))
            days = n if m.group(2) == "d" else -(-n // 24)
            return today - timedelta(days=days)
    except OverflowError:
        raise BadInput(f"bad {what} {text!r}: that is before the first day there is") from None
    if _DAY.fullmatch(t):
        return parse_day(t, what)
    raise BadInput(f"bad {what} {text!r}: use 24h, 3d, yesterday, today or a date YYYY-MM-DD")


def _search_keys(words: Sequence[str]) -> set[str]:
    keys: set[str] = set()
    for w in words:
        found = _words(w)
        if not found:
            raise BadInput(f"bad search word {w!r}: it has no letters or digits")
        keys.update(fold(x) for x in found)
    return keys


def search(home: Home, bot: str, words: Sequence[str], since: date | None, until: date | None, *,
           include_memory: bool = True) -> list[Hit]:
    """Session search over memory: units holding every word, dated within [since, until].

    Units: each line of a daily log (an entry with its own lines) dated by the
    log's day; dated entries (struck too) with their own lines, by their date;
    every other line, by the file's modification date. Newest first, then by file.
    ``include_memory=False`` (memory switched off) finds nothing.
    """
    home.require_bot(bot)
    keys = _search_keys(words)
    runs = [r for w in words for r in cjk_runs(w) if len(r) > 2]   # a CJK word matches as written
    # one CJK character is a word (猫) but never a token (the text's CJK runs are bigrams): inside the text is
    # enough, as entries.whole_word has it for forget and journal --grep
    tokened = {k for k in keys if not (len(k) == 1 and is_cjk_token(k))}
    if since is not None and until is not None and since > until:
        raise BadInput(f"since {since.isoformat()} is after until {until.isoformat()}: nothing can match")
    if not keys and since is None and until is None:
        raise BadInput("search needs words, a since or an until")
    if not include_memory:
        return []

    def in_range(day: date) -> bool:
        return (since is None or day >= since) and (until is None or day <= until)

    ws = home.workspace(bot)
    found: list[tuple[int, str, int, Hit]] = []
    for rel in home.memory_files(bot):
        kind = home.classify(bot, rel)
        log_day = date.fromisoformat(rel[-13:-3]) if kind is FileKind.LOG else None
        if log_day is not None and not in_range(log_day):
            continue
        path = ws / rel
        try:
            ft = read_file(path, home.trust_root(bot))   # first: nothing is looked at through a link
            st = os.lstat(path)
        except (BotMemoryError, OSError) as e:
            logger.info("search skips %s: %s", rel, e)
            continue
        if ft is None:
            continue
        text = ft.text
        if keys:
            whole = normalize(text)
            if not all(k in whole for k in keys):
                continue    # a word that is not even inside the file's text (the cheap test first)
        if kind is FileKind.TOPIC:
            text = _topic_body(text)
        mday = _local_day(st.st_mtime)
        for i, block in enumerate(scan(text)):
            if isinstance(block, str):     # a hand-written or blank line: no Block made unless it matches
                if not block.strip():
                    continue
                lines: tuple[str, ...] = (block,)
                matched = block     # a line's search text is the line (entries.search_text)
                unit_day = None
                if keys:
                    low = block.lower() if block.isascii() else normalize(block)
                    if not all(k in low for k in keys):
                        continue    # the cheap test first
            else:
                lines = block.lines
                matched = search_text(block)
                unit_day = block.date
            day = log_day or unit_day or mday
            if not in_range(day):
                continue
            if keys:
                low = normalize(matched)
                if not all(k in low for k in keys):
                    continue
                have = {fold(w) for w in _words(matched)}
                if not tokened <= have:
                    continue
                if runs and not all(r in low for r in runs):
                    continue
            shown = " ".join(ln.strip() for ln in lines if ln.strip())
            found.append((-day.toordinal(), rel, i, Hit(rel, day, shown)))
    found.sort(key=lambda t: t[:3])
    return [t[3] for t in found]
