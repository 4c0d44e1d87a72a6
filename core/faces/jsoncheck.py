"""Checks on decoded JSON that the faces share (HTTP bodies, MCP messages): pure, no I/O.

Python's ``json`` decodes ``"\\ud800"`` into a string holding a lone surrogate, which is not
Unicode text: it cannot be encoded as UTF-8, so it would fail (or turn into "?" or U+FFFD) only
when a note is written. :func:`lone_surrogate` finds such a string (or key) first and says where,
so the request is refused as bad input naming its field. :func:`depth` measures nesting without
recursion, for a limit a parser further on would otherwise hit.
"""
from __future__ import annotations

from typing import Any


def _bad(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def where(path: tuple[str | int, ...]) -> str:
    """``("params", "arguments", "text")`` -> ``params.arguments.text``; list items as ``[2]``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out or "value"


def lone_surrogate(value: Any) -> str | None:
    """Where a string or key in *value* holds a lone surrogate (``text``, ``items[2]``), or None."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, str):
            if _bad(v):
                return where(path)
        elif isinstance(v, dict):
            for k, item in v.items():
                key = str(k)
                if _bad(key):
                    return where(path) + " (a key)" if path else "a key"
                stack.append(((*path, key), item))
        elif isinstance(v, list):
            stack.extend(((*path, i), item) for i, item in enumerate(v))
    return None


def shown(s: str, limit: int = 40) -> str:
    """*s* for a message: a lone surrogate as ``\\udXXX``, cut to *limit* characters."""
    cut = s if len(s) <= limit else s[:limit] + "…"
    return cut.encode("utf-8", "backslashreplace").decode("utf-8")


def depth(value: Any) -> int:
    """How deeply *value* nests lists and objects (a scalar is 0, ``[]`` is 1)."""
    deepest = 0
    stack: list[tuple[int, Any]] = [(0, value)]
    while stack:
        d, v = stack.pop()
        if isinstance(v, dict):
            deepest = max(deepest, d + 1)
            stack.extend((d + 1, item) for item in v.values())
        elif isinstance(v, list):
            deepest = max(deepest, d + 1)
            stack.extend((d + 1, item) for item in v)
    return deepest
