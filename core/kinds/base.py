"""What every kind of memory folder says about itself, and the shared measuring helpers.

A *kind* decides a folder's layout (which files are memory files), its budget
(what the agent loads of them each session), how an entry is split for forget,
and which commands apply. Everything else — the store, the journal, shadows,
the watcher, undo — is the same code for every kind.
"""
from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path

from ..base.errors import BadInput, Refused
from ..base.record import field, record, replace
from ..base.wording import counted
from ..disk.paths import FileKind
from ..disk.safeio import Folders, open_dir_nofollow

MEMORY_FILE = "MEMORY.md"
AMBER_AT = 0.8
"""Amber from 80 % of a budget: the same mark as ``budget.AMBER_AT`` (a test keeps them equal)."""
_NAME = re.compile(r"[A-Za-z0-9 ._\-]+\.md")
NAME_RULE = "letters A-Z, numbers 0-9, spaces, dots, '_' and '-', ending in .md, not starting with a dot"
"""What an agent folder's file name may be (:func:`check_name`), as every message says it."""


def check_name(name: str, what: str = "file") -> None:
    """One file name of :data:`NAME_RULE`, not hidden."""
    if name.startswith(".") or not _NAME.fullmatch(name):
        raise BadInput(f"bad {what} name {name!r}: use {NAME_RULE}")


def read_setting(path: Path, limit: int = 1024 * 1024) -> bytes:
    """The first *limit* bytes of an agent's own settings file, opened without following a link (OSError
    saying so when it is one, or not a regular file)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        if path.is_symlink():
            raise OSError("it is a symbolic link") from None
        raise e
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit)
    finally:
        os.close(fd)


def agent_dir(user_home: Path, env: Mapping[str, str], variable: str, default: str) -> Path:
    """An agent's own folder: ``$variable`` when set (``~`` expanded), else ``user_home/default``."""
    d = env.get(variable)
    return Path(d).expanduser() if d else user_home / default


def list_md(folder: Path, prefix: str = "", root: Path | None = None,
            accept: Callable[[str], bool] | None = None) -> list[str]:
    """The regular ``*.md`` files of *folder* (no links, nothing hidden), as ``prefix + name``; their names of
    :data:`NAME_RULE`, or those *accept* takes.

    *folder* is reached from *root* (default: *folder* itself, the tracked folder) without passing
    through a symbolic link (:class:`~botmemory.core.disk.safeio.Folders`); *root* itself must not be a
    link. A folder reached through a link lists nothing.
    """
    root = folder if root is None else root
    if root.is_symlink():
        return []
    try:
        with Folders(root) as folders:
            entries = folders.list(folder)
    except (OSError, Refused):
        return []
    ok = accept if accept is not None else _NAME.fullmatch
    return sorted(prefix + name for name, regular in entries
                  if regular and name.endswith(".md") and not name.startswith(".") and ok(name))


def unlinked_dirs(root: Path, folders: Sequence[Path]) -> list[Path]:
    """The *folders* (below or at *root*) that exist and are reached from *root* without a link."""
    if root.is_symlink():
        return []
    out: list[Path] = []
    for folder in folders:
        try:
            with open_dir_nofollow(root, folder):
                out.append(folder)
        except (OSError, Refused):
            continue
    return out


def split_lines(text: str) -> list[str]:
    """Lines with their line ends (the last may have none)."""
    return text.splitlines(keepends=True)


def head_cut(lines: Sequence[str], max_lines: int, max_bytes: int) -> int:
    """How many whole lines from the top fit in *max_lines* lines and *max_bytes* UTF-8 bytes."""
    used = 0
    for n, line in enumerate(lines):
        size = len(line.encode("utf-8"))
        if n >= max_lines or used + size > max_bytes:
            return n
        used += size
    return len(lines)


