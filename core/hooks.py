"""``botmemory hook claude-code``: Claude Code's hook events, answered within the hook's rules.

One event JSON arrives on stdin; the answer (if any) goes to stdout as
``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}``, at most
10,000 characters, written as facts. A hook never blocks the person: it always
exits 0, answers without recall rather than late, and logs its errors (to
stderr, which Claude Code shows in its debug log, and to
``<home>/botmemory/logs/hooks.log``).

- ``SessionStart``: when the project's auto memory (``MEMORY.md``) does not
  all load, one line saying how many of its lines do not load. Nothing when
  all loads.
- ``UserPromptSubmit``: opens a turn for the project's memory folder when
  botmemory tracks it, and answers with recall for the prompt over the
  folder's topic files and over the bound workspace (``--bot``).
- ``Stop``: ends the session's open turn (``last_assistant_message`` as what
  was said): what changed in the folder meanwhile is Claude's work in that
  session. ``SessionEnd`` closes whatever the session left open.

The auto memory folder is ``<claude dir>/projects/<cwd, every non-alphanumeric
character as '-'>/memory/`` (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``), or
the ``autoMemoryDirectory`` setting. What loads of its ``MEMORY.md``: the first
200 lines or 25,000 bytes, after the frontmatter and block-level HTML comments
are stripped (:func:`claude_code_loaded`; the Claude Code "kind" owns the same
rule once botmemory tracks those folders).
"""
from __future__ import annotations

import json
import logging
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from . import BotMemoryError, Home, Memory, atomic_write, read_file
from .connect import claude_dir

logger = logging.getLogger(__name__)

MAX_CONTEXT = 10_000
CC_MAX_LINES = 200
CC_MAX_BYTES = 25_000
RECALL_BUDGET_S = 2.0
"""Recall that takes longer than this is left out of the answer (the person is waiting)."""
MAX_NOTES = 4
MAX_TOPIC_FILES = 5000
MAX_TOPIC_BYTES = 256 * 1024
_BLOCK_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*(?:\n|$)", re.S | re.M)
_WORD = re.compile(r"\w+")


# ----- Claude Code's auto memory


def project_key(cwd: str) -> str:
    """The folder name Claude Code gives a project: every non-alphanumeric character as ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _setting(cwd: Path | None, key: str) -> Any:
    """A Claude Code setting, the most specific level first (local, project, user)."""
    files = []
    if cwd is not None:
        files += [cwd / ".claude" / "settings.local.json", cwd / ".claude" / "settings.json"]
    files.append(claude_dir() / "settings.json")
    for f in files:
        try:
            ft = read_file(f)
            data = json.loads(ft.text) if ft else None
        except (BotMemoryError, ValueError, OSError):
            continue
        if isinstance(data, dict) and key in data:
            return data[key]
    return None


def auto_memory_dir(cwd: str) -> Path | None:
    """The project's auto memory folder, or None when auto memory is off."""
    if os.environ.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "") not in ("", "0"):
        return None
    here = Path(cwd) if cwd else None
    if _setting(here, "autoMemoryEnabled") is False:
        return None
    custom = _setting(here, "autoMemoryDirectory")
    if isinstance(custom, str) and custom.strip():
        return Path(custom).expanduser()
    return claude_dir() / "projects" / project_key(cwd) / "memory"


def _strip_for_loading(text: str) -> str:
    """MEMORY.md as Claude Code measures it: no frontmatter, no block-level HTML comments."""
    if text.startswith("---\n") or text.startswith("---\r\n"):
        end = re.search(r"^---[ \t]*\r?$\n?", text[4:], re.M)
        if end:
            text = text[4 + end.end():]
    return _BLOCK_COMMENT.sub("", text)


@dataclass(frozen=True)
class Loaded:
    lines: int          # lines counted after stripping
    loaded: int         # of which load

    @property
    def unloaded(self) -> int:
        return self.lines - self.loaded


def claude_code_loaded(text: str) -> Loaded:
    """How many lines of a Claude Code MEMORY.md load: the first 200 lines or 25,000 bytes."""
    body = _strip_for_loading(text)
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    size = 0
    loaded = 0
    for ln in lines[:CC_MAX_LINES]:
        size += len(ln.encode("utf-8")) + 1
        if size > CC_MAX_BYTES:
            break
        loaded += 1
    return Loaded(len(lines), loaded)


