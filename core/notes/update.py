"""memory_update: remember, forget and prefer — and keeping MEMORY.md within the budget.

A remembered entry is written in the same step that keeps MEMORY.md within the
budget: when it would not all load, the oldest dated entries move whole to
``memory/archive.md`` — struck ones first, then expired ones, then the oldest
live ones — each marked ``· moved DATE``. The archive is written before
MEMORY.md, so a line is never out of one without already being in the other.
Hand-written lines, health and safety facts and the entry just written never move.
"""
from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..base.errors import BadInput, BotMemoryError, Conflict, HardLinkRefused, LinkRefused, Refused, named
from ..base.log import get_logger
from ..disk import config
from ..disk.paths import ARCHIVE_FILE, MEMORY_FILE, FileKind, Home, classify
from ..disk.safeio import FileText, Stager, WorkspaceLock, atomic_write, file_size, read_file
from ..store.home_journal import ABOUT_ME, home_lock
from ..store.home_journal import record as record_home
from ..store.undo import foresee
from ..store.writer import Actor, Change, Store, Write, redact
from ..text import entries as E
from ..text.budget import MEMORY_MAX_BYTES, MEMORY_MAX_LINES, Gauge, gauge
from ..text.entries import append_text, archived_text
from ..text.frontmatter import body_start

logger = get_logger(__name__)

MAX_PREFERENCE_CHARS = 300
MOVED_REPORT_LIMIT = 5
ARCHIVE_APPEND_OVER = 1024 * 1024
"""An archive larger than this is appended to, never read whole (a write stays fast however large the archive
grows); its row says it cannot be undone. Below it the archive is rewritten, and the journal keeps its earlier
text (``journal.EARLIER_TEXT_MAX_BYTES`` is larger)."""


@dataclass(frozen=True)
class RememberResult:
    entry: str
    moved: list[str]            # first lines of the first few moved entries
    moved_count: int
    over_budget: bool
    changes: list[Change] = field(default_factory=list)
    learnable_again: list[list[str]] = field(default_factory=list)   # forgotten word lists this lifted

    def as_dict(self) -> dict[str, object]:
        return {"entry": self.entry, "moved": self.moved, "moved_count": self.moved_count,
                "over_budget": self.over_budget, "learnable_again": self.learnable_again}


def _size(block: E.Block) -> tuple[int, int]:
    return len(block.lines), sum(len(line.encode("utf-8")) + 1 for line in block.lines)


def _fits(lines: int, size: int) -> bool:
    return lines <= MEMORY_MAX_LINES and size <= MEMORY_MAX_BYTES


def movable_order(doc: E.Document, today: date, keep: E.Block | None = None) -> Iterator[int]:
    """Indexes of blocks the budget may move, in the order it moves them.

    Struck entries by superseded date, then expired entries by date, then live
    dated entries by date (file position breaks ties). Never: hand-written
    lines, health and safety facts, the entry just written (*keep*: its last occurrence — the parser hands
    an equal line the same Block, so an earlier copy of that entry is another place, still movable). Lazy,
    so the health check runs only on the entries that are about to move.
    """
    blocks = doc.blocks
    kept = next((i for i in range(len(blocks) - 1, -1, -1) if blocks[i] is keep), -1) if keep is not None else -1
    ranked: list[tuple[int, date, int]] = []
    for i, b in enumerate(blocks):
        if i == kept or b.date is None or b.kind not in (E.BlockKind.ENTRY, E.BlockKind.STRUCK):
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
class OverflowPreview:
    """What saving a MEMORY.md text would mean for the budget (the panel's warning before a save)."""

    gauge: Gauge
    moved: list[str]            # first lines of the entries the next write through the harness would move
    fits_after: bool            # True when moving them brings it within the budget

    @property
    def over(self) -> bool:
        return self.gauge.unloaded_lines > 0


