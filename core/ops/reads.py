"""The reads every face shares: bots, gauge, load, show, journal, settings, topics, the overview.

One answer for a workspace and for every agent kind, decided here once: the CLI, the MCP tools, the routes,
the hooks and the desktop all read through these, so ``memory_load`` over MCP is ``botmemory load`` for a
Claude Code folder too, and a gauge is one type (:class:`FolderGauge`) whatever budget the folder has.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

from ..base.errors import BadInput, BotMemoryError
from ..base.log import get_logger
from ..base.record import field, record
from ..base.wording import counted
from ..disk import config
from ..disk.paths import ARCHIVE_FILE, MEMORY_FILE, FileKind, normalize_rel
from ..text import budget
from ..text.budget import Level

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from typing import Any

    from ..store.journal import Row
    from ..store.memory import Memory
    from ..text.frontmatter import Frontmatter
    from ..upkeep.schedule import UpkeepState

logger = get_logger(__name__)


# ----- the gauge


@record(frozen=True)
class FileGauge:
    """How much of one budgeted file loads: lines and bytes, or characters, against the kind's budget."""

    file: str
    lines: int
    bytes: int
    chars: int
    unloaded_lines: int = 0
    unloaded_chars: int = 0
    lost: tuple[int, ...] = ()       # 1-based line numbers on disk that do not load (wholly or partly)
    max_lines: int | None = None
    max_bytes: int | None = None
    max_chars: float | None = None   # Hermes takes a float limit as given
    level: Level = Level.OK
    full: bool = False               # the agent refuses any further entry (Hermes)
    prompt_chars: int | None = None  # what the agent's prompt says the file measures (Hermes' header)
    blocked: int = 0                 # entries the agent replaced by a placeholder in its prompt (Hermes)

    @property
    def measures(self) -> list[tuple[str, int, float]]:
        """(measure, used, limit) for each limit the file has: ``lines`` and ``bytes``, or ``characters``."""
        out = []
        if self.max_chars is not None:
            out.append(("characters", self.chars, self.max_chars))
        if self.max_lines is not None:
            out.append(("lines", self.lines, self.max_lines))
        if self.max_bytes is not None:
            out.append(("bytes", self.bytes, self.max_bytes))
        return out

    @property
    def fill(self) -> float:
        """The largest fraction of a limit in use (may exceed 1)."""
        return max((used / limit for _, used, limit in self.measures if limit), default=0.0)

    def plain(self) -> str:
        if self.max_chars is not None:
            s = f"{self.file}: {self.chars:,}/{self.max_chars:,} characters"
            if self.unloaded_chars:
                s += f" · {counted(self.unloaded_chars, 'character does', 'characters do')} not load"
        else:
            s = f"{self.file}: {self.lines}/{self.max_lines} lines · {self.bytes:,}/{self.max_bytes:,} bytes"
            if self.unloaded_lines:
                s += f" · {counted(self.unloaded_lines, 'line does', 'lines do')} not load"
        if self.lost:
            from ..kinds.base import line_ranges

            s += f" · not loaded: {'line' if len(self.lost) == 1 else 'lines'} {line_ranges(self.lost)}"
        if self.full:
            s += " · full: the agent refuses any further entry"
        if self.blocked:
            s += f" · {counted(self.blocked, 'entry is', 'entries are')} blocked in its prompt"
        return s

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"file": self.file, "lines": self.lines, "chars": self.chars,
                                "max_chars": self.max_chars, "unloaded_chars": self.unloaded_chars,
                                "level": self.level.value}
        if self.prompt_chars is not None:
            d.update({"prompt_chars": self.prompt_chars, "blocked": self.blocked, "full": self.full})
        return d


