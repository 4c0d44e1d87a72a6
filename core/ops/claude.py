"""Claude Code's sessions as operations: the project's auto memory folder, the fact that some of its
MEMORY.md does not load, recall for a prompt over its topic files, and the session's open turn.

:mod:`botmemory.core.faces.hooks` reads a hook event and answers it; everything it decides is here.

The auto memory folder is the one Claude Code itself uses (:mod:`botmemory.core.kinds.claude_code_paths`):
``<claude dir>/projects/<the project's git root, as a folder name>/memory/`` (``$CLAUDE_CONFIG_DIR``, else
``~/.claude``; a worktree's sessions use the main checkout's), or the ``autoMemoryDirectory`` setting; what
loads of its ``MEMORY.md`` is the Claude Code kind's rule. Recall is botmemory's recall (with its index) over
the folder's topic files, tracked or not; a folder whose index is not built yet is read directly for at most
:data:`COLD_READ_S` while a detached process builds the index (:data:`HOOK_INLINE_BYTES`).

A session's turn is keyed by its ``session_id``. Its chat is ``Claude Code <first 8 of the id>``
(:func:`chat_name`): the journal rows of what it changed, its capture, and the MCP server's writes from that
session (:func:`mcp_chat`) all carry it. With two sessions open at once in one folder, each Stop records the
files its own transcript shows Claude writing (Write, Edit, MultiEdit, NotebookEdit); what no open session's
transcript names goes to the session that ends last.
"""
from __future__ import annotations

import json
import os
import re
import stat
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from ..base.errors import BadInput, BotMemoryError
from ..base.log import get_logger
from ..base.wording import counted
from ..disk.paths import MEMORY_FILE, Folder, Home
from ..disk.safeio import atomic_write, read_file, remove_file
from ..kinds import claude_code_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import date

    from ..store.memory import Memory

logger = get_logger(__name__)

MAX_CONTEXT = 10_000
RECALL_BUDGET_S = 2.0
"""Recall that takes longer than this is left out of the answer (the person is waiting)."""
COLD_READ_S = 0.15
"""How long a prompt's recall reads topics its index does not cover yet (then it answers from what it read)."""
HOOK_INLINE_BYTES = 256 * 1024
"""Changed topics up to this size are indexed before a prompt is answered; more are indexed by a detached
builder (it outlives the hook) while the prompt's recall reads them directly."""
TRANSCRIPT_READ = 8 * 1024 * 1024
"""At most this much of a turn's transcript is read for the files the turn wrote."""
WRITING_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}
"""Claude Code's tools that write a file, and the argument naming it."""


class HookContext:
    """What a hook event reaches of botmemory's home: its :class:`Home` (the tracked folders attached) at once,
    the opened :class:`Memory` — store, journal, shadows — only when the event records a turn. A prompt in a
    folder botmemory does not track answers without ever loading the journal."""

    def __init__(self, home: Home, today: date, mem: Memory | None = None, root: str | None = None,
                 given_today: str | None = None) -> None:
        self.home = home
        self.today = today
        self._mem = mem
        self._root, self._given_today = root, given_today

    @classmethod
    def of(cls, mem: Memory) -> HookContext:
        return cls(mem.home, mem.today, mem)

    @classmethod
    def at(cls, root: str | None, today: str | None = None) -> HookContext:
        """The home at *root* (``--root``, else the usual places), opened lightly."""
        from .find import open_home

        home, day = open_home(root, today)
        return cls(home, day, None, root, today)

    def memory(self) -> Memory:
        if self._mem is None:
            from ..store.memory import Memory

            self._mem = Memory.open(str(self.home.root), self._given_today)
        return self._mem


# ----- Claude Code's auto memory: the Claude Code kind's rules


def auto_memory_dir(cwd: str) -> Path | None:
    """The project's auto memory folder, or None when auto memory is off (:func:`claude_code_paths.memory_dir`)."""
    return claude_code_paths.memory_dir(cwd, Path.home(), os.environ)


# ----- recall over a Claude Code memory folder


class _OneFolder:
    """A folder source of one untracked Claude Code folder, so that recall serves it like a tracked one."""

    def __init__(self, bot: str, folder: Path) -> None:
        from ..kinds.claude_code import KIND

        self._folders = {bot: Folder(bot, folder, str(folder), KIND)}

    def folders(self) -> Mapping[str, Folder]:
        return self._folders


