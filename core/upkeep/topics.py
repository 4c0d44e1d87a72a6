"""Filing into topics, shared by capture and organizing: topic names, the topic list, headers.

- :class:`FilingReport` — what capture's and organizing's reports share: the
  skips (redacted), the changes and their rows, the helper used;
- :func:`normalise` — text as quotes are compared (NFKC, quote marks and
  whitespace folded, case folded);
- :func:`topic_slug` / :func:`find_topic` — the topic a model names: an existing
  one by file name, title or alias, else a new ``memory/<slug>.md``;
- :func:`topic_header` — a new topic's ``title`` and ``aliases`` frontmatter;
- :func:`list_topics` — every topic with its frontmatter, read without the YAML
  parser when it is the simple form, and kept between batches in
  ``<home>/botmemory/capture/<bot>.topics.json`` (see its notes).
"""
from __future__ import annotations

import json
import os
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import BadInput, BotMemoryError
from ..base.log import get_logger
from ..disk.paths import FileKind, Home, check_bot_id, classify
from ..disk.safeio import atomic_write, read_file
from ..redact import contains_secret, redact
from ..store.memory import Memory
from ..store.writer import Change
from ..text.budget import Topic
from ..text.frontmatter import Frontmatter, quick_frontmatter

logger = get_logger(__name__)

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                         "\u00ab": '"', "\u00bb": '"', "`": "'"})


@dataclass(kw_only=True)
class FilingReport:
    """What capture's and organizing's reports share (keyword-only, so a report's own fields come first)."""
    skipped: list[dict[str, str]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    helper: str | None = None

    def skip(self, what: str, reason: str) -> None:
        """Note a skip; redacted, since the report is kept outside the workspace (a skipped fact may be a secret)."""
        self.skipped.append({"what": redact(what), "reason": redact(reason)})

    @property
    def rows(self) -> list[str]:
        return [c.id for c in self.changes]


def normalise(text: str) -> str:
    """For comparing quotes: NFKC, quote marks folded, whitespace folded, case folded."""
    t = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return " ".join(t.split()).casefold()




# ----- topics


def topic_slug(name: str) -> str | None:
    """A topic file path for a name the model gave: ``memory/<slug>.md``, or None when nothing is left."""
    base = name.strip().removeprefix("memory/").removesuffix(".md")
    base = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", base).strip("-")[:60].strip("-")
    if not slug or slug == "archive":
        return None
    rel = f"memory/{slug}.md"
    try:
        return rel if classify(rel) is FileKind.TOPIC else None
    except BadInput:
        return None


def find_topic(topics: Sequence[Topic], name: str) -> str | None:
    """An existing topic named *name* (its file name, title or an alias), case-insensitively."""
    want = normalise(name.removeprefix("memory/").removesuffix(".md"))
    slug = topic_slug(name)
    for t in topics:
        if t.path == slug or normalise(t.path.removeprefix("memory/").removesuffix(".md")) == want:
            return t.path
        fm = t.frontmatter
        if fm is not None and (normalise(fm.title or "") == want or any(normalise(a) == want for a in fm.aliases)):
            return t.path
    return None


def _read_frontmatter(mem: Memory, bot: str, rel: str) -> Frontmatter | None:
    from ..text import frontmatter

    try:
        ft = mem.store.read(bot, rel)
    except BotMemoryError as e:
        logger.info("topic %s listed by name only: %s", rel, e)
        return None
    if ft is None:
        return None
    quick = quick_frontmatter(ft.text)
    return frontmatter.read(ft.text) if quick is False else quick if isinstance(quick, Frontmatter) else None


def _cached_ok(raw: object) -> bool:
    if raw is None:
        return True
    return (isinstance(raw, list) and len(raw) == 3 and all(isinstance(v, (str, type(None))) for v in raw[:2])
            and isinstance(raw[2], list) and all(isinstance(a, str) for a in raw[2]))


def topic_cache_file(home: Home, bot: str) -> Path:
    return home.state_dir / "capture" / f"{check_bot_id(bot)}.topics.json"


def list_topics(mem: Memory, bot: str) -> list[Topic]:
    """Every topic with its frontmatter, as the loader lists them.

    Each batch needs the topic list, and a home may hold hundreds of topics: a
    topic's frontmatter is kept in ``<home>/botmemory/capture/<bot>.topics.json``
    beside its size and mtime, and read again only when one of those
    changed (or it changed within the racy window). A frontmatter that looks
    like it holds a secret is never kept there.
    """
    from ..disk.safeio import RACY_NS

    folder = mem.home.workspace(bot) / "memory"
    cache_path = topic_cache_file(mem.home, bot)
    cache: dict[str, Any] = {}
    try:
        ft = read_file(cache_path)
        loaded = json.loads(ft.text) if ft is not None else {}
        cache = loaded if isinstance(loaded, dict) else {}
    except (BotMemoryError, ValueError, RecursionError):
        cache = {}
    try:
        found = sorted((e for e in os.scandir(folder) if e.name.endswith(".md")), key=lambda e: e.name)
    except OSError:
        return []
    now = time.time_ns()
    out: list[Topic] = []
    fresh: dict[str, Any] = {}
    for e in found:
        rel = f"memory/{e.name}"
        try:
            if e.is_symlink() or not e.is_file(follow_symlinks=False) or classify(rel) is not FileKind.TOPIC:
                continue
            st = e.stat(follow_symlinks=False)
        except (OSError, BadInput):
            continue
        key = [st.st_size, st.st_mtime_ns]
        hit = cache.get(e.name)
        fm: Frontmatter | None
        if isinstance(hit, dict) and hit.get("key") == key and _cached_ok(hit.get("fm")):
            raw = hit["fm"]
            fm = None if raw is None else Frontmatter(raw[0], raw[1], tuple(raw[2]))
            fresh[e.name] = hit
        else:
            fm = _read_frontmatter(mem, bot, rel)
            parts = [] if fm is None else [fm.title or "", fm.description or "", *fm.aliases]
            if now - st.st_mtime_ns > RACY_NS and not any(contains_secret(p) for p in parts if p):
                fresh[e.name] = {"key": key,
                                 "fm": None if fm is None else [fm.title, fm.description, list(fm.aliases)]}
        out.append(Topic(rel, fm))
    if fresh != cache:
        try:
            atomic_write(cache_path, json.dumps(fresh, ensure_ascii=False).encode("utf-8"))
        except BotMemoryError as e:
            logger.info("could not keep the topic list of %s: %s", bot, e)
    return out


def _yaml_str(text: str) -> str:
    return json.dumps(" ".join(text.split()), ensure_ascii=False)   # a JSON string is a YAML scalar


def topic_header(title: str, aliases: Sequence[str]) -> str:
    clean = [a for a in dict.fromkeys(" ".join(a.split()) for a in aliases) if a][:10]
    return (f"---\ntitle: {_yaml_str(title)}\naliases: [{', '.join(_yaml_str(a) for a in clean)}]\n---\n"
            f"# {' '.join(title.split())}\n")
