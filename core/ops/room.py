"""Making room when MEMORY.md no longer all loads, and what else applies to a folder, by its kind.

- A workspace (OpenMausBot): **Make room** moves the oldest dated entries to ``memory/archive.md``
  (``notes.update.move_overflow``: the entries the next write would move).
- A Claude Code folder: MEMORY.md is an index, one line per memory, and Claude Code reads only its first 200
  lines / 25,000 bytes. **Make room** moves the oldest index lines (from the top: Claude Code appends new ones at
  the end) into a topic file the index points at, ``older_memories.md``, with one line in their place that
  points there — so Claude Code still finds every memory, and MEMORY.md loads whole. Only when the person asks.
- Hermes and OpenClaw keep no index botmemory could move: nothing to offer.

Either is one write of both files, and one change to undo (``ops.undo_overflow``) while neither file changed
since. :func:`folder_actions` says which of the panel's actions apply to a folder (a tidy-up does not apply to a
folder whose agent writes its own memory), so the app shows only what works.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..base.errors import Conflict
from ..disk.paths import ARCHIVE_FILE, MEMORY_FILE
from ..notes.update import RoomResult, move_overflow, overflow_preview
from ..store.memory import Memory
from ..store.writer import Actor, Write
from . import folders

__all__ = ["FolderActions", "INDEX_TOPIC", "RoomPreview", "folder_actions", "make_room", "room_preview"]

INDEX_TOPIC = "older_memories.md"
_INDEX_LINE = re.compile(r"^\s*[-*+]\s+\[[^\]\n]*\]\(<?([^)>\s]+\.md)>?\)")
TOPIC_HEAD = """---
name: Older memories
description: Index lines botmemory moved out of MEMORY.md so that MEMORY.md loads whole; each points at a memory file
type: reference
---
# Older memories

Moved here from MEMORY.md by botmemory, oldest first. Each line points at a memory file beside this one.

"""


@dataclass(frozen=True)
class FolderActions:
    """What the panel offers for a folder: a tidy-up (None: it applies; else why not), Make room's kind
    ("archive", "index" or None), new topics."""

    why_no_tidy: str | None
    room: str | None
    topics: bool

    @property
    def tidy(self) -> bool:
        return self.why_no_tidy is None


def folder_actions(mem: Memory, bot: str) -> FolderActions:
    kind = folders.kind_of(mem, bot)
    layout = mem.home.layout(bot)
    why = layout.refusal if layout is not None and layout.writes_own_memory else None
    room = "archive" if not mem.home.is_tracked(bot) else "index" if kind.name == "claude-code" else None
    return FolderActions(why, room, kind.topic_dir is not None)


@dataclass(frozen=True)
class RoomPreview:
    """What Make room would do now: the lines that would move (first lines of entries, or index lines), the file
    they go to, whether MEMORY.md would then load whole, and MEMORY.md's hash as previewed (for the write)."""

    kind: str                  # "archive" | "index"
    moved: list[str]
    target: str
    fits_after: bool
    unloaded_lines: int
    hash: str | None
    changes: list[object] = field(default_factory=list)   # a read: no changes