@record(frozen=True)
class FolderGauge:
    """The gauge of any folder — a workspace or a tracked agent folder — by its own kind's budget.

    ``files[0]`` is the main file (MEMORY.md); Hermes adds USER.md. The main file's figures are also
    the gauge's own (``lines``, ``max_chars``, …), so a caller that shows one bar reads them directly.
    """

    bot: str
    agent: str                       # the kind: openmausbot, claude-code, openclaw, hermes
    label: str                       # the kind as people name it ("Claude Code")
    files: tuple[FileGauge, ...]
    level: Level
    rule: str                        # the load rule in one sentence, for under the gauge
    unread: tuple[str, ...] = ()     # settings of the agent that could not be read (the defaults were used)
    shared_note: str = ""            # why the budget is below the per-file limit (OpenClaw's shared total)
    total_max_chars: int | None = None
    shared: tuple[tuple[str, int], ...] = ()
    secrets: dict[str, list[str]] = field(default_factory=dict)   # file -> kinds of credential it holds
    heavy: str | None = None         # "This bot loads a lot every turn." when it applies
    rules_version: str | None = None  # which version's rules were applied: "openclaw 2026.9.6"
    agent_version: str | None = None  # the installed agent's version, when it could be read
    not_loaded: tuple[tuple[str, str], ...] = ()   # budgeted files the agent does not load at all, and why

    @property
    def main(self) -> FileGauge:
        return self.files[0]

    @property
    def lines(self) -> int:
        return self.main.lines

    @property
    def bytes(self) -> int:
        return self.main.bytes

    @property
    def chars(self) -> int:
        return self.main.chars

    @property
    def max_lines(self) -> int | None:
        return self.main.max_lines

    @property
    def max_bytes(self) -> int | None:
        return self.main.max_bytes

    @property
    def max_chars(self) -> float | None:
        return self.main.max_chars

    @property
    def unloaded_lines(self) -> int:
        return self.main.unloaded_lines

    @property
    def unloaded_chars(self) -> int:
        return self.main.unloaded_chars

    @property
    def fill(self) -> float:
        return self.main.fill

    @property
    def tracked(self) -> bool:
        return self.agent != "openmausbot"

    def as_dict(self) -> dict[str, object]:
        """``gauge --json``: the round-1 fields for every kind (``max_lines`` null where there is none), plus
        the agent, characters for a character budget, the other files, what does not load and secrets."""
        main = self.main
        d: dict[str, object] = {
            "agent": self.agent, "lines": main.lines, "bytes": main.bytes,
            "max_lines": main.max_lines, "max_bytes": main.max_bytes,
            "level": self.level.value, "unloaded_lines": main.unloaded_lines,
        }
        if main.max_chars is not None:
            d.update({"chars": main.chars, "max_chars": main.max_chars, "unloaded_chars": main.unloaded_chars})
        if len(self.files) > 1:
            d["files"] = [f.as_dict() for f in self.files]
        if main.lost:
            d["lost_lines"] = list(main.lost)
        if self.unread:
            d["unread"] = list(self.unread)
        if self.total_max_chars is not None:
            d["total_max_chars"] = self.total_max_chars
            d["shared"] = [{"file": f, "chars": n} for f, n in self.shared]
        if self.not_loaded:
            d["not_loaded"] = [{"file": f, "why": why} for f, why in self.not_loaded]
        if self.rules_version is not None:
            d["rules_version"] = self.rules_version
            d["agent_version"] = self.agent_version
        if self.secrets:
            d["secrets"] = self.secrets
        if self.heavy:
            d["heavy"] = self.heavy
        return d

    def plain(self) -> str:
        """``botmemory gauge``'s text."""
        if not self.tracked:
            g = self.main
            out = (f"{g.lines}/{g.max_lines} lines · {g.bytes:,}/{g.max_bytes:,} bytes · {self.level.value}"
                   + (f" · {counted(g.unloaded_lines, 'line does', 'lines do')} not load"
                      if g.unloaded_lines else "")
                   + f"\n{budget.ONLY_FIRST_LINES}")
        else:
            parts = [f.plain() for f in self.files]
            parts[0] += f" · {self.level.value}"
            if self.shared_note:
                parts.append(f"note: {self.shared_note}")
            parts.extend(f"note: {rel} does not load: {why}" for rel, why in self.not_loaded)
            parts.extend(f"note: {u} (the defaults were used)" for u in self.unread)
            if self.rules_version:
                parts.append(f"rules: {self.rules_version} ({rules_seen(self.rules_version, self.agent_version)})")
            out = "\n".join(parts)
        out += "".join(f"\n{rel} holds a credential ({', '.join(k)}): "
                       f"`botmemory redact {self.bot} {rel}` takes it out" for rel, k in self.secrets.items())
        return out + (f"\n{self.heavy}" if self.heavy else "")


def rules_seen(rules: str, installed: str | None) -> str:
    """What the gauge's ``rules:`` line says of the installed version: found or not, and when it is newer than
    the newest rules botmemory knows (``rules`` is ``"claude-code 2.1.332"``), that what loads may differ."""
    if not installed:
        return "no installed version found"
    from ..kinds.versions import label_version, version_key

    if version_key(installed) > version_key(label_version(rules)):
        return (f"{installed} installed, newer than the rules botmemory knows: what it loads may differ "
                "where that version changed its rules")
    return f"{installed} installed"


