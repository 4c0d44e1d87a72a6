"""Topic frontmatter, read safely.

A topic may begin with a small YAML block (``title``, ``description``,
``aliases``). It is read with PyYAML's safe loader, refusing anchors and aliases
(no billion laughs), at most 16 KB; anything odd — bad YAML, deep nesting that
raises ``RecursionError``, values of the wrong type — makes the block count as
absent. A bad frontmatter never fails a command.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..base.log import get_logger
from ..base.record import record

logger = get_logger(__name__)

MAX_FRONTMATTER_BYTES = 16 * 1024


@record(frozen=True)
class Frontmatter:
    title: str | None = None
    description: str | None = None
    aliases: tuple[str, ...] = ()


def split(text: str) -> tuple[str | None, int]:
    """The raw frontmatter (or None) and how many lines it spans with its fences."""
    if not text.startswith("---\n") and not text.startswith("---\r\n"):
        return None, 0
    lines = text.split("\n")
    n = spanned(lines)
    return ("\n".join(lines[1:n - 1]), n) if n else (None, 0)


def spanned(lines: list[str]) -> int:
    """How many of a text's lines (split at ``\n``) its frontmatter spans with its fences (0: none): an
    opening ``---`` line, then up to the first closing ``---`` or ``...``."""
    if len(lines) < 2 or lines[0] not in ("---", "---\r"):
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r") in ("---", "..."):
            return i + 1
    return 0


def _safe_load(raw: str) -> object:
    import yaml  # imported on first use: most commands never read a frontmatter

    for event in yaml.parse(raw, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise ValueError("anchors and aliases are not allowed in frontmatter")
    return yaml.load(raw, Loader=yaml.SafeLoader)  # noqa: S506 - SafeLoader


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _yaml_error() -> type[Exception]:
    import yaml

    return yaml.YAMLError


def read(text: str) -> Frontmatter | None:
    """Parse a topic's frontmatter; None when it has none or it cannot be read."""
    raw, _ = split(text)
    if raw is None:
        return None
    if len(raw.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        logger.info("frontmatter larger than %d bytes ignored", MAX_FRONTMATTER_BYTES)
        return None
    try:
        data = _safe_load(raw)
    except _yaml_error() as e:
        logger.info("unreadable frontmatter ignored: %s", str(e).splitlines()[0] if str(e) else type(e).__name__)
        return None
    except (ValueError, RecursionError) as e:
        logger.info("unreadable frontmatter ignored: %s", str(e).splitlines()[0] if str(e) else type(e).__name__)
        return None
    if not isinstance(data, dict):
        return None
    aliases_raw = data.get("aliases")
    aliases: tuple[str, ...] = ()
    if isinstance(aliases_raw, list):
        if all(_text(a) is not None for a in aliases_raw):
            aliases = tuple(t for a in aliases_raw if (t := _text(a)) is not None)
    elif (single := _text(aliases_raw)) is not None:
        aliases = (single,)
    return Frontmatter(_text(data.get("title")), _text(data.get("description")), aliases)


@lru_cache(maxsize=1)
def _plain() -> re.Pattern[str]:
    """A plain scalar's characters, compiled on first use: its range to U+FFFF costs milliseconds to compile,
    paid otherwise by every process that imports this module (a search reads no frontmatter)."""
    return re.compile(r"[A-Za-z\u00c0-\uffff][\w .,()/'&+?!-]*")


_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_FM_LINE = re.compile(r"([A-Za-z_][\w-]*):(?: (.*))?")


def _quick_scalar(raw: str, flow: bool = False) -> str | None:
    """A plain or double-quoted YAML scalar that reads the same in every YAML 1.1 reader, else None.
    *flow*: an item of a ``[..]`` list, where a ``?`` ends a plain scalar (PyYAML)."""
    raw = raw.strip()
    if flow and "?" in raw:
        return None
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2 and "\\" not in raw:
        inner = raw[1:-1]
        return inner if '"' not in inner else None
    if _plain().fullmatch(raw) and raw.lower() not in _YAML_WORDS and not raw.endswith((" ", ":")) \
            and ": " not in raw and " #" not in raw:
        return raw
    return None


def quick_frontmatter(text: str) -> Frontmatter | None | bool:
    """The frontmatter of the simple form botmemory and most people write (``key: value``, ``aliases:
    [a, b]``) without the YAML parser; False when it is not that simple (then :func:`read`)."""
    raw, _ = split(text)
    if raw is None:
        return None
    return _quick(raw)


def _quick(raw: str) -> Frontmatter | bool:
    values: dict[str, str | tuple[str, ...]] = {}
    for line in raw.split("\n"):
        if not line.strip():
            continue
        m = _FM_LINE.fullmatch(line.rstrip("\r"))
        if m is None or m.group(1) in values:
            return False
        value = (m.group(2) or "").strip()
        if value.startswith("[") and value.endswith("]"):
            items = [i for i in value[1:-1].split(",")]
            parsed = [_quick_scalar(i, flow=True) for i in items] if value[1:-1].strip() else []
            if any(p is None for p in parsed):
                return False
            values[m.group(1)] = tuple(p.strip() for p in parsed if p is not None and p.strip())
        else:
            one = _quick_scalar(value) if value else None
            if one is None:
                return False
            values[m.group(1)] = one.strip()
    title, desc, aliases = values.get("title"), values.get("description"), values.get("aliases", ())
    if isinstance(title, tuple) or isinstance(desc, tuple):
        return False
    if isinstance(aliases, str):
        aliases = (aliases,)
    return Frontmatter(title or None, desc or None, aliases)


def read_fast(text: str) -> Frontmatter | None:
    """:func:`read`, without the YAML parser for the simple form (``key: value``, ``aliases: [a, b]``)."""
    raw, _ = split(text)
    if raw is None:
        return None
    if len(raw) * 4 <= MAX_FRONTMATTER_BYTES or len(raw.encode("utf-8")) <= MAX_FRONTMATTER_BYTES:
        quick = _quick(raw)
        if isinstance(quick, Frontmatter):
            return quick
    return read(text)   # not the simple form, or too large (which read() refuses)


def body_start(text: str) -> int:
    """The index of the first line after the frontmatter (0 when there is none)."""
    return split(text)[1]
