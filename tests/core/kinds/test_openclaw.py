"""OpenClaw 2026.9.6's rules one by one (the differential suite, tests/conformance, checks them against its code).

The figures marked "OpenClaw's own" were measured by running OpenClaw's ``trimBootstrapContent``.
"""
from __future__ import annotations

import json
import os
from datetime import date

from botmemory.core import kinds
from botmemory.core.kinds import openclaw_config as C
from botmemory.core.kinds import openclaw_daily as daily
from botmemory.core.kinds import utf16
from botmemory.core.kinds.base import Limits
from botmemory.core.kinds.openclaw import prompt_text
from botmemory.core.kinds.openclaw_budget import BootFile, budget, trim

OC = kinds.get("openclaw")


def test_the_cut_subtracts_the_marker_first_so_the_text_never_passes_the_limit():
    t = "x" * 30_974
    full = trim(t, "MEMORY.md", 20_000)                   # OpenClaw's own: kept 14,917 + 4,972, 19,999 long
    assert (full.head, full.tail, len(full.text)) == (14_917, 4_972, 19_999)
    assert "\n\n[...truncated, read MEMORY.md for full content...]\n…(truncated MEMORY.md: kept 14917+4972 chars " \
           "of 30974)…\n\n" in full.text
    assert trim(t, "MEMORY.md", 125).head == 15                                   # OpenClaw's own: kept 15+5
    compact = trim(t, "MEMORY.md", 85)                    # under 16 spare characters: the compact marker
    assert (compact.head, compact.tail, len(compact.text)) == (45, 15, 84) and "[…truncated 45+15/30974]" in compact.text


def test_counts_are_utf16_units_and_a_cut_never_splits_a_character():
    assert utf16.length("😀中é") == 4
    cut = trim("😀" * 100, "MEMORY.md", 150)
    assert cut.size == 200 and cut.head % 2 == 0 and cut.tail % 2 == 0
    assert utf16.head("a😀", 2) == "a" and utf16.tail("😀b", 2) == "b"
    # JavaScript's trimEnd: U+FEFF is white space, U+001C is not
    assert trim("note\ufeff", "MEMORY.md", 100).text == "note"
    assert trim("note\x1c", "MEMORY.md", 100).text == "note\x1c"


def test_agents_md_is_cut_to_a_head_its_policy_lines_and_a_tail():
    text = "intro\n" * 400 + "- You must never push to main\n" + "filler line\n" * 400
    cut = trim(text, "AGENTS.md", 1000)
    assert "[Policy digest from AGENTS.md]\nintro\n- You must never push to main\n" in cut.text   # with its prose line
    assert len(cut.text) <= 1000 and cut.text.startswith("intro\n")


def test_the_files_share_the_total_in_openclaws_order_with_missing_markers_and_the_user_cap():
    files = [BootFile("AGENTS.md", "/ws/AGENTS.md", "a" * 100), BootFile("SOUL.md", "/ws/SOUL.md", None),
             BootFile("USER.md", "/ws/USER.md", "u" * 9000), BootFile("MEMORY.md", "/ws/MEMORY.md", "m" * 50)]
    out, left, stopped = budget(files, 20_000, 60_000)
    assert [(f.name, len(f.text)) for f in out] == [("AGENTS.md", 100), ("SOUL.md", 34), ("USER.md", 3999),
                                                    ("MEMORY.md", 50)]
    assert out[1].text == "[MISSING] Expected at: /ws/SOUL.md" and not stopped
    out, left, stopped = budget(files[:3], 20_000, 198)   # 100 + 34 leave 64: USER.md still goes in
    assert [f.name for f in out] == ["AGENTS.md", "SOUL.md", "USER.md"] and len(out[2].text) == 63
    out, left, stopped = budget(files, 20_000, 197)      # 63 left: nothing more
    assert [f.name for f in out] == ["AGENTS.md", "SOUL.md"] and stopped and left == 63


def test_a_workspace_measured_by_what_the_files_before_memory_take(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("a" * 30_000)
    (ws / "TOOLS.md").write_text("t" * 50_000)            # not injected any more
    (ws / "MEMORY.md").write_text("m" * 9_000)
    lim = OC.share(ws, Limits(max_chars={"MEMORY.md": 20_000}, total_chars=20_000))
    missing = [f"[MISSING] Expected at: {ws / n}" for n in ("SOUL.md", "IDENTITY.md", "BOOTSTRAP.md")]
    assert [n for n, _ in lim.shared] == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "BOOTSTRAP.md"]
    assert 12_000 < dict(lim.shared)["AGENTS.md"] < 12_500   # over its cap: a 45 % head, a 15 % tail, the digest
    assert [n for f, n in lim.shared[1:]] == [len(m) for m in missing]
    assert lim.max_chars["MEMORY.md"] == 20_000 - sum(n for _, n in lim.shared) < 9_000
    got = OC.loaded("MEMORY.md", "m" * 9_000, lim)
    assert got.unloaded_chars > 0 and got.level() == "red"


