"""Tracked agent folders through the CLI: found, tracked, gauged, loaded, journaled, undone, forgotten.

Every folder is built from its agent's documented layout under a fake HOME.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from botmemory.core.faces.cli import main
from tests.core.agent_fixtures import claude_code, hermes, openclaw


class Cli:
    def __init__(self, root: Path, capsys, monkeypatch) -> None:
        self.root, self.capsys, self.monkeypatch = root, capsys, monkeypatch

    def __call__(self, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            import io
            import sys
            self.monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
        code = main(["--root", str(self.root), *args])
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *args: str, stdin: str | None = None):
        code, out, err = self(*args, "--json", stdin=stdin)
        assert code == 0, err
        return json.loads(out)


@pytest.fixture
def cli(env, capsys, monkeypatch):
    return Cli(env / "bm", capsys, monkeypatch)


def track_all(cli: Cli) -> dict[str, str]:
    ids = {}
    for a in cli.json("agents"):
        assert cli("track", a["id"])[0] == 0
        ids[a["agent"]] = a["id"]
    return ids


def files_of(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def test_found_folders_get_stable_unique_ids_and_track_untrack(cli, env):
    claude_code(env / "user")
    openclaw(env / "user")
    hermes(env / "user")
    found = cli.json("agents")
    assert {(a["agent"], a["tracked"]) for a in found} == {("claude-code", False), ("openclaw", False),
                                                          ("hermes", False)}
    assert all(a["id"] == a["id"].lower() and len(a["id"]) <= 64 for a in found)
    assert len({a["id"] for a in found}) == 3
    assert cli.json("agents") == found                           # stable
    cc = next(a for a in found if a["agent"] == "claude-code")
    assert cc["name"] == "/src/blog"                             # the transcript's cwd
    assert cli("track", cc["id"])[0] == 0
    assert cli("track", cc["id"])[0] == 0                        # idempotent
    assert cc["id"] in cli("bots")[1].split()
    assert [a["tracked"] for a in cli.json("agents") if a["id"] == cc["id"]] == [True]
    assert (env / "bm" / "botmemory" / "tracked.json").is_file()
    assert cli("untrack", cc["id"])[0] == 0
    assert cc["id"] not in cli("bots")[1].split()
    code, _, err = cli("untrack", cc["id"])
    assert code == 2 and err.count("\n") == 1


def test_track_by_path_and_kind(cli, env):
    d = env / "elsewhere" / "mem"
    d.mkdir(parents=True)
    (d / "MEMORY.md").write_text("- a\n")
    t = cli.json("track", "--path", str(d), "--agent", "claude-code")
    assert t["agent"] == "claude-code" and Path(t["path"]) == d
    assert cli.json("gauge", t["id"])["lines"] == 1
    for bad in (("track", "--path", str(d)), ("track", "--path", str(env / "nope"), "--agent", "hermes"),
                ("track", "--path", str(d), "--agent", "codex"), ("track", "nosuchid")):
        code, _, err = cli(*bad)
        assert code == 2 and err.startswith("botmemory: ") and err.count("\n") == 1, bad


def test_a_project_without_transcripts_is_named_after_its_folder(cli, env):
    claude_code(env / "user", cwd=None)
    assert cli.json("agents")[0]["name"] == "-src-blog"


def test_claude_code_gauge_load_journal_undo_forget(cli, env):
    d = claude_code(env / "user", index_lines=205)
    before = files_of(d)
    bot = track_all(cli)["claude-code"]
    g = cli.json("gauge", bot)
    assert (g["agent"], g["lines"], g["max_lines"], g["max_bytes"], g["unloaded_lines"], g["level"]) == \
        ("claude-code", 205, 200, 25000, 5, "red")
    loaded = cli.json("load", bot)["text"]
    assert loaded.startswith("- [User role](user_role.md)") and "note 197" in loaded
    assert '\n- [Note 197](note_197.md) — note 197\n\n> WARNING: MEMORY.md is 205 lines (limit: 200). Only part of ' \
           'it was loaded: 5 of 205 lines were cut off, starting at line 201 ("- [Note 198](note_198.md) — note ' \
           '198").' in loaded                                  # Claude Code's own warning, as it sends it
    assert "modified:" not in loaded and "<!--" not in loaded

    assert cli.json("watch", "--once") == []                        # the first look takes the baseline
    text = (d / "MEMORY.md").read_text()
    (d / "MEMORY.md").write_text(text + "- [Deploy](deploy.md) — friday freeze\n")
    rows = cli.json("watch", "--once")
    assert [(r["bot"], r["who"], r["how"], r["file"]) for r in rows] == [(bot, "unknown", "outside", "MEMORY.md")]
    assert cli.json("undo", bot, rows[0]["id"])["changed"] is True
    assert (d / "MEMORY.md").read_text() == text

    r = cli.json("forget", bot, "terse")
    assert "user_role.md" in r["files"] and not (d / "user_role.md").exists()
    assert "[User role]" not in (d / "MEMORY.md").read_text()            # its index line went with it
    assert (d / "MEMORY.md").read_text().startswith("---\nname: index\nmodified: 2026-11-30T10:00:00Z\n---\n")
    journal = cli.json("journal", bot)
    topic_row = next(r for r in journal if r["file"] == "user_role.md")
    assert cli.json("undo", bot, topic_row["id"])["changed"] is True
    assert "modified: 2026-11-30T10:00:00Z" in (d / "user_role.md").read_text()   # the stamp came back as it was
    assert files_of(d) == before                                   # nothing of botmemory's in the folder


def test_claude_code_save_is_hash_checked_and_keeps_the_modified_stamp(cli, env):
    d = claude_code(env / "user")
    bot = track_all(cli)["claude-code"]
    shown = cli.json("show", bot, "user_role.md")
    new = shown["text"].replace("terse", "short")
    # the agent writes meanwhile
    agent_text = shown["text"].replace("modified: 2026-11-30T10:00:00Z", "modified: 2026-12-01T09:00:00Z")
    (d / "user_role.md").write_text(agent_text)
    code, out, err = cli("save", bot, "user_role.md", "--expected-hash", shown["hash"], stdin=new)
    assert code == 3 and out == agent_text and (d / "user_role.md").read_text() == agent_text   # nothing lost
    fresh = cli.json("show", bot, "user_role.md")
    assert cli("save", bot, "user_role.md", "--expected-hash", fresh["hash"],
               stdin=fresh["text"].replace("terse", "short"))[0] == 0
    assert (d / "user_role.md").read_text() == agent_text.replace("terse", "short")
    assert cli("rm", bot, "user_role.md")[0] == 0 and not (d / "user_role.md").exists()
    code, _, err = cli("rm", bot, "MEMORY.md")
    assert code == 4


@pytest.mark.parametrize("command", [("remember", "x"), ("prefer", "x"), ("tidy",), ("init",), ("capture",),
                                     ("organize",)])
def test_commands_for_a_memory_the_agent_writes_itself_exit_4_with_the_reason(cli, env, command):
    hermes(env / "user")
    bot = track_all(cli)["hermes"]
    args = [command[0], bot, *command[1:]]
    code, _, err = cli(*args)
    assert code == 4 and "Hermes writes its own memory" in err and err.count("\n") == 1


def test_hermes_gauge_load_journal_undo_forget(cli, env):
    d = hermes(env / "user", memory_limit=80)
    bot = track_all(cli)["hermes"]
    g = cli.json("gauge", bot)
    assert (g["agent"], g["max_chars"], g["max_lines"], g["unloaded_chars"]) == ("hermes", 80, None, 0)
    assert g["chars"] == len("User prefers tea\n§\nProject uses postgres 16\n§\nDeploys happen on Tuesdays")
    assert g["level"] == "amber" and [f["file"] for f in g["files"]] == ["MEMORY.md", "USER.md"]
    loaded = cli.json("load", bot)["text"]
    assert "Project uses postgres 16" in loaded and "Lives in Lisbon" in loaded

    cli.json("watch", "--once")
    (d / "USER.md").write_text("Name is Sam\n")
    rows = cli.json("watch", "--once")
    assert [(r["who"], r["file"]) for r in rows] == [("unknown", "USER.md")]
    cli.json("undo", bot, rows[0]["id"])
    assert (d / "USER.md").read_text() == "Name is Sam\n§\nLives in Lisbon\n"

    r = cli.json("forget", bot, "postgres")
    assert r["removed"] == ["Project uses postgres 16"] and r["files"] == ["MEMORY.md"]
    assert (d / "MEMORY.md").read_text() == "User prefers tea\n§\nDeploys happen on Tuesdays\n"
    cli.json("undo", bot, r["rows"][0])
    assert "postgres" in (d / "MEMORY.md").read_text()


def test_openclaw_gauge_load_shows_the_lost_middle(cli, env):
    d = openclaw(env / "user", lines=100, max_chars=1000)
    bot = track_all(cli)["openclaw"]
    g = cli.json("gauge", bot)
    assert (g["agent"], g["max_chars"], g["level"]) == ("openclaw", 1000, "red")
    # OpenClaw subtracts its marker first: the text it injects is never longer than the limit
    assert g["chars"] - 1000 < g["unloaded_chars"] < g["chars"] - 800
    assert g["lost_lines"][0] > 1 and g["lost_lines"][-1] < 100 and g["rules_version"] == "openclaw 2026.9.6"
    text = cli.json("load", bot)["text"]
    assert text.startswith("- line 000") and "line 099" in text and "line 050" not in text
    cli.json("watch", "--once")
    with open(d / "memory" / "2026-11-30.md", "a") as f:
        f.write("- pruned the roses\n")
    rows = cli.json("watch", "--once")
    assert [(r["who"], r["file"]) for r in rows] == [("unknown", "memory/2026-11-30.md")]
    r = cli.json("forget", bot, "roses")
    assert r["files"] == ["memory/2026-11-30.md"] and "roses" not in (d / "memory" / "2026-11-30.md").read_text()


def test_forget_all_takes_the_words_out_of_every_tracked_folder_one_row_per_file(cli, env):
    claude_code(env / "user")
    hermes(env / "user", entries=["User likes hugo themes", "Other"])
    openclaw(env / "user")
    ids = track_all(cli)
    got = cli.json("forget", "--all", "hugo")
    assert {r["bot"] for r in got} == {ids["claude-code"], ids["hermes"]}
    rows = [row for r in got for row in r["rows"]]
    assert len(rows) == sum(len(r["files"]) for r in got)
    for r in got:
        for row in r["rows"]:
            assert cli("undo", r["bot"], row)[0] == 0


def test_a_credential_is_reported_and_redacted_only_when_asked(cli, env):
    d = claude_code(env / "user")
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (d / "project_blog.md").write_text(f"Deploy token {secret}\n")
    bot = track_all(cli)["claude-code"]
    code, out, err = cli("show", bot, "project_blog.md", "--json")
    assert code == 0 and json.loads(out)["secrets"] and "redact" in err
    assert cli.json("gauge", bot)["secrets"] == {"project_blog.md": json.loads(out)["secrets"]}
    assert secret in (d / "project_blog.md").read_text()          # never silently rewritten
    r = cli.json("redact", bot, "project_blog.md")
    assert r["changed"] and secret not in (d / "project_blog.md").read_text()
    for p in (env / "bm").rglob("*"):
        if p.is_file():
            assert secret.encode() not in p.read_bytes(), p


def test_bad_inputs_are_one_line_and_change_nothing(cli, env):
    d = claude_code(env / "user")
    bot = track_all(cli)["claude-code"]
    (d / "MEMORY.md").write_bytes(b"- caf\xe9\n")                     # not UTF-8: Claude Code reads it as
    assert cli.json("load", bot)["text"] == "- caf\ufffd"              # U+FFFD, and so does the gauge
    code, _, err = cli("save", bot, "MEMORY.md", stdin="x\n")
    assert code == 2 and "UTF-8" in err and err.count("\n") == 1
    (d / "big.md").write_bytes(b"x" * (50 * 1024 * 1024))            # a 50 MB topic
    code, _, err = cli("show", bot, "big.md")
    assert code == 2 and "MB" in err
    (d / "big.md").unlink()
    os.symlink(env / "user" / "secret.txt", d / "link.md")          # a link in the agent's tree
    (env / "user" / "secret.txt").write_text("outside\n")
    code, _, err = cli("show", bot, "link.md")
    assert code in (2, 4) and "link" in err and err.count("\n") == 1    # refused: never read through a link
    code, _, err = cli("save", bot, "link.md", stdin="x\n")
    assert code in (2, 4) and (env / "user" / "secret.txt").read_text() == "outside\n"
    code, _, err = cli("save", bot, "../escape.md", stdin="x\n")
    assert code == 2 and not (d.parent / "escape.md").exists()


def test_a_folder_removed_while_tracked_says_so(cli, env):
    import shutil

    d = claude_code(env / "user")
    bot = track_all(cli)["claude-code"]
    shutil.rmtree(d)
    for args in (("gauge", bot), ("load", bot), ("show", bot, "MEMORY.md"), ("journal", bot)):
        code, _, err = cli(*args)
        assert code == 2 and "untrack" in err and err.count("\n") == 1, args
    assert cli("watch", "--once")[0] == 0
    code, _, err = cli("save", bot, "user_role.md", stdin="x\n")
    assert code == 2 and "untrack" in err and not d.exists()        # a save never recreates the folder
    assert [a["tracked"] for a in cli.json("agents") if a["id"] == bot] == [True]
    assert cli("untrack", bot)[0] == 0


def test_malformed_agent_settings_fall_back_to_the_defaults_and_say_which_file(cli, env):
    hermes(env / "user")
    (env / "user" / ".hermes" / "config.yaml").write_text("memory: {memory_char_limit: [\n")
    bot = track_all(cli)["hermes"]
    g = cli.json("gauge", bot)
    assert g["max_chars"] == 2200 and "config.yaml" in g["unread"][0]
    (env / "user" / ".claude").mkdir()
    (env / "user" / ".claude" / "settings.json").write_text("{oops")
    code, out, err = cli("agents", "--json")
    assert code == 0 and "settings.json" in err


def test_an_unreadable_agent_folder_is_skipped_not_fatal(cli, env):
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    d = claude_code(env / "user")
    bot = track_all(cli)["claude-code"]
    d.chmod(0)
    try:
        assert cli("watch", "--once")[0] == 0
        assert cli("gauge", bot)[0] in (0, 2)
    finally:
        d.chmod(0o755)


def test_recall_and_search_reach_claude_code_topics(cli, env):
    claude_code(env / "user")
    bot = track_all(cli)["claude-code"]
    r = cli.json("recall", bot, "how is the hugo blog deployed?")
    assert [n["file"] for n in r["notes"]] == ["project_blog.md"] and "deployed by CI" in r["text"]
    assert cli.json("recall", bot, "nothing related at all here")["notes"] == []
    hits = cli.json("search", bot, "terse")
    assert {h["file"] for h in hits} == {"MEMORY.md", "user_role.md"}


def test_a_change_inside_a_turn_is_the_agents_and_no_log_is_written_into_its_folder(cli, env):
    d = hermes(env / "user")
    bot = track_all(cli)["hermes"]
    before = files_of(d)
    turn = cli.json("turn", "begin", bot, "--chat", "session-1")["turn"]
    with open(d / "MEMORY.md", "a") as f:
        f.write("§\nLikes green tea\n")
    assert cli("turn", "end", bot, turn, "--said", "noted")[0] == 0
    row = cli.json("journal", bot, "--limit", "1")[0]
    assert (row["who"], row["how"], row["chat"]) == ("bot", "task", "session-1")
    assert files_of(d) == before


def test_the_plain_gauge_names_the_lines_that_do_not_load(cli, env):
    openclaw(env / "user", lines=100, max_chars=1000)
    bot = track_all(cli)["openclaw"]
    code, out, _ = cli("gauge", bot)
    assert code == 0 and "not loaded: lines 19-94" in out and "red" in out   # 37-character lines: head 664, tail 221


def test_openclaws_limit_is_its_own_setting_for_the_agent_of_the_workspace(cli, env):
    openclaw(env / "user", lines=100)                      # no openclaw.json: OpenClaw's default applies
    bot = track_all(cli)["openclaw"]
    assert cli.json("gauge", bot)["max_chars"] == 20_000
    (env / "user" / ".openclaw" / "openclaw.json").write_text(
        json.dumps({"agents": {"defaults": {"bootstrapMaxChars": 3000}, "entries": {"main": {"bootstrapMaxChars": 2500}}}}))
    assert cli.json("gauge", bot)["max_chars"] == 2500      # the agent's own entry wins over the defaults


def test_openclaws_gauge_counts_the_bootstrap_files_injected_before_memory(cli, env):
    ws = openclaw(env / "user", lines=100)                    # 100 lines of 37 characters: 3,699
    (ws / "AGENTS.md").write_text("a" * 18_000)
    (ws / "SOUL.md").write_text("s" * 40_000)               # cut to 20,000 and a marker
    bot = track_all(cli)["openclaw"]
    g = cli.json("gauge", bot)
    taken = sum(f["chars"] for f in g["shared"])
    ws_path = str(ws)
    assert [f["file"] for f in g["shared"]] == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "BOOTSTRAP.md"]
    assert dict((f["file"], f["chars"]) for f in g["shared"])["IDENTITY.md"] == len(f"[MISSING] Expected at: {ws_path}/IDENTITY.md")
    assert g["total_max_chars"] == 60_000
    assert g["max_chars"] == 20_000 and g["level"] != "red"      # 60,000 - 38,1xx leaves more than 20,000
    (env / "user" / ".openclaw" / "openclaw.json").write_text(
        json.dumps({"agents": {"defaults": {"bootstrapTotalMaxChars": 40_000}}}))
    g = cli.json("gauge", bot)
    taken = sum(f["chars"] for f in g["shared"])
    assert g["max_chars"] == 40_000 - taken < 3_699 and g["level"] == "red" and g["unloaded_chars"] > 0
    code, out, _ = cli("gauge", bot)
    parts = [f"{f['file']} ({f['chars']:,} characters)" for f in g["shared"]]
    assert parts[0] == "AGENTS.md (18,000 characters)"
    assert code == 0 and (f"note: {', '.join(parts[:-1])} and {parts[-1]} are loaded "
                          f"first and take {taken:,} of the 40,000-character total MEMORY.md shares with them") in out
    assert "line 099" in cli.json("load", bot)["text"]         # the tail still loads, the middle does not


def test_recall_of_a_tracked_folder_says_why_it_recalled_nothing(cli, env):
    """The panel's preview shows core's reason (it no longer repeats the rules for tracked folders)."""
    from botmemory.core import ops
    from botmemory.core.disk import config
    from botmemory.core.store.memory import Memory

    claude_code(env / "user")
    hermes(env / "user")
    ids = track_all(cli)
    mem = Memory.open(str(env / "bm"))
    cc, he = ids["claude-code"], ids["hermes"]
    assert ops.recall(mem, cc, "how is the hugo blog deployed?").why == ""
    assert ops.recall(mem, cc, "blog").why.startswith("Recall starts at")
    assert ops.recall(mem, cc, "nothing related at all here").why.startswith("No note matches")
    assert "keeps no topics" in ops.recall(mem, he, "where does Sam live these days?").why
    config.set_bot_setting(mem.home, cc, "memory", False)
    assert ops.recall(mem, cc, "how is the hugo blog deployed?").why.startswith("Memory is off")


def _snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file's bytes (lock files aside: taking a lock writes nothing)."""
    return {str(p): p.read_bytes() for d in folders for p in sorted(d.rglob("*"))
            if p.is_file() and p.suffix != ".lock"}


