"""A Claude Code project's sessions as conversations: the brief at a session's start (switched per project) and
session search over the project's own transcripts."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import pytest

from botmemory.core import ops
from botmemory.core.brief import sessions as brief_sessions
from botmemory.core.brief.recent import MAX_CHARS, MAX_LINES
from botmemory.core.faces.cli import main
from botmemory.core.faces.hooks import handle
from botmemory.core.kinds import claude_code_sessions as cs
from botmemory.core.kinds.claude_code_paths import sanitized

from ...conftest import TODAY as TODAY_TEXT
from .transcripts import Turn, transcript_dir, write_session

TODAY = date.fromisoformat(TODAY_TEXT)
CLI = [sys.executable, "-m", "botmemory.core.faces.cli"]


def at(day: int, hh: int, mm: int = 0) -> datetime:
    """A local time in October 2026 (the tests' today is the 15th)."""
    return datetime(2026, 10, day, hh, mm)


class Claude:
    """A Claude Code config dir with a git project (``work/app``, a subfolder ``web``) and another (``work/billing``)."""

    def __init__(self, tmp: Path) -> None:
        self.dir = tmp / "claude"
        self.app = tmp / "work" / "app"
        self.billing = tmp / "work" / "billing"
        for p in (self.app / ".git", self.app / "web", self.billing / ".git"):
            p.mkdir(parents=True)
        self.memory = self.dir / "projects" / sanitized(str(self.app)) / "memory"
        self.memory.mkdir(parents=True)

    def session(self, cwd: Path, *turns: Turn, session: str | None = None) -> Path:
        return write_session(self.dir, cwd, turns, session)


@pytest.fixture
def claude(tmp_path, monkeypatch) -> Claude:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    return Claude(tmp_path)


@pytest.fixture
def tracked(mem, claude) -> str:
    return ops.track(mem, None, path=str(claude.memory), agent="claude-code").id


def start_event(claude: Claude, session: str = "current-session", cwd: Path | None = None) -> str:
    return json.dumps({"session_id": session, "transcript_path": "/nonexistent.jsonl",
                       "cwd": str(cwd or claude.app), "hook_event_name": "SessionStart", "source": "startup"})


def context(answer: str) -> str:
    return json.loads(answer)["hookSpecificOutput"]["additionalContext"] if answer else ""


# ----- the brief


def test_each_other_session_of_the_project_once_newest_first_named_by_its_prompt(mem, claude, tracked):
    claude.session(claude.app, Turn("Fix the login test", "Asked about the timer.", at(14, 9)),
                   Turn("And the retry?", "The login test waited on a timer; it now polls.", at(15, 9, 5)),
                   session="aaaa1111-0000")
    claude.session(claude.app / "web", Turn("Style the navbar", "Navbar restyled in the dark theme.", at(14, 17, 40)),
                   session="bbbb2222-0000")                             # a subfolder: the same project
    claude.session(claude.app, Turn("Now", "This is the current session.", at(15, 10)), session="current-session")
    claude.session(claude.billing, Turn("Invoices", "Sent the invoices.", at(15, 8)))   # another project
    b = ops.brief(mem, tracked, "current-session")
    assert [(s.chat, s.session) for s in b.lines] == [("And the retry?", "aaaa1111-0000"),
                                                    ("Style the navbar", "bbbb2222-0000")]
    assert b.text.splitlines()[1] == ('- today 09:05 · session · "And the retry?" · you said: "The login test waited '
                                      'on a timer; it now polls."')
    assert "- yesterday 17:40 · session · \"Style the navbar\"" in b.text
    assert "current session" not in b.text and "invoices" not in b.text and "Asked about the timer" not in b.text
    assert ops.brief(mem, tracked, "Claude Code current").lines == b.lines     # the session's chat, as journaled


def test_a_linked_worktrees_sessions_are_the_projects_too(mem, claude, tracked, tmp_path):
    """A worktree of the project elsewhere shares its memory (Claude Code's rule), so its sessions count."""
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    repo = tmp_path / "repo"
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", str(tmp_path / "wt-feature")], check=True)
    memory = claude.dir / "projects" / sanitized(str(repo)) / "memory"
    memory.mkdir(parents=True)
    claude.session(repo, Turn("Main", "Main checkout work.", at(15, 9)))
    claude.session(tmp_path / "wt-feature", Turn("Feature", "Feature branch work.", at(15, 10)))
    got = brief_sessions.session_brief(memory, TODAY, tmp_path / "user", os.environ, cwd=str(repo))
    assert [s.chat for s in got.lines] == ["Feature", "Main"]
    assert [s.chat for s in brief_sessions.session_brief(memory, TODAY, tmp_path / "user", os.environ).lines] == \
        ["Feature", "Main"]                                  # without a cwd: found from the transcripts


def test_a_project_whose_name_begins_like_this_ones_is_another_project(mem, claude, tracked, tmp_path):
    (tmp_path / "work" / "app-v2" / ".git").mkdir(parents=True)             # -work-app-v2 begins with -work-app
    claude.session(tmp_path / "work" / "app-v2", Turn("v2", "Version two work.", at(15, 9)))
    claude.session(claude.app, Turn("v1", "Version one work.", at(15, 8)))
    assert [s.chat for s in ops.brief(mem, tracked).lines] == ["v1"]


def test_other_projects_only_with_their_switch_and_then_named_by_project(mem, claude, tracked):
    claude.session(claude.app, Turn("Here", "Work here.", at(15, 9)))
    claude.session(claude.billing, Turn("Invoices", "Sent the invoices.", at(15, 8)))
    assert [s.project for s in ops.brief(mem, tracked).lines] == [""]
    ops.set_brief_switch(mem.home, claude.app, across=True)
    b = ops.brief(mem, tracked)
    assert [(s.chat, s.project) for s in b.lines] == [("Here", ""), ("Invoices", "billing")]
    assert '· session in billing · "Invoices" · you said: "Sent the invoices."' in b.text
    assert b.as_dict()["lines"][1]["project"] == "billing" and "project" not in b.as_dict()["lines"][0]


def test_yesterday_counts_the_day_before_does_not_and_today_decides(mem, claude, tracked):
    claude.session(claude.app, Turn("Old", "Filed the old report.", at(13, 23, 59)))
    claude.session(claude.app, Turn("Recent", "Booked the venue.", at(14, 0, 1)))
    assert [s.chat for s in ops.brief(mem, tracked).lines] == ["Recent"]
    older = ops.Memory.open(str(mem.home.root), "2026-10-14")
    assert [s.chat for s in ops.brief(older, tracked).lines] == ["Recent", "Old"]


def test_a_session_whose_newest_answer_is_after_today_gives_its_answer_before(mem, claude, tracked):
    """--today in the past: the newest answer of the window, not the transcript's last."""
    claude.session(claude.app, Turn("First", "Answer on the 14th.", at(14, 9)), Turn("Later", "Answer on the 20th.",
                                                                                   at(20, 9)))
    older = ops.Memory.open(str(mem.home.root), "2026-10-15")
    assert [s.said for s in ops.brief(older, tracked).lines] == ["Answer on the 14th."]


def test_at_most_ten_lines_and_about_350_tokens(mem, claude, tracked):
    for i in range(14):
        claude.session(claude.app, Turn(f"Task {i}", "A long answer about the quarterly plan and its parts. " * 8,
                                        at(15, 8, i)))
    b = ops.brief(mem, tracked)
    assert 0 < len(b.lines) <= MAX_LINES and len(b.text) <= MAX_CHARS
    assert b.lines[0].chat == "Task 13"


def test_only_the_end_of_a_transcript_is_read(claude, monkeypatch):
    """An answer followed by more than TAIL_MAX of tool output is not looked for; the bytes read stay within it."""
    path = claude.session(claude.app, Turn("Build it", "Built.", at(15, 9), after="y" * (cs.TAIL_MAX + 100_000)))
    real = os.pread
    read = []
    monkeypatch.setattr(cs.os, "pread", lambda fd, n, pos: read.append(n) or real(fd, n, pos))
    start, end = brief_sessions.window(TODAY)
    assert cs.newest(path, start, end) is None
    assert sum(read) <= cs.TAIL_MAX + cs.TAIL_CHUNK < path.stat().st_size
    monkeypatch.setattr(cs, "TAIL_MAX", 16 * 1024 * 1024)
    assert cs.newest(path, start, end).said.text == "Built."               # it was there, past the limit


def test_a_huge_tool_output_before_the_answer_is_skipped_not_gathered(claude, monkeypatch):
    path = claude.session(claude.app, Turn("Run the tests", "All 412 tests pass.", at(15, 9),
                                           tool_output="z" * (2 * cs.MAX_LINE)))
    start, end = brief_sessions.window(TODAY)
    got = cs.newest(path, start, end)
    assert got.said.text == "All 412 tests pass." and got.asked == "Run the tests"


def test_tool_output_meta_lines_and_tool_calls_are_not_what_claude_said(claude):
    d = transcript_dir(claude.dir, claude.app)
    stamp = "2026-10-15T07:00:00.000Z"
    rows = [
        {"type": "assistant", "timestamp": stamp, "cwd": str(claude.app), "sessionId": "s",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "The real answer."}]}},
        {"type": "assistant", "timestamp": stamp, "sessionId": "s", "isSidechain": True,
         "message": {"role": "assistant", "content": [{"type": "text", "text": "A subagent's words."}]}},
        {"type": "assistant", "timestamp": stamp, "sessionId": "s",
         "message": {"role": "assistant", "content": [{"type": "tool_use", "name": "Bash", "input": {}}]}},
        {"type": "user", "timestamp": stamp, "sessionId": "s", "isMeta": True, "message": {"content": "Caveat"}},
        {"type": "user", "timestamp": stamp, "sessionId": "s", "toolUseResult": {"stdout": "out"},
         "message": {"content": [{"type": "tool_result", "content": "tool said this"}]}},
    ]
    (d / "s.jsonl").write_text("\n".join(json.dumps(r, separators=(",", ":")) for r in rows) + "\n{torn")
    start, end = brief_sessions.window(TODAY)
    assert cs.newest(d / "s.jsonl", start, end).said.text == "The real answer."
    assert [m.text for m in cs.messages(d / "s.jsonl")] == ["The real answer."]