@record(frozen=True)
class Limits:
    """The budget of one folder, as read from the agent's own settings (or the defaults)."""

    max_lines: int | None = None
    max_bytes: int | None = None
    max_chars: dict[str, float] = field(default_factory=dict)   # per budgeted file (Hermes takes a float as given)
    unread: tuple[str, ...] = ()      # "could not read <file>: <why>" — the defaults were used
    total_chars: int | None = None    # a total the budgeted files share with other files the agent loads first
    shared: tuple[tuple[str, int], ...] = ()   # those other files, in the agent's order, and what each takes of it
    rules: str = ""                   # whose rules were applied: "openclaw 2026.9.6" (:mod:`.versions`)
    installed: str | None = None      # the agent's installed version, when it could be read
    off: tuple[tuple[str, str], ...] = ()   # budgeted files the agent does not load at all, and why
    startup: str | None = None        # what the agent adds when a session starts, read from other files


@record(frozen=True)
class Loaded:
    """What the agent loads of one budgeted file."""

    file: str
    text: str                   # exactly what loads
    lines: int                  # lines measured (after what the agent strips)
    bytes: int
    chars: int
    unloaded_lines: int = 0
    unloaded_chars: int = 0
    lost: tuple[int, ...] = ()  # 1-based line numbers of the file on disk that do not load (wholly or partly)
    max_lines: int | None = None
    max_bytes: int | None = None
    max_chars: float | None = None
    full: bool = False          # the agent refuses any further write (Hermes): red
    prompt_chars: int | None = None   # what the agent's prompt says the file measures, when it says (Hermes' header)
    blocked: int = 0            # entries the agent replaced by a placeholder in its prompt (Hermes' [BLOCKED: …])

    @property
    def fill(self) -> float:
        parts = [0.0]
        if self.max_lines:
            parts.append(self.lines / self.max_lines)
        if self.max_bytes:
            parts.append(self.bytes / self.max_bytes)
        if self.max_chars:
            parts.append(self.chars / self.max_chars)
        return max(parts)

    def level(self, red_at_limit: bool = False) -> str:
        if self.unloaded_lines or self.unloaded_chars or self.full:
            return "red"
        if red_at_limit and self.max_chars and self.chars >= self.max_chars:
            return "red"
        return "amber" if self.fill >= AMBER_AT else "ok"


@record(frozen=True)
class AgentGauge:
    agent: str
    files: tuple[Loaded, ...]
    level: str
    unread: tuple[str, ...] = ()
    total_chars: int | None = None
    shared: tuple[tuple[str, int], ...] = ()
    rules_version: str = ""           # whose rules measured it: "hermes 0.19.0"
    agent_version: str | None = None  # the installed agent's version, when it could be read
    off: tuple[tuple[str, str], ...] = ()   # budgeted files the agent does not load at all, and why

    def as_dict(self) -> dict[str, object]:
        main = self.files[0]
        d: dict[str, object] = {
            "agent": self.agent,
            "lines": main.lines, "bytes": main.bytes,
            "max_lines": main.max_lines, "max_bytes": main.max_bytes,
            "level": self.level, "unloaded_lines": main.unloaded_lines,
        }
        if main.max_chars is not None:
            d.update({"chars": main.chars, "max_chars": main.max_chars, "unloaded_chars": main.unloaded_chars})
        if len(self.files) > 1:
            d["files"] = [_file_dict(f) for f in self.files]
        if main.lost:
            d["lost_lines"] = list(main.lost)
        if self.unread:
            d["unread"] = list(self.unread)
        if self.total_chars is not None:
            d["total_max_chars"] = self.total_chars
            d["shared"] = [{"file": f, "chars": n} for f, n in self.shared]
        if self.off:
            d["not_loaded"] = [{"file": f, "why": why} for f, why in self.off]
        if self.rules_version:
            d["rules_version"] = self.rules_version
            d["agent_version"] = self.agent_version
        return d

    def shared_note(self) -> str:
        """Why the budget is smaller than the per-file limit: the files loaded first and what they take."""
        if self.total_chars is None or not self.shared:
            return ""
        taken = sum(n for _, n in self.shared)
        parts = [f"{f} ({counted(n, 'character')})" for f, n in self.shared]
        names = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        verb = "is loaded first and takes" if len(parts) == 1 else "are loaded first and take"
        return (f"{names} {verb} {taken:,} of the {self.total_chars:,}-character total "
                f"{self.files[0].file} shares with {'it' if len(parts) == 1 else 'them'}")

    def plain(self) -> str:
        out = []
        for f in self.files:
            if f.max_chars is not None:
                s = f"{f.file}: {f.chars:,}/{f.max_chars:,} characters"
                if f.unloaded_chars:
                    s += f" · {counted(f.unloaded_chars, 'character does', 'characters do')} not load"
            else:
                s = f"{f.file}: {f.lines}/{f.max_lines} lines · {f.bytes:,}/{f.max_bytes:,} bytes"
                if f.unloaded_lines:
                    s += f" · {counted(f.unloaded_lines, 'line does', 'lines do')} not load"
            if f.lost:
                s += f" · not loaded: {'line' if len(f.lost) == 1 else 'lines'} {line_ranges(f.lost)}"
            if f.full:
                s += " · full: the agent refuses any further entry"
            if f.blocked:
                s += f" · {counted(f.blocked, 'entry is', 'entries are')} blocked in its prompt"
            out.append(s)
        out[0] += f" · {self.level}"
        if self.shared_note():
            out.append(f"note: {self.shared_note()}")
        out.extend(f"note: {rel} does not load: {why}" for rel, why in self.off)
        out.extend(f"note: {u} (the defaults were used)" for u in self.unread)
        if self.rules_version:
            seen = f"{self.agent_version} installed" if self.agent_version else "no installed version found"
            out.append(f"rules: {self.rules_version} ({seen})")
        return "\n".join(out)


