"""Claude Code's sessions as operations: the project's auto memory folder, the fact that some of its
MEMORY.md does not load, recall for a prompt over its topic files, and the session's open turn.

:mod:`botmemory.core.faces.hooks` reads a hook event and answers it; everything it decides is here.

The auto memory folder is ``<claude dir>/projects/<project key>/memory/`` (``$CLAUDE_CONFIG_DIR``, else
``~/.claude``), or the ``autoMemoryDirectory`` setting; what loads of its ``MEMORY.md`` is the Claude Code
kind's rule (:mod:`botmemory.core.kinds.claude_code`). Recall is botmemory's recall (with its index) over
the folder's topic files, tracked or not.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from ..base.errors import BadInput, BotMemoryError
from ..base.log import get_logger
from ..base.wording import counted
from ..disk.paths import MEMORY_FILE, Folder, Home
from ..disk.safeio import atomic_write, read_file, remove_file
from ..kinds import claude_code
from ..store.memory import Memory

logger = get_logger(__name__)

MAX_CONTEXT = 10_000
RECALL_BUDGET_S = 2.0
"""Recall that takes longer than this is left out of the answer (the person is waiting)."""


# ----- Claude Code's auto memory: the Claude Code kind's rules


def auto_memory_dir(cwd: str) -> Path | None:
    """The project's auto memory folder, or None when auto memory is off (:func:`claude_code.project_memory_dir`)."""
    return claude_code.project_memory_dir(cwd, Path.home(), os.environ)


# ----- recall over a Claude Code memory folder


class _OneFolder:
    """A folder source of one untracked Claude Code folder, so that recall serves it like a tracked one."""

    def __init__(self, bot: str, folder: Path) -> None:
        self._folders = {bot: Folder(bot, folder, str(folder), claude_code.KIND)}

    def folders(self) -> Mapping[str, Folder]:
        return self._folders