def test_a_transcript_that_is_a_link_is_not_read(mem, claude, tracked, tmp_path):
    real = claude.session(tmp_path / "elsewhere", Turn("Secret project", "Not this project's.", at(15, 9)))
    (transcript_dir(claude.dir, claude.app) / "linked.jsonl").symlink_to(real)
    claude.session(claude.app, Turn("Here", "This project's.", at(15, 8)))
    assert [s.chat for s in ops.brief(mem, tracked).lines] == ["Here"]


def test_memory_off_or_another_kind_gives_no_brief(mem, claude, tracked):
    claude.session(claude.app, Turn("Here", "Work here.", at(15, 9)))
    assert ops.brief(mem, tracked).lines
    ops.settings(mem, tracked, "memory", "off")
    assert ops.brief(mem, tracked).lines == []


# ----- the switch and the hook


def test_the_session_start_hook_tells_the_brief_only_when_the_project_switched_it_on(mem, claude):
    claude.session(claude.app, Turn("Fix the login test", "The login test now polls.", at(15, 9)))
    assert handle(mem, start_event(claude)) == ""                               # off by default
    ops.set_brief_switch(mem.home, claude.app / "web", brief=True)               # any folder of the project
    text = context(handle(mem, start_event(claude)))
    assert text.startswith(brief_sessions.HEADER) and '"Fix the login test" · you said: "The login test now polls."' \
        in text
    assert context(handle(mem, start_event(claude, cwd=claude.billing))) == ""    # another project: its own switch
    ops.set_brief_switch(mem.home, claude.app, brief=False)
    assert handle(mem, start_event(claude)) == ""


