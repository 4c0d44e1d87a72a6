"""One line of a transcript: a turn's message, as capture, the recent-work brief and session search read it.

Two shapes are read: botmemory's own (``{"role", "text"}``, what a harness hands ``turn end --transcript``)
and Claude Code's (``{"type": "user" | "assistant", "message": {"content": …}, "timestamp", "sessionId",
"cwd", …}``). Of Claude Code's lines only the person's words and Claude's text are a message: a tool result,
an ``isMeta`` line (a caveat or a command's output Claude Code adds) and an assistant line that only calls a
tool are ``other`` or empty, and every other line type (attachments, queue operations, request blobs…) is
not a message at all.
"""
from __future__ import annotations

import json

from ..base.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ROLES = ("person", "bot", "other-person", "other-bot")


@record(frozen=True)
class Message:
    role: str
    text: str


def parse_line(raw: bytes) -> Message | None:
    """One transcript line: ours (``role``/``text``) or Claude Code's (``type``/``message``). None when unreadable."""
    try:
        d = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return message_of(d) if isinstance(d, dict) else None


def message_of(d: dict[str, Any]) -> Message | None:
    """The message of one decoded transcript line (:func:`parse_line`), or None when it holds none."""
    role, text = d.get("role"), d.get("text")
    if isinstance(role, str) and isinstance(text, str):
        return Message(role, text) if role in ROLES else None
    kind, msg = d.get("type"), d.get("message")
    if kind not in ("user", "assistant") or not isinstance(msg, dict):
        return None
    if d.get("isMeta") is True or d.get("toolUseResult") is not None:
        return Message("other", "")       # not the person's words
    content = msg.get("content")
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        if any(isinstance(p, dict) and p.get("type") == "tool_result" for p in content):
            return Message("other", "")
        parts = [p["text"] for p in content
                 if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)]
    else:
        return None
    return Message("person" if kind == "user" else "bot", "\n".join(parts))
