"""Claude Code's session transcripts: which belong to a project, and reading their messages.

Claude Code (2.1.328 to 2.1.332) writes each session to ``<config dir>/projects/<the launch cwd, as a folder name>/<session
id>.jsonl`` (:mod:`.claude_code_paths` names the folder). Memory is keyed by the project's *git root* and
transcripts by the *cwd*, so one project's sessions are spread over several folders: the git root's own, a
subfolder's (``-work-app-web`` beside ``-work-app``), a linked worktree's (another path, the same memory).
:func:`project_dirs` finds them all: a folder belongs to the project when the ``cwd`` its transcripts record
leads (:func:`.claude_code_paths.memory_dir`, Claude Code's own rule) to the project's memory folder. Only the
folders whose name starts with the project's (or one of its worktrees') are looked at, unless the memory
folder is not one Claude Code names by project (``autoMemoryDirectory``): then every folder is.

Reading (:func:`newest`) goes from a transcript's end backwards, a chunk at a time, never past
:data:`TAIL_MAX` bytes: the newest thing Claude said is near the end, and a transcript of a long session
(megabytes of tool output) is never read whole for it. A line longer than :data:`MAX_LINE` (a tool's output)
is skipped without being gathered. :func:`messages` reads a transcript forwards for session search, parsing
only the lines whose bytes may hold a message. Both open the file without following a link, and take the
messages with the transcript reader capture uses (:func:`botmemory.core.text.transcript.message_of`): the
person's words and Claude's text, never a tool's output or a line Claude Code added itself.

Nothing here redacts: the brief and session search redact every text they show
(:mod:`botmemory.core.brief.sessions`, :mod:`botmemory.core.recall.sessions`).
"""
from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path

from ..base.log import get_logger
from ..base.record import record
from ..text.transcript import message_of
from . import claude_code_paths as where

logger = get_logger(__name__)

TAIL_CHUNK = 64 * 1024
TAIL_MAX = 4 * 1024 * 1024
"""How far from a transcript's end its newest message is looked for (bytes)."""
MAX_LINE = 1024 * 1024
"""A line longer than this (a tool's output, a pasted file) is not gathered when reading backwards."""
HEAD_PEEK = 64 * 1024
"""How much of a transcript's beginning is read for the ``cwd`` its session ran in."""
TITLE_MAX_READ = 256 * 1024
"""After the newest message is found, how much further back the prompt that led to it is looked for."""
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@record(frozen=True)
class Transcript:
    """One session's transcript file: its path, session id (the file's name), modification time and size."""

    path: Path
    session: str
    mtime: float
    size: int


@record(frozen=True)
class SessionLine:
    """One message of a session: who (``person`` or ``bot``), its text, when (local time) and the session's cwd."""

    role: str
    text: str
    at: datetime
    cwd: str = ""


@record(frozen=True)
class Newest:
    """What the end of a transcript says: Claude's newest message, the prompt that asked for it (or None)."""

    said: SessionLine
    asked: str | None


# ----- where a project's transcripts are


def projects_dir(user_home: Path, env: Mapping[str, str]) -> Path:
    """``<config dir>/projects`` (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``)."""
    return where.config_dir(user_home, env) / "projects"


def subdirs(folder: Path) -> list[Path]:
    """The folders (not links) of *folder*, by name; [] when it cannot be listed."""
    try:
        with os.scandir(folder) as it:
            return sorted((Path(e.path) for e in it if e.is_dir(follow_symlinks=False)), key=lambda p: p.name)
    except OSError:
        return []


def transcripts(folder: Path) -> list[Transcript]:
    """The session transcripts (``*.jsonl``, regular files, no links) directly in *folder*."""
    out: list[Transcript] = []
    try:
        with os.scandir(folder) as it:
            for e in it:
                if not e.name.endswith(".jsonl"):
                    continue
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    out.append(Transcript(Path(e.path), e.name[:-6], st.st_mtime, st.st_size))
    except OSError:
        return []
    return out


