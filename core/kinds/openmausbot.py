"""Today's OpenMausBot workspaces (``<home>/workspaces/<bot>``): their own layout and budget
(docs/RULES.md "Homes and workspaces", "The load budget").

botmemory writes this memory for the bot (remember, prefer, tidy), so every
command applies. The loader and gauge of a workspace live in
:mod:`botmemory.core.text.budget` and :mod:`botmemory.core.notes.loader`; this module
gives the registry the same rule (whole lines, 200 lines or 24 KB), the
constants kept equal to budget's by a test.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..base.errors import BadInput
from ..disk.paths import TOPIC_NAME_RULE, FileKind, classify
from .base import MEMORY_FILE, AgentKind, Limits, Loaded, head_cut, list_md, split_lines, unlinked_dirs

MAX_LINES = 200
MAX_BYTES = 24 * 1024


class OpenMausBot(AgentKind):
    name = "openmausbot"
    label = "OpenMausBot"
    writes_own_memory = False
    reports_turns = True
    temp_dirs = ("", "memory", "memory/log")
    topic_name_rule = TOPIC_NAME_RULE

    def classify(self, rel: str) -> FileKind:
        return classify(rel)

    def memory_files(self, folder: Path) -> list[str]:
        top = [MEMORY_FILE] if MEMORY_FILE in list_md(folder) else []
        out = []
        for rel in (top + list_md(folder / "memory", "memory/", folder)
                    + list_md(folder / "memory" / "log", "memory/log/", folder)):
            try:
                classify(rel)
            except BadInput:
                continue
            out.append(rel)
        return out

    def watched_dirs(self, folder: Path) -> list[Path]:
        return unlinked_dirs(folder, [folder, folder / "memory", folder / "memory" / "log"])

    def limits(self, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object]) -> Limits:
        return Limits(max_lines=MAX_LINES, max_bytes=MAX_BYTES)

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        lines = split_lines(text)
        n = head_cut(lines, limits.max_lines or MAX_LINES, limits.max_bytes or MAX_BYTES)
        return Loaded(rel, "".join(lines[:n]), len(lines), len(text.encode("utf-8")), len(text),
                      unloaded_lines=len(lines) - n, lost=tuple(range(n + 1, len(lines) + 1)),
                      max_lines=limits.max_lines or MAX_LINES, max_bytes=limits.max_bytes or MAX_BYTES)


KIND = OpenMausBot()