def test_the_hook_leaves_out_its_own_session_and_adds_the_brief_after_the_memory_note(mem, claude, tracked):
    (claude.memory / "MEMORY.md").write_text("".join(f"- [Note {i}](n{i}.md)\n" for i in range(230)))
    claude.session(claude.app, Turn("Mine", "My own earlier answer.", at(15, 8)), session="current-session")
    claude.session(claude.app, Turn("Theirs", "Another session's answer.", at(15, 9)))
    ops.set_brief_switch(mem.home, claude.app, brief=True)
    text = context(handle(mem, start_event(claude, session="current-session")))
    note, brief = text.split("\n\n")
    assert note.startswith("30 of the 230 lines") and brief.startswith(brief_sessions.HEADER)
    assert "Another session's answer." in brief and "My own earlier answer." not in brief
    ops.settings(mem, tracked, "memory", "off")
    assert "Another session's answer." not in context(handle(mem, start_event(claude, session="current-session")))


def test_the_hook_through_the_cli_reads_the_switch_from_the_home(mem, claude):
    claude.session(claude.app, Turn("Fix it", "Fixed the flaky test.", at(15, 9)))
    ops.set_brief_switch(mem.home, claude.app, brief=True)
    r = subprocess.run([*CLI, "--root", str(mem.home.root), "--today", TODAY_TEXT, "hook", "claude-code"],
                       input=start_event(claude), capture_output=True, text=True, env=os.environ, check=True)
    assert "Fixed the flaky test." in context(r.stdout)


