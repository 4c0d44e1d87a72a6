"""The real ``claude -p`` as the oracle: run offline against :class:`.fake_model.FakeModel` and read what its
request carries.

Claude Code puts a project's auto memory into the first user message, as the last entry of a
``<system-reminder>`` block: ``Contents of <folder>/MEMORY.md (user's auto-memory, persists across
conversations):\\n\\n<text>\\n</system-reminder>``; its system prompt names the folder (``You have a persistent
file-based memory at `<folder>```); a hook's ``additionalContext`` arrives as ``<E> hook additional context:
<text>``. :func:`run` starts one session in a HOME of the test's and returns all three.

The environment keeps it offline (checked with ``strace -e connect``: only 127.0.0.1) and non-interactive.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fake_model import FakeModel

OFFLINE = {
    "ANTHROPIC_API_KEY": "x",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
MODEL = "claude-sonnet-4-5-20250929"
"""A model whose hook context arrives in a user message of its own (the default model merges it into a
system message)."""
_HEADER = re.compile(r"Contents of (.*?)MEMORY\.md \(user's auto-memory, persists across conversations\):\n\n")
_ANNOUNCED = re.compile(r"You have a persistent[^`\n]*? at `([^`]*)`")
_CONTEXT = re.compile(r"<system-reminder>\n(\w+) hook additional context: ([\s\S]*?)\n</system-reminder>")
_TAIL = "\n</system-reminder>"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    body: dict[str, Any] | None                 # the main turn's request
    memory: str | None = None                   # the MEMORY.md text it carries (None: no block)
    memory_dir: str | None = None               # the folder its header names
    announced: str | None = None                # the folder the system prompt announces
    contexts: dict[str, list[str]] = field(default_factory=dict)   # hook event -> its additional contexts
    requests: list[dict[str, Any]] = field(default_factory=list)


def texts(body: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The system prompt's texts and every message's text blocks."""
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    sys_texts = [str(b.get("text", "")) for b in system if isinstance(b, dict)]
    out: list[str] = []
    for m in body.get("messages", []):
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return sys_texts, out


def read_request(body: Mapping[str, Any]) -> tuple[str | None, str | None, str | None, dict[str, list[str]]]:
    """(memory text, its folder, the announced folder, hook contexts) of one request body."""
    system, messages = texts(body)
    announced = next((m.group(1) for t in system + messages for m in [_ANNOUNCED.search(t)] if m), None)
    memory = folder = None
    for t in messages:
        m = _HEADER.search(t)
        if m:
            rest = t[m.end():]
            memory = rest[:-len(_TAIL)] if rest.endswith(_TAIL) else rest
            folder = m.group(1)
            break
    contexts: dict[str, list[str]] = {}
    for t in messages:
        for m in _CONTEXT.finditer(t):
            contexts.setdefault(m.group(1), []).append(m.group(2))
    return memory, folder, announced, contexts


def run(claude: Path, home: Path, cwd: Path, *, env: Mapping[str, str] | None = None, prompt: str = "hello",
        script: Sequence[dict[str, Any]] = (), args: Sequence[str] = (), model: str | None = MODEL,
        timeout: float = 180, fake: FakeModel | None = None) -> Run:
    """One ``claude -p PROMPT`` session in *cwd* with HOME *home*, against a fresh fake model (or *fake*)."""
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    with fake if fake is not None else FakeModel(script) as fake:
        e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
             "ANTHROPIC_BASE_URL": fake.url, **OFFLINE, **(env or {})}
        cmd = [str(claude), "-p", prompt, *(["--model", model] if model else []), *args]
        try:
            p = subprocess.run(cmd, cwd=cwd, env=e, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=timeout)
            code, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as t:
            code, out, err = -1, str(t.stdout or ""), f"timed out after {timeout} s"
        body = fake.main_request()
        requests = list(fake.requests)
    r = Run(code, out, err, body, requests=requests)
    if body is not None:
        r.memory, r.memory_dir, r.announced, r.contexts = read_request(body)
    return r


def settings(folder: Path, data: Mapping[str, Any]) -> None:
    """Write a Claude Code settings file."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text(json.dumps(data), encoding="utf-8")