def test_forget_that_cannot_read_a_file_of_the_folder_exits_2_naming_it_and_writes_nothing(cli, env):
    d = claude_code(env / "user")
    bot = track_all(cli)["claude-code"]
    (d / "notes.md").write_bytes(b"- terse caf\xe9\n")                   # a topic that is not UTF-8
    before = _snapshot(d, env / "bm")
    code, out, err = cli("forget", bot, "terse")
    assert code == 2 and "notes.md" in err and "UTF-8" in err and err.count("\n") == 1
    assert _snapshot(d, env / "bm") == before                           # user_role.md (terse) is still there


def test_forget_all_checks_every_file_of_every_folder_before_writing_any(cli, env):
    claude_code(env / "user")
    h = hermes(env / "user", entries=["User likes hugo themes", "Other"])
    oc = openclaw(env / "user")
    ids = track_all(cli)
    (oc / "memory" / "2026-12-01.md").write_bytes(b"- hugo caf\xe9\n")
    before = _snapshot(h, oc, env / "user" / ".claude", env / "bm")
    code, out, err = cli("forget", "--all", "hugo")
    assert code == 2 and "memory/2026-12-01.md" in err and ids["openclaw"] in err and err.count("\n") == 1
    assert _snapshot(h, oc, env / "user" / ".claude", env / "bm") == before   # hermes and claude code untouched


