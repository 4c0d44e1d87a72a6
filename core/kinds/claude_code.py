"""Claude Code's auto memory: ``<claude dir>/projects/<project>/memory/`` and ``agent-memory/<agent>/``.

Subagents' memory is ``<claude dir>/agent-memory/<agent>/`` (user scope) or ``<project>/.claude/agent-memory/<agent>/``
(project scope), found for the projects Claude Code knows: their ``cwd`` from the newest transcripts.

``MEMORY.md`` is an index, one line per memory; each memory is a topic file
beside it. What loads at the start of every conversation is exactly what
Claude Code's own code loads (:mod:`.claude_code_load`, the rules of 2.1.328 and
of 2.1.332, chosen by the version installed): the first 200
lines or 25,000 UTF-16 code units of ``MEMORY.md`` after its frontmatter and
top-level HTML comments are stripped and it is trimmed, cut at a line's end,
with Claude Code's warning appended; a file over 4 MiB does not load. Which
folder a session uses is :mod:`.claude_code_paths` (the project's git root,
``autoMemoryDirectory``). Topic files are read on demand. Claude Code writes
its memory itself, so ``remember``, ``prefer``, ``tidy`` and ``init`` are
refused here.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from ..base.log import get_logger
from ..disk.paths import FileKind
from . import claude_code_paths as where
from .base import MEMORY_FILE, NAME_RULE, AgentKind, Found, Limits, Loaded, check_name, list_md
from .versions import label_version

logger = get_logger(__name__)

MAX_LINES = 200
MAX_BYTES = 25_000
"""What Claude Code calls bytes are UTF-16 code units (:mod:`.claude_code_load`, loaded when a MEMORY.md is
measured: a prompt's hook does not need it)."""
RULES = "2.1.332"
"""The newest Claude Code version whose rules these are (proven against it by tests/conformance/claude_code;
the older ones' by the answers recorded from their binaries, tests/core/data/claude_code)."""
RULES_VERSIONS = ("2.1.328", RULES)
_TRANSCRIPT_PEEK = 64 * 1024


def claude_dir(user_home: Path, env: Mapping[str, str]) -> Path:
    return where.config_dir(user_home, env)


class ClaudeCode(AgentKind):
    name = "claude-code"
    label = "Claude Code"
    topic_dir = ""          # beside MEMORY.md
    topic_name_rule = f"a topic is one file name beside MEMORY.md of {NAME_RULE}"
    refusal = "Claude Code writes its own memory: botmemory shows, edits and undoes it, but does not add to it"
    reads_bad_bytes = True          # it decodes MEMORY.md with U+FFFD for each bad sequence, and loads it

    def classify(self, rel: str) -> FileKind:
        if "/" in rel or "\\" in rel:
            from ..base.errors import BadInput

            raise BadInput(f"bad path {rel!r}: Claude Code's memory is MEMORY.md and topic files beside it "
                           "(no folders)")
        check_name(rel, "topic")
        return FileKind.MEMORY if rel == MEMORY_FILE else FileKind.TOPIC

    def memory_files(self, folder: Path) -> list[str]:
        return list_md(folder)

    def limits(self, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object]) -> Limits:
        return Limits(max_lines=MAX_LINES, max_bytes=MAX_BYTES)

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        from .claude_code_load import measure

        got = measure(text, rules=rules_of(limits))
        return Loaded(rel, got.text, got.lines, got.units, got.units, unloaded_lines=got.unloaded_lines,
                      lost=got.lost, max_lines=MAX_LINES, max_bytes=MAX_BYTES)

    def load(self, texts: Mapping[str, str], limits: Limits) -> str:
        """Exactly the text Claude Code's request carries for MEMORY.md ("" when it sends none)."""
        return self.loaded(MEMORY_FILE, texts.get(MEMORY_FILE, ""), limits).text

    rules_versions: tuple[str, ...] = RULES_VERSIONS

    def installed_version(self, user_home: Path, env: Mapping[str, str]) -> str | None:
        """The version of the ``claude`` on ``$PATH`` (:func:`installed_version`)."""
        return installed_version(env)

    def lines_on_disk(self, text: str) -> list[str]:
        return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]   # only \n ends a line

    def whole_file_entry(self, rel: str) -> bool:
        return rel != MEMORY_FILE

    def discover(self, user_home: Path, env: Mapping[str, str]) -> tuple[list[Found], list[str]]:
        """Every project's memory folder under ``<claude dir>/projects/``, named by the project's path (the git
        root its sessions' working directories lead to), the folders ``autoMemoryDirectory`` moves memory
        to (the user's setting, and each known project's own settings), and subagents' memory."""
        base = claude_dir(user_home, env)
        found: list[Found] = []
        unread: list[str] = []
        dirs = _subdirs(base / "projects")
        cwds = {p.name: session_cwds(p) for p in dirs}
        roots: dict[str, str] = {}        # a memory folder's name -> its project's path
        for p in dirs:
            for cwd in cwds[p.name]:
                key = where.project_root(cwd)
                roots.setdefault(where.folder_name(key, env), key)
        places: set[Path] = set()
        for p in dirs:
            mem = p / "memory"
            if mem.is_dir() and not mem.is_symlink():
                found.append(Found(self.name, mem, "claude" + p.name, roots.get(p.name) or project_name(p),
                                   exact=_SLUG.fullmatch("claude" + p.name) is not None))
                places.add(mem)
        seen: set[str] = set()
        for p in dirs:
            for cwd in cwds[p.name][:1]:       # the project's own subagents' memory, and its own settings
                if cwd in seen:
                    continue
                seen.add(cwd)
                here = Path(cwd)
                for a in _subdirs(here / ".claude" / "agent-memory"):
                    if not (here / ".claude").is_symlink() and not (here / ".claude" / "agent-memory").is_symlink():
                        found.append(Found(self.name, a, f"claude-agent-{here.name}-{a.name}",
                                           f"{cwd} · agent {a.name}", exact=False))
                moved = where.memory_dir(cwd, user_home, env)
                if moved is not None and moved not in places and moved.is_dir() and not moved.is_symlink():
                    places.add(moved)
                    found.append(Found(self.name, moved, "claude-" + moved.name, f"{cwd} · {moved}", exact=False))
        for p in _subdirs(base / "agent-memory"):
            found.append(Found(self.name, p, "claude-agent-" + p.name, f"agent {p.name}",
                               exact=_SLUG.fullmatch("claude-agent-" + p.name) is not None))
        user, problem = where.read_settings(base / "settings.json")
        if problem:
            unread.append(problem)
        auto = where.checked_dir((user or {}).get("autoMemoryDirectory"), user_home)
        if auto is not None:
            folder = Path(auto)
            if folder not in places and folder.is_dir() and not folder.is_symlink():
                found.append(Found(self.name, folder, "claude-memory", str(folder)))
        return found, unread