def untracked_id(folder: Path) -> str:
    """The id recall keeps an untracked folder's index under: ``claude-code-`` and a hash of its path."""
    import hashlib

    return "claude-code-" + hashlib.sha256(str(folder).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def folder_recall(ctx: HookContext, folder: Path, bot: str | None, prompt: str,
                  deadline: float | None = None) -> list[tuple[str, str]]:
    """The (file, passage) notes recall finds in the folder's topic files for *prompt*.

    The same recall (and index) as every other folder: *bot* is the folder's tracked id; an untracked
    folder is served under :func:`untracked_id` for the call. MEMORY.md is never recalled: it loads already.
    Topics not indexed yet are read until *deadline* (:data:`COLD_READ_S` from now by default).
    """
    from ..recall.query import WHY_PARTIAL  # an untracked folder: a Home of its own
    from ..recall.query import recall as recall_in_home

    home = ctx.home
    if bot is None:
        if folder.is_symlink() or not folder.is_dir():
            return []
        bot = untracked_id(folder)
        home = Home(home.root, _OneFolder(bot, folder))
    try:
        r = recall_in_home(home, bot, prompt, ctx.today, inline=HOOK_INLINE_BYTES,
                           deadline=time.monotonic() + COLD_READ_S if deadline is None else deadline)
        if r.why == WHY_PARTIAL:
            logger.info("recall over %s read part of its topics: %s", folder, r.why)
        return [(n.file, n.text) for n in r.notes]
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
    import hashlib

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
         "capture_bot": capture_bot}).encode("utf-8"), home.root, durable=False)   # (a crash only loses a turn's end)


def _transcript_size(path: str | None) -> int | None:
    """Where the turn starts in its transcript: its size now, 0 when Claude Code has not written it yet (a
    session's first prompt), None without one."""
    if not path:
        return None
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return 0
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def chat_name(session: str) -> str:
    """The chat a Claude Code session's work is journaled and captured under."""
    return f"Claude Code {session[:8]}" if session else "Claude Code"


def mcp_chat(client: str, env: Mapping[str, str]) -> str | None:
    """The chat of an MCP write from Claude Code (its ``clientInfo.name`` is ``claude-code``): the same as its
    session's hooks use (:func:`chat_name`, from ``$CLAUDE_CODE_SESSION_ID``, which Claude Code gives the MCP
    servers it starts); None for another client."""
    if client.strip().lower() not in ("claude-code", "claude code"):
        return None
    return chat_name(env.get("CLAUDE_CODE_SESSION_ID", "").strip())


