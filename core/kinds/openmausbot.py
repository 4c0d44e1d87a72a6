"""Today's OpenMausBot workspaces (``<home>/workspaces/<bot>``): the spec's own layout and budget.

botmemory writes this memory for the bot (remember, prefer, tidy), so every
command applies. The budget and what loads live in :mod:`botmemory.core.budget`
and :mod:`botmemory.core.loader`; this module only says so to the registry.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .. import budget
from ..paths import Kind as FileKind
from ..paths import classify
from .base import MEMORY_FILE, AgentKind, Limits, Loaded, split_lines


class OpenMausBot(AgentKind):
    name = "openmausbot"
    label = "OpenMausBot"
    writes_own_memory = False
    reports_turns = True
    temp_dirs = ("", "memory", "memory/log")

    def classify(self, rel: str) -> FileKind:
        return classify(rel)

    def memory_files(self, folder: Path) -> list[str]:
        from .base import list_md

        top = [MEMORY_FILE] if (folder / MEMORY_FILE).is_file() else []
        mem = [r for r in list_md(folder / "memory", "memory/")]
        logs = list_md(folder / "memory" / "log", "memory/log/")
        out = []
        for rel in top + mem + logs:
            try:
                classify(rel)
            except Exception:
                continue
            out.append(rel)
        return out

    def watched_dirs(self, folder: Path) -> list[Path]:
        return [folder, folder / "memory", folder / "memory" / "log"]

    def limits(self, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object]) -> Limits:
        return Limits(max_lines=budget.MEMORY_MAX_LINES, max_bytes=budget.MEMORY_MAX_BYTES)

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        g = budget.gauge(text)
        kept, _ = budget.loaded_text(text)
        lines = split_lines(text)
        return Loaded(rel, kept, g.lines, g.bytes, len(text), unloaded_lines=g.unloaded_lines,
                      lost=tuple(range(g.loaded_lines + 1, len(lines) + 1)),
                      max_lines=g.max_lines, max_bytes=g.max_bytes)


KIND = OpenMausBot()
