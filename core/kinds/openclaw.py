"""OpenClaw's workspace: ``~/.openclaw/workspace/`` (and every agent's and profile's, :mod:`.openclaw_config`).

What OpenClaw 2026.9.6 puts into its system prompt from a workspace, proven
against its own code by tests/conformance (every count in UTF-16 units):

- The bootstrap files, in this order: ``AGENTS.md``, ``SOUL.md``, ``IDENTITY.md``,
  ``USER.md``, ``BOOTSTRAP.md``, ``MEMORY.md`` — nothing else (not ``TOOLS.md``
  nor ``HEARTBEAT.md``). A missing ``AGENTS``/``SOUL``/``IDENTITY``/``BOOTSTRAP.md``
  costs its ``[MISSING] Expected at: <path>`` line; a missing ``USER.md`` or
  ``MEMORY.md`` costs nothing; ``BOOTSTRAP.md`` is left out once OpenClaw's
  state records the workspace's setup as completed. A file that is a link, a
  hard link, not a file or over 2 MiB is an ``[UNREADABLE: …]`` line (a linked
  ``MEMORY.md`` or ``USER.md`` is left out).
- They share one total (``bootstrapTotalMaxChars``, 60,000), each at most its
  limit (``bootstrapMaxChars``, 20,000; ``USER.md`` at most 4,000), cut keeping
  head and tail around OpenClaw's marker (``AGENTS.md``: a digest of its policy
  lines instead): :mod:`.openclaw_budget`. ``MEMORY.md`` comes last and gets what
  is left, nothing when under 64 characters are (``Limits.shared`` says what
  each file before it took).
- In the prompt, entries of ``MEMORY.md`` marked ``<!-- project: … -->`` are left
  out (a session has no project of its own), OpenClaw's default heartbeat line is
  removed and three or more line ends become two.
- ``contextInjection: "never"`` injects nothing.
- ``memory/YYYY-MM-DD[-slug].md`` (any script in the slug) are the daily notes:
  searched by OpenClaw's tools, and the newest are put before the first message
  of a session started with ``/new`` or ``/reset`` (:mod:`.openclaw_daily`);
  ``load`` shows that prelude after ``MEMORY.md``.
"""
from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from datetime import date, datetime, timezone, tzinfo
from pathlib import Path

from ..base.errors import BadInput
from ..base.record import field, record, replace  # (Limits is a record)
from ..disk.paths import FileKind
from . import openclaw_config as C
from . import openclaw_daily as daily
from . import utf16
from .base import MEMORY_FILE, NAME_RULE, AgentKind, Found, Limits, Loaded, check_name, list_md, split_lines, unlinked_dirs
from .openclaw_budget import BootFile, budget, trim
from .versions import on_path, package_json_version

DEFAULT_MAX_CHARS = 20_000
DEFAULT_TOTAL_CHARS = 60_000
USER_FILE = "USER.md"
BOOTSTRAP_FILE = "BOOTSTRAP.md"
BOOTSTRAP_FILES = ("AGENTS.md", "SOUL.md", "IDENTITY.md", USER_FILE, BOOTSTRAP_FILE, MEMORY_FILE)
"""The files OpenClaw injects, in its order; MEMORY.md comes last."""
BOOTSTRAP_BEFORE = BOOTSTRAP_FILES[:-1]
MAX_FILE_BYTES = 2 * 1024 * 1024
MIN_FILE_BUDGET = 64
_PROJECT = re.compile(r"<!--" + utf16.SPACE_CLASS + r"*project" + utf16.SPACE_CLASS + r"*:", re.IGNORECASE)
_HEARTBEAT = re.compile(r"Default heartbeat prompt:\r?\n`(?:Read HEARTBEAT\.md if it exists|Follow the heartbeat "
                        r"monitor scratch context when provided\.)[^`\r\n]*HEARTBEAT_OK\.`")
_NOTE_CHARS = re.compile(r"[^/\\\x00-\x1f\x7f]+")


def openclaw_dir(user_home: Path, env: Mapping[str, str]) -> Path:
    """OpenClaw's state folder (``$OPENCLAW_STATE_DIR``, else ``~/.openclaw``)."""
    return C.state_dir(C.openclaw_home(user_home, env), env)