def test_under_64_characters_left_memory_gets_nothing(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    for n in ("SOUL.md", "IDENTITY.md", "BOOTSTRAP.md"):
        (ws / n).write_text("x")
    (ws / "AGENTS.md").write_text("a" * 19_990)
    lim = OC.share(ws, Limits(max_chars={"MEMORY.md": 20_000}, total_chars=20_050))
    assert lim.max_chars["MEMORY.md"] == 0
    got = OC.loaded("MEMORY.md", "- one\n\n- two\n", lim)
    assert (got.text, got.unloaded_chars, got.lost, got.level()) == ("", len("- one\n\n- two"), (1, 3), "red")


def test_a_linked_or_hard_linked_file_is_an_unreadable_line(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "elsewhere.md").write_text("a" * 500)
    os.symlink(tmp_path / "elsewhere.md", ws / "AGENTS.md")
    os.link(tmp_path / "elsewhere.md", ws / "SOUL.md")
    lim = OC.share(ws, Limits(max_chars={"MEMORY.md": 20_000}, total_chars=60_000))
    assert dict(lim.shared)["AGENTS.md"] == len("[UNREADABLE: symlink path component not allowed]")
    assert dict(lim.shared)["SOUL.md"] == len("[UNREADABLE: path must not be hardlinked]")


def test_the_prompt_drops_project_entries_the_heartbeat_line_and_long_blank_runs():
    heartbeat = ("Default heartbeat prompt:\n`Read HEARTBEAT.md if it exists (workspace context). "
                 "If nothing needs attention, reply HEARTBEAT_OK.`")
    text = f"# Notes\n- keep\n- scoped <!-- project: acme/site -->\n  more of it\n- also\n\n\n\n{heartbeat}\nend"
    assert prompt_text(text) == "# Notes\n- keep\n- also\n\nend"


def test_openclaw_json_is_json5_with_includes_env_and_per_agent_limits(tmp_path):
    home = tmp_path
    (home / ".openclaw").mkdir()
    (home / ".openclaw" / "openclaw.json").write_text(
        '{\n  // settings\n  agents: {$include: "./agents.json5", defaults: {workspace: "${WS}/main",},},\n}')
    (home / ".openclaw" / "agents.json5").write_text(
        "{entries: {main: {default: true, bootstrapMaxChars: 900}, ops: {}}, defaults: {bootstrapTotalMaxChars: 5000}}")
    env = {"WS": str(home / "w")}
    config, problem = C.load_config(C.config_path(home, env), env)
    assert problem is None
    assert C.char_limit(config, "main", "bootstrapMaxChars", 20_000) == 900
    assert C.char_limit(config, "ops", "bootstrapMaxChars", 20_000) == 20_000
    assert C.char_limit(config, "ops", "bootstrapTotalMaxChars", 60_000) == 5000
    assert C.workspace_of(config, "main", home, env) == home / "w" / "main"
    assert C.workspace_of(config, "ops", home, env) == home / "w" / "main" / "ops"


def test_a_config_openclaw_would_refuse_gives_the_defaults_and_says_why(tmp_path):
    (tmp_path / ".openclaw").mkdir()
    cfg = tmp_path / ".openclaw" / "openclaw.json"
    for bad in ({"agents": {"defaults": {"bootstrapMaxChars": 1000.5}}}, {"agents": {"entries": {"a": {}, "b": {}}}},
                {"agents": {"list": [{"id": "Upper"}]}}, {"agents": {"entries": {}}}):
        cfg.write_text(json.dumps(bad))
        lim = OC.limits(tmp_path, {}, {})
        assert lim.max_chars["MEMORY.md"] == 20_000 and "openclaw.json" in lim.unread[0], bad
    cfg.write_text(json.dumps({"agents": {"defaults": {"bootstrapMaxChars": 1e3}}}))   # 1000.0 is a whole number
    assert OC.limits(tmp_path, {}, {}).max_chars["MEMORY.md"] == 1000


def test_every_agent_and_profile_workspace_is_found(tmp_path):
    user = tmp_path
    (user / ".openclaw" / "workspace").mkdir(parents=True)
    (user / ".openclaw" / "workspace-ops").mkdir()
    (user / ".openclaw-work" / "workspace").mkdir(parents=True)
    found, _ = OC.discover(user, {})
    assert [(f.slug, f.path) for f in found] == [
        ("openclaw", user / ".openclaw" / "workspace"), ("openclaw-ops", user / ".openclaw" / "workspace-ops"),
        ("openclaw-work", user / ".openclaw-work" / "workspace")]
    found, _ = OC.discover(user, {"OPENCLAW_WORKSPACE_DIR": str(user / ".openclaw" / "workspace-ops")})
    assert found[0].path == user / ".openclaw" / "workspace-ops"


def test_daily_notes_with_any_script_are_memory_files(tmp_path):
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    for name in ("2026-12-02-会议记录.md", "2026-12-02-🚀.md", "2026-12-02.md", "projects.md", ".hidden.md", "x.txt"):
        (ws / "memory" / name).write_text("n")
    assert OC.memory_files(ws) == ["memory/2026-12-02-会议记录.md", "memory/2026-12-02-🚀.md", "memory/2026-12-02.md",
                                   "memory/projects.md"]
    assert OC.classify("memory/2026-12-02-会议记录.md") is OC.classify("memory/projects.md")


def test_the_new_session_prelude(tmp_path):
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "2026-12-02.md").write_text("  today's note  \n")
    (ws / "memory" / "2026-12-01-会议.md").write_text("```sh\nls\n```")
    (ws / "memory" / "2026-11-30.md").write_text("too old")
    got = daily.prelude(ws, {}, date(2026, 12, 2), None)
    assert got is not None and got.startswith("[Startup context loaded by runtime]\n")
    assert "[Untrusted daily memory: memory/2026-12-02.md]\nBEGIN_QUOTED_NOTES\n```text\ntoday's note\n```" in got
    assert "[Untrusted daily memory: memory/2026-12-01-_.md]" in got and "\\`\\`\\`sh" in got
    assert "too old" not in got
    assert daily.prelude(ws, {"enabled": False}, date(2026, 12, 2), None) is not None   # applies() decides that
    assert not daily.applies({"enabled": False}) and not daily.applies({"applyOn": ["reset"]})