def test_forget_all_says_so_when_a_tracked_folder_is_gone(cli, env):
    import shutil

    h = hermes(env / "user", entries=["User likes hugo themes", "Other"])
    oc = openclaw(env / "user")
    ids = track_all(cli)
    shutil.rmtree(oc)
    before = _snapshot(h, env / "bm")
    code, out, err = cli("forget", "--all", "hugo")
    assert code == 2 and ids["openclaw"] in err and err.count("\n") == 1
    assert _snapshot(h, env / "bm") == before


def test_forget_in_a_folder_with_a_linked_note_exits_4_naming_it(cli, env, tmp_path):
    """Exit 4 as every command that meets a link (rm, show, save): a rule refuses it."""
    oc = openclaw(env / "user")
    bot = track_all(cli)["openclaw"]
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- tomatoes from the linked note\n")
    (oc / "memory" / "linked.md").symlink_to(outside)
    before = _snapshot(oc, env / "bm")
    code, out, err = cli("forget", bot, "tomatoes")
    assert code == 4 and "memory/linked.md" in err and "symbolic link" in err and err.count("\n") == 1
    assert _snapshot(oc, env / "bm") == before and outside.read_text() == "- tomatoes from the linked note\n"


def test_forget_all_with_a_linked_note_in_one_folder_exits_4_naming_folder_and_file(cli, env, tmp_path):
    oc = openclaw(env / "user")
    bot = track_all(cli)["openclaw"]
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- tomatoes from the linked note\n")
    (oc / "memory" / "linked.md").symlink_to(outside)
    before = _snapshot(oc, env / "bm")
    code, out, err = cli("forget", "--all", "tomatoes")
    assert code == 4 and f"{bot}: " in err and "memory/linked.md" in err and err.count("\n") == 1, err
    assert _snapshot(oc, env / "bm") == before