def overflow_preview(text: str, today: date) -> OverflowPreview:
    """The gauge of *text* and the entries :func:`make_room` (the next remember) would move, in file order."""
    g = gauge(text)
    if g.unloaded_lines <= 0:
        return OverflowPreview(g, [], True)
    moved, fits = make_room(E.parse(text), today, None)
    return OverflowPreview(g, [b.first_line for b in moved], fits)


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
        size = file_size(store.home.file(bot, ARCHIVE_FILE), store.home.trust_root(bot))
        if size is not None and size > ARCHIVE_APPEND_OVER:   # as remember: appended, never read whole
            archive = Write(ARCHIVE_FILE, archived_text(moved, today) + "\n", append=True, hashed=True)
        else:
            arch = store.read(bot, ARCHIVE_FILE)
            archive = Write(ARCHIVE_FILE, append_text(arch.text if arch else "", archived_text(moved, today)),
                            arch.hash if arch else None, checked=True)
        changes = store.apply(bot, [archive, Write(MEMORY_FILE, doc.render(), mem.hash, checked=True)], actor)
    return RoomResult([b.first_line for b in moved], fits, changes)


def undo_overflow(store: Store, bot: str, room: RoomResult, actor: Actor) -> list[Change]:
    """Undo a :func:`move_overflow` as one change: MEMORY.md and the archive back as they were, in one write.

    Only while neither file changed since (else :class:`Conflict`, nothing written);
    after that, each file's row in the journal can still be undone on its own. An archive that was
    appended to (a large one, never read whole) is cut back to its size before, while its bytes — the
    old ones and the appended ones — are unchanged (hashed as they stream by).
    """
    if not room.changes:
        return []
    writes = []
    for c in reversed(room.changes):
        if c.appended:
            if c.size_before is None or c.after_hash is None:
                raise Refused(f"{c.file} was appended to without its hashes: the move cannot be undone")
            writes.append(Write(c.file, None, c.after_hash, checked=True, cut_to=c.size_before))
        else:
            writes.append(Write(c.file, c.before, c.after_hash, checked=True))
    return store.apply(bot, writes, actor)


def remember(store: Store, bot: str, text: str, actor: Actor, *, until: date | None = None,
             source_word: str = "cli") -> RememberResult:
    """Add one dated entry to MEMORY.md, moving old entries to the archive when it would not fit."""
    why = E.check_entry_text(text)
    if why:
        raise BadInput(why)
    today = store.today
    if until is not None and until < today:     # it would never load (the day after `until` it stops)
        raise BadInput(f"until {until.isoformat()} is before today ({today.isoformat()}): the note would never "
                       "load; give today or a later day")
    source = E.chat_source(actor.chat, source_word)
    line = E.format_entry(today, source, redact(text), until=until)
    store.ensure(bot)
    with store.locked(bot):
        mem = store.read(bot, MEMORY_FILE)
        size = file_size(store.home.file(bot, ARCHIVE_FILE), store.home.trust_root(bot))
        big = size is not None and size > ARCHIVE_APPEND_OVER
        arch = None if big else store.read(bot, ARCHIVE_FILE)
        doc = E.parse(append_text(mem.text if mem else "", line))
        new_block = _last_entry(doc)
        moved, fits = make_room(doc, today, new_block)
        writes: list[Write] = []
        if moved and big:  # appended with O_APPEND, never read whole; fsynced before MEMORY.md is written
            writes.append(Write(ARCHIVE_FILE, archived_text(moved, today) + "\n", append=True))
        elif moved:
            writes.append(Write(ARCHIVE_FILE, append_text(arch.text if arch else "", archived_text(moved, today)),
                                arch.hash if arch else None, checked=True))
        writes.append(Write(MEMORY_FILE, doc.render(), mem.hash if mem else None, checked=True))
        changes = store.apply(bot, writes, actor)
    lifted = unforget(store.home, text, actor=actor, bot=bot)
    return RememberResult(line, [b.first_line for b in moved[:MOVED_REPORT_LIMIT]], len(moved), not fits, changes,
                          lifted)


def _last_entry(doc: E.Document) -> E.Block | None:
    for b in reversed(doc.blocks):
        if b.kind is E.BlockKind.ENTRY:
            return b
    return None


# ----- forget


