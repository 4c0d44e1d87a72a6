"""OpenClaw's workspace: ``~/.openclaw/workspace/``.

``MEMORY.md`` is injected into every turn; ``memory/*.md`` (daily notes) are
searched by its tools, not injected. A file over the per-file character limit
(``agents.defaults.bootstrapMaxChars`` in ``~/.openclaw/openclaw.json``) is cut
in the injected copy keeping the head and the tail: the middle is lost. The
limit's default and the head/tail shares are botmemory settings
(``agents.openclaw`` in the home's ``config.json``) because they moved between
OpenClaw versions.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from ..errors import BadInput
from ..paths import FileKind
from .base import (MEMORY_FILE, AgentKind, Found, Limits, Loaded, agent_dir, check_name, list_md, one_folder,
                   read_setting, split_lines, unlinked_dirs)

DEFAULT_MAX_CHARS = 20_000
HEAD_SHARE = 0.75
TAIL_SHARE = 0.25
_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def openclaw_dir(user_home: Path, env: Mapping[str, str]) -> Path:
    return agent_dir(user_home, env, "OPENCLAW_STATE_DIR", ".openclaw")


def _number(v: object) -> int | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0 or v != v or v == float("inf"):
        return None
    return int(v)


def read_config(path: Path) -> tuple[dict[str, object], str | None]:
    """openclaw.json (JSON, or JSON5 with line comments and trailing commas), and why it could not be read."""
    if not path.exists():
        return {}, None
    try:
        raw = read_setting(path).decode("utf-8")
        try:
            data = json.loads(raw)
        except ValueError:
            data = json.loads(_TRAILING_COMMA.sub(r"\1", _COMMENT.sub("", raw)))
    except (OSError, ValueError, RecursionError) as e:
        return {}, f"could not read {path}: {e}"
    if not isinstance(data, dict):
        return {}, f"could not read {path}: not a JSON object"
    return data, None


class OpenClaw(AgentKind):
    name = "openclaw"
    label = "OpenClaw"
    temp_dirs = ("", "memory")
    refusal = "OpenClaw writes its own memory: botmemory shows, edits and undoes it, but does not add to it"

    def classify(self, rel: str) -> FileKind:
        if rel == MEMORY_FILE:
            return FileKind.MEMORY
        parts = rel.split("/")
        if len(parts) == 2 and parts[0] == "memory":
            check_name(parts[1], "note")
            return FileKind.TOPIC
        raise BadInput(f"bad path {rel!r}: OpenClaw's memory is MEMORY.md and memory/<note>.md")

    def memory_files(self, folder: Path) -> list[str]:
        top = [MEMORY_FILE] if MEMORY_FILE in list_md(folder) else []
        return top + list_md(folder / "memory", "memory/", folder)

    def watched_dirs(self, folder: Path) -> list[Path]:
        return unlinked_dirs(folder, [folder, folder / "memory"])

    def limits(self, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object]) -> Limits:
        default = _number(settings.get("bootstrapMaxChars")) or DEFAULT_MAX_CHARS
        cfg, problem = read_config(openclaw_dir(user_home, env) / "openclaw.json")
        agents = cfg.get("agents")
        defaults = agents.get("defaults") if isinstance(agents, dict) else None
        value = _number(defaults.get("bootstrapMaxChars")) if isinstance(defaults, dict) else None
        return Limits(max_chars={MEMORY_FILE: value or default}, unread=(problem,) if problem else (),
                      max_lines=None, max_bytes=None)

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        max_chars = limits.max_chars.get(rel, DEFAULT_MAX_CHARS)
        trimmed = text.rstrip()
        lines = split_lines(text)
        n = len(trimmed)
        if n <= max_chars:
            return Loaded(rel, trimmed, len(lines), len(text.encode("utf-8")), n, max_chars=max_chars)
        head = int(max_chars * HEAD_SHARE)
        tail = int(max_chars * TAIL_SHARE)
        lost_from, lost_to = head, n - tail          # the characters [lost_from, lost_to) are not injected
        lost: list[int] = []
        pos = 0
        for k, line in enumerate(lines):
            end = pos + len(line.rstrip("\n"))
            if pos < lost_to and end > lost_from and line.strip():
                lost.append(k + 1)
            pos += len(line)
        marker = (f"\n[...truncated, read {rel} for full content...]\n"
                  f"…(truncated {rel}: kept {head}+{tail} chars of {n})…\n")
        shown = trimmed[:head] + "\n" + marker + "\n" + trimmed[n - tail:]
        return Loaded(rel, shown, len(lines), len(text.encode("utf-8")), n, unloaded_chars=lost_to - lost_from,
                      lost=tuple(lost), max_chars=max_chars)

    def discover(self, user_home: Path, env: Mapping[str, str]) -> tuple[list[Found], list[str]]:
        return one_folder(self.name, openclaw_dir(user_home, env) / "workspace", "openclaw", "OpenClaw workspace")


KIND = OpenClaw()