def _file_dict(f: Loaded) -> dict[str, object]:
    d: dict[str, object] = {"file": f.file, "lines": f.lines, "chars": f.chars, "max_chars": f.max_chars,
                            "unloaded_chars": f.unloaded_chars, "level": f.level(True)}
    if f.prompt_chars is not None:
        d.update({"prompt_chars": f.prompt_chars, "blocked": f.blocked, "full": f.full})
    return d


@record(frozen=True)
class Found:
    """A memory folder found on this computer."""

    agent: str
    path: Path
    slug: str           # the id's stem (made unique by the registry)
    name: str           # what the person calls it: a project's real path, else the folder's name
    exact: bool = True  # no other folder can have this slug (else the id always carries a hash of the path)


@record(frozen=True)
class Piece:
    """One entry of a file, as a kind splits it for forget: its text and where it sits."""

    text: str
    start: int   # character offsets in the file's text
    end: int


class AgentKind:
    """The base of every kind. A subclass sets the attributes and overrides what differs."""

    name = ""
    label = ""
    writes_own_memory = True        # remember/prefer/tidy/init are the agent's business (exit 4)
    reports_turns = False           # the agent tells botmemory when its turns start and end
    budgeted: tuple[str, ...] = (MEMORY_FILE,)
    red_at_limit = False            # the agent refuses a write past the limit: red when full
    temp_dirs: tuple[str, ...] = ("",)    # where a crashed save may have left a temp file
    topic_dir: str | None = "memory/"     # where topic files are, as a path prefix; None: the kind has none
    topic_name_rule = f"a topic is one file name of {NAME_RULE}"   # as a person reads it (the New topic prompt)
    refusal = ""
    reads_bad_bytes = False         # the agent loads a file that is not UTF-8 (bad bytes as U+FFFD)
    rules_versions: tuple[str, ...] = ()
    """The agent versions whose rules this kind knows, oldest first (:mod:`.versions` picks one)."""

    # ----- versions

    def installed_version(self, user_home: Path, env: Mapping[str, str]) -> str | None:
        """The version of the agent installed on this computer, or None when it cannot be read. A kind
        overrides it with its agent's own way (OpenClaw's package.json, hermes-agent's metadata, …)."""
        return None

    # ----- layout

    def classify(self, rel: str) -> FileKind:
        raise NotImplementedError

    def memory_files(self, folder: Path) -> list[str]:
        raise NotImplementedError

    def watched_dirs(self, folder: Path) -> list[Path]:
        return unlinked_dirs(folder, [folder])

    # ----- budget

    def limits(self, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object]) -> Limits:
        """The budget, from the agent's own settings; *settings* are botmemory's for this kind (defaults)."""
        return Limits()

    def share(self, folder: Path, limits: Limits) -> Limits:
        """*limits* with what the folder's other files take of a total the budgeted files share with them
        (OpenClaw's bootstrap files); most kinds share nothing."""
        return limits

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        raise NotImplementedError

    def measure(self, folder: Path, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object],
                today: date | None = None) -> Limits:
        """Everything the gauge and load need of *folder* beyond its memory files' texts: the budget from
        the agent's settings, what the folder's other files take of it, and whose rules were applied.
        *today*: botmemory's ``--today`` when given (a kind whose agent loads by date uses it)."""
        from .versions import rules_for

        rules, installed = rules_for(self, user_home, env)
        return replace(self.share(folder, self.limits(user_home, env, settings)), rules=rules, installed=installed)

    def gauge(self, texts: Mapping[str, str], limits: Limits) -> AgentGauge:
        files = tuple(self.loaded(rel, texts.get(rel, ""), limits) for rel in self.budgeted)
        order = {"ok": 0, "amber": 1, "red": 2}
        level = max((f.level(self.red_at_limit) for f in files), key=order.__getitem__)
        return AgentGauge(self.name, files, level, limits.unread, limits.total_chars, limits.shared,
                          limits.rules, limits.installed, limits.off)

    def load(self, texts: Mapping[str, str], limits: Limits) -> str:
        """Exactly what the agent loads of its memory, file by file."""
        parts = [self.loaded(rel, texts.get(rel, ""), limits).text for rel in self.budgeted]
        return "".join(p if p.endswith("\n") or not p else p + "\n" for p in parts)

    # ----- entries

    def pieces(self, rel: str, text: str) -> list[Piece]:
        """The entries of a file, for forget: by default its non-blank lines outside the frontmatter."""
        out: list[Piece] = []
        pos = 0
        skip = _frontmatter_end(text)
        for line in split_lines(text):
            if pos >= skip and line.strip():
                out.append(Piece(line, pos, pos + len(line)))
            pos += len(line)
        return out

    def without(self, rel: str, text: str, gone: Sequence[Piece]) -> str:
        """*text* with the entries *gone* taken out."""
        return remove_pieces(text, gone)

    def whole_file_entry(self, rel: str) -> bool:
        """True when the file is one entry (a Claude Code topic): forget deletes it."""
        return False

    def lines_on_disk(self, text: str) -> list[str]:
        """A file's lines as the agent numbers them (what :attr:`Loaded.lost` counts in)."""
        return text.splitlines()

    # ----- finding

    def discover(self, user_home: Path, env: Mapping[str, str]) -> tuple[list[Found], list[str]]:
        """The folders of this kind on this computer, and the files that could not be read."""
        return [], []