def prompt_text(text: str) -> str:
    """A budgeted ``MEMORY.md`` as its prompt section has it: project-scoped entries out (a curated entry starts at
    each line beginning ``- `` or a heading), the default heartbeat line out, 3+ line ends as 2."""
    lines = text.split("\n")
    entries: list[list[str]] = [[lines[0]]]
    for line in lines[1:]:
        if line.startswith("- ") or re.match(r"#{1,6}(?:" + utf16.SPACE_CLASS + "|$)", line):
            entries.append([line])
        else:
            entries[-1].append(line)
    kept = "\n".join("\n".join(e) for e in entries if not _PROJECT.search("\n".join(e)))
    return re.sub(r"\n{3,}", "\n\n", _HEARTBEAT.sub("", kept))


@record(frozen=True)
class OpenClawLimits(Limits):
    """What OpenClaw's settings and the workspace's other files leave ``MEMORY.md``."""

    per_file: int = DEFAULT_MAX_CHARS
    agent: str = C.DEFAULT_AGENT
    never: bool = False                 # contextInjection "never": nothing is injected
    startup_options: dict[str, object] = field(default_factory=dict)
    tz: tzinfo | None = None
    unreadable: str | None = None       # MEMORY.md's [UNREADABLE: …] line, when OpenClaw cannot read it
    clock: datetime | date | None = None


def _unreadable(why: str) -> str:
    return f"[UNREADABLE: {why}]"


def _why_unreadable(path: Path) -> tuple[os.stat_result | None, str | None]:
    """The file's status (None: missing) and why OpenClaw's guarded read refuses it (None: it reads it)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, str(e)
    if stat.S_ISLNK(st.st_mode):
        return st, "symlink path component not allowed"
    if not stat.S_ISREG(st.st_mode):
        return st, "path does not have the required file type"
    if st.st_nlink > 1:
        return st, "path must not be hardlinked"
    if st.st_size > MAX_FILE_BYTES:
        return st, f"File exceeds {MAX_FILE_BYTES} bytes"
    return st, None


def read_bootstrap(folder: Path, name: str) -> BootFile | None:
    """One bootstrap file as OpenClaw's guarded read gets it; None: left out (a missing or linked MEMORY/USER)."""
    path = folder / name
    st, why = _why_unreadable(path)
    optional = name in (MEMORY_FILE, USER_FILE)
    if st is None and why is None:
        return None if optional else BootFile(name, str(path), None)
    if st is not None and stat.S_ISLNK(st.st_mode) and optional:
        return None          # the memory plugin injects only the workspace's own MEMORY.md and USER.md
    if why is not None:
        return BootFile(name, str(path), _unreadable(why))
    try:
        with open(path, "rb") as f:
            return BootFile(name, str(path), f.read(MAX_FILE_BYTES + 1).decode("utf-8", "replace"))
    except OSError as e:
        return BootFile(name, str(path), _unreadable(str(e)))


