"""Capture's queue: the turns waiting to be read (``memory-capture-pending.json``), its settings and
reading a turn's messages from its transcript. :mod:`.capture` describes the whole.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..base.errors import BadInput, BotMemoryError
from ..base.log import get_logger
from ..base.wording import counted
from ..disk import config
from ..disk.paths import Home, check_bot_id
from ..disk.safeio import WorkspaceLock, atomic_write, read_file
from ..store.memory import Memory
from ..store.writer import Actor
from ..text.transcript import ROLES as ROLES  # (capture reads them here)
from ..text.transcript import Message as Message
from ..text.transcript import parse_line as parse_line

logger = get_logger(__name__)


PENDING_FILE = "memory-capture-pending.json"
MAX_PENDING_CHATS = 50
TURNS_PER_BATCH = 6
DEFAULT_QUIET_MS = 120_000
MAX_TURN_BYTES = 256 * 1024
MAX_PROMPT_TURN_CHARS = 40_000
MAX_PROMPT_MEMORY_CHARS = 24_000
MAX_PROMPT_TOPICS_CHARS = 8_000
MAX_FACTS = 40
MAX_ABOUT_ME_CHARS = 300
CLAIM_SECONDS = 300         # another live process's batch is left alone this long
MAX_ATTEMPTS = 2            # a batch is tried once more after a crash or a failing helper
STARTERS = ("person", "bot", "harness", "routine", "webhook")
TARGETS = ("memory", "topic", "about-me", "team")
KINDS = ("preference", "person", "decision", "outcome", "other")
ABOUT_ME = "about-me.md"
CAPTURE = "capture"


def actor(chat: str) -> Actor:
    return Actor("upkeep", CAPTURE, chat)


# ----- settings


def quiet_seconds(home: Home) -> float:
    mem = config.read_config(home).get("memory")
    raw = mem.get("captureQuietMs") if isinstance(mem, dict) else None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw >= 0:
        return float(raw) / 1000.0
    return DEFAULT_QUIET_MS / 1000.0


def room_capture(home: Home) -> bool:
    features = config.read_config(home).get("features")
    return isinstance(features, dict) and features.get("roomMemoryCapture") is True


# ----- the pending turns


def pending_path(home: Home) -> Path:
    return home.root / PENDING_FILE


@contextmanager
def _pending_lock(home: Home) -> Iterator[None]:
    with WorkspaceLock.for_file(home.state_dir / "locks" / "_capture.lock").held():
        yield


def read_pending(home: Home) -> list[dict[str, Any]]:
    """The pending chats, oldest first; a damaged file counts as none."""
    try:
        ft = read_file(pending_path(home))
    except BotMemoryError as e:
        logger.warning("%s unreadable: %s", PENDING_FILE, e)
        return []
    if ft is None or not ft.valid:
        return []
    try:
        data = json.loads(ft.text)
    except (ValueError, RecursionError):
        logger.warning("%s is not valid JSON; starting afresh", PENDING_FILE)
        return []
    chats = data.get("chats") if isinstance(data, dict) else None
    out: list[dict[str, Any]] = []
    for c in chats if isinstance(chats, list) else []:
        if (isinstance(c, dict) and isinstance(c.get("bot"), str) and isinstance(c.get("chat"), str)
                and isinstance(c.get("turns"), list)):
            c["turns"] = [t for t in c["turns"] if _turn_ok(t)]
            c["attempts"] = c.get("attempts") if isinstance(c.get("attempts"), int) else 0
            c["room"] = c.get("room") is True
            out.append(c)
    return out


def _turn_ok(t: object) -> bool:
    return (isinstance(t, dict) and isinstance(t.get("id"), str) and isinstance(t.get("transcript"), str)
            and isinstance(t.get("start"), int) and isinstance(t.get("end"), int)
            and isinstance(t.get("at"), (int, float)))


def _write_pending(home: Home, chats: list[dict[str, Any]]) -> None:
    chats = chats[-MAX_PENDING_CHATS:]
    data = {"version": 1, "chats": chats}
    atomic_write(pending_path(home), (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))


def _find(chats: list[dict[str, Any]], bot: str, chat: str, room: bool) -> dict[str, Any] | None:
    return next((c for c in chats if c["bot"] == bot and c["chat"] == chat and c["room"] == room), None)


def note_turn(mem: Memory, bot: str, turn_id: str, chat: str, transcript: str | os.PathLike[str], *,
              failed: bool = False, started_by: str = "person", room: bool = False,
              now: float | None = None, start: int | None = None) -> str | None:
    """Keep an ended turn for capture. Returns why it is not kept (None when it is).

    Never reads the transcript's words: only its size, so the turn's part is
    known later (from *start* when the caller knows where the turn began, as
    the Claude Code hook does). A missing transcript is bad input (exit 2).
    """
    check_bot_id(bot)
    if started_by not in STARTERS:
        raise BadInput(f"bad --started-by {started_by!r}: one of {', '.join(STARTERS)}")
    path = Path(transcript).expanduser().absolute()
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError as e:
        raise BadInput(f"the transcript {str(path)!r} cannot be read: {e.strerror}") from None
    if not os.path.isfile(path) or os.path.islink(path):
        raise BadInput(f"the transcript {str(path)!r} is not a regular file")
    layout = mem.home.layout(bot)
    if layout is not None and layout.writes_own_memory:
        return f"capture does not apply to {bot}: {layout.refusal}"
    if failed:
        return "a failed turn is never read"
    if started_by != "person":
        return f"a turn started by {'another bot' if started_by == 'bot' else 'the ' + started_by} is never read"
    s = config.bot_settings(mem.home, bot)
    if not (s.memory and s.upkeep):
        return f"memory or its upkeep is switched off for {bot}"
    if room and not room_capture(mem.home):
        return "a room's turns are read only with features.roomMemoryCapture (Learn from group chats)"
    at = time.time() if now is None else now
    with _pending_lock(mem.home):
        chats = read_pending(mem.home)
        entry = _find(chats, bot, chat, room)
        begin = 0
        if entry is not None:
            same = [t for t in entry["turns"] if t["transcript"] == str(path)]
            if same and st.st_size > same[-1]["end"]:
                begin = same[-1]["end"]
            chats.remove(entry)
        else:
            entry = {"bot": bot, "chat": chat, "room": room, "attempts": 0, "turns": []}
        if start is not None and 0 <= start <= st.st_size:
            begin = start
        if not any(t["id"] == turn_id for t in entry["turns"]):
            entry["turns"].append({"id": turn_id, "transcript": str(path), "start": begin, "end": st.st_size,
                                   "at": at})
        chats.append(entry)          # the newest chat last: the oldest go first past the limit
        _write_pending(mem.home, chats)
    return None


def due_chats(chats: Sequence[dict[str, Any]], now: float, quiet: float) -> list[dict[str, Any]]:
    """Chats quiet for *quiet* seconds since their last turn, or holding six turns. Pure."""
    out = []
    for c in chats:
        if not c["turns"]:
            continue
        last = max(float(t["at"]) for t in c["turns"])
        if len(c["turns"]) >= TURNS_PER_BATCH or now - last >= quiet:
            out.append(c)
    return out


# ----- reading a turn's messages


def read_turn(transcript: str, start: int, end: int) -> tuple[list[Message], str | None]:
    """The messages of one turn's part of a transcript, and a note when something was off.

    Never through a symbolic link; only bytes [start, end), and of those only
    the last :data:`MAX_TURN_BYTES`. A torn or unreadable line is left out.
    """
    try:
        fd = os.open(transcript, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return [], "the transcript is gone (the chat was deleted?); nothing read"
    except OSError as e:
        return [], f"the transcript cannot be read ({e.strerror}); nothing read"
    note = None
    try:
        size = os.fstat(fd).st_size
        if size < end:
            return [], "the transcript is shorter than when the turn ended (rewound?); nothing read"
        begin = max(start, end - MAX_TURN_BYTES)
        os.lseek(fd, begin, os.SEEK_SET)
        data = b""
        while len(data) < end - begin:
            chunk = os.read(fd, end - begin - len(data))
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    if begin > start:
        cut = data.find(b"\n")
        data = data[cut + 1:] if cut >= 0 else b""
        note = f"the turn's transcript is larger than {MAX_TURN_BYTES // 1024} KB; only its end was read"
    out: list[Message] = []
    torn = 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        msg = parse_line(raw)
        if msg is None:
            torn += 1
        elif msg.text.strip():
            out.append(msg)
    if torn:
        note = (note + "; " if note else "") + f"{counted(torn, 'unreadable line')} left out"
    return out, note