def one_folder(kind: str, folder: Path, slug: str, name: str) -> tuple[list[Found], list[str]]:
    """What a kind that keeps a single memory folder finds: that folder, when it is a real one (not a link)."""
    if folder.is_dir() and not folder.is_symlink():
        return [Found(kind, folder, slug, name)], []
    return [], []


def line_ranges(numbers: Sequence[int]) -> str:
    """``3, 7-9, 12``: line numbers as short ranges."""
    parts: list[str] = []
    start = prev = None
    for n in sorted(numbers):
        if prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        start = prev = n
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ", ".join(parts)


def _frontmatter_end(text: str) -> int:
    """The offset just after a leading ``---`` frontmatter block, or 0."""
    if not text.startswith("---\n") and not text.startswith("---\r\n"):
        return 0
    pos = 0
    for k, line in enumerate(split_lines(text)):
        pos += len(line)
        if k > 0 and line.rstrip("\r\n") in ("---", "..."):
            return pos
    return 0


def remove_pieces(text: str, gone: Sequence[Piece]) -> str:
    out = []
    pos = 0
    for p in sorted(gone, key=lambda p: p.start):
        out.append(text[pos:p.start])
        pos = p.end
    out.append(text[pos:])
    return "".join(out)


frontmatter_end = _frontmatter_end
