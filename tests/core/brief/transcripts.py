"""Claude Code session transcripts shaped as Claude Code 2.1.328 writes them (compact JSON lines, the line types
a real ``claude -p`` run wrote: queue operations, the prompt, attachments, tool calls and their results, the
answer, ``last-prompt``), for the brief's and session search's tests and benchmarks."""
from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from botmemory.core.kinds.claude_code_paths import sanitized


@dataclass
class Turn:
    prompt: str
    answer: str
    at: datetime                      # local, aware or naive (taken as local)
    tool_output: str = ""             # a tool's output between the prompt and the answer
    after: str = ""                   # a tool's output after the answer (the session went on, unanswered)


def _ts(at: datetime) -> str:
    aware = at if at.tzinfo else at.astimezone()
    return aware.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{aware.microsecond // 1000:03d}Z"


def _dump(d: dict) -> str:
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False)


def lines(session: str, cwd: str, turns: Sequence[Turn]) -> list[str]:
    out: list[str] = []
    parent = None
    common = {"userType": "external", "entrypoint": "cli", "cwd": cwd, "sessionId": session, "version": "2.1.328",
              "gitBranch": "main"}

    def add(kind: str, at: datetime, **fields: object) -> None:
        nonlocal parent
        u = str(uuid.uuid4())
        out.append(_dump({"parentUuid": parent, "isSidechain": False, **fields, "type": kind, "uuid": u,
                          "timestamp": _ts(at), **common}))
        parent = u

    for t in turns:
        out.append(_dump({"type": "queue-operation", "operation": "enqueue", "timestamp": _ts(t.at),
                          "sessionId": session, "content": t.prompt}))
        add("user", t.at, promptId=str(uuid.uuid4()), message={"role": "user", "content": t.prompt})
        add("attachment", t.at, attachment={"type": "environment", "snapshot": {"workingDirectory": cwd}})
        if t.tool_output:
            tid = "toolu_" + uuid.uuid4().hex[:20]
            add("assistant", t.at, message={"role": "assistant", "content": [
                {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": "make test"}}]})
            add("user", t.at, message={"role": "user", "content": [
                {"tool_use_id": tid, "type": "tool_result", "content": t.tool_output}]},
                toolUseResult={"stdout": t.tool_output, "stderr": ""})
        add("assistant", t.at, message={"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
                                        "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": t.answer}],
                                        "stop_reason": "end_turn"})
        out.append(_dump({"type": "last-prompt", "lastPrompt": t.prompt, "leafUuid": parent, "sessionId": session}))
        if t.after:
            tid = "toolu_" + uuid.uuid4().hex[:20]
            add("user", t.at, message={"role": "user", "content": [
                {"tool_use_id": tid, "type": "tool_result", "content": t.after}]},
                toolUseResult={"stdout": t.after, "stderr": ""})
    return out


def transcript_dir(claude: Path, cwd: Path | str) -> Path:
    d = claude / "projects" / sanitized(str(cwd))
    d.mkdir(parents=True, exist_ok=True)
    return d


def write_session(claude: Path, cwd: Path | str, turns: Sequence[Turn], session: str | None = None,
                  mtime: datetime | None = None) -> Path:
    """A session's transcript in ``<claude>/projects/<cwd as a folder name>/<session>.jsonl``; its modification
    time that of its last turn (or *mtime*)."""
    session = session or str(uuid.uuid4())
    path = transcript_dir(claude, cwd) / f"{session}.jsonl"
    path.write_text("\n".join(lines(session, str(cwd), turns)) + "\n", encoding="utf-8")
    when = mtime or max(t.at for t in turns)
    stamp = (when if when.tzinfo else when.astimezone()).timestamp()
    os.utime(path, (stamp, stamp))
    return path
