"""Agent memory folders built from their documented layouts (docs/RULES.md "Agent kinds"), under a fake HOME."""
from __future__ import annotations

import json
from pathlib import Path

CC_PROJECT = "-src-blog"


def claude_code(user: Path, index_lines: int = 3, *, cwd: str | None = "/src/blog") -> Path:
    """~/.claude/projects/-src-blog/memory/ with MEMORY.md (frontmatter, a comment, an index) and topics."""
    project = user / ".claude" / "projects" / CC_PROJECT
    d = project / "memory"
    d.mkdir(parents=True, exist_ok=True)
    head = "---\nname: index\nmodified: 2026-11-30T10:00:00Z\n---\n<!-- Claude keeps one line per memory\n-->\n"
    lines = ["- [User role](user_role.md) — senior developer, likes terse answers\n",
             "- [Blog](project_blog.md) — hugo site deployed by CI\n"]
    lines += [f"- [Note {i}](note_{i}.md) — note {i}\n" for i in range(max(0, index_lines - 2))]
    (d / "MEMORY.md").write_text(head + "".join(lines[:index_lines]), encoding="utf-8")
    (d / "user_role.md").write_text("---\ntype: user\nmodified: 2026-11-30T10:00:00Z\n---\n"
                                    "Senior developer; likes terse answers.\n", encoding="utf-8")
    (d / "project_blog.md").write_text("---\ntype: project\n---\nThe blog is a hugo site deployed by CI.\n",
                                       encoding="utf-8")
    if cwd is not None:
        (project / "0b1c.jsonl").write_text(json.dumps({"type": "user", "cwd": cwd, "sessionId": "0b1c",
                                                        "message": {"role": "user", "content": "hi"}}) + "\n",
                                            encoding="utf-8")
    return d


def openclaw(user: Path, lines: int = 10, max_chars: int | None = None) -> Path:
    ws = user / ".openclaw" / "workspace"
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    (ws / "MEMORY.md").write_text("".join(f"- line {i:03d} about the garden project\n" for i in range(lines)),
                                  encoding="utf-8")
    (ws / "memory" / "2026-11-30.md").write_text("- watered the tomatoes\n", encoding="utf-8")
    (ws / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    if max_chars is not None:
        (user / ".openclaw" / "openclaw.json").write_text(
            json.dumps({"agents": {"defaults": {"bootstrapMaxChars": max_chars}}}), encoding="utf-8")
    return ws


def hermes(user: Path, entries: list[str] | None = None, memory_limit: int | None = None) -> Path:
    d = user / ".hermes" / "memories"
    d.mkdir(parents=True, exist_ok=True)
    entries = entries if entries is not None else ["User prefers tea", "Project uses postgres 16",
                                                   "Deploys happen on Tuesdays"]
    (d / "MEMORY.md").write_text("\n§\n".join(entries) + "\n", encoding="utf-8")
    (d / "USER.md").write_text("Name is Sam\n§\nLives in Lisbon\n", encoding="utf-8")
    if memory_limit is not None:
        (user / ".hermes" / "config.yaml").write_text(f"memory:\n  memory_char_limit: {memory_limit}\n",
                                                      encoding="utf-8")
    return d