def test_gauge_of_a_folder_with_one_line_that_does_not_load_says_so_in_the_singular(cli, env):
    claude_code(env / "user", index_lines=201)
    bot = track_all(cli)["claude-code"]
    code, out, err = cli("gauge", bot)
    assert code == 0 and "1 line does not load" in out and "1 lines" not in out


def test_forget_everywhere_dry_run_says_what_would_go_and_writes_nothing(cli, env):
    from botmemory.core import Actor, Memory, forget_everywhere

    d = hermes(env / "user", entries=["User lives at 12 Elm Street", "Project uses postgres 16"])
    bot = track_all(cli)["hermes"]
    assert cli("init", "scout")[0] == 0
    assert cli("remember", "scout", "Lives at 12 Elm Street")[0] == 0
    mem = Memory.open(str(env / "bm"))
    before = (d / "MEMORY.md").read_text(), mem.store.text("scout", "MEMORY.md")
    rows = len(mem.journal.list(bot)) + len(mem.journal.list("scout"))
    dry = forget_everywhere(mem, ["elm"], Actor.person(), dry_run=True, workspaces=True)
    assert [(r.bot, r.files, r.changes) for r in dry] == [(bot, ["MEMORY.md"], []), ("scout", ["MEMORY.md"], [])]
    assert ((d / "MEMORY.md").read_text(), mem.store.text("scout", "MEMORY.md")) == before
    assert len(mem.journal.list(bot)) + len(mem.journal.list("scout")) == rows
    assert [r.bot for r in forget_everywhere(mem, ["elm"], Actor.person(), dry_run=True)] == [bot]   # folders only
    done = forget_everywhere(mem, ["elm"], Actor.person(), workspaces=True)
    assert [(r.bot, r.files, r.removed) for r in done] == [(r.bot, r.files, r.removed) for r in dry]
    assert all(len(r.changes) == 1 for r in done) and "Elm" not in mem.store.text("scout", "MEMORY.md")