def _open(path: Path) -> int | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def cwd_of(folder: Path) -> str | None:
    """The ``cwd`` the sessions of a ``projects/<folder>`` ran in, from the beginning of its newest transcript."""
    for t in sorted(transcripts(folder), key=lambda t: t.mtime, reverse=True)[:3]:
        fd = _open(t.path)
        if fd is None:
            continue
        try:
            head = os.read(fd, HEAD_PEEK)
        except OSError:
            continue
        finally:
            os.close(fd)
        for raw in head.split(b"\n"):
            if b'"cwd"' not in raw:
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            cwd = line.get("cwd") if isinstance(line, dict) else None
            if isinstance(cwd, str) and os.path.isabs(cwd):
                return cwd
    return None


def worktrees(root: str) -> list[str]:
    """The linked worktrees of the git repository at *root* (their paths, from ``.git/worktrees/*/gitdir``)."""
    out: list[str] = []
    for d in subdirs(Path(root) / ".git" / "worktrees"):
        try:
            with open(d / "gitdir", "rb") as f:
                text = f.read(4096).decode("utf-8", "replace").strip()
        except OSError:
            continue
        if text and os.path.isabs(text):
            out.append(os.path.dirname(os.path.normpath(text)))
    return out


def _same(a: Path, b: Path) -> bool:
    if str(a).rstrip("/") == str(b).rstrip("/"):
        return True
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except OSError:
        return False


class Projects:
    """Which project each ``projects/<folder>`` belongs to, asked once per folder (the ``cwd`` its transcripts
    record, then Claude Code's rule for that cwd's memory folder)."""

    def __init__(self, user_home: Path, env: Mapping[str, str]) -> None:
        self.user_home, self.env = user_home, env
        self.base = projects_dir(user_home, env)
        self._cwd: dict[Path, str | None] = {}
        self._memory: dict[str, Path | None] = {}

    def cwd(self, folder: Path) -> str | None:
        if folder not in self._cwd:
            self._cwd[folder] = cwd_of(folder)
        return self._cwd[folder]

    def memory_of(self, folder: Path) -> Path | None:
        """The memory folder of the sessions in *folder* (None: unknown, or auto memory off there)."""
        cwd = self.cwd(folder)
        if cwd is None:
            return None
        if cwd not in self._memory:
            self._memory[cwd] = where.memory_dir(cwd, self.user_home, self.env)
        return self._memory[cwd]

    def root_of(self, folder: Path) -> str | None:
        cwd = self.cwd(folder)
        return where.project_root(cwd) if cwd is not None else None

    def dirs_of(self, memory: Path, cwd: str | None = None) -> list[Path]:
        """The folders holding the transcripts of the sessions whose memory folder is *memory* (*cwd*: one of
        the project's working folders, when known)."""
        every = subdirs(self.base)
        own = memory.parent if memory.name == "memory" and _same(memory.parent.parent, self.base) else None
        root = where.project_root(cwd) if cwd else None
        if root is None and own is not None:
            root = self.root_of(own)
            if root is None:    # no session ran at the git root itself: one of a subfolder's tells it
                for d in every:
                    if d.name.startswith(own.name + "-") and self.memory_of(d) is not None \
                            and _same(self.memory_of(d) or Path(), memory):
                        root = self.root_of(d)
                        break
        prefixes: set[str] = set()
        if own is not None:
            prefixes.add(own.name)
        if root is not None:
            prefixes.update(where.folder_name(p, self.env) for p in [root, *worktrees(root)])
        if prefixes:
            every = [d for d in every if any(d.name == p or d.name.startswith(p + "-") for p in prefixes)]
        return [d for d in every if _same(self.memory_of(d) or Path("\0"), memory)]

    def name_of(self, folder: Path) -> str:
        """A project's name as a person reads it: its git root's folder name (else the folder's own name)."""
        root = self.root_of(folder)
        return os.path.basename(root.rstrip("/")) or root if root else folder.name


# ----- reading a transcript


def _when(value: object) -> datetime | None:
    """A line's ``timestamp`` (ISO 8601, UTC with ``Z``) as local time; None when it is not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone()
    except ValueError:
        return None


def _line(raw: bytes) -> tuple[dict[str, object], SessionLine | None] | None:
    """A line's object and its message (None: a line without one); None when it is not a JSON object."""
    try:
        d = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(d, dict):
        return None
    if d.get("isSidechain") is True:
        return d, None           # a subagent's, not the session's own conversation
    msg = message_of(d)
    at = _when(d.get("timestamp"))
    if msg is None or at is None or msg.role not in ("person", "bot") or not msg.text.strip():
        return d, None
    cwd = d.get("cwd")
    return d, SessionLine(msg.role, msg.text, at, cwd if isinstance(cwd, str) else "")