def _rule(agent: str, files: Sequence[FileGauge], shared_note: str) -> str:
    main = files[0]
    if agent == "claude-code":
        return (f"Claude Code loads the first {main.max_lines} lines or {main.max_bytes:,} bytes of MEMORY.md "
                "at the start of every conversation; the rest is cut.")
    if agent == "openclaw":
        return (f"OpenClaw injects at most {main.max_chars or 0:,} characters of MEMORY.md: "
                "the head and the tail; the middle is lost." + (f" {shared_note}." if shared_note else ""))
    if agent == "hermes":
        others = "; ".join(f"{f.file}: {f.chars:,} of {f.max_chars or 0:,} characters" for f in files[1:])
        return ("Hermes loads MEMORY.md and USER.md whole at session start and refuses a write past the limit."
                + (f" {others}." if others else ""))
    return budget.ONLY_FIRST_LINES[0].upper() + budget.ONLY_FIRST_LINES[1:] + "."


def text_gauge(text: str, bot: str = "", heavy: str | None = None) -> FolderGauge:
    """The gauge of a workspace whose MEMORY.md holds *text* (200 lines / 24 KB): a draft's, say."""
    g = budget.gauge(text)
    main = FileGauge(MEMORY_FILE, g.lines, g.bytes, 0, unloaded_lines=g.unloaded_lines, max_lines=g.max_lines,
                     max_bytes=g.max_bytes, level=g.level)
    return FolderGauge(bot, "openmausbot", "OpenMausBot", (main,), g.level, _rule("openmausbot", (main,), ""),
                       heavy=heavy)


def gauge(mem: Memory, bot: str, *, secrets: bool = True) -> FolderGauge:
    """The gauge of *bot*'s folder by its kind's budget: a workspace's 200 lines / 24 KB, Claude Code's
    lines and bytes, OpenClaw's and Hermes' characters. *secrets*: also say which files hold a credential
    (a tracked folder: the person is told, and offered Redact)."""
    mem.home.require_bot(bot)
    if not mem.home.is_tracked(bot):
        return text_gauge(mem.store.text(bot, MEMORY_FILE), bot, heavy_line(mem, bot))
    from . import folders

    kind = folders.kind_of(mem, bot)
    ag = folders.gauge(mem, bot)
    files = tuple(FileGauge(f.file, f.lines, f.bytes, f.chars, f.unloaded_lines, f.unloaded_chars, f.lost,
                            f.max_lines, f.max_bytes, f.max_chars, Level(f.level(kind.red_at_limit)), f.full,
                            f.prompt_chars, f.blocked)
                  for f in ag.files)
    note = ag.shared_note()
    return FolderGauge(bot, kind.name, kind.label, files, Level(ag.level), _rule(kind.name, files, note),
                       unread=ag.unread, shared_note=note, total_max_chars=ag.total_chars, shared=ag.shared,
                       rules_version=ag.rules_version or None, agent_version=ag.agent_version, not_loaded=ag.off,
                       secrets=folders.folder_secrets(mem, bot) if secrets else {})


# ----- what loads


@record(frozen=True)
class Unloaded:
    """The lines of one file that do not load: (line number, text) on disk, and where they are cut."""

    file: str
    where: str                        # "at the end" (Claude Code), "in the middle" (OpenClaw)
    lines: tuple[tuple[int, str], ...]


@record(frozen=True)
class LoadResult:
    """Exactly what a new turn (or the agent's session) loads of *bot*'s memory, and what of a tracked folder's
    files does not load."""

    bot: str
    agent: str
    text: str
    unloaded: tuple[Unloaded, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"text": self.text}


def load(mem: Memory, bot: str) -> LoadResult:
    """The memory block a new turn loads — for a tracked folder, exactly what its agent loads."""
    mem.home.require_bot(bot)
    if not mem.home.is_tracked(bot):
        from ..notes.loader import load_block

        return LoadResult(bot, "openmausbot", load_block(mem, bot))
    from . import folders

    kind = folders.kind_of(mem, bot)
    limits = folders.limits(mem, bot)
    out = []
    for rel in kind.budgeted:
        ft = mem.store.read(bot, rel)
        got = kind.loaded(rel, ft.text, limits) if ft is not None else None
        if ft is None or got is None or not got.lost:
            continue
        lines = kind.lines_on_disk(ft.text)
        out.append(Unloaded(rel, "in the middle" if kind.name == "openclaw" else "at the end",
                            tuple((no, lines[no - 1] if no - 1 < len(lines) else "") for no in got.lost)))
    return LoadResult(bot, kind.name, folders.load(mem, bot), tuple(out))