def test_forget_dry_run_on_the_cli_changes_nothing(cli, env):
    d = hermes(env / "user", entries=["User lives at 12 Elm Street", "Project uses postgres 16"])
    bot = track_all(cli)["hermes"]
    before = (d / "MEMORY.md").read_text()
    code, out, _ = cli("forget", "--all", "elm", "--dry-run")
    assert code == 0 and out.startswith("would forget 1 note") and bot in out
    assert cli.json("forget", bot, "elm", "--dry-run")["files"] == ["MEMORY.md"]
    assert (d / "MEMORY.md").read_text() == before and cli.json("journal", bot) == []


def test_hermes_forget_takes_an_entry_with_a_section_sign_inside_whole(cli, env):
    """Issue 22, item 1: Hermes separates entries by "\\n§\\n" only; a § inside an entry is text."""
    contract = "Contract: see §3 and §4.2 for the notice period"
    d = hermes(env / "user", entries=["User prefers tea", contract, "Deploys happen on Tuesdays"])
    bot = track_all(cli)["hermes"]
    r = cli.json("forget", bot, "notice", "period")
    assert r["removed"] == [contract]
    assert (d / "MEMORY.md").read_text() == "User prefers tea\n§\nDeploys happen on Tuesdays\n"


def test_the_first_change_after_track_is_journaled_and_undone(cli, env):
    """Issue 22, item 2: track takes the baseline, so the agent's first change is a row that can be undone."""
    d = hermes(env / "user")
    before = (d / "MEMORY.md").read_text()
    bot = track_all(cli)["hermes"]
    (d / "MEMORY.md").write_text(before + "§\nLikes green tea\n")
    rows = cli.json("watch", "--once")
    assert [(r["bot"], r["who"], r["file"]) for r in rows] == [(bot, "unknown", "MEMORY.md")]
    cli.json("undo", bot, rows[0]["id"])
    assert (d / "MEMORY.md").read_text() == before


