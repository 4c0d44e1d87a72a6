"""Counted nouns in messages: ``1 line``, ``2 lines``, ``1,234 bytes`` — one rule for the CLI and the desktop."""
from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """*n* with the noun (or phrase) in the right number: ``counted(1, "line")`` is ``1 line``.

    *many* defaults to *one* + ``s``; give it for other plurals and for a verb that
    agrees (``counted(n, "entry", "entries")``, ``counted(n, "line does", "lines do")``).
    The number has thousands separators.
    """
    return f"{n:,} {one if n == 1 else (many if many is not None else one + 's')}"
