"""OpenClaw's workspace: ``~/.openclaw/workspace/``.

``MEMORY.md`` is injected into every turn; ``memory/*.md`` (daily notes) are
searched by its tools, not injected. A file over the per-file character limit
(``agents.defaults.bootstrapMaxChars`` in ``~/.openclaw/openclaw.json``) is cut
in the injected copy keeping the head and the tail: the middle is lost. The
limit's default and the head/tail shares are botmemory settings
(``agents.openclaw`` in the home's ``config.json``) because they moved between
OpenClaw versions.

The workspace's other bootstrap files (``AGENTS.md``, ``SOUL.md``, ``TOOLS.md``,
``IDENTITY.md``, ``USER.md``, ``HEARTBEAT.md``, ``BOOTSTRAP.md``) are injected
before ``MEMORY.md``, each cut the same way, and all of them share one total
(``agents.defaults.bootstrapTotalMaxChars``, default 60,000, also a setting):
``MEMORY.md`` gets what they leave, up to its own limit, and nothing when less
than 64 characters are left (:meth:`OpenClaw.share`). A bootstrap file that is a
link is not read (botmemory never reads through one) and so not counted;
OpenClaw's short markers for missing files are not counted either.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from ..base.log import get_logger
from ..base.errors import BadInput, BotMemoryError
from ..disk.paths import FileKind
from .base import (MEMORY_FILE, AgentKind, Found, Limits, Loaded, agent_dir, check_name, list_md, one_folder,
                   read_setting, split_lines, unlinked_dirs)
from ..disk.safeio import read_file

logger = get_logger(__name__)

DEFAULT_MAX_CHARS = 20_000
DEFAULT_TOTAL_CHARS = 60_000
BOOTSTRAP_BEFORE = ("AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md")
"""The workspace files OpenClaw injects before MEMORY.md, in its order."""
MIN_FILE_BUDGET = 64
"""With less of the total left than this, OpenClaw injects no further file."""
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
        cfg, problem = read_config(openclaw_dir(user_home, env) / "openclaw.json")
        agents = cfg.get("agents")
        defaults = agents.get("defaults") if isinstance(agents, dict) else None

        def setting(key: str, default: int) -> int:
            value = _number(defaults.get(key)) if isinstance(defaults, dict) else None
            return value or _number(settings.get(key)) or default

        return Limits(max_chars={MEMORY_FILE: setting("bootstrapMaxChars", DEFAULT_MAX_CHARS)},
                      unread=(problem,) if problem else (), max_lines=None, max_bytes=None,
                      total_chars=setting("bootstrapTotalMaxChars", DEFAULT_TOTAL_CHARS))

    def share(self, folder: Path, limits: Limits) -> Limits:
        """MEMORY.md's limit lowered to what the bootstrap files injected before it leave of the total."""
        per_file = limits.max_chars.get(MEMORY_FILE, DEFAULT_MAX_CHARS)
        left = limits.total_chars
        if left is None:
            return limits
        shared: list[tuple[str, int]] = []
        for name in BOOTSTRAP_BEFORE:
            if left < MIN_FILE_BUDGET:
                break
            try:   # walked from the folder itself: a linked file is refused, not followed
                ft = read_file(folder / name, folder)
            except (BotMemoryError, OSError) as e:
                logger.info("%s is not counted in OpenClaw's bootstrap total: %s", name, e)
                continue
            if ft is None:
                continue
            cap = max(1, min(per_file, left))
            injected = min(len(self.loaded(name, ft.text, Limits(max_chars={name: cap})).text), left)
            if injected:
                shared.append((name, injected))
                left -= injected
        memory_cap = min(per_file, left) if left >= MIN_FILE_BUDGET else 0
        return replace(limits, max_chars={**limits.max_chars, MEMORY_FILE: memory_cap}, shared=tuple(shared))

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        max_chars = limits.max_chars.get(rel, DEFAULT_MAX_CHARS)
        trimmed = text.rstrip()
        lines = split_lines(text)
        n = len(trimmed)
        if max_chars <= 0 and n:        # the files before it took the whole total: none of it is injected
            return Loaded(rel, "", len(lines), len(text.encode("utf-8")), n, unloaded_chars=n,
                          lost=tuple(k + 1 for k, line in enumerate(lines) if line.strip()), max_chars=0)
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