class OpenClaw(AgentKind):
    name = "openclaw"
    label = "OpenClaw"
    temp_dirs = ("", "memory")
    topic_name_rule = (f"a note is one file name under memory/ of {NAME_RULE}, "
                       "or a daily note memory/YYYY-MM-DD-<any words>.md")
    refusal = "OpenClaw writes its own memory: botmemory shows, edits and undoes it, but does not add to it"
    rules_versions = ("2026.9.6",)

    # ----- versions

    def installed_version(self, user_home: Path, env: Mapping[str, str]) -> str | None:
        """The ``version`` in the ``package.json`` of the openclaw package its ``openclaw`` command runs, else of
        a global npm install in the usual places."""
        for script in on_path("openclaw", env):
            found = package_json_version(script, "openclaw")
            if found:
                return found
        for prefix in (user_home / ".npm-global", Path("/usr/local"), Path("/usr")):
            pkg = prefix / "lib" / "node_modules" / "openclaw" / "package.json"
            if pkg.is_file():
                found = package_json_version(pkg, "openclaw")
                if found:
                    return found
        return None

    # ----- layout

    def classify(self, rel: str) -> FileKind:
        if rel == MEMORY_FILE:
            return FileKind.MEMORY
        parts = rel.split("/")
        if len(parts) == 2 and parts[0] == "memory":
            if not _is_note(parts[1]):
                check_name(parts[1], "note")
            return FileKind.TOPIC
        raise BadInput(f"bad path {rel!r}: OpenClaw's memory is MEMORY.md and memory/<note>.md")

    def memory_files(self, folder: Path) -> list[str]:
        top = [MEMORY_FILE] if MEMORY_FILE in list_md(folder) else []
        return top + list_md(folder / "memory", "memory/", folder, accept=_is_note)

    def watched_dirs(self, folder: Path) -> list[Path]:
        return unlinked_dirs(folder, [folder, folder / "memory"])

    # ----- budget

    def limits(self, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object]) -> Limits:
        home = C.openclaw_home(user_home, env)
        setup = C.Setup("", env, home, C.state_dir(home, env), C.config_path(home, env), {}, None)
        config, problem = C.load_config(setup.config_path, env)
        return self._limits(replace(setup, config=config, problem=problem), C.default_agent(config))

    def _limits(self, setup: C.Setup, agent: str) -> OpenClawLimits:
        config = setup.config
        defaults = config.get("agents", {})
        defaults = defaults.get("defaults") if isinstance(defaults, dict) else None
        defaults = defaults if isinstance(defaults, dict) else {}
        per_file = C.char_limit(config, agent, "bootstrapMaxChars", DEFAULT_MAX_CHARS)
        total = C.char_limit(config, agent, "bootstrapTotalMaxChars", DEFAULT_TOTAL_CHARS)
        mode = C.setting(config, agent, "contextInjection")
        startup = defaults.get("startupContext")
        return OpenClawLimits(max_chars={MEMORY_FILE: per_file}, unread=(setup.problem,) if setup.problem else (),
                              total_chars=total, per_file=per_file, agent=agent, never=mode == "never",
                              startup_options=dict(startup) if isinstance(startup, dict) else {},
                              tz=daily.zone(defaults.get("userTimezone")))

    def measure(self, folder: Path, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object],
                today: date | None = None) -> Limits:
        """The settings of the set-up and agent whose workspace *folder* is, and what its other files take."""
        from .versions import rules_for

        setup, agent = C.owning(folder, user_home, env)
        limits = self._limits(setup, agent)
        pending = not C.setup_completed(setup.state, folder)
        rules, installed = rules_for(self, user_home, env)
        return replace(self.share(folder, limits, bootstrap_pending=pending, clock=today), rules=rules,
                       installed=installed)

    def share(self, folder: Path, limits: Limits, *, bootstrap_pending: bool = True,
              clock: datetime | date | None = None) -> Limits:
        """MEMORY.md's allowance: what the bootstrap files before it leave of the total, and the startup prelude."""
        lim = limits if isinstance(limits, OpenClawLimits) else OpenClawLimits(
            max_chars=dict(limits.max_chars), total_chars=limits.total_chars, unread=limits.unread,
            per_file=int(limits.max_chars.get(MEMORY_FILE, DEFAULT_MAX_CHARS)))
        files = [f for f in (read_bootstrap(folder, n) for n in BOOTSTRAP_BEFORE) if f is not None]
        if not bootstrap_pending:
            files = [f for f in files if f.name != BOOTSTRAP_FILE]
        total = lim.total_chars if lim.total_chars is not None else max(lim.per_file, DEFAULT_TOTAL_CHARS)
        injected, left, stopped = budget(files, lim.per_file, total)
        shared = tuple((f.name, utf16.length(f.text)) for f in injected)
        allowance = 0 if stopped or left < MIN_FILE_BUDGET else min(lim.per_file, left)
        st, why = _why_unreadable(folder / MEMORY_FILE)
        unreadable = _unreadable(why) if why is not None and st is not None and not stat.S_ISLNK(st.st_mode) else None
        off: tuple[tuple[str, str], ...] = ()
        if lim.never:
            off = ((MEMORY_FILE, "contextInjection is \"never\" in openclaw.json: OpenClaw injects no file"),)
        startup = None
        bootstrap_exists = (folder / BOOTSTRAP_FILE).exists()
        if daily.applies(lim.startup_options) and not (bootstrap_pending and bootstrap_exists):
            now = clock if clock is not None else datetime.now(timezone.utc)
            startup = daily.prelude(folder, lim.startup_options, now, lim.tz)
        return replace(lim, max_chars={**lim.max_chars, MEMORY_FILE: allowance}, shared=shared,
                       total_chars=total, unreadable=unreadable, off=off, startup=startup)

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        allowance = int(limits.max_chars.get(rel, DEFAULT_MAX_CHARS))
        lines = split_lines(text)
        size = len(text.encode("utf-8"))
        lim = limits if isinstance(limits, OpenClawLimits) else None
        if lim is not None and lim.unreadable is not None:
            n = utf16.length(utf16.trim_end(text))
            return Loaded(rel, lim.unreadable, len(lines), size, n, unloaded_chars=n, max_chars=allowance,
                          lost=tuple(k + 1 for k, line in enumerate(lines) if line.strip()))
        cut = trim(text, rel, max(1, allowance)) if allowance > 0 else None
        n = cut.size if cut is not None else utf16.length(utf16.trim_end(text))
        if cut is None or (lim is not None and lim.never):
            return Loaded(rel, "", len(lines), size, n, unloaded_chars=n, max_chars=allowance,
                          lost=tuple(k + 1 for k, line in enumerate(lines) if line.strip()))
        lost = _lost_lines(lines, cut.head, n - cut.tail) if cut.cut else ()
        return Loaded(rel, prompt_text(cut.text), len(lines), size, n, unloaded_chars=n - cut.head - cut.tail,
                      lost=lost, max_chars=allowance)

    def load(self, texts: Mapping[str, str], limits: Limits) -> str:
        """MEMORY.md exactly as it stands in OpenClaw's prompt, then the prelude a ``/new`` session starts with."""
        memory = self.loaded(MEMORY_FILE, texts.get(MEMORY_FILE, ""), limits).text if MEMORY_FILE in texts else ""
        parts = [p for p in (memory, limits.startup) if p]
        return "\n\n".join(parts)

    # ----- finding

    def discover(self, user_home: Path, env: Mapping[str, str]) -> tuple[list[Found], list[str]]:
        """Every agent's workspace of the default set-up and of each profile, and the ``workspace-<id>`` folders."""
        found: list[Found] = []
        problems: list[str] = []
        seen: set[Path] = set()
        for setup in C.setups(user_home, env):
            if setup.problem:
                problems.append(setup.problem)
            owner = C.owner(setup.config) or C.default_agent(setup.config)
            for agent, path in setup.workspaces():
                if path in seen or not path.is_dir() or path.is_symlink():
                    continue
                seen.add(path)
                prefix = "openclaw" + (f"-{setup.name.lower()}" if setup.name else "")
                slug = prefix if agent == owner else f"{prefix}-{agent}"
                where = f"OpenClaw profile {setup.name}" if setup.name else "OpenClaw"
                name = f"{where} workspace" if agent == owner else f"{where} workspace of agent {agent}"
                found.append(Found(self.name, path, slug, name))
        return found, problems


def _is_note(name: str) -> bool:
    """A note OpenClaw keeps under memory/: the usual names, and daily notes with any script in their slug."""
    if name.startswith(".") or not name.endswith(".md"):
        return False
    if daily.is_daily(name):
        return bool(_NOTE_CHARS.fullmatch(name))
    try:
        check_name(name)
    except BadInput:
        return False
    return True


def _lost_lines(lines: list[str], keep_to: int, keep_from: int) -> tuple[int, ...]:
    """The 1-based lines with a character in units [keep_to, keep_from) of the text: the middle that is cut."""
    lost: list[int] = []
    pos = 0
    for k, line in enumerate(lines):
        body = line.rstrip("\r\n")
        start, end = pos, pos + utf16.length(body)
        if start < keep_from and end > keep_to and line.strip():
            lost.append(k + 1)
        pos += utf16.length(line)
    return tuple(lost)


KIND = OpenClaw()