def untracked_id(folder: Path) -> str:
    """The id recall keeps an untracked folder's index under: ``claude-code-`` and a hash of its path."""
    return "claude-code-" + hashlib.sha256(str(folder).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def folder_recall(mem: Memory, folder: Path, bot: str | None, prompt: str) -> list[tuple[str, str]]:
    """The (file, passage) notes recall finds in the folder's topic files for *prompt*.

    The same recall (and index) as every other folder: *bot* is the folder's tracked id; an untracked
    folder is served under :func:`untracked_id` for the call. MEMORY.md is never recalled: it loads already.
    """
    from ..recall.query import recall as recall_in_home   # the mechanism: an untracked folder is served by a Home of its own

    home = mem.home
    if bot is None:
        if folder.is_symlink() or not folder.is_dir():
            return []
        bot = untracked_id(folder)
        home = Home(home.root, _OneFolder(bot, folder))
    try:
        return [(n.file, n.text) for n in recall_in_home(home, bot, prompt, mem.today).notes]
    except BotMemoryError as e:
        logger.info("no recall from %s: %s", folder, e)
        return []


def compose(folder_notes: list[tuple[str, str]], bound: str) -> str:
    """The recall block: the header, then numbered notes; at most MAX_CONTEXT characters."""
    from ..recall.passages import HEADER as RECALL_HEADER

    parts: list[str] = []
    if folder_notes:
        share = (MAX_CONTEXT - len(RECALL_HEADER) - 400 - len(bound)) // max(len(folder_notes), 1)
        body = [f"{i}. {name}\n{cut(text, max(share - len(name) - 8, 80))}"
                for i, (name, text) in enumerate(folder_notes, 1)]
        parts.append(RECALL_HEADER + "\n\n" + "\n\n".join(body))
    if bound:
        parts.append(bound)
    return cut("\n\n".join(parts), MAX_CONTEXT)


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


# ----- open turns per session


def _sessions_dir(home: Home) -> Path:
    return home.state_dir / "hooks" / "claude-code"


def _session_file(home: Home, session: str) -> Path:
    """The session's open-turn record, named by the SHA-256 of its id: a session id is the client's to
    choose (a path, a credential), and never becomes a file name as it is."""
    digest = hashlib.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()
    return _sessions_dir(home) / f"{digest}.json"


def _legacy_session_file(home: Home, session: str) -> Path:
    """Where a turn opened before the hashed names was recorded (read once, to close it)."""
    return _sessions_dir(home) / (re.sub(r"[^A-Za-z0-9_-]", "_", session)[:120] + ".json")


def _save_turn(home: Home, session: str, bot: str | None, turn: str | None, chat: str = "",
               transcript_start: int | None = None, capture_bot: str | None = None) -> None:
    """The session's open turn (of a tracked folder), and where its transcript stood, for capture by the bound bot."""
    atomic_write(_session_file(home, session), json.dumps(
        {"bot": bot, "turn": turn, "chat": chat, "transcript_start": transcript_start,
         "capture_bot": capture_bot}).encode("utf-8"), home.root)


def _transcript_size(path: str | None) -> int | None:
    if not path:
        return None
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _end_turn(mem: Memory, session: str, said: str | None, transcript: str | None = None) -> None:
    """End the session's open turn; with *transcript* (a Stop's ``transcript_path``), hand the turn to capture:
    its part of Claude Code's transcript is what was appended since the prompt."""
    path = _session_file(mem.home, session)
    ft = read_file(path, mem.home.root)
    if ft is None:
        path = _legacy_session_file(mem.home, session)
        ft = read_file(path, mem.home.root)
    if ft is None:
        return
    from ..outside.turns import turn_end

    try:
        data = json.loads(ft.text)
        if not isinstance(data, dict):
            raise TypeError("not a session record")
        if isinstance(data.get("bot"), str) and isinstance(data.get("turn"), str):
            turn_end(mem, data["bot"], data["turn"], said)
        start, chat = data.get("transcript_start"), data.get("chat")
        who = data.get("capture_bot") or data.get("bot")
        if transcript and isinstance(start, int) and isinstance(chat, str) and chat and isinstance(who, str):
            from ..upkeep.capture_queue import note_turn
            from ..store.writer import new_change_id

            turn_id = data["turn"] if isinstance(data.get("turn"), str) else new_change_id(datetime.now().astimezone())
            why = note_turn(mem, who, turn_id, chat, transcript, start=start)
            if why:
                logger.info("the turn of session %s is not captured: %s", session, why)
    except (ValueError, TypeError, KeyError, BotMemoryError) as e:
        logger.info("the turn of session %s was already closed: %s", session, e)
    finally:
        try:
            remove_file(path, mem.home.root)
        except (FileNotFoundError, BotMemoryError):
            pass


def tracked_bot(mem: Memory, folder: Path) -> str | None:
    """The id under which botmemory serves *folder*: a tracked folder (the registry), else a workspace; or None."""
    try:
        target = folder.resolve()
    except OSError:
        return None
    folders = mem.home.folders()
    for bot in [*folders, *mem.home.workspace_names()]:
        try:
            if mem.home.workspace(bot).resolve() == target:
                return bot
        except (BotMemoryError, OSError):
            continue
    return None


def project_bot(mem: Memory, cwd: str) -> str:
    """The bot that serves the Claude Code project at *cwd* (``botmemory mcp --project``, what the plugin starts
    in the session's folder): its auto memory folder, tracked. BadInput says how to track it when it is not."""
    folder = auto_memory_dir(cwd)
    if folder is None:
        raise BadInput(f"auto memory is off for {cwd}: Claude Code keeps no memory folder there")
    bot = tracked_bot(mem, folder)
    if bot is None:
        from ..kinds.tracked import discover

        found = [c.id for c in discover(mem.home)[0] if c.path == folder]
        how = f"`botmemory track {found[0]}`" if found else f"`botmemory track --path {folder} --agent claude-code`"
        raise BadInput(f"botmemory does not track this project's memory folder ({folder}) yet: {how}, or Agent "
                       "folders… in the app, serves it")
    return bot


def session_start_note(cwd: str) -> str:
    """At a session's start: when the project's MEMORY.md does not all load, one fact saying how many of its
    lines do not load ("" when all of it loads)."""
    folder = auto_memory_dir(cwd)
    if folder is None or folder.is_symlink():
        return ""
    try:   # walked from the folder itself (its trust root): MEMORY.md a link to another project's is not read
        ft = read_file(folder / MEMORY_FILE, folder)
    except BotMemoryError as e:
        logger.info("session start: %s", e)
        return ""
    if ft is None:
        return ""
    kind = claude_code.KIND
    n = kind.loaded(MEMORY_FILE, ft.text, kind.limits(Path.home(), os.environ, {}))
    if not n.unloaded_lines:
        return ""
    return (
        f"{n.unloaded_lines} of the {counted(n.lines, 'line')} of {folder / MEMORY_FILE} "
        f"{'does' if n.unloaded_lines == 1 else 'do'} not load into this session: "
        f"Claude Code loads its first {n.max_lines} lines or {n.max_bytes:,} bytes, and the last line that loads "
        f"is line {n.lines - n.unloaded_lines} (counted after frontmatter and HTML comments). What is past it is "
        "not in your context.")


def open_prompt_turn(mem: Memory, session: str, cwd: str, bot: str | None,
                     transcript_path: str | None) -> tuple[Path | None, str | None]:
    """A prompt arrives: the project's folder and the id botmemory serves it under (or None), with the
    session's turn opened for it (a turn the last Stop did not close is ended first)."""
    folder = auto_memory_dir(cwd)
    tracked = tracked_bot(mem, folder) if folder is not None else None
    if (tracked or bot) and session:
        from ..outside.turns import turn_begin

        chat = f"Claude Code {session[:8]}"
        try:
            _end_turn(mem, session, None)       # a turn the last Stop did not close
            turn = turn_begin(mem, tracked, chat) if tracked else None
            _save_turn(mem.home, session, tracked, turn, chat, _transcript_size(transcript_path), bot)
        except BotMemoryError as e:
            logger.warning("could not open a turn for %s: %s", tracked or bot, e)
    return folder, tracked


def prompt_recall(mem: Memory, folder: Path | None, tracked: str | None, bot: str | None, prompt: str) -> str:
    """The recall block for *prompt*: the folder's topic files, then the bound workspace's (*bot*)."""
    notes = folder_recall(mem, folder, tracked, prompt) if folder is not None else []
    bound = ""
    if bot:
        from .find import recall_in

        try:
            bound = recall_in(mem.home, bot, prompt, mem.today).text
        except BotMemoryError as e:
            logger.info("no recall from %s: %s", bot, e)
    return compose(notes, bound.strip())


def end_session_turn(mem: Memory, session: str, said: str | None, transcript: str | None = None) -> None:
    """A Stop (with what was said and the transcript, for capture) or the session's end closes its open turn."""
    _end_turn(mem, session, said, transcript)


def log_error(home: Home | None, line: str) -> None:
    """Say what went wrong on stderr and in the hooks log; never raises."""
    logger.warning("%s", line)
    if home is None:
        return
    try:
        path = home.state_dir / "logs" / "hooks.log"
        ft = read_file(path, home.root)
        old = ft.text[-200_000:] if ft else ""
        atomic_write(path, (old + f"{datetime.now().isoformat(timespec='seconds')} {line}\n").encode("utf-8"),
                     home.root)
    except Exception:  # noqa: BLE001 - logging an error never fails the hook
        pass