# ----- one file


@record(frozen=True)
class ShowResult:
    """One memory file as it is: its text and hash (a missing file reads as empty, with no hash)."""

    path: str
    text: str
    hash: str | None
    exists: bool
    valid_utf8: bool = True
    secrets: list[str] = field(default_factory=list)   # a tracked folder's file: the kinds of credential in it

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"path": self.path, "text": self.text, "hash": self.hash, "exists": self.exists,
                                "valid_utf8": self.valid_utf8}
        if self.secrets:
            d["secrets"] = self.secrets
        return d


def file_path(mem: Memory, bot: str, path: str, *, kind: bool = False) -> str:
    """*path* normalized and checked against the folder's rules (exit 2 for a path that is not a memory file):
    what a face calls before it reads anything else (stdin, a body)."""
    mem.home.require_bot(bot)
    rel = normalize_rel(path)
    if kind:
        mem.home.classify(bot, rel)
    else:
        mem.home.file(bot, rel)
    return rel


def show(mem: Memory, bot: str, path: str) -> ShowResult:
    """Read one memory file of *bot*."""
    rel = file_path(mem, bot, path, kind=True)
    ft = mem.store.read(bot, rel)
    if ft is None:
        return ShowResult(rel, "", None, False)
    found: list[str] = []
    if mem.home.is_tracked(bot) and ft.valid:
        from . import folders

        found = folders.secrets_in(ft.text)
    return ShowResult(rel, ft.text, ft.hash, True, ft.valid, found)


def is_memory(mem: Memory, bot: str, path: str) -> bool:
    """Is *path* the folder's main file (MEMORY.md), the one that loads every turn."""
    return mem.home.classify(bot, normalize_rel(path)) is FileKind.MEMORY


# ----- the journal


JOURNAL_WHO = ("bot", "person", "upkeep", "import", "unknown")


def journal(mem: Memory, bot: str, *, limit: int | None = 50, file: str | None = None,
            grep: Sequence[str] = (), who: str | None = None) -> list[Row]:
    """*bot*'s journal rows, newest first: at most *limit*, only of *file*, only rows whose diff adds or
    removes a line with every word of *grep*, only by *who*."""
    mem.home.require_bot(bot)
    if limit is not None and limit < 0:
        raise BadInput("--limit must be 0 or more")
    if who is not None and who not in JOURNAL_WHO:
        raise BadInput(f"bad who {who!r}: one of {', '.join(JOURNAL_WHO)}")
    if file is not None:
        mem.home.classify(bot, file)
    if limit == 0:
        return []
    return mem.journal.list(bot, limit=limit, file=file, grep=list(grep), who=who)


def journal_row(mem: Memory, bot: str, row_id: str) -> Row:
    """One row of *bot*'s journal (BadInput when there is none with that id)."""
    mem.home.require_bot(bot)
    return mem.journal.find(bot, row_id)


# ----- bots and settings


def bots(mem: Memory) -> list[str]:
    """The home's bots: its workspaces and the tracked agent folders."""
    return mem.home.bots()


@record(frozen=True)
class InitResult:
    bot: str
    workspace: str
    created: bool

    def as_dict(self) -> dict[str, object]:
        return {"bot": self.bot, "workspace": self.workspace, "created": self.created}


def init(mem: Memory, bot: str) -> InitResult:
    """Create *bot*'s workspace (idempotent; refused for a tracked folder's id and an id shaped like a key)."""
    created = mem.store.init(bot)
    return InitResult(bot, str(mem.home.workspace(bot)), created)


def settings(mem: Memory, bot: str, key: str | None = None, value: str | bool | None = None) -> config.BotSettings:
    """*bot*'s switches (memory, upkeep, helper); with *key*, set that one to *value* (on/off) first."""
    mem.home.require_bot(bot)
    if key is None:
        return config.bot_settings(mem.home, bot)
    if value is None:
        raise BadInput(f"settings {key} needs a value: on or off")
    on = value if isinstance(value, bool) else config.parse_switch(value)
    return config.set_bot_setting(mem.home, bot, key, on)


# ----- topics and the overview