def test_openclaw_daily_notes_with_any_script_are_journaled_searched_forgotten_and_loaded(cli, env):
    ws = openclaw(env / "user")
    note = ws / "memory" / "2026-12-02-会议记录.md"
    note.write_text("- 预算 approved for the kiln\n")
    bot = track_all(cli)["openclaw"]
    with open(note, "a", encoding="utf-8") as f:
        f.write("- moved the kiln to the shed\n")
    rows = cli.json("watch", "--once")
    assert [(r["file"], r["who"]) for r in rows] == [("memory/2026-12-02-会议记录.md", "unknown")]
    assert {h["file"] for h in cli.json("search", bot, "kiln")} == {"memory/2026-12-02-会议记录.md"}
    r = cli.json("forget", bot, "shed")
    assert r["files"] == ["memory/2026-12-02-会议记录.md"] and note.read_text() == "- 预算 approved for the kiln\n"
    text = cli.json("--today", "2026-12-02", "load", bot)["text"]    # a /new session's prelude, after MEMORY.md
    assert "[Untrusted daily memory: memory/2026-12-02-_.md]" in text and "预算 approved for the kiln" in text
    assert text.startswith("- line 000")


def test_the_plain_gauge_says_when_the_installed_agent_is_newer_than_the_rules_it_knows(cli, env):
    """An agent updated past the newest rules botmemory was proven against: the gauge keeps measuring by those,
    and says that what the new version loads may differ."""
    from botmemory.core.kinds import versions

    hermes(env / "user")
    bot = track_all(cli)["hermes"]
    for found, says in ((None, "(no installed version found)"), ("0.19.0", "(0.19.0 installed)"),
                        ("0.21.3", "(0.21.3 installed, newer than the rules botmemory knows: what it loads may "
                                   "differ where that version changed its rules)")):
        versions.forget_cache()
        cli.monkeypatch.setattr("botmemory.core.kinds.hermes.Hermes.installed_version",
                                lambda self, user_home, env, found=found: found)
        code, out, _ = cli("gauge", bot)
        assert code == 0 and f"rules: hermes 0.19.0 {says}" in out, out
    versions.forget_cache()
