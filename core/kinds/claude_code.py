"""Claude Code's auto memory: ``<claude dir>/projects/<project>/memory/`` and ``agent-memory/<agent>/``.

Subagents' memory is ``<claude dir>/agent-memory/<agent>/`` (user scope) or ``<project>/.claude/agent-memory/<agent>/``
(project scope), found for the projects Claude Code knows: their ``cwd`` from the newest transcripts.

``MEMORY.md`` is an index, one line per memory; each memory is a topic file
beside it. What loads at the start of every conversation: the first 200 lines
or 25,000 bytes of ``MEMORY.md``, whichever comes first, after its frontmatter
and block-level HTML comments are stripped; the tail is cut. Topic files are
read on demand. Claude Code writes its memory itself, so ``remember``,
``prefer``, ``tidy`` and ``init`` are refused here.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from ..base.log import get_logger
from ..disk.paths import FileKind
from .base import (MEMORY_FILE, NAME_RULE, AgentKind, Found, Limits, Loaded, agent_dir, check_name, frontmatter_end, head_cut,
                   list_md, read_setting, split_lines)

logger = get_logger(__name__)

MAX_LINES = 200
MAX_BYTES = 25_000
_TRANSCRIPT_PEEK = 64 * 1024
_COMMENT_OPEN = re.compile(r"^\s*<!--")


def claude_dir(user_home: Path, env: Mapping[str, str]) -> Path:
    return agent_dir(user_home, env, "CLAUDE_CONFIG_DIR", ".claude")


def measured_lines(text: str) -> list[tuple[int, str]]:
    """The lines Claude Code measures, with their 1-based line numbers in the file.

    The frontmatter goes, and every block-level HTML comment (a comment that
    starts a line and ends at a line's end, over one or more lines).
    """
    lines = split_lines(text)
    start = frontmatter_end(text)
    pos = 0
    k = 0
    while k < len(lines) and pos < start:
        pos += len(lines[k])
        k += 1
    out: list[tuple[int, str]] = []
    while k < len(lines):
        line = lines[k]
        if _COMMENT_OPEN.match(line):
            j = k
            while j < len(lines) and "-->" not in lines[j]:
                j += 1
            if j < len(lines) and not lines[j].split("-->")[-1].strip():
                k = j + 1
                continue
        out.append((k + 1, line))
        k += 1
    return out


class ClaudeCode(AgentKind):
    name = "claude-code"
    label = "Claude Code"
    topic_dir = ""          # beside MEMORY.md
    topic_name_rule = f"a topic is one file name beside MEMORY.md of {NAME_RULE}"
    refusal = "Claude Code writes its own memory: botmemory shows, edits and undoes it, but does not add to it"

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
        max_lines = limits.max_lines or MAX_LINES
        max_bytes = limits.max_bytes or MAX_BYTES
        measured = measured_lines(text)
        n = head_cut([line for _, line in measured], max_lines, max_bytes)
        kept = "".join(line for _, line in measured[:n])
        total_bytes = sum(len(line.encode("utf-8")) for _, line in measured)
        return Loaded(rel, kept, len(measured), total_bytes, sum(len(line) for _, line in measured),
                      unloaded_lines=len(measured) - n, lost=tuple(no for no, _ in measured[n:]),
                      max_lines=max_lines, max_bytes=max_bytes)

    def whole_file_entry(self, rel: str) -> bool:
        return rel != MEMORY_FILE

    def discover(self, user_home: Path, env: Mapping[str, str]) -> tuple[list[Found], list[str]]:
        base = claude_dir(user_home, env)
        found: list[Found] = []
        unread: list[str] = []
        projects = base / "projects"
        seen: set[Path] = set()
        for p in _subdirs(projects):
            mem = p / "memory"
            name = project_name(p)
            if mem.is_dir() and not mem.is_symlink():
                found.append(Found(self.name, mem, "claude-" + p.name, name))
            cwd = Path(name)
            if cwd.is_absolute() and cwd not in seen:     # the project's own subagents' memory
                seen.add(cwd)
                for a in _subdirs(cwd / ".claude" / "agent-memory"):
                    if not (cwd / ".claude").is_symlink() and not (cwd / ".claude" / "agent-memory").is_symlink():
                        found.append(Found(self.name, a, f"claude-agent-{cwd.name}-{a.name}",
                                           f"{name} · agent {a.name}"))
        for p in _subdirs(base / "agent-memory"):
            found.append(Found(self.name, p, "claude-agent-" + p.name, f"agent {p.name}"))
        settings = base / "settings.json"
        auto, problem = _auto_memory_dir(settings, user_home)
        if problem:
            unread.append(problem)
        if auto is not None and auto.is_dir() and not auto.is_symlink():
            found.append(Found(self.name, auto, "claude-memory", str(auto)))
        return found, unread


def _subdirs(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def _read_settings(settings: Path) -> tuple[dict[str, object] | None, str | None]:
    """A Claude Code settings file as a JSON object (None when absent), and a note when it could not be read."""
    if not settings.exists():
        return None, None
    try:
        data = json.loads(read_setting(settings))
    except (OSError, ValueError, RecursionError) as e:
        return None, f"could not read {settings}: {e}"
    if not isinstance(data, dict):
        return None, f"could not read {settings}: not a JSON object"
    return data, None


def _user_path(value: object, user_home: Path) -> Path | None:
    """A folder named in a setting (``~`` is *user_home*), or None for an empty or non-string value."""
    if not isinstance(value, str) or not value.strip():
        return None
    v = value.strip()
    return user_home / v[1:].lstrip("/\\") if v.startswith("~") else Path(v)


def _auto_memory_dir(settings: Path, user_home: Path) -> tuple[Path | None, str | None]:
    """``autoMemoryDirectory`` from Claude Code's settings.json, and a note when the file could not be read."""
    data, problem = _read_settings(settings)
    if data is None:
        return None, problem
    return _user_path(data.get("autoMemoryDirectory"), user_home), None


def project_key(cwd: str) -> str:
    """The folder name Claude Code gives a project: every non-alphanumeric character as ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _setting(cwd: Path | None, key: str, user_home: Path, env: Mapping[str, str]) -> object:
    """A Claude Code setting, the most specific level first (local, project, user); None when unset."""
    files = []
    if cwd is not None:
        files += [cwd / ".claude" / "settings.local.json", cwd / ".claude" / "settings.json"]
    files.append(claude_dir(user_home, env) / "settings.json")
    for f in files:
        data, _ = _read_settings(f)
        if data is not None and key in data:
            return data[key]
    return None


def project_memory_dir(cwd: str, user_home: Path, env: Mapping[str, str]) -> Path | None:
    """The auto memory folder of the project at *cwd*, or None when auto memory is off there.

    ``<claude dir>/projects/<project_key(cwd)>/memory/``, or the ``autoMemoryDirectory`` setting;
    off with ``CLAUDE_CODE_DISABLE_AUTO_MEMORY`` or ``autoMemoryEnabled: false``.
    """
    if env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "") not in ("", "0"):
        return None
    here = Path(cwd) if cwd else None
    if _setting(here, "autoMemoryEnabled", user_home, env) is False:
        return None
    custom = _user_path(_setting(here, "autoMemoryDirectory", user_home, env), user_home)
    if custom is not None:
        return custom
    return claude_dir(user_home, env) / "projects" / project_key(cwd) / "memory"


def project_name(project: Path) -> str:
    """A project's real path from a transcript's ``cwd`` (the newest ``*.jsonl``), else the folder's name."""
    try:
        transcripts = sorted((p for p in project.glob("*.jsonl") if p.is_file() and not p.is_symlink()),
                             key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        transcripts = []
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
            if isinstance(line, dict) and isinstance(line.get("cwd"), str) and line["cwd"]:
                return str(line["cwd"])
    return project.name


KIND = ClaudeCode()
__all__ = ["KIND", "MAX_BYTES", "MAX_LINES", "claude_dir", "measured_lines", "project_key", "project_memory_dir",
           "project_name"]
