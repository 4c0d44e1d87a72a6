"""Text measured as a JavaScript engine measures it: in UTF-16 code units, trimmed by its whitespace rules.

OpenClaw (node) and Claude Code count a string's ``length``: an emoji or any
other character past U+FFFF counts 2, every other character 1. Their cuts never
split such a character: a cut inside one moves inward (:func:`head`, :func:`tail`).
Their ``trim`` knows a different whitespace set from Python's ``str.strip``
(U+FEFF is whitespace, U+001C–U+001F and U+0085 are not).
"""
from __future__ import annotations

import re

JS_SPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
            "\u2028\u2029\u202f\u205f\u3000\ufeff")
"""What ``String.prototype.trim`` and ``\\s`` take as white space."""
SPACE_CLASS = "[" + re.escape(JS_SPACE) + "]"
""":data:`JS_SPACE` as a regular-expression class (JavaScript's ``\\s``)."""


def length(s: str) -> int:
    """``s.length`` in JavaScript: UTF-16 code units."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def head(s: str, n: int) -> str:
    """The first *n* units of *s*, one fewer when the cut would split a character (``sliceUtf16Safe(s, 0, n)``)."""
    if n <= 0:
        return ""
    if s.isascii():
        return s[:n]
    b = s.encode("utf-16-le", "surrogatepass")
    cut = 2 * n
    if cut >= len(b):
        return s
    if 0xD800 <= int.from_bytes(b[cut - 2:cut], "little") <= 0xDBFF:
        cut -= 2
    return b[:cut].decode("utf-16-le", "surrogatepass")


def tail(s: str, n: int) -> str:
    """The last *n* units of *s*, one fewer when the cut would split a character (``sliceUtf16Safe(s, -n)``)."""
    if n <= 0:
        return ""
    if s.isascii():
        return s[-n:]
    b = s.encode("utf-16-le", "surrogatepass")
    cut = len(b) - 2 * n
    if cut <= 0:
        return s
    if 0xDC00 <= int.from_bytes(b[cut:cut + 2], "little") <= 0xDFFF:
        cut += 2
    return b[cut:].decode("utf-16-le", "surrogatepass")


def trim_end(s: str) -> str:
    """``s.trimEnd()``."""
    return s.rstrip(JS_SPACE)


def trim(s: str) -> str:
    """``s.trim()``."""
    return s.strip(JS_SPACE)


def offsets(s: str) -> list[int]:
    """Where each character of *s* starts, in units, and its whole length last (``len(s) + 1`` numbers)."""
    out = [0] * (len(s) + 1)
    at = 0
    for i, ch in enumerate(s):
        out[i] = at
        at += 2 if ord(ch) > 0xFFFF else 1
    out[len(s)] = at
    return out
