"""memory_update: remember, forget and prefer — and keeping MEMORY.md within the budget.

A remembered entry is written in the same step that keeps MEMORY.md within the
budget: when it would not all load, the oldest dated entries move whole to
``memory/archive.md`` — struck ones first, then expired ones, then the oldest
live ones — each marked ``· moved DATE``. The archive is written before
MEMORY.md, so a line is never out of one without already being in the other.
Hand-written lines, health and safety facts and the entry just written never move.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from . import entries as E
from .entries import append_text, archived_text
from .budget import MEMORY_MAX_BYTES, MEMORY_MAX_LINES
from .errors import BadInput, Conflict
from .frontmatter import body_start
from .paths import ARCHIVE_FILE, MEMORY_FILE, Home, FileKind, classify
from .safeio import WorkspaceLock, atomic_write, read_file
from .store import Actor, Change, Store, Write, redact

MAX_PREFERENCE_CHARS = 300
MOVED_REPORT_LIMIT = 5


@dataclass(frozen=True)
class RememberResult:
    entry: str
    moved: list[str]            # first lines of the first few moved entries
    moved_count: int
    over_budget: bool
    changes: list[Change] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"entry": self.entry, "moved": self.moved, "moved_count": self.moved_count,
                "over_budget": self.over_budget}


def _size(block: E.Block) -> tuple[int, int]:
    return len(block.lines), sum(len(line.encode("utf-8")) + 1 for line in block.lines)


def _fits(lines: int, size: int) -> bool:
    return lines <= MEMORY_MAX_LINES and size <= MEMORY_MAX_BYTES


def movable_order(doc: E.Document, today: date, keep: E.Block | None = None) -> Iterator[int]:
    """Indexes of blocks the budget may move, in the order it moves them.

    Struck entries by superseded date, then expired entries by date, then live
    dated entries by date (file position breaks ties). Never: hand-written
    lines, health and safety facts, the entry just written (*keep*). Lazy, so
    the health check runs only on the entries that are about to move.
    """
    ranked: list[tuple[int, date, int]] = []
    for i, b in enumerate(doc.blocks):
        if b is keep or b.date is None or b.kind not in (E.BlockKind.ENTRY, E.BlockKind.STRUCK):
            continue
        if b.kind is E.BlockKind.STRUCK:
            tier = 0
        elif b.expired(today):
            tier = 1
        else:
            tier = 2
        ranked.append((tier, b.date, i))
    ranked.sort()
    return (i for _, _, i in ranked if not E.is_health(doc.blocks[i].body()))


def make_room(doc: E.Document, today: date, keep: E.Block | None) -> tuple[list[E.Block], bool]:
    """Take blocks out of *doc* until it fits the budget. Returns the moved blocks and whether it fits."""
    text = doc.render()
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    size = len(text.encode("utf-8"))
    if _fits(lines, size):
        return [], True
    moved: set[int] = set()
    for i in movable_order(doc, today, keep):
        n, b = _size(doc.blocks[i])
        moved.add(i)
        lines -= n
        size -= b
        if _fits(lines, size):
            break
    out = [b for i, b in enumerate(doc.blocks) if i in moved]
    doc.blocks = [b for i, b in enumerate(doc.blocks) if i not in moved]
    return out, _fits(lines, size)


@dataclass(frozen=True)
class RoomResult:
    moved: list[str]            # first lines of every moved entry, in file order
    fits: bool                  # MEMORY.md loads whole afterwards
    changes: list[Change] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"moved": self.moved, "moved_count": len(self.moved), "fits": self.fits}


def move_overflow(store: Store, bot: str, actor: Actor, *, expected_hash: str | None = None) -> RoomResult:
    """Make room now: move the entries :func:`make_room` picks to the archive, in one write of both files.

    The same entries the next remember would move (the panel's overflow
    preview). With *expected_hash*, MEMORY.md must still be the text the
    preview was made from (else :class:`Conflict`, nothing written).
    """
    today = store.today
    with store.locked(bot):
        mem = store.read(bot, MEMORY_FILE)
        if mem is None:
            return RoomResult([], True)
        if expected_hash is not None and mem.hash != expected_hash:
            raise Conflict(MEMORY_FILE, mem.text, mem.hash)
        doc = E.parse(mem.text)
        moved, fits = make_room(doc, today, None)
        if not moved:
            return RoomResult([], fits)
        arch = store.read(bot, ARCHIVE_FILE)
        changes = store.apply(bot, [
            Write(ARCHIVE_FILE, append_text(arch.text if arch else "", archived_text(moved, today)),
                  arch.hash if arch else None, checked=True),
            Write(MEMORY_FILE, doc.render(), mem.hash, checked=True),
        ], actor)
    return RoomResult([b.first_line for b in moved], fits, changes)


def undo_overflow(store: Store, bot: str, room: RoomResult, actor: Actor) -> list[Change]:
    """Undo a :func:`move_overflow` as one change: MEMORY.md and the archive back as they were, in one write.

    Only while neither file changed since (else :class:`Conflict`, nothing written);
    after that, each file's row in the journal can still be undone on its own.
    """
    if not room.changes:
        return []
    return store.apply(bot, [Write(c.file, c.before, c.after_hash, checked=True) for c in reversed(room.changes)],
                       actor)


def remember(store: Store, bot: str, text: str, actor: Actor, *, until: date | None = None,
             source_word: str = "cli") -> RememberResult:
    """Add one dated entry to MEMORY.md, moving old entries to the archive when it would not fit."""
    why = E.check_entry_text(text)
    if why:
        raise BadInput(why)
    today = store.today
    source = E.chat_source(actor.chat, source_word)
    line = E.format_entry(today, source, redact(text), until=until)
    store.ensure(bot)
    with store.locked(bot):
        mem = store.read(bot, MEMORY_FILE)
        arch = store.read(bot, ARCHIVE_FILE)
        doc = E.parse(append_text(mem.text if mem else "", line))
        new_block = _last_entry(doc)
        moved, fits = make_room(doc, today, new_block)
        writes: list[Write] = []
        if moved:
            writes.append(Write(ARCHIVE_FILE, append_text(arch.text if arch else "", archived_text(moved, today)),
                                arch.hash if arch else None, checked=True))
        writes.append(Write(MEMORY_FILE, doc.render(), mem.hash if mem else None, checked=True))
        changes = store.apply(bot, writes, actor)
    unforget(store.home, text)
    return RememberResult(line, [b.first_line for b in moved[:MOVED_REPORT_LIMIT]], len(moved), not fits, changes)


def _last_entry(doc: E.Document) -> E.Block | None:
    for b in reversed(doc.blocks):
        if b.kind is E.BlockKind.ENTRY:
            return b
    return None


# ----- forget


def check_words(words: Sequence[str]) -> list[str]:
    clean = [w.strip() for w in words if w.strip()]
    if not clean:
        raise BadInput("forget needs at least one word that names the note")
    return clean


def mentions_all(text: str, patterns: Sequence[re.Pattern[str]]) -> bool:
    return all(p.search(text) for p in patterns)


def forget_in_text(text: str, patterns: Sequence[re.Pattern[str]], keep_header: bool) -> tuple[str, list[str]]:
    """Remove every note that mentions all words; headers, frontmatter and blank lines stay."""
    skip = body_start(text) if keep_header else 0
    lines = text.split("\n")
    head = "\n".join(lines[:skip]) + ("\n" if skip else "")
    body = "\n".join(lines[skip:])
    doc = E.parse(body)
    removed: list[str] = []
    kept: list[E.Block] = []
    for b in doc.blocks:
        is_header = b.kind is E.BlockKind.TEXT and b.first_line.lstrip().startswith("#")
        if b.kind is not E.BlockKind.BLANK and not is_header and mentions_all("\n".join(b.lines), patterns):
            removed.append(b.first_line)
        else:
            kept.append(b)
    if not removed:
        return text, []
    doc.blocks = kept
    return head + doc.render(), removed


@dataclass(frozen=True)
class ForgetResult:
    removed: list[str]
    files: list[str]
    changes: list[Change] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"removed": self.removed, "files": self.files}


def forget(store: Store, bot: str, words: Sequence[str], actor: Actor, *, about_me: bool = True) -> ForgetResult:
    """Remove every note that mentions all *words* as whole words, everywhere, and keep the words."""
    clean = check_words(words)
    patterns = [E.whole_word(w) for w in clean]
    store.home.require_bot(bot)
    removed: list[str] = []
    files: list[str] = []
    with store.locked(bot):
        writes: list[Write] = []
        for rel in store.home.memory_files(bot):
            kind = classify(rel)
            if kind is FileKind.LOG:
                continue
            ft = store.read(bot, rel)
            if ft is None or not ft.valid:
                continue
            new, gone = forget_in_text(ft.text, patterns, keep_header=kind is not FileKind.MEMORY)
            if gone:
                removed.extend(gone)
                files.append(rel)
                writes.append(Write(rel, new, ft.hash, checked=True))
        changes = store.apply(bot, writes, actor) if writes else []
    if about_me:
        gone = _forget_about_me(store.home, patterns)
        if gone:
            removed.extend(gone)
            files.append("about-me.md")
    _keep_forgotten(store.home, clean, store.today)
    return ForgetResult(removed, files, changes)


# ----- About me and profile-learned.json


def _home_lock(home: Home) -> WorkspaceLock:
    return WorkspaceLock.for_file(home.state_dir / "locks" / "_home.lock")


def _forget_about_me(home: Home, patterns: Sequence[re.Pattern[str]]) -> list[str]:
    with _home_lock(home).held():
        ft = read_file(home.about_me)
        if ft is None or not ft.valid:
            return []
        new, gone = forget_in_text(ft.text, patterns, keep_header=True)
        if gone:
            atomic_write(home.about_me, new.encode("utf-8"))
        return gone


def read_learned(home: Home) -> dict[str, Any]:
    ft = read_file(home.profile_learned)
    if ft is None or not ft.valid:
        return {"forgotten": [], "removed": []}
    try:
        data = json.loads(ft.text)
    except (ValueError, RecursionError):
        return {"forgotten": [], "removed": []}
    if not isinstance(data, dict):
        return {"forgotten": [], "removed": []}
    data.setdefault("forgotten", [])
    data.setdefault("removed", [])
    return data


def _write_learned(home: Home, data: dict[str, Any]) -> None:
    atomic_write(home.profile_learned, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def _keep_forgotten(home: Home, words: Sequence[str], today: date) -> None:
    with _home_lock(home).held():
        data = read_learned(home)
        entry = {"words": [redact(w) for w in words], "at": today.isoformat()}   # kept outside the workspace
        if not any(isinstance(f, dict) and f.get("words") == entry["words"] for f in data["forgotten"]):
            data["forgotten"].append(entry)
            _write_learned(home, data)


def forgotten_words(home: Home) -> list[list[str]]:
    return [list(f["words"]) for f in read_learned(home)["forgotten"]
            if isinstance(f, dict) and isinstance(f.get("words"), list)]


def is_forgotten(home: Home, text: str) -> bool:
    """True when *text* mentions a set of forgotten words: no bot may learn it again."""
    return any(mentions_all(text, [E.whole_word(w) for w in words]) for words in forgotten_words(home) if words)


def unforget(home: Home, text: str) -> None:
    """The person asked to remember this once more: its forgotten words may be learned again."""
    with _home_lock(home).held():
        data = read_learned(home)
        keep = [f for f in data["forgotten"]
                if not (isinstance(f, dict) and isinstance(f.get("words"), list) and f["words"]
                        and mentions_all(text, [E.whole_word(str(w)) for w in f["words"]]))]
        if len(keep) != len(data["forgotten"]):
            data["forgotten"] = keep
            _write_learned(home, data)


@dataclass(frozen=True)
class PreferResult:
    line: str
    added: bool

    def as_dict(self) -> dict[str, object]:
        return {"line": self.line, "added": self.added}


def prefer(home: Home, bot: str, text: str, today: date) -> PreferResult:
    """Add a standing preference to About me once, as a learned line."""
    clean = " ".join(text.split())
    if not clean:
        raise BadInput("the preference is empty")
    if "\n" in text.strip():
        raise BadInput("a preference is one line")
    if len(clean) > MAX_PREFERENCE_CHARS:
        raise BadInput(f"the preference is {len(clean)} characters; at most {MAX_PREFERENCE_CHARS}")
    clean = redact(clean)
    line = f"- {today.isoformat()}{E.DOT}learned by {bot}{E.DOT}{clean}"
    with _home_lock(home).held():
        ft = read_file(home.about_me)
        if ft is not None and not ft.valid:
            raise BadInput("about-me.md is not valid UTF-8; botmemory will not rewrite it")
        current = ft.text if ft else ""
        if any(_same_preference(existing, clean) for existing in current.split("\n")):
            return PreferResult(line, False)
        atomic_write(home.about_me, append_text(current, line).encode("utf-8"))
    unforget(home, clean)
    return PreferResult(line, True)


def _same_preference(line: str, text: str) -> bool:
    head = E.parse_block_head(line)
    body = head.text if head.kind is E.BlockKind.ENTRY else line.lstrip("- ").strip()
    if head.kind is E.BlockKind.ENTRY and head.source is None and body.startswith("learned by "):
        body = body.split(E.DOT, 1)[-1]
    return " ".join(body.split()).rstrip(".").lower() == text.rstrip(".").lower()


def iter_about_me(home: Home) -> Iterable[str]:
    ft = read_file(home.about_me)
    return ft.text.split("\n") if ft else []