# ----- recall over a Claude Code memory folder


def _paragraphs(text: str) -> list[str]:
    if text.startswith("---"):
        text = _strip_for_loading(text)
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def folder_recall(folder: Path, prompt: str, limit: int = MAX_NOTES) -> list[tuple[str, str]]:
    """Up to *limit* (file, passage) pairs of the folder's topic files that share words with *prompt*.

    A passage is a paragraph (headings alone are not); the best one of a file, files with more of the
    prompt's words first. MEMORY.md is never recalled: it is loaded already.
    """
    from . import content_words, fold

    words = content_words(prompt)
    if len(prompt.strip()) < 8 or not words:
        return []
    keys = {fold(w) for w in words[:256]}
    needles = [k.encode("utf-8") for k in keys]
    need = 2 if len(words) >= 5 else 1
    scored: list[tuple[int, str, int, str]] = []
    try:
        with os.scandir(folder) as it:
            entries = sorted((e for e in it if e.name.endswith(".md") and e.name != "MEMORY.md"
                              and not e.name.startswith(".")), key=lambda e: e.name)[:MAX_TOPIC_FILES]
    except OSError:
        return []
    for e in entries:
        if e.is_symlink():             # never read through a link
            continue
        data = _read_small(e.path)
        if data is None:
            continue
        low = data.lower()
        if not any(n in low for n in needles):    # most files share no word: skip them cheaply
            continue
        text = data.decode("utf-8", errors="replace")
        best: tuple[int, str, int, str] | None = None
        for i, para in enumerate(_paragraphs(text)):
            if all(ln.lstrip().startswith("#") for ln in para.split("\n")):
                continue
            have = {fold(w) for w in _WORD.findall(para.lower())} & keys
            if len(have) >= need and (best is None or -len(have) < best[0]):
                best = (-len(have), e.name, i, para)
        if best is not None:
            scored.append(best)
    scored.sort()
    return [(name, para) for _, name, _, para in scored[:limit]]


def _read_small(path: str) -> bytes | None:
    """A regular file's bytes (None for a link, a non-file or one over MAX_TOPIC_BYTES)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_TOPIC_BYTES:
            return None
        return os.read(fd, MAX_TOPIC_BYTES + 1)[:MAX_TOPIC_BYTES]
    except OSError:
        return None
    finally:
        os.close(fd)


def compose(folder_notes: list[tuple[str, str]], bound: str) -> str:
    """The recall block: the header, then numbered notes; at most MAX_CONTEXT characters."""
    from . import RECALL_HEADER

    parts: list[str] = []
    if folder_notes:
        share = (MAX_CONTEXT - len(RECALL_HEADER) - 400 - len(bound)) // max(len(folder_notes), 1)
        body = [f"{i}. {name}\n{_cut(text, max(share - len(name) - 8, 80))}"
                for i, (name, text) in enumerate(folder_notes, 1)]
        parts.append(RECALL_HEADER + "\n\n" + "\n\n".join(body))
    if bound:
        parts.append(bound)
    return _cut("\n\n".join(parts), MAX_CONTEXT)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


# ----- open turns per session


def _sessions_dir(home: Home) -> Path:
    return home.state_dir / "hooks" / "claude-code"


def _session_file(home: Home, session: str) -> Path:
    return _sessions_dir(home) / (re.sub(r"[^A-Za-z0-9_-]", "_", session)[:120] + ".json")


def _save_turn(home: Home, session: str, bot: str, turn: str) -> None:
    atomic_write(_session_file(home, session), json.dumps({"bot": bot, "turn": turn}).encode("utf-8"))


def _end_turn(mem: Memory, session: str, said: str | None) -> None:
    path = _session_file(mem.home, session)
    ft = read_file(path)
    if ft is None:
        return
    from . import turn_end

    try:
        data = json.loads(ft.text)
        turn_end(mem, str(data["bot"]), str(data["turn"]), said)
    except (ValueError, KeyError, BotMemoryError) as e:
        logger.info("the turn of session %s was already closed: %s", session, e)
    finally:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def tracked_bot(mem: Memory, folder: Path) -> str | None:
    """The id under which botmemory tracks *folder*, or None (tracking comes with the agent kinds)."""
    try:
        target = folder.resolve()
    except OSError:
        return None
    for bot in mem.home.bots():
        try:
            if mem.home.workspace(bot).resolve() == target:
                return bot
        except (BotMemoryError, OSError):
            continue
    return None


# ----- the events


def _context(event: str, text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": _cut(text, MAX_CONTEXT)}},
                      ensure_ascii=False)


def session_start(event: Mapping[str, Any]) -> str:
    folder = auto_memory_dir(str(event.get("cwd") or ""))
    if folder is None:
        return ""
    ft = read_file(folder / "MEMORY.md")
    if ft is None:
        return ""
    n = claude_code_loaded(ft.text)
    if not n.unloaded:
        return ""
    return _context("SessionStart", (
        f"{n.unloaded} of the {n.lines} lines of {folder / 'MEMORY.md'} do not load into this session: Claude Code "
        f"loads its first {CC_MAX_LINES} lines or {CC_MAX_BYTES:,} bytes, and the last line that loads is line "
        f"{n.loaded} (counted after frontmatter and HTML comments). What is past it is not in your context."))


def with_deadline(fn: Callable[[], str], seconds: float) -> str:
    """*fn*'s answer, or "" when it takes longer than *seconds* (it goes on in a daemon thread)."""
    box: list[str] = []

    def run() -> None:
        try:
            box.append(fn())
        except Exception:
            logger.exception("recall failed")

    t = threading.Thread(target=run, name="botmemory-hook-recall", daemon=True)
    t.start()
    t.join(max(seconds, 0.0))
    if not box:
        logger.warning("recall took longer than %.1f s: answered without it", seconds)
    return box[0] if box else ""