def _may_be_message(raw: bytes) -> bool:
    """Whether a line's bytes may hold the person's words or Claude's text (a tool's output never does)."""
    if b'"type":"assistant"' in raw or b'"type": "assistant"' in raw:
        return True
    return ((b'"type":"user"' in raw or b'"type": "user"' in raw)
            and b'"toolUseResult"' not in raw and b'"tool_result"' not in raw)


def _backwards(fd: int, size: int, limit: int) -> Iterator[bytes]:
    """The lines of the file from its end, newest first, reading at most *limit* bytes; a line longer than
    :data:`MAX_LINE` is skipped (an empty line in its place)."""
    pos = size
    pieces: list[bytes] = []        # the line being gathered, its last piece first
    gathered = 0
    too_long = False
    read = 0
    while pos > 0 and read < limit:
        n = min(TAIL_CHUNK, pos)
        pos -= n
        chunk = os.pread(fd, n, pos)
        read += len(chunk)
        end = len(chunk)
        nl = chunk.rfind(b"\n", 0, end)
        while nl >= 0:
            piece = chunk[nl + 1:end]
            if too_long:
                line = b""
            elif pieces:
                pieces.append(piece)
                line = b"".join(reversed(pieces))
            else:
                line = piece
            pieces, gathered, too_long = [], 0, False
            yield line
            end = nl
            nl = chunk.rfind(b"\n", 0, end)
        if end and not too_long:
            pieces.append(chunk[:end])
            gathered += end
            if gathered > MAX_LINE:
                pieces, too_long = [], True
    if pos == 0 and pieces and not too_long:
        yield b"".join(reversed(pieces))


def newest(path: Path, after: datetime, before: datetime, limit: int | None = None) -> Newest | None:
    """Claude's newest message in *path* dated in [*after*, *before*), and the prompt that asked for it (the
    person's message before it, else the prompt Claude Code last recorded); read from the end, at most *limit*
    bytes (:data:`TAIL_MAX`). None when there is none."""
    fd = _open(path)
    if fd is None:
        return None
    said: SessionLine | None = None
    asked: str | None = None
    recorded: str | None = None     # the newest "last-prompt" line's
    try:
        size = os.fstat(fd).st_size
        stop_at: int | None = None
        read = 0
        for raw in _backwards(fd, size, TAIL_MAX if limit is None else limit):
            read += len(raw) + 1
            if stop_at is not None and read > stop_at:
                break
            if recorded is None and b'"last-prompt"' in raw:
                got = _line(raw)
                prompt = got[0].get("lastPrompt") if got else None
                recorded = prompt if isinstance(prompt, str) and prompt.strip() else None
                continue
            if not _may_be_message(raw):
                continue
            got = _line(raw)
            if got is None or got[1] is None:
                continue
            line = got[1]
            if said is None:
                if line.role != "bot" or line.at >= before:
                    continue
                if line.at < after:
                    return None
                said, stop_at = line, read + TITLE_MAX_READ
            elif line.role == "person" and not line.text.lstrip().startswith("<"):
                asked = line.text      # the prompt (a command Claude Code wraps in <command-…> is not one)
                break
    except OSError as e:
        logger.info("could not read %s: %s", path, e)
    finally:
        os.close(fd)
    return Newest(said, asked or recorded) if said is not None else None


def messages(path: Path, keep: Callable[[bytes], bool] | None = None) -> Iterator[SessionLine]:
    """The person's and Claude's messages of a transcript, oldest first; *keep*: a test on a line's bytes that a
    line must pass to be parsed (the words of a search)."""
    fd = _open(path)
    if fd is None:
        return
    with os.fdopen(fd, "rb") as f:
        for raw in f:
            if not _may_be_message(raw):
                continue
            if keep is not None and not keep(raw):
                continue
            got = _line(raw)
            if got is not None and got[1] is not None:
                yield got[1]
