"""Hermes Agent's memories: ``~/.hermes/memories/MEMORY.md`` and ``USER.md``.

Each file is a list of entries separated by ``§``, loaded whole as a snapshot
at session start, with a character limit per file (2,200 for MEMORY.md, 1,375
for USER.md; ``memory.memory_char_limit`` / ``memory.user_char_limit`` in
``~/.hermes/config.yaml``). Hermes refuses a write past the limit, so the gauge
shows how full each file is and turns red at the limit.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..base.errors import BadInput
from ..disk.paths import FileKind
from .base import (MEMORY_FILE, AgentKind, Found, Limits, Loaded, Piece, agent_dir, list_md, one_folder, read_setting,
                   split_lines)

USER_FILE = "USER.md"
DELIMITER = "\n§\n"
DEFAULT_LIMITS = {MEMORY_FILE: 2200, USER_FILE: 1375}
_KEYS = {MEMORY_FILE: "memory_char_limit", USER_FILE: "user_char_limit"}


def hermes_dir(user_home: Path, env: Mapping[str, str]) -> Path:
    return agent_dir(user_home, env, "HERMES_HOME", ".hermes")


def entries(text: str) -> list[Piece]:
    """The ``§``-separated entries of a file, stripped, with their offsets."""
    out: list[Piece] = []
    pos = 0
    for part in text.split("§"):
        lead = len(part) - len(part.lstrip())
        body = part.strip()
        if body:
            out.append(Piece(body, pos + lead, pos + lead + len(body)))
        pos += len(part) + 1
    return out


def measured(text: str) -> str:
    """The snapshot Hermes builds: the entries joined by its delimiter."""
    return DELIMITER.join(p.text for p in entries(text))


def yaml_error() -> type[Exception]:
    import yaml

    return yaml.YAMLError


def _limit(v: object) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        return None
    return v


class Hermes(AgentKind):
    name = "hermes"
    label = "Hermes"
    topic_dir = None        # MEMORY.md and USER.md only
    budgeted = (MEMORY_FILE, USER_FILE)
    red_at_limit = True
    refusal = "Hermes writes its own memory: botmemory shows, edits and undoes it, but does not add to it"

    def classify(self, rel: str) -> FileKind:
        if rel in (MEMORY_FILE, USER_FILE):
            return FileKind.MEMORY
        raise BadInput(f"bad path {rel!r}: Hermes' memory is MEMORY.md and USER.md")

    def memory_files(self, folder: Path) -> list[str]:
        return [r for r in list_md(folder) if r in (MEMORY_FILE, USER_FILE)]

    def limits(self, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object]) -> Limits:
        limits = dict(DEFAULT_LIMITS)
        path = hermes_dir(user_home, env) / "config.yaml"
        unread: tuple[str, ...] = ()
        if path.exists():
            try:
                import yaml  # imported on first use

                data = yaml.safe_load(read_setting(path).decode("utf-8"))
                memory = data.get("memory") if isinstance(data, dict) else None
                if isinstance(memory, dict):
                    for rel, key in _KEYS.items():
                        limits[rel] = _limit(memory.get(key)) or limits[rel]
                elif data is not None and not isinstance(data, dict):
                    raise ValueError("not a mapping")
            except (OSError, ValueError, RecursionError, yaml_error()) as e:  # the defaults, and say so
                unread = (f"could not read {path}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",)
        return Limits(max_chars=limits, unread=unread)

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        snap = measured(text)
        return Loaded(rel, snap, len(split_lines(text)), len(text.encode("utf-8")), len(snap),
                      max_chars=limits.max_chars.get(rel, DEFAULT_LIMITS[rel]))

    def load(self, texts: Mapping[str, str], limits: Limits) -> str:
        out = []
        for rel in self.budgeted:
            snap = self.loaded(rel, texts.get(rel, ""), limits).text
            if snap:
                out.append(f"{rel}:\n{snap}\n")
        return "".join(out)

    def pieces(self, rel: str, text: str) -> list[Piece]:
        return entries(text)

    def without(self, rel: str, text: str, gone: Sequence[Piece]) -> str:
        starts = {p.start for p in gone}
        kept = [p.text for p in entries(text) if p.start not in starts]
        return DELIMITER.join(kept) + ("\n" if kept and text.endswith("\n") else "")

    def discover(self, user_home: Path, env: Mapping[str, str]) -> tuple[list[Found], list[str]]:
        return one_folder(self.name, hermes_dir(user_home, env) / "memories", "hermes", "Hermes memories")


KIND = Hermes()
