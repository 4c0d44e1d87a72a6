"""The load budget: the two constants, what loads, and the gauge.

At the start of every turn the first 200 lines or 24 KB of MEMORY.md, whichever
cuts first, load — whole lines only. The gauge, the loader, the panel and the
CLI all read :data:`MEMORY_MAX_LINES` and :data:`MEMORY_MAX_BYTES` from here.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from enum import Enum

from ..base.record import record
from .entries import BlockKind, parse
from .frontmatter import Frontmatter

MEMORY_MAX_LINES = 200
MEMORY_MAX_BYTES = 24 * 1024
AMBER_AT = 0.8
MAX_INDEX_TOPICS = 40
MAX_INDEX_CHARS = 2000
ONLY_FIRST_LINES = f"only the first {MEMORY_MAX_LINES} lines load each turn"


class Level(str, Enum):
    OK = "ok"
    AMBER = "amber"
    RED = "red"


@record(frozen=True)
class Gauge:
    lines: int
    bytes: int
    loaded_lines: int
    loaded_bytes: int

    max_lines: int = MEMORY_MAX_LINES
    max_bytes: int = MEMORY_MAX_BYTES

    @property
    def unloaded_lines(self) -> int:
        return self.lines - self.loaded_lines

    @property
    def fill(self) -> float:
        """The larger of the two fractions of the budget in use (may exceed 1)."""
        return max(self.lines / self.max_lines, self.bytes / self.max_bytes)

    @property
    def level(self) -> Level:
        if self.unloaded_lines > 0:
            return Level.RED
        if self.fill >= AMBER_AT:
            return Level.AMBER
        return Level.OK

    def as_dict(self) -> dict[str, object]:
        return {
            "lines": self.lines,
            "bytes": self.bytes,
            "max_lines": self.max_lines,
            "max_bytes": self.max_bytes,
            "level": self.level.value,
            "unloaded_lines": self.unloaded_lines,
        }


def _split_nl(text: str) -> list[str]:
    if not text:
        return []
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _loaded_count(lines: Sequence[str]) -> tuple[int, int]:
    used = 0
    for k, line in enumerate(lines):
        if k >= MEMORY_MAX_LINES:
            return k, used
        size = len(line.encode("utf-8"))
        if used + size > MEMORY_MAX_BYTES:
            return k, used
        used += size
    return len(lines), used


def gauge(text: str) -> Gauge:
    """The gauge of MEMORY.md as it is on disk."""
    lines = _split_nl(text)
    loaded, used = _loaded_count(lines)
    return Gauge(len(lines), len(text.encode("utf-8")), loaded, used)


def loaded_text(text: str) -> tuple[str, int]:
    """The part of MEMORY.md that loads (whole lines) and how many lines did not."""
    lines = _split_nl(text)
    loaded, _ = _loaded_count(lines)
    return "".join(lines[:loaded]), len(lines) - loaded


def cut_notice(unloaded: int) -> str:
    return f"[MEMORY.md was cut off here: {unloaded} more line{'s' if unloaded != 1 else ''} did not load]"


@record(frozen=True)
class Topic:
    path: str                       # memory/NAME.md
    frontmatter: Frontmatter | None


def topic_line(topic: Topic) -> str:
    line = f"- {topic.path}"
    fm = topic.frontmatter
    if fm is not None:
        head = fm.title or ""
        if fm.description:
            head = f"{head}: {fm.description}" if head else fm.description
        if head:
            line += f" — {head}"
        if fm.aliases:
            line += f" (aliases: {', '.join(fm.aliases)})"
    return line


def topic_index(topics: Sequence[Topic]) -> list[str]:
    """Index lines, alphabetical by file name: at most 40 topics and 2,000 characters.

    "Alphabetical" is code-point (byte) order of the file name, the order a
    bot server's plain string sort gives and the same on every machine and
    locale: ``Zeta.md`` comes before ``alpha.md``, ``a-b.md`` before ``a.md``.
    Case is not folded, so the 40 topics that make the index never depend on locale.
    """
    out: list[str] = []
    used = 0
    for t in sorted(topics, key=lambda t: t.path)[:MAX_INDEX_TOPICS]:
        line = topic_line(t)
        if used + len(line) + 1 > MAX_INDEX_CHARS:
            break
        out.append(line)
        used += len(line) + 1
    return out


def compose_block(memory_text: str, topics: Sequence[Topic], today: date) -> str:
    """Exactly what a new turn loads: cut MEMORY.md without expired entries, then the topic index."""
    loaded, unloaded = loaded_text(memory_text)
    doc = parse(loaded)
    kept = [b for b in doc.blocks if not (b.kind is BlockKind.ENTRY and b.expired(today))]
    lines = [line for b in kept for line in b.lines]
    if unloaded:
        lines.append(cut_notice(unloaded))
    index = topic_index(topics)
    if index:
        lines.append("## Topics")
        lines.extend(index)
    return "\n".join(lines) + "\n" if lines else ""