@record(frozen=True)
class TopicInfo:
    """A topic file by name, with its frontmatter's title, description and aliases (when it has them)."""

    path: str
    title: str | None = None
    description: str | None = None
    aliases: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "title": self.title, "description": self.description,
                "aliases": list(self.aliases)}


_FM_CACHE: dict[str, Frontmatter | None] = {}
_FM_CACHE_MAX = 1024
_fm_lock = threading.Lock()


def _frontmatter(text: str, hash_: str) -> Frontmatter | None:
    """A topic's frontmatter, parsed once per distinct text (YAML is the slowest part of listing topics)."""
    from ..text.frontmatter import read

    with _fm_lock:
        if hash_ in _FM_CACHE:
            return _FM_CACHE[hash_]
    fm = read(text)
    with _fm_lock:
        if len(_FM_CACHE) >= _FM_CACHE_MAX:
            _FM_CACHE.clear()
        _FM_CACHE[hash_] = fm
    return fm


def topics(mem: Memory, bot: str, files: Sequence[str] | None = None) -> list[TopicInfo]:
    """*bot*'s topic files with their frontmatter (a topic that cannot be read is listed by name)."""
    mem.home.require_bot(bot)
    out = []
    for rel in (files if files is not None else mem.home.memory_files(bot)):
        if mem.home.classify(bot, rel) is not FileKind.TOPIC:
            continue
        fm = None
        try:
            ft = mem.store.read(bot, rel)
            if ft is not None:
                fm = _frontmatter(ft.text, ft.hash)
        except BotMemoryError as e:
            logger.info("topic %s listed by name only: %s", rel, e)
        out.append(TopicInfo(rel, fm.title if fm else None, fm.description if fm else None,
                             tuple(fm.aliases) if fm and fm.aliases else ()))
    return out


def overview(mem: Memory, bot: str) -> dict[str, Any]:
    """``GET /api/bots/:id/memory``: the gauge, topics with their frontmatter, daily logs, the folder, settings."""
    g = gauge(mem, bot, secrets=False)
    files = mem.home.memory_files(bot)
    logs = sorted((r for r in files if mem.home.classify(bot, r) is FileKind.LOG), reverse=True)
    gd = g.as_dict()
    gd.pop("heavy", None)
    return {"bot": bot, "agent": g.agent, "folder": str(mem.home.workspace(bot)), "gauge": gd,
            "only_first_lines": None if g.tracked else budget.ONLY_FIRST_LINES,
            "heavy": None if g.tracked else g.heavy, "topics": [t.as_dict() for t in topics(mem, bot, files)],
            "logs": logs, "archive": ARCHIVE_FILE in files,
            "settings": config.bot_settings(mem.home, bot).as_dict()}


def last_tidy(mem: Memory, bot: str) -> UpkeepState:
    """When *bot*'s last tidy-up ran, and its report."""
    from ..upkeep.schedule import read_state

    return read_state(mem.home, bot)


def last_capture(mem: Memory, bot: str) -> dict[str, Any] | None:
    """The last capture of *bot*: ``{"at", "report"}``, or None."""
    from ..upkeep.capture import last_capture as last

    return last(mem.home, bot)


def heavy_line(mem: Memory, bot: str) -> str | None:
    """*This bot loads a lot every turn.* when it applies (memory and upkeep on, 24 KB loaded, 8 KB of memory)."""
    from ..upkeep.schedule import heavy_line as heavy

    return heavy(mem, bot)


def upkeep_status(mem: Memory, bot: str) -> dict[str, Any]:
    """Whether upkeep is on, whether the model steps can run (and why not), the last tidy-up and capture."""
    from ..upkeep.capture import last_capture
    from ..upkeep.helper import resolve
    from ..upkeep.schedule import read_state

    mem.home.require_bot(bot)
    s = config.bot_settings(mem.home, bot)
    reason: str | None
    helper_name: str | None = None
    if not (s.memory and s.upkeep):
        reason = "memory is switched off" if not s.memory else "memory upkeep is switched off"
    elif not s.helper:
        reason = f"the helper is switched off for {bot}"
    else:
        h = resolve(mem.home, bot)
        reason, helper_name = (h, None) if isinstance(h, str) else (None, h.name)
    state = read_state(mem.home, bot)
    return {"on": s.memory and s.upkeep, "memory": s.memory, "upkeep": s.upkeep,
            "model_steps": reason is None, "model_reason": reason, "helper": helper_name,
            "last_tidy": state.as_dict() if state.last_run else None,
            "last_capture": last_capture(mem.home, bot)}