def _subdirs(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""A slug an id keeps as it is: no other folder name becomes the same id (no capital, no run of dashes)."""
_VERSION = re.compile(r"(\d+\.\d+\.\d+)(?:[-+][0-9A-Za-z.-]+)?")


def rules_of(limits: Limits) -> str:
    """The Claude Code version whose rules measure with *limits* (``limits.rules``, ``"claude-code 2.1.328"``);
    the newest known when they name none (a budget read without :meth:`AgentKind.measure`)."""
    version = label_version(limits.rules)
    return version if version in RULES_VERSIONS else RULES


def installed_version(env: Mapping[str, str]) -> str | None:
    """The version of the first ``claude`` on ``$PATH``, or None: read from its npm package's ``package.json``
    or its native install's file name (``~/.local/share/claude/versions/2.1.328``) when it is one of those,
    else what ``claude --version`` prints (``2.1.328 (Claude Code)``)."""
    for d in env.get("PATH", "").split(os.pathsep):
        exe = Path(d or ".") / "claude"
        if not (exe.is_file() and os.access(exe, os.X_OK)):
            continue
        try:
            real = exe.resolve()
        except OSError:
            real = exe
        for folder in real.parents:
            pkg = folder / "package.json"
            if pkg.is_file():
                try:
                    data = json.loads(pkg.read_bytes()[:256 * 1024])
                except (OSError, ValueError):
                    break
                if isinstance(data, dict) and data.get("name") == "@anthropic-ai/claude-code":
                    v = data.get("version")
                    return v if isinstance(v, str) else None
                break
        if real.parent.name == "versions" and _VERSION.fullmatch(real.name):
            return real.name
        return _version_of(exe, env)
    return None


def _version_of(exe: Path, env: Mapping[str, str]) -> str | None:
    """What ``claude --version`` says its version is (it needs no HOME and answers in tens of ms)."""
    import subprocess

    try:
        r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=10,
                           stdin=subprocess.DEVNULL, env={"PATH": env.get("PATH", ""), "LANG": "C.UTF-8",
                                                          "HOME": env.get("HOME", "/nonexistent")})
    except (OSError, subprocess.SubprocessError):
        return None
    m = _VERSION.match(r.stdout.strip())
    return m.group(1) if r.returncode == 0 and m else None


def project_memory_dir(cwd: str, user_home: Path, env: Mapping[str, str]) -> Path | None:
    """The auto memory folder of a session started in *cwd*, or None when auto memory is off there
    (:func:`.claude_code_paths.memory_dir`)."""
    return where.memory_dir(cwd, user_home, env)


def session_cwds(project: Path) -> list[str]:
    """The working directories of the sessions a ``projects/<folder>/`` holds transcripts of, newest first
    (a transcript's ``cwd``, read from its first lines)."""
    try:
        transcripts = sorted((p for p in project.glob("*.jsonl") if p.is_file() and not p.is_symlink()),
                             key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        transcripts = []
    out: list[str] = []
    for t in transcripts[:3]:
        try:
            with open(t, "rb") as f:
                head = f.read(_TRANSCRIPT_PEEK)
        except OSError:
            continue
        for raw in head.split(b"\n"):
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict) and isinstance(line.get("cwd"), str) and os.path.isabs(line["cwd"]):
                if line["cwd"] not in out:
                    out.append(line["cwd"])
                break
    return out


def project_name(project: Path) -> str:
    """A project's real path from a transcript's ``cwd`` (the newest ``*.jsonl``), else the folder's name."""
    cwds = session_cwds(project)
    return cwds[0] if cwds else project.name


KIND = ClaudeCode()
__all__ = ["KIND", "MAX_BYTES", "MAX_LINES", "RULES", "RULES_VERSIONS", "claude_dir", "installed_version",
           "project_memory_dir", "project_name", "rules_of", "session_cwds"]
