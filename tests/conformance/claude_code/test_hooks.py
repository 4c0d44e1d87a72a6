"""The Claude Code hooks under the real ``claude -p``: ``botmemory hook claude-code`` registered in its settings, as
``connect`` registers it, and what reaches the request, the capture queue and the journal.
"""
from __future__ import annotations

import json
import shlex
import sys
import threading
from pathlib import Path

import pytest

from botmemory.core.kinds.claude_code_paths import sanitized

from . import oracle
from .conftest import botmemory, botmemory_json, track
from .fake_model import FakeModel

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(900)]
BOT = "scout"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")


def register(home: Path, root: Path, log: Path, bot: str | None = BOT) -> None:
    """The hooks, as ``botmemory connect claude-code`` writes them, with what each answered kept in *log*."""
    cmd = [sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(root), "hook", "claude-code",
           *(["--bot", bot] if bot else [])]
    line = f"{shlex.join(cmd)} | tee -a {shlex.quote(str(log))}"
    oracle.settings(home / ".claude" / "settings.json",
                    {"hooks": {e: [{"hooks": [{"type": "command", "command": line, "timeout": 60}]}] for e in EVENTS}})


def answered(log: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for raw in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        got = json.loads(raw)["hookSpecificOutput"]
        out.setdefault(got["hookEventName"], []).append(got["additionalContext"])
    return out


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(HOME, the project, its auto memory folder where Claude Code keeps it), and a botmemory home with a bot."""
    home, cwd = tmp_path / "home", tmp_path / "work" / "app"
    cwd.mkdir(parents=True)
    folder = home / ".claude" / "projects" / sanitized(str(cwd)) / "memory"
    folder.mkdir(parents=True)
    botmemory_json(tmp_path / "bm", "init", BOT, env={"HOME": str(home)})
    return home, cwd, folder


def test_the_hooks_context_reaches_the_request_as_the_hook_answered_it(claude, tmp_path, project):
    home, cwd, folder = project
    (folder / "MEMORY.md").write_text("".join(f"- [Note {i}](note{i}.md) — note {i}\n" for i in range(230)))
    (folder / "billing.md").write_text("# Billing\n\nInvoices are reconciled by Milind every Monday.\n")
    log = tmp_path / "answers.jsonl"
    register(home, tmp_path / "bm", log)
    r = oracle.run(claude, home, cwd, prompt="Who reconciles the invoices on Monday?")
    assert r.code == 0, r.stderr
    ours = answered(log)
    assert ours["SessionStart"][0].startswith("30 of the 230 lines of ")
    assert "1. billing.md\nInvoices are reconciled by Milind every Monday." in ours["UserPromptSubmit"][0]
    assert r.contexts == {e: ours[e] for e in ("SessionStart", "UserPromptSubmit")}    # verbatim
    assert r.memory is not None and "> WARNING: MEMORY.md is 230 lines (limit: 200)" in r.memory


def test_the_first_turn_of_a_session_is_queued_for_capture(claude, tmp_path, project):
    """``claude -p`` is one turn, the session's first: its transcript does not exist at the prompt."""
    from botmemory.core.disk.paths import Home
    from botmemory.core.upkeep.capture_queue import read_pending, read_turn

    home, cwd, _folder = project
    register(home, tmp_path / "bm", tmp_path / "answers.jsonl")
    r = oracle.run(claude, home, cwd, prompt="I am vegetarian, remember that")
    assert r.code == 0, r.stderr
    (chat,) = read_pending(Home(tmp_path / "bm"))
    assert chat["bot"] == BOT and chat["chat"].startswith("Claude Code ")
    (turn,) = chat["turns"]
    assert turn["start"] == 0 and Path(turn["transcript"]).name.startswith(chat["chat"][len("Claude Code "):])
    msgs, _ = read_turn(turn["transcript"], turn["start"], turn["end"])
    assert ("person", "I am vegetarian, remember that") in [(m.role, m.text) for m in msgs]
    assert ("bot", "Hello from the fake model.") in [(m.role, m.text) for m in msgs]


def test_two_sessions_at_once_are_each_credited_with_their_own_change(claude, tmp_path, project):
    """Session A writes a.md and is still working when session B writes b.md and stops: B's Stop records b.md
    only, as B's work; A's Stop records a.md as A's."""
    home, cwd, folder = project
    (folder / "MEMORY.md").write_text("- [Billing](billing.md)\n")
    env = {"HOME": str(home)}
    bot = track(tmp_path / "bm", folder, env)
    register(home, tmp_path / "bm", tmp_path / "answers.jsonl", bot=None)
    b_done = threading.Event()
    fake_a = FakeModel([{"tool": "Write", "input": {"file_path": str(folder / "a.md"), "content": "# A\n\nFrom A.\n"}},
                        {"text": "A is done."}], hold={1: b_done})
    fake_b = FakeModel([{"tool": "Write", "input": {"file_path": str(folder / "b.md"), "content": "# B\n\nFrom B.\n"}},
                        {"text": "B is done."}])
    runs: dict[str, oracle.Run] = {}
    a = threading.Thread(target=lambda: runs.setdefault("a", oracle.run(claude, home, cwd, prompt="write a",
                                                                        fake=fake_a)))
    a.start()
    try:
        assert fake_a.asked[1].wait(300), "session A never wrote a.md"     # A wrote a.md and waits
        runs["b"] = oracle.run(claude, home, cwd, prompt="write b", fake=fake_b)
    finally:
        b_done.set()
        a.join(600)
    assert runs["a"].code == 0 and runs["b"].code == 0, (runs["a"].stderr, runs["b"].stderr)
    assert (folder / "a.md").is_file() and (folder / "b.md").is_file()
    sessions = {}
    for t in (home / ".claude" / "projects" / sanitized(str(cwd))).glob("*.jsonl"):
        text = t.read_text()
        sessions["a.md" if "a.md" in text else "b.md"] = f"Claude Code {t.stem[:8]}"
    rows = botmemory_json(tmp_path / "bm", "journal", bot, env=env)
    assert isinstance(rows, list)
    assert sorted((r["file"], r["chat"]) for r in rows) == sorted(sessions.items())


def test_the_brief_of_the_projects_other_sessions_reaches_the_next_sessions_request(claude, tmp_path, project):
    """The README's way: ``connect claude-code --brief`` in the project (the hooks in its settings, the brief
    switched on). A first ``claude -p`` session ends with an answer holding a key; the second session's request
    carries, as its SessionStart hook's context, what the first said — redacted — named by the first's prompt."""
    from botmemory.core.brief.sessions import HEADER

    home, cwd, _folder = project
    env = {"HOME": str(home)}
    code, out = botmemory(tmp_path / "bm", "connect", "claude-code", "--brief", "--project", str(cwd), env=env)
    assert code == 0 and "the recent-work brief at the start of each session" in out
    key = "sk-proj-Zr4Kq9Lm2Xv8Tb3Nw6Hy1Pc5Df7Gj0Rs4Ue8Ia2Ok6Vl9Mz"
    first = oracle.run(claude, home, cwd, prompt="Fix the invoice export",
                       script=[{"text": f"Fixed the invoice export; staging uses the key {key} now."}])
    assert first.code == 0, first.stderr
    assert "SessionStart" not in first.contexts            # no other session yet: no brief, no empty block
    second = oracle.run(claude, home, cwd, prompt="What did we do lately?")
    assert second.code == 0, second.stderr
    (brief,) = second.contexts["SessionStart"]
    lines = brief.splitlines()
    assert lines[0] == HEADER and len(lines) == 2
    assert lines[1].startswith(("- today ", "- yesterday ")) and lines[1].endswith(   # (run at midnight)
        ' · session · "Fix the invoice export" · you said: "Fixed the invoice export; staging uses the key '
        f'«redacted {len(key)} chars» now."')
    assert key not in json.dumps(second.requests)