MIN_WORD_CHARS = 3
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each else even ever every few for from
further had has have having he her here hers herself him himself his how i if in into is it its itself
just like many me more most much must my myself no nor not now of off on once one only or other our ours
ourselves out over own same she should so some such than that the their theirs them themselves then there
these they this those though through to too under until up upon us very was we were what when where which
while who whom whose why will with would yet you your yours yourself yourselves
""".split())
"""Words too common to name a note: ``forget BOT the`` would remove nearly every note, so it is refused."""

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def check_words(words: Sequence[str]) -> list[str]:
    """The words that name the notes to forget, or BadInput when one is too vague to name any.

    Refused: no words; a word with no letter or digit; a stop word (or a phrase
    of stop words only, "of the"); a word of fewer than 3 characters (a CJK
    word may be shorter: one character is a word there).
    """
    clean = [" ".join(w.split()) for w in words if w.strip()]
    if not clean:
        raise BadInput("forget needs at least one word that names the note")
    for w in clean:
        if not any(c.isalnum() for c in w):
            raise BadInput(f"forget: {w!r} has no letters or digits; give words the note contains")
        if all(part.casefold() in STOP_WORDS for part in w.split()):
            raise BadInput(f"forget: {w!r} is too common to name a note (it would forget nearly every one); "
                           "give words that name it")
        if len(w) < MIN_WORD_CHARS and not _CJK.search(w):
            raise BadInput(f"forget: {w!r} is shorter than {MIN_WORD_CHARS} letters and would match too much; "
                           "give words that name the note")
    return clean


def mentions_all(text: str, patterns: Sequence[re.Pattern[str]]) -> bool:
    return all(p.search(text) for p in patterns)


def forget_in_text(text: str, patterns: Sequence[re.Pattern[str]], keep_header: bool) -> tuple[str, list[str]]:
    """Remove every note whose fact mentions all words; headers, frontmatter and blank lines stay.

    A note is judged by :func:`entries.fact_text` — an entry's TEXT and the lines
    under it, never its date, source, ``(noticed)`` or suffixes; a hand-written line whole.
    """
    skip = body_start(text) if keep_header else 0
    lines = text.split("\n")
    head = "\n".join(lines[:skip]) + ("\n" if skip else "")
    body = "\n".join(lines[skip:])
    doc = E.parse(body)
    removed: list[str] = []
    kept: list[E.Block] = []
    for b in doc.blocks:
        is_header = b.kind is E.BlockKind.TEXT and b.first_line.lstrip().startswith("#")
        if b.kind is not E.BlockKind.BLANK and not is_header and mentions_all(E.fact_text(b), patterns):
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
    warnings: list[str] = field(default_factory=list)   # what the rows of this forget could not bring back
    home_row: str | None = None                         # About me's (and the forgotten words') row

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"removed": self.removed, "files": self.files}
        if self.warnings:
            d["warnings"] = self.warnings
        if self.home_row is not None:
            d["home_row"] = self.home_row
        return d


def _unreadable(rel: str, why: str) -> BadInput:
    return BadInput(f"forget cannot look at {rel}: {why}; nothing was forgotten anywhere")


def _linked(rel: str) -> LinkRefused:
    """Exit 4, as every command that meets a link on its way."""
    return LinkRefused(f"forget cannot look at {rel}: it is a symbolic link; nothing was forgotten anywhere")


def forget(store: Store, bot: str, words: Sequence[str], actor: Actor, *, about_me: bool = True,  # noqa: C901
           dry_run: bool = False) -> ForgetResult:
    """Remove every note that mentions all *words* as whole words, everywhere, and keep the words.

    Every file is read and judged before any is written: a file forget cannot
    look at (not UTF-8, a symbolic link) is BadInput naming it, with nothing
    written anywhere — not even the forgotten words. *dry_run*: what would go,
    and from which files; nothing is written.
    """
    clean = check_words(words)
    patterns = [E.whole_word(w) for w in clean]
    home = store.home
    home.require_bot(bot)
    if actor.who == "bot" and not config.bot_settings(home, bot).memory:
        # checked before About me and the forgotten words too, not only when a workspace file changes
        raise Refused(f"memory is switched off for {bot}: bot writes are refused "
                      f"(`botmemory settings {bot} memory on` turns it back on)")
    removed: list[str] = []
    files: list[str] = []
    warnings: list[str] = []
    with store.locked(bot), _home_lock(home).held():
        check_no_links(home, bot)
        writes: list[Write] = []
        for rel in home.memory_files(bot):
            kind = classify(rel)
            if kind is FileKind.LOG:
                continue
            ft = read_to_forget(store, bot, rel)
            if ft is None:
                continue
            new, gone = forget_in_text(ft.text, patterns, keep_header=kind is not FileKind.MEMORY)
            if gone:
                removed.extend(gone)
                files.append(rel)
                writes.append(Write(rel, new, ft.hash, checked=True))
                warnings.extend(foresee(home, bot, rel, ft, new))
        about: tuple[str, list[str]] | None = None
        about_ft: FileText | None = None
        if about_me:
            about_ft = ft = read_file(home.about_me)
            if ft is not None and not ft.valid:
                raise _unreadable("about-me.md", "it is not valid UTF-8")
            if ft is not None:
                new, gone = forget_in_text(ft.text, patterns, keep_header=True)
                if gone:
                    about = (new, gone)
                    warnings.extend(foresee(home, None, ABOUT_ME, ft, new))
        learned = _read_learned_strict(home)
        if dry_run:
            if about is not None:
                removed.extend(about[1])
                files.append("about-me.md")
            return ForgetResult(removed, files, warnings=warnings)
        # every new text is on disk before any file changes (About me and profile-learned.json staged here,
        # the workspace's files by the store): a full disk stops forget with nothing changed
        learned_before = copy.deepcopy(learned)
        with Stager() as stager:
            try:
                staged = [stager.stage(home.about_me, about[0].encode("utf-8"))] if about is not None else []
                if _with_forgotten(learned, clean, store.today):
                    staged.append(stager.stage(home.profile_learned, _learned_bytes(learned)))
            except OSError as e:
                raise (named(e, "nothing was written") or e) from e
            changes = store.apply(bot, writes, actor) if writes else []
            for st in staged:
                st.commit()
        if about is not None:
            removed.extend(about[1])
            files.append("about-me.md")
        row = record_home(home, actor, about_ft, about[0] if about is not None else (about_ft.text if about_ft else None),
                          from_bot=bot, learned_before=learned_before, learned_after=learned)
    return ForgetResult(removed, files, changes, warnings, row.id if row is not None else None)


def read_to_forget(store: Store, bot: str, rel: str) -> FileText | None:
    """A memory file for forget to judge: BadInput naming it when forget cannot look at it (not UTF-8)."""
    ft = store.read(bot, rel)
    if ft is not None and not ft.valid:
        raise _unreadable(rel, "it is not valid UTF-8")
    return ft


def check_no_links(home: Home, bot: str) -> None:
    """A memory file or folder that is a symbolic link (or a file with another name, a hard link) is skipped
    by the listing; forget must say it could not look.

    Looks in every folder *bot*'s kind keeps memory in (a workspace: its top and
    ``memory/``; daily logs are never forgotten in) for a ``.md`` link the kind
    would count as memory, and at those folders themselves.
    """
    ws = home.workspace(bot)
    if ws.is_symlink():
        raise _linked(f"workspaces/{bot}")
    layout = home.layout(bot)
    dirs = layout.watched_dirs(ws) if layout is not None else [ws, ws / "memory"]
    for d in dirs:
        rel_dir = d.relative_to(ws).as_posix() if d != ws else ""
        if rel_dir and d.is_symlink():
            raise _linked(rel_dir + "/")
        if not d.is_dir():
            continue
        for p in sorted(d.iterdir()):
            if p.suffix != ".md":
                continue
            links = 1 if p.is_symlink() or not p.is_file() else p.lstat().st_nlink
            if not p.is_symlink() and links < 2:
                continue
            rel = p.relative_to(ws).as_posix()
            try:
                kind = home.classify(bot, rel)
            except BadInput:
                continue                          # not a memory file of this kind (AGENTS.md, a README)
            if kind is not FileKind.LOG:
                if links > 1:
                    raise HardLinkRefused(f"forget cannot look at {rel}: it is a hard link ({links} names for "
                                          "one file); nothing was forgotten anywhere")
                raise _linked(rel)


# ----- About me and profile-learned.json


def _home_lock(home: Home) -> WorkspaceLock:
    return home_lock(home)


def _empty_learned() -> dict[str, Any]:
    return {"forgotten": [], "removed": []}


def read_learned(home: Home) -> dict[str, Any]:
    """profile-learned.json, or an empty one when it is missing or unreadable (for reading only)."""
    try:
        return _read_learned_strict(home)
    except BadInput:
        return _empty_learned()


def _read_learned_strict(home: Home) -> dict[str, Any]:
    """profile-learned.json for rewriting: BadInput when it exists but is not what botmemory wrote."""
    ft = read_file(home.profile_learned)
    if ft is None:
        return _empty_learned()
    if not ft.text.strip():
        return _empty_learned()
    why = "it is not valid UTF-8" if not ft.valid else None
    data: Any = None
    if why is None:
        try:
            data = json.loads(ft.text)
        except (ValueError, RecursionError):
            why = "it is not valid JSON"
    if why is None and not (isinstance(data, dict) and isinstance(data.get("forgotten", []), list)):
        why = "it is not the JSON object botmemory writes"
    if why is not None:
        raise BadInput(f"cannot use profile-learned.json: {why}; fix or remove it (nothing was written)")
    assert isinstance(data, dict)
    data.setdefault("forgotten", [])
    data.setdefault("removed", [])
    return data


def _learned_bytes(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _write_learned(home: Home, data: dict[str, Any]) -> None:
    atomic_write(home.profile_learned, _learned_bytes(data))


def _with_forgotten(data: dict[str, Any], words: Sequence[str], today: date) -> bool:
    """Add *words* to the forgotten list in *data* (read under the held home lock); False when it has them."""
    entry = {"words": [redact(w) for w in words], "at": today.isoformat()}   # kept outside the workspace
    if any(isinstance(f, dict) and f.get("words") == entry["words"] for f in data["forgotten"]):
        return False
    data["forgotten"].append(entry)
    return True


def _word_lists(data: dict[str, Any]) -> list[list[str]]:
    return [[str(w) for w in f["words"]] for f in data["forgotten"]
            if isinstance(f, dict) and isinstance(f.get("words"), list) and f["words"]]


def forgotten_words(home: Home) -> list[list[str]]:
    return _word_lists(read_learned(home))


def _mentions(fact: str, words: Sequence[str]) -> bool:
    return mentions_all(fact, [E.whole_word(w) for w in words])


def _fact(text: str) -> str:
    """The fact of *text*: a formatted entry is judged by its TEXT, anything else whole."""
    return "\n".join(E.fact_text(b) for b in E.parse(text).blocks if b.kind is not E.BlockKind.BLANK)


def learning_check(home: Home, text: str) -> str | None:
    """THE forgotten-words check: why a bot may not learn *text*, or None when it may.

    docs/RULES.md "Forget": once a person asked to forget some words, no bot adds
    a fact that mentions them on its own, until the person remembers or prefers
    one that does. Every step that lets a bot learn a fact on its own calls this one
    function before writing and skips the fact (with the reason in its report)
    when it returns a reason: capture, organizing into topics, About me
    learning, and the tidy-up's kept still-true parts. *text* may be a bare fact
    or a formatted entry line (judged by its TEXT, not its source). An explicit
    ``remember``/``prefer`` by the person is not learning: it lifts the words
    instead (:func:`unforget`).
    """
    fact = _fact(text)
    hits = [words for words in forgotten_words(home) if _mentions(fact, words)]
    if not hits:
        return None
    return "it mentions words the person asked to forget: " + "; ".join(" ".join(w) for w in hits)


def is_forgotten(home: Home, text: str) -> bool:
    """True when *text* mentions a set of forgotten words (see :func:`learning_check`)."""
    return learning_check(home, text) is not None


def unforget(home: Home, text: str, *, actor: Actor | None = None, bot: str | None = None) -> list[list[str]]:
    """The person asked to remember this once more: its forgotten words may be learned again.

    Returns the word lists lifted (empty when none were). A profile-learned.json
    botmemory cannot read is left as it is. With *actor*, the change is a row of
    the home's journal (undoing it forgets the words again); without, the caller
    records it with its own change (``prefer``).
    """
    fact = _fact(text)
    if not _may_lift(home, fact):   # nothing forgotten mentions it (the usual case): no lock, nothing read twice
        return []
    with _home_lock(home).held():
        try:
            data = _read_learned_strict(home)
        except BadInput:
            logger.warning("profile-learned.json is unreadable; no forgotten words were lifted")
            return []
        before = copy.deepcopy(data)
        lifted: list[list[str]] = []
        keep: list[Any] = []
        for f in data["forgotten"]:
            if _lifted_by(f, fact):
                lifted.append([str(w) for w in f["words"]])
            else:
                keep.append(f)
        if lifted:
            data["forgotten"] = keep
            _write_learned(home, data)
            if actor is not None:
                about = read_file(home.about_me)
                record_home(home, actor, about, about.text if about else None, from_bot=bot,
                            learned_before=before, learned_after=data)
        return lifted


def _may_lift(home: Home, fact: str) -> bool:
    """Whether a forgotten word list of profile-learned.json may be lifted by *fact*, read without the lock
    (the file is replaced whole, never written in place): False only when it surely is not — the file is
    missing, or readable and no list is mentioned. :func:`unforget` decides under the lock."""
    try:
        ft = read_file(home.profile_learned)
    except (OSError, BotMemoryError):
        return True
    if ft is None or not ft.text.strip():
        return False
    try:
        data = json.loads(ft.text)
    except (ValueError, RecursionError):
        return True
    forgotten = data.get("forgotten") if isinstance(data, dict) else None
    if not isinstance(forgotten, list):
        return True
    return any(_lifted_by(f, fact) for f in forgotten)


def _lifted_by(forgotten: object, fact: str) -> bool:
    """Whether *fact* names every word of one forgotten word list of profile-learned.json."""
    return (isinstance(forgotten, dict) and isinstance(forgotten.get("words"), list) and bool(forgotten["words"])
            and _mentions(fact, [str(w) for w in forgotten["words"]]))


def learnable_again_line(lifted: Sequence[Sequence[str]]) -> str:
    """The line a remember or prefer prints when it lifted forgotten words: ``IST can be learned again``."""
    return "; ".join(" ".join(w) for w in lifted) + " can be learned again"


@dataclass(frozen=True)
class PreferResult:
    line: str                   # the line added, or the line already in About me that says it
    added: bool
    learnable_again: list[list[str]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)   # always empty: About me is not a workspace's file
    row: str | None = None      # the row of the home's journal (About me's): `undo --home ROW`

    def as_dict(self) -> dict[str, object]:
        return {"line": self.line, "added": self.added, "learnable_again": self.learnable_again, "row": self.row}


def prefer(home: Home, bot: str, text: str, today: date, actor: Actor | None = None) -> PreferResult:
    """Add a standing preference to About me once, as a learned line.

    When About me already says it, nothing is written and the result names the
    line that says it. Either way the person asked for it: its forgotten words are lifted.
    The change (the line, the lifted words) is one row of the home's journal, by *actor*.
    """
    clean = " ".join(text.split())
    if not clean:
        raise BadInput("the preference is empty")
    if "\n" in text.strip():
        raise BadInput("a preference is one line")
    if len(clean) > MAX_PREFERENCE_CHARS:
        raise BadInput(f"the preference is {len(clean)} characters; at most {MAX_PREFERENCE_CHARS}")
    clean = redact(clean)
    if is_removed(home, clean):
        raise Refused("this fact was removed from About me (Added by your bots → Remove); it is not added again")
    line = f"- {today.isoformat()}{E.DOT}learned by {bot}{E.DOT}{clean}"
    with _home_lock(home).held():
        ft = read_file(home.about_me)
        if ft is not None and not ft.valid:
            raise BadInput("about-me.md is not valid UTF-8; botmemory will not rewrite it")
        current = ft.text if ft else ""
        same = next((existing for existing in current.split("\n") if _same_preference(existing, clean)), None)
        after = ft.text if ft else None
        if same is None:
            after = append_text(current, line)
            atomic_write(home.about_me, after.encode("utf-8"))
        learned_before = read_learned(home)
        lifted = unforget(home, clean)
        row = record_home(home, actor or Actor.person("cli"), ft, after, from_bot=bot,
                          learned_before=learned_before, learned_after=read_learned(home))
    row_id = row.id if row is not None else None
    if same is not None:
        return PreferResult(same, False, lifted, row=row_id)
    return PreferResult(line, True, lifted, row=row_id)


def same_fact(a: str, b: str) -> bool:
    """Two learned facts are the same: spacing, case and one final full stop aside."""
    return " ".join(a.split()).rstrip(".").lower() == " ".join(b.split()).rstrip(".").lower()


def is_removed(home: Home, text: str) -> bool:
    """True when the person removed this fact from About me's learned lines: it is never added again."""
    removed = read_learned(home)["removed"]
    return isinstance(removed, list) and any(
        isinstance(r, dict) and same_fact(str(r.get("text", "")), text) for r in removed)


def _same_preference(line: str, text: str) -> bool:
    head = E.parse_block_head(line)
    body = head.text if head.kind is E.BlockKind.ENTRY else line.lstrip("-* ").strip()
    return " ".join(body.split()).rstrip(".").lower() == text.rstrip(".").lower()


def iter_about_me(home: Home) -> Iterable[str]:
    ft = read_file(home.about_me)
    return ft.text.split("\n") if ft else []