def written(transcript: str, start: int, folder: Path) -> list[str] | None:
    """The memory files (relative to *folder*) a turn's part of a Claude Code transcript shows Claude writing
    with its file tools; None when the transcript cannot be read."""
    try:
        fd = os.open(transcript, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        os.lseek(fd, max(start, 0), os.SEEK_SET)
        data = os.read(fd, TRANSCRIPT_READ)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        base = folder.resolve()
    except OSError:
        base = folder
    out: list[str] = []
    for raw in data.split(b"\n"):
        if b"tool_use" not in raw:
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        msg = line.get("message") if isinstance(line, dict) else None
        content = msg.get("content") if isinstance(msg, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_use" or block.get("name") not in WRITING_TOOLS:
                continue
            args = block.get("input")
            path = args.get(WRITING_TOOLS[str(block["name"])]) if isinstance(args, dict) else None
            if not isinstance(path, str) or not path:
                continue
            p = Path(path)
            for parent in (base, folder):
                try:
                    rel = p.relative_to(parent).as_posix()
                except ValueError:
                    continue
                if rel not in out:
                    out.append(rel)
                break
    return out


def _end_turn(ctx: HookContext, session: str, said: str | None, transcript: str | None = None) -> None:
    """End the session's open turn; with *transcript* (a Stop's ``transcript_path``), hand the turn to capture:
    its part of Claude Code's transcript is what was appended since the prompt."""
    path = _session_file(ctx.home, session)
    ft = read_file(path, ctx.home.root)
    if ft is None:
        path = _legacy_session_file(ctx.home, session)
        ft = read_file(path, ctx.home.root)
    if ft is None:
        return
    try:
        data = json.loads(ft.text)
        if not isinstance(data, dict):
            raise TypeError("not a session record")
        start, chat = data.get("transcript_start"), data.get("chat")
        if isinstance(data.get("bot"), str) and isinstance(data.get("turn"), str):
            from ..outside.turns import turn_end

            mem = ctx.memory()
            turn_end(mem, data["bot"], data["turn"], said,
                     only=_own_files(mem, data["bot"], data["turn"], transcript, start))
        who = data.get("capture_bot") or data.get("bot")
        if transcript and isinstance(start, int) and isinstance(chat, str) and chat and isinstance(who, str):
            from ..store.writer import new_change_id
            from ..upkeep.capture_queue import note_turn

            turn_id = data["turn"] if isinstance(data.get("turn"), str) else new_change_id(datetime.now().astimezone())
            why = note_turn(ctx.memory(), who, turn_id, chat, transcript, start=start)
            if why:
                logger.info("the turn of session %s is not captured: %s", session, why)
    except (ValueError, TypeError, KeyError, BotMemoryError) as e:
        logger.info("the turn of session %s was already closed: %s", session, e)
    finally:
        try:
            remove_file(path, ctx.home.root)
        except (FileNotFoundError, BotMemoryError):
            pass


def _own_files(mem: Memory, bot: str, turn: str, transcript: str | None, start: object) -> list[str] | None:
    """The files a turn is credited with when another turn of *bot* is open: those its transcript shows it
    writing (None: every file, when no other turn is open or the transcript cannot tell)."""
    from ..outside.turns import open_turns

    if not any(t.id != turn for t in open_turns(mem, bot)):
        return None
    if not transcript or not isinstance(start, int):
        return None
    return written(transcript, start, mem.home.workspace(bot))


def tracked_bot(home: Home, folder: Path) -> str | None:
    """The id under which botmemory serves *folder*: a tracked folder (the registry), else a workspace; or None."""
    try:
        target = folder.resolve()
    except OSError:
        return None
    folders = home.folders()
    for bot in [*folders, *home.workspace_names()]:
        try:
            if home.workspace(bot).resolve() == target:
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
    bot = tracked_bot(mem.home, folder)
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
    from ..kinds.claude_code import KIND as kind

    n = kind.loaded(MEMORY_FILE, ft.text, kind.limits(Path.home(), os.environ, {}))
    if not n.unloaded_lines:
        return ""
    return (
        f"{n.unloaded_lines} of the {counted(n.lines, 'line')} of {folder / MEMORY_FILE} "
        f"{'does' if n.unloaded_lines == 1 else 'do'} not load into this session: "
        f"Claude Code loads its first {n.max_lines} lines or {n.max_bytes:,} characters (UTF-16 units), and the "
        f"last line that loads whole is line {n.lines - n.unloaded_lines} (counted after frontmatter and HTML "
        "comments). What is past it is not in your context.")


def session_start_brief(ctx: HookContext, cwd: str, session: str) -> str:
    """At a session's start, when the project's brief is switched on (``connect claude-code --brief``): what
    Claude said last in each of the project's other sessions today and yesterday (and other projects', named by
    project, when that switch is on too); "" otherwise, and when memory is switched off for the tracked folder.
    Only the ends of the newest transcripts are read (:mod:`botmemory.core.brief.sessions`)."""
    folder = auto_memory_dir(cwd)
    if folder is None:
        return ""
    from ..brief import switches

    switch = switches.switch_for(ctx.home, folder)
    if not switch.brief:
        return ""
    bot = tracked_bot(ctx.home, folder)
    if bot is not None:
        from ..disk import config

        if not config.bot_settings(ctx.home, bot).memory:
            return ""
    from ..brief.sessions import session_brief

    return session_brief(folder, ctx.today, Path.home(), os.environ, current=session or None, cwd=cwd,
                         across=switch.across).text


def open_prompt_turn(ctx: HookContext, session: str, cwd: str, bot: str | None,
                     transcript_path: str | None) -> tuple[Path | None, str | None]:
    """A prompt arrives: the project's folder and the id botmemory serves it under (or None), with the
    session's turn opened for it (a turn the last Stop did not close is ended first)."""
    folder = auto_memory_dir(cwd)
    tracked = tracked_bot(ctx.home, folder) if folder is not None else None
    if (tracked or bot) and session:
        chat = chat_name(session)
        try:
            _end_turn(ctx, session, None)       # a turn the last Stop did not close
            turn = None
            if tracked:
                from ..outside.turns import turn_begin

                turn = turn_begin(ctx.memory(), tracked, chat)
            _save_turn(ctx.home, session, tracked, turn, chat, _transcript_size(transcript_path), bot)
        except BotMemoryError as e:
            logger.warning("could not open a turn for %s: %s", tracked or bot, e)
    return folder, tracked


def prompt_recall(ctx: HookContext, folder: Path | None, tracked: str | None, bot: str | None, prompt: str) -> str:
    """The recall block for *prompt*: the folder's topic files, then the bound workspace's (*bot*)."""
    deadline = time.monotonic() + COLD_READ_S
    notes = folder_recall(ctx, folder, tracked, prompt, deadline) if folder is not None else []
    bound = ""
    if bot:
        from .find import recall_in

        try:
            bound = recall_in(ctx.home, bot, prompt, ctx.today, inline=HOOK_INLINE_BYTES,
                              deadline=max(deadline, time.monotonic() + COLD_READ_S / 2)).text
        except BotMemoryError as e:
            logger.info("no recall from %s: %s", bot, e)
    return compose(notes, bound.strip())


def end_session_turn(ctx: HookContext, session: str, said: str | None, transcript: str | None = None) -> None:
    """A Stop (with what was said and the transcript, for capture) or the session's end closes its open turn."""
    _end_turn(ctx, session, said, transcript)


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