def _lines(text: str) -> list[str]:
    """Lines with their ``\\n`` (Claude Code breaks lines at ``\\n`` only)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    return out + ([parts[-1]] if parts[-1] else [])


def _plan_index(mem: Memory, bot: str, text: str) -> tuple[str, list[str], bool]:
    """(MEMORY.md after, the index lines moved, whether it loads whole then): the fewest oldest index lines,
    with one pointer to the topic in place of the first (unless one is there already)."""
    from ..kinds.claude_code import rules_of
    from ..kinds.claude_code_load import measured_lines

    kind = folders.kind_of(mem, bot)
    limits = folders.limits(mem, bot)
    lines = _lines(text)
    pointer_there = any(f"]({INDEX_TOPIC})" in line for line in lines)
    candidates = [no for no, line in measured_lines(text, rules_of(limits))
                  if (m := _INDEX_LINE.match(line)) is not None and m.group(1) != INDEX_TOPIC]
    if kind.loaded(MEMORY_FILE, text, limits).unloaded_lines == 0 or not candidates:
        return text, [], kind.loaded(MEMORY_FILE, text, limits).unloaded_lines == 0
    pointer = (f"- [Older memories]({INDEX_TOPIC}) — the oldest index lines, moved there by botmemory so that "
               "MEMORY.md loads whole\n")

    def without(n: int) -> str:
        take = set(candidates[:n])
        out: list[str] = []
        for no, line in enumerate(lines, 1):
            if no in take:
                if no == candidates[0] and not pointer_there:
                    out.append(pointer)
                continue
            out.append(line if line.endswith("\n") or no < len(lines) else line + "\n")
        return "".join(out)

    lo, hi = 1, len(candidates)          # the fewest lines that make it fit (fit only grows with n)
    if kind.loaded(MEMORY_FILE, without(hi), limits).unloaded_lines > 0:
        return without(hi), [lines[no - 1].rstrip("\n") for no in candidates], False
    while lo < hi:
        mid = (lo + hi) // 2
        if kind.loaded(MEMORY_FILE, without(mid), limits).unloaded_lines == 0:
            hi = mid
        else:
            lo = mid + 1
    return without(lo), [lines[no - 1].rstrip("\n") for no in candidates[:lo]], True


def room_preview(mem: Memory, bot: str) -> RoomPreview | None:
    """What Make room would move now (nothing is written); None when it does not apply to the folder's kind."""
    actions = folder_actions(mem, bot)
    ft = mem.store.read(bot, MEMORY_FILE)
    text = ft.text if ft is not None else ""
    if actions.room == "archive":
        p = overflow_preview(text, mem.today)
        return RoomPreview("archive", list(p.moved), ARCHIVE_FILE, p.fits_after, p.gauge.unloaded_lines,
                           ft.hash if ft else None)
    if actions.room == "index":
        kind = folders.kind_of(mem, bot)
        unloaded = kind.loaded(MEMORY_FILE, text, folders.limits(mem, bot)).unloaded_lines
        _, moved, fits = _plan_index(mem, bot, text)
        return RoomPreview("index", moved, INDEX_TOPIC, fits, unloaded, ft.hash if ft else None)
    return None


def make_room(mem: Memory, bot: str, actor: Actor, *, expected_hash: str | None = None) -> RoomResult:
    """**Make room** by the folder's kind, in one write of both files (``undo_overflow`` undoes it as one change);
    with *expected_hash*, MEMORY.md must still be what the preview saw (else :class:`Conflict`)."""
    from ..store.files import check_bot_writes

    check_bot_writes(mem, bot, actor)
    actions = folder_actions(mem, bot)
    if actions.room == "archive":
        return move_overflow(mem.store, bot, actor, expected_hash=expected_hash)
    if actions.room != "index":
        from ..base.errors import Refused

        raise Refused(f"Make room does not apply to {bot}: botmemory moves nothing out of this agent's memory")
    with mem.store.locked(bot):
        ft = mem.store.read(bot, MEMORY_FILE)
        if ft is None:
            return RoomResult([], True)
        if expected_hash is not None and ft.hash != expected_hash:
            raise Conflict(MEMORY_FILE, ft.text, ft.hash)
        new, moved, fits = _plan_index(mem, bot, ft.text)
        if not moved:
            return RoomResult([], fits)
        topic = mem.store.read(bot, INDEX_TOPIC)
        body = "".join(line + "\n" for line in moved)
        if topic is None:
            topic_text = TOPIC_HEAD + body
        else:
            topic_text = topic.text + ("" if topic.text.endswith("\n") or not topic.text else "\n") + body
        changes = mem.store.apply(bot, [Write(MEMORY_FILE, new, ft.hash, checked=True),
                                        Write(INDEX_TOPIC, topic_text, topic.hash if topic else None, checked=True)],
                                  actor)
    return RoomResult(moved, fits, changes)