def test_connect_brief_switches_the_project_and_connects_the_hooks(mem, claude, capsys, monkeypatch):
    monkeypatch.chdir(claude.app / "web")
    root = ["--root", str(mem.home.root), "--today", TODAY_TEXT]
    assert main([*root, "connect", "claude-code", "--brief", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["brief"] == {"folder": str(claude.memory), "project": str(claude.app), "brief": True, "across": False}
    assert out["changed"] == [str(claude.dir / "settings.json")]
    assert ops.brief_switch(mem.home, claude.app).brief
    assert main([*root, "connect", "claude-code", "--across-projects"]) == 0
    assert "on, with other projects' sessions too" in capsys.readouterr().out
    assert main([*root, "connect", "claude-code", "--no-brief", "--project", str(claude.billing)]) == 0
    capsys.readouterr()
    assert ops.brief_switch(mem.home, claude.app).brief and not ops.brief_switch(mem.home, claude.billing).brief
    assert main([*root, "connect", "claude-code", "--no-brief"]) == 0
    assert not ops.brief_switch(mem.home, claude.app).brief
    assert [s.project for s in ops.brief_projects(mem.home) if s.across] == [str(claude.app)]


@pytest.mark.parametrize("args", [["cursor", "--bot", "scout", "--brief"], ["claude-code", "--remove", "--brief"]])
def test_connect_brief_refuses_what_it_cannot_do_and_writes_nothing(mem, claude, capsys, args):
    assert main(["--root", str(mem.home.root), "connect", *args]) == 2
    assert "--brief" in capsys.readouterr().err
    assert not (claude.dir / "settings.json").exists() and ops.brief_projects(mem.home)[0].brief is False


def test_connect_brief_where_auto_memory_is_off_says_so_and_writes_nothing(mem, claude, capsys, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    assert main(["--root", str(mem.home.root), "connect", "claude-code", "--brief", "--project",
                 str(claude.app)]) == 2
    assert "auto memory is off" in capsys.readouterr().err
    assert not (claude.dir / "settings.json").exists()


def test_brief_projects_lists_each_claude_code_project(mem, claude):
    claude.session(claude.app, Turn("Here", "Work here.", at(15, 9)))
    got = ops.brief_projects(mem.home)
    assert [(s.folder, s.project, s.brief) for s in got] == [(str(claude.memory), str(claude.app), False)]


# ----- session search


def test_search_since_yesterday_without_words_covers_the_projects_sessions(mem, claude, tracked, capsys):
    claude.session(claude.app, Turn("Fix the login test", "The login test now polls.", at(15, 9, 5),
                                    tool_output="login test output from the tool"), session="aaaa1111-0000")
    claude.session(claude.app, Turn("Old question", "Old answer.", at(12, 9)))
    claude.session(claude.billing, Turn("Invoices", "Sent the invoices.", at(15, 8)))
    assert main(["--root", str(mem.home.root), "--today", TODAY_TEXT, "search", tracked, "--since", "yesterday",
                 "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [(h["file"], h["who"], h["text"]) for h in hits] == [
        ("session:aaaa1111-0000", "person", "Fix the login test"),
        ("session:aaaa1111-0000", "claude", "The login test now polls.")]
    assert hits[0]["session"] == "aaaa1111-0000" and hits[0]["at"] == "2026-10-15T09:05"
    assert hits[0]["date"] == "2026-10-15"


def test_search_words_match_messages_never_tool_output(mem, claude, tracked, capsys):
    (claude.memory / "MEMORY.md").write_text("- The polling interval is 5 seconds.\n")
    claude.session(claude.app, Turn("Fix the login test", "The login test now polls every 5 seconds.", at(15, 9, 5),
                                    tool_output="polling output: kangaroo"), session="aaaa1111-0000")
    r = ops.search(mem, tracked, ["polls"])
    assert [h.file for h in r.hits] == ["session:aaaa1111-0000"]
    assert ops.search(mem, tracked, ["kangaroo"]).hits == []
    assert main(["--root", str(mem.home.root), "--today", TODAY_TEXT, "search", tracked, "login", "polls"]) == 0
    assert capsys.readouterr().out == ("session:aaaa1111-0000 · 2026-10-15 09:05 · claude: The login test now polls "
                                       "every 5 seconds.\n")


def test_search_until_and_a_transcript_older_than_since_is_not_opened(mem, claude, tracked, monkeypatch):
    claude.session(claude.app, Turn("Monday plan", "The plan for Monday.", at(12, 9)))
    claude.session(claude.app, Turn("Today plan", "The plan for today.", at(15, 9)))
    assert {h.text for h in ops.search(mem, tracked, ["plan"], until="2026-10-13").hits} == {
        "Monday plan", "The plan for Monday."}
    opened = []
    real = cs.messages
    monkeypatch.setattr("botmemory.core.recall.sessions.messages", lambda p, k=None: opened.append(p) or real(p, k))
    assert {h.text for h in ops.search(mem, tracked, ["plan"], since="today").hits} == {"Today plan",
                                                                                         "The plan for today."}
    assert len(opened) == 1


def test_search_over_sessions_through_the_fast_entry_and_mcp(mem, claude, tracked):
    from ..faces.test_mcp_server import calls

    claude.session(claude.app, Turn("Deploy", "Deployed to staging.", at(15, 9)))
    r = subprocess.run([sys.executable, "-m", "botmemory.core.faces.entry", "--root", str(mem.home.root), "--today",
                        TODAY_TEXT, "search", tracked, "staging", "--json"], capture_output=True, text=True,
                       env=os.environ, check=True)
    assert [h["text"] for h in json.loads(r.stdout)] == ["Deployed to staging."]
    err, text = calls(mem, ("session_search", {"since": "24h"}), bot=tracked)[0]
    assert not err and {(h["who"], h["text"]) for h in json.loads(text)} == {
        ("person", "Deploy"), ("claude", "Deployed to staging.")}


def test_memory_off_finds_nothing_in_sessions_either(mem, claude, tracked):
    claude.session(claude.app, Turn("Deploy", "Deployed to staging.", at(15, 9)))
    ops.settings(mem, tracked, "memory", "off")
    assert ops.search(mem, tracked, ["staging"]).hits == []


def test_a_long_message_is_shown_around_the_word(mem, claude, tracked):
    long = "filler words here " * 60 + "the kangaroo budget was approved " + "more filler " * 60
    claude.session(claude.app, Turn("Budget", long, at(15, 9)))
    (hit,) = ops.search(mem, tracked, ["kangaroo"]).hits
    assert "kangaroo budget" in hit.text and len(hit.text) <= 400 and hit.text.startswith("…")


def test_memory_load_from_claude_code_ends_with_the_brief_without_its_own_session(mem, claude, tracked, monkeypatch):
    from ..faces.test_mcp_server import calls

    claude.session(claude.app, Turn("Mine", "My own answer.", at(15, 8)), session="mine0001-0000")
    claude.session(claude.app, Turn("Theirs", "Their answer.", at(15, 9)), session="them0002-0000")
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "mine0001-0000")
    err, text = calls(mem, ("memory_load", {}), client="claude-code", bot=tracked)[0]
    assert not err and "Their answer." in text and "My own answer." not in text