def user_prompt(mem: Memory, event: Mapping[str, Any], bot: str | None, budget: float) -> str:
    session = str(event.get("session_id") or "")
    prompt = str(event.get("prompt") or "")
    folder = auto_memory_dir(str(event.get("cwd") or ""))
    tracked = tracked_bot(mem, folder) if folder is not None else None
    if tracked and session:
        from . import turn_begin

        try:
            _end_turn(mem, session, None)       # a turn the last Stop did not close
            _save_turn(mem.home, session, tracked, turn_begin(mem, tracked, f"Claude Code {session[:8]}"))
        except BotMemoryError as e:
            logger.warning("could not open a turn for %s: %s", tracked, e)

    def recall() -> str:
        notes = folder_recall(folder, prompt) if folder is not None else []
        bound = ""
        if bot:
            from . import recall_notes

            try:
                bound = recall_notes(mem.home, bot, prompt, mem.today).text
            except BotMemoryError as e:
                logger.info("no recall from %s: %s", bot, e)
        return compose(notes, bound.strip())

    text = with_deadline(recall, budget)
    return _context("UserPromptSubmit", text) if text else ""


def handle(mem: Memory | None, raw: str, bot: str | None = None, budget: float | None = None) -> str:
    """The answer to one Claude Code hook event (raw JSON); "" for none. Never raises."""
    started = time.monotonic()
    try:
        event = json.loads(raw)
        if not isinstance(event, dict):
            log_error(mem.home if mem else None, "hook claude-code: the event on stdin is not a JSON object")
            return ""
        name = event.get("hook_event_name")
        if name == "SessionStart":
            return session_start(event)
        if mem is None:
            return ""
        if name == "UserPromptSubmit":
            left = (RECALL_BUDGET_S if budget is None else budget) - (time.monotonic() - started)
            return user_prompt(mem, event, bot, left)
        if name in ("Stop", "SubagentStop", "SessionEnd") and event.get("session_id"):
            said = event.get("last_assistant_message") if name != "SessionEnd" else None
            _end_turn(mem, str(event["session_id"]), said if isinstance(said, str) else None)
        return ""
    except Exception as e:  # noqa: BLE001 - a hook never fails the person: it logs and answers nothing
        log_error(mem.home if mem else None, f"hook claude-code: {type(e).__name__}: {e}")
        return ""


def log_error(home: Home | None, line: str) -> None:
    """Say what went wrong on stderr and in the hooks log; never raises."""
    logger.warning("%s", line)
    if home is None:
        return
    try:
        path = home.state_dir / "logs" / "hooks.log"
        ft = read_file(path)
        old = ft.text[-200_000:] if ft else ""
        atomic_write(path, (old + f"{datetime.now().isoformat(timespec='seconds')} {line}\n").encode("utf-8"))
    except Exception:  # noqa: BLE001 - logging an error never fails the hook
        pass
