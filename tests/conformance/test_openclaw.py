"""OpenClaw: what OpenClaw's own code injects from a workspace, against ``botmemory gauge`` and ``load``.

Generated workspaces (Hypothesis) and hand cases: the six bootstrap files present, missing or over their
limits, emoji, CJK, CRLF, BOM, JavaScript's white space, AGENTS.md policy lines, project-scoped entries,
OpenClaw's heartbeat line; ``openclaw.json`` as JSON, JSON5, with ``$include`` and per-agent entries;
daily notes (any script in the slug) for the ``/new`` prelude. Every count is compared in UTF-16 units.
"""
from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import examples

from .conftest import botmemory_json, track

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(1800)]   # the first case installs the agents

TODAY = date(2026, 12, 2)
NAMES = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md", "TOOLS.md", "HEARTBEAT.md"]
HEARTBEAT = ("Default heartbeat prompt:\n`Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. "
             "If nothing needs attention, reply HEARTBEAT_OK.`")
PIECES = ["a line of text\n", "- a bullet about the garden\n", "# Heading\n", "## Sub\n", "😀", "中文笔记", "é",
          "\r\n", "\n\n\n\n", "  ", "\t", "\ufeff", "\x1c", "\u2028", "- must never push to main\n",
          "1) do not test in prod\n", "禁止", "```\n", "secret ", "prose words before a rule\n",
          "- note <!-- project: acme/site -->\n", "<!-- PROJECT : x -->", HEARTBEAT + "\n", "x" * 37]
counter = itertools.count()

content = st.builds(lambda parts, reps: "".join(parts) * reps,
                    st.lists(st.sampled_from(PIECES), min_size=0, max_size=12), st.sampled_from([1, 1, 2, 5, 20, 80]))
long_content = st.builds(lambda parts, reps: "".join(parts) * reps,
                         st.lists(st.sampled_from(PIECES), min_size=3, max_size=12), st.sampled_from([20, 80, 300]))


def config_text(kind: str, max_chars: int | None, total: int | None) -> dict[str, str]:
    """openclaw.json (and what it includes) in one of several shapes, all meaning the same limits."""
    limits = {k: v for k, v in (("bootstrapMaxChars", max_chars), ("bootstrapTotalMaxChars", total)) if v is not None}
    if kind == "json":
        return {"openclaw.json": json.dumps({"agents": {"defaults": limits}})}
    if kind == "json5":
        body = ",\n".join(f"      {k}: {v}," for k, v in limits.items())
        return {"openclaw.json": f"// OpenClaw settings\n{{\n  agents: {{\n    defaults: {{\n{body}\n    }},\n  }},\n}}\n"}
    if kind == "include":
        return {"openclaw.json": '{\n  // the limits live beside it\n  "agents": {"$include": "./agents.json5"},\n}\n',
                "agents.json5": json.dumps({"defaults": limits})}
    if kind == "entries":
        return {"openclaw.json": json.dumps({"agents": {"defaults": {"bootstrapMaxChars": 7}, "entries": {"main": limits}}})}
    if kind == "float":
        return {"openclaw.json": json.dumps({"agents": {"defaults": {**limits, "bootstrapMaxChars": 1000.5}}})}
    return {}


def write_workspace(base: Path, files: dict[str, str | None], daily: dict[str, str], config: dict[str, str]) -> Path:
    case = base / f"case-{next(counter)}"
    ws = case / "ws"
    ws.mkdir(parents=True)
    for name, text in files.items():
        if text is not None:
            (ws / name).write_bytes(text.encode("utf-8"))
    if daily:
        (ws / "memory").mkdir()
        for k, (name, text) in enumerate(sorted(daily.items())):
            p = ws / "memory" / name
            p.write_bytes(text.encode("utf-8"))
            os.utime(p, ns=(1_700_000_000_000_000_000 + k * 1_000_000_000,) * 2)
    for name, text in config.items():
        (case / "cfg").mkdir(exist_ok=True)
        (case / "cfg" / name).write_text(text, encoding="utf-8")
    return ws


FULL_MARKER = re.compile(r"\n?\n\[\.\.\.truncated, read MEMORY\.md for full content\.\.\.\]\n"
                         r"…\(truncated MEMORY\.md: kept \d+\+\d+ chars of (\d+)\)…\n\n?")
COMPACT_MARKER = re.compile(r"\[…truncated \d+\+\d+/(\d+)\]")


def kept(injected: str) -> tuple[int, int, int] | None:
    """What a cut MEMORY.md really keeps, in UTF-16 units: its head and tail around OpenClaw's marker (the
    marker's own numbers are those asked for: a cut inside a character keeps one unit fewer), and its size."""
    from botmemory.core.kinds.utf16 import length

    m = FULL_MARKER.search(injected) or COMPACT_MARKER.search(injected)
    if not m:
        return None
    return length(injected[:m.start()]), length(injected[m.end():]), int(m.group(1))


def compare(oracle, base: Path, ws: Path, env_extra: dict[str, str] | None = None, today: date = TODAY) -> None:
    env = {"HOME": str(base / "user"), "PATH": "", **(env_extra or {})}
    cfg = ws.parent / "cfg" / "openclaw.json"
    if cfg.exists():
        env["OPENCLAW_CONFIG_PATH"] = str(cfg)
    want = oracle.ask([str(ws), "--now", f"{today.isoformat()}T12:00:00Z"], env)
    root = ws.parent / "bm"
    bot = track(root, ws, "openclaw", env)
    g = botmemory_json(root, "--today", today.isoformat(), "gauge", bot, env=env)
    text = botmemory_json(root, "--today", today.isoformat(), "load", bot, env=env)["text"]
    case = {p.name: p.read_bytes()[:200] for p in ws.iterdir() if p.is_file()}
    mem_path = str(ws / "MEMORY.md")
    others = [(f["name"], f["injected_length"]) for f in want["files"] if f["name"] != "MEMORY.md"]
    assert [(s["file"], s["chars"]) for s in g["shared"]] == others, case
    assert g["total_max_chars"] == want["limits"]["totalMaxChars"], case
    assert g["rules_version"] == "openclaw 2026.9.6", case
    invalid = bool(want["config_diagnostics"] and want["config_diagnostics"].get("exists")
                   and not want["config_diagnostics"].get("valid"))
    assert bool(g.get("unread")) == invalid, (case, want["config_diagnostics"], g.get("unread"))
    memory_part = want.get("prompt_files", {}).get(mem_path, "")
    prelude = (want.get("prelude") or {}).get("text")
    event = _event
    event(f"prelude: {bool(prelude)}")
    event(f"config invalid: {invalid}")
    mem_seen = next((f for f in want["files"] if f["name"] == "MEMORY.md"), None)
    event(f"MEMORY.md: {'absent' if not (ws / 'MEMORY.md').exists() else 'skipped' if mem_seen is None else 'cut' if mem_seen['truncated'] else 'whole'}")
    event(f"AGENTS.md cut: {any(f['name'] == 'AGENTS.md' and f['truncated'] for f in want['files'])}")
    assert text == "\n\n".join(p for p in (memory_part, prelude) if p), case
    mem = next((f for f in want["files"] if f["name"] == "MEMORY.md"), None)
    if (ws / "MEMORY.md").is_file():
        left = want["limits"]["totalMaxChars"] - sum(n for _, n in others)
        allowance = min(want["limits"]["maxChars"], left) if left >= 64 else 0
        assert g["max_chars"] == allowance, case
        raw = (ws / "MEMORY.md").read_bytes().decode("utf-8", "replace")
        if mem is not None:
            assert g["chars"] == mem["trimmed_length"], case
            cut = kept(mem["injected"]) if mem["truncated"] else None
            if mem["truncated"] and cut is None:   # a budget shorter than OpenClaw's own marker: only its start
                start = mem["injected"].lstrip("\n")[:11]
                assert any(m.startswith(start) for m in ("[…truncated", "[...truncated")), case
                assert g["unloaded_chars"] == g["chars"], case
            else:
                assert g["unloaded_chars"] == (cut[2] - cut[0] - cut[1] if cut else 0), case
        else:
            assert g["unloaded_chars"] == g["chars"] and (g["chars"] == 0 or g["level"] == "red"), case
        assert raw is not None
    shutil.rmtree(ws.parent, ignore_errors=True)


def _event(text: str) -> None:
    """What kinds of case were generated (``--hypothesis-show-statistics``); nothing outside Hypothesis."""
    from hypothesis import event
    from hypothesis.errors import InvalidArgument

    try:
        event(text)
    except InvalidArgument:
        pass


daily_names = st.dictionaries(
    st.sampled_from([f"{TODAY}.md", f"{TODAY - timedelta(days=1)}.md", f"{TODAY - timedelta(days=2)}.md",
                     f"{TODAY}-standup.md", f"{TODAY}-会议记录.md", f"{TODAY}-🚀-launch.md", f"{TODAY}-a.md",
                     f"{TODAY}-b.md", f"{TODAY}-c.md", f"{TODAY - timedelta(days=1)}-ideas.md", "projects.md"]),
    st.one_of(st.just("  \n"), content, st.just("```code``` and " + "y" * 1500), st.just("z" * 20_000)),
    max_size=6)


@settings(max_examples=examples(200), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(files=st.fixed_dictionaries({n: st.one_of(st.none(), content, *(long_content,) * (n in ("MEMORY.md", "AGENTS.md")))
                                    for n in NAMES}),
       daily=daily_names,
       shape=st.sampled_from(["none", "json", "json5", "include", "entries", "float"]),
       max_chars=st.one_of(st.none(), st.sampled_from([40, 90, 300, 1200, 5000, 700, 150])),
       total=st.one_of(st.none(), st.sampled_from([64, 150, 700, 3000, 12000])))
def test_generated_workspaces_load_as_openclaw_loads_them(openclaw_oracle, tmp_path, files, daily, shape, max_chars,
                                                          total):
    ws = write_workspace(tmp_path, files, daily, config_text(shape, max_chars, total))
    compare(openclaw_oracle, tmp_path, ws)


HAND_FILES = {
    "bom and crlf": {"MEMORY.md": "\ufeff- one\r\n- two\r\n\r\n", "AGENTS.md": "# Rules\r\n- must never push\r\n"},
    "js white space at the end": {"MEMORY.md": "note\u2028\ufeff \u3000", "SOUL.md": "soul\x1c\x1f\x85"},
    "emoji across a cut": {"MEMORY.md": "😀" * 30_000},
    "cjk over the limit": {"MEMORY.md": "中文笔记，" * 6000},
    "only project entries": {"MEMORY.md": "- a <!-- project: acme/x -->\n- b <!--project:y-->\n"},
    "heartbeat and blank runs": {"MEMORY.md": f"top\n\n\n\n{HEARTBEAT}\n\n\n\nend"},
    "user cap": {"USER.md": "u" * 9000, "MEMORY.md": "m" * 100},
    "tools and heartbeat are not injected": {"TOOLS.md": "t" * 50_000, "HEARTBEAT.md": "h", "MEMORY.md": "m"},
    "nothing at all": {},
}


@pytest.mark.parametrize("name", list(HAND_FILES))
def test_hand_workspaces(openclaw_oracle, tmp_path, name):
    ws = write_workspace(tmp_path, HAND_FILES[name], {}, {})
    compare(openclaw_oracle, tmp_path, ws)


@pytest.mark.parametrize("budget", [7, 12, 40])
def test_a_budget_shorter_than_openclaws_marker_loads_only_the_marker(openclaw_oracle, tmp_path, budget):
    """Found by the thorough profile: with ``bootstrapMaxChars`` 7 OpenClaw injects ``[…trunc`` and nothing of the
    file; the gauge counts every character as not loaded."""
    ws = write_workspace(tmp_path, {"MEMORY.md": "a line of text, longer than the budget\n"}, {},
                         config_text("json", budget, None))
    compare(openclaw_oracle, tmp_path, ws)


@pytest.mark.parametrize("what", ["symlink", "hardlink", "folder", "too large"])
def test_files_openclaw_will_not_read(openclaw_oracle, tmp_path, what):
    ws = write_workspace(tmp_path, {"MEMORY.md": "- a note\n"}, {}, {})
    outside = tmp_path / f"outside-{what}.md"
    outside.write_text("x" * 100)
    for name in ("SOUL.md", "USER.md"):
        if what == "symlink":
            os.symlink(outside, ws / name)
        elif what == "hardlink":
            os.link(outside, ws / name)
        elif what == "folder":
            (ws / name).mkdir()
        else:
            (ws / name).write_bytes(b"y" * (2 * 1024 * 1024 + 1))
    compare(openclaw_oracle, tmp_path, ws)


def test_the_prelude_across_a_time_zone_date_split(openclaw_oracle, tmp_path):
    """userTimezone ahead of UTC: its "today" is UTC's tomorrow, and UTC's date is added to the days."""
    from datetime import datetime, timezone

    from botmemory.core.kinds import openclaw_daily as daily

    ws = write_workspace(tmp_path, {"MEMORY.md": "m"}, {
        "2026-12-03.md": "tokyo today", "2026-12-02.md": "utc today and tokyo yesterday",
        "2026-12-01.md": "two days ago", "2026-12-03-会议.md": "slugged"}, {})
    config = tmp_path / "cfg.json"
    options = {"dailyMemoryDays": 2, "maxFileChars": 20}
    config.write_text(json.dumps({"agents": {"defaults": {"userTimezone": "Asia/Tokyo", "startupContext": options}}}))
    want = openclaw_oracle.ask([str(ws), "--config", str(config), "--now", "2026-12-02T20:30:00Z"],
                               {"HOME": str(tmp_path / "user")})
    got = daily.prelude(ws, options, datetime(2026, 12, 2, 20, 30, tzinfo=timezone.utc), daily.zone("Asia/Tokyo"))
    assert got == want["prelude"]["text"] and "tokyo today" in got


# ----- where the config and the workspaces are

def layouts(user: Path) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """name -> (files to write under the user's home, environment)."""
    state = user / "state"
    return {
        "default": ({}, {}),
        "state dir with roster": ({"state/openclaw.json": json.dumps({"agents": {
            "defaults": {"workspace": "~/work/ws", "bootstrapMaxChars": 900},
            "entries": {"main": {"default": True}, "ops": {"workspace": str(user / "ops-ws"), "bootstrapMaxChars": 300},
                        "dev": {"bootstrapTotalMaxChars": 5000}}}})},
            {"OPENCLAW_STATE_DIR": str(state)}),
        "config path and openclaw home": ({"elsewhere/oc.json5": "{agents: {entries: {Solo: {workspace: 'ws-solo'}},},}"},
                                          {"OPENCLAW_CONFIG_PATH": "~/elsewhere/oc.json5", "OPENCLAW_HOME": str(user)}),
        "legacy clawdbot": ({".clawdbot/clawdbot.json": json.dumps({"agents": {"defaults": {"bootstrapMaxChars": 1234}}})},
                            {}),
        "profile env only": ({}, {"OPENCLAW_PROFILE": "work"}),
        "workspace dir": ({}, {"OPENCLAW_WORKSPACE_DIR": str(user / "explicit-ws")}),
        "include and env": ({".openclaw/openclaw.json": '{"agents": {"$include": ["./a.json5", "./b.json"]}}',
                             ".openclaw/a.json5": "{defaults: {bootstrapMaxChars: 77,}, entries: {main: {default: true}}}",
                             ".openclaw/b.json": json.dumps({"entries": {"x": {"workspace": "${WS_ROOT}/x-ws"}}})},
                            {"WS_ROOT": str(user / "roots")}),
        "two agents without an owner": ({".openclaw/openclaw.json": json.dumps({"agents": {"entries": {"a": {}, "b": {}}}})},
                                        {}),
        "the old agents.list": ({".openclaw/openclaw.json": json.dumps({"agents": {"list": [{"id": "x", "workspace": "/w"}]}})},
                                {}),
        "invalid limit": ({".openclaw/openclaw.json": json.dumps({"agents": {"defaults": {"bootstrapMaxChars": "9000"}}})},
                          {}),
    }


@pytest.mark.parametrize("name", list(layouts(Path("/u"))))
def test_workspaces_and_limits_of_every_agent(openclaw_oracle, tmp_path, name):
    from botmemory.core.kinds import openclaw_config as C

    user = tmp_path / "user"
    user.mkdir()
    files, extra = layouts(user)[name]
    for rel, text in files.items():
        (user / rel).parent.mkdir(parents=True, exist_ok=True)
        (user / rel).write_text(text, encoding="utf-8")
    env = {"HOME": str(user), **extra}
    setup = C.setups(user, env)[0]
    agents = C.agent_ids(setup.config)
    for agent in agents:
        want = openclaw_oracle.ask(["--agent", agent, "--no-prompt"], env)
        assert str(C.workspace_of(setup.config, agent, setup.home, env)) == want["workspace"], (name, agent)
        assert (C.char_limit(setup.config, agent, "bootstrapMaxChars", 20_000),
                C.char_limit(setup.config, agent, "bootstrapTotalMaxChars", 60_000)) == \
            (want["limits"]["maxChars"], want["limits"]["totalMaxChars"]), (name, agent)
        assert str(setup.config_path) == want["config_path"], name
        Path(want["workspace"]).mkdir(parents=True, exist_ok=True)
    default = openclaw_oracle.ask(["--no-prompt"], env)
    assert C.default_agent(setup.config) == default["agent_id"], name
    found = botmemory_json(tmp_path / "bm", "agents", env=env)
    paths = {a["path"] for a in found if a["agent"] == "openclaw"}
    for agent in agents:
        assert str(C.workspace_of(setup.config, agent, setup.home, env)) in paths, (name, agent)


def test_a_profile_folder_is_its_own_setup(openclaw_oracle, tmp_path):
    """``openclaw --profile work`` runs with ~/.openclaw-work as its state folder and its own config."""
    from botmemory.core.kinds import openclaw_config as C

    user = tmp_path / "user"
    (user / ".openclaw-work").mkdir(parents=True)
    (user / ".openclaw-work" / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"bootstrapMaxChars": 555}}}))
    state = user / ".openclaw-work"
    env = {"HOME": str(user), "OPENCLAW_PROFILE": "work", "OPENCLAW_STATE_DIR": str(state),
           "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json")}
    want = openclaw_oracle.ask(["--no-prompt"], env)
    setups = C.setups(user, {"HOME": str(user)})
    profile = next(s for s in setups if s.name == "work")
    assert str(C.workspace_of(profile.config, "main", profile.home, profile.env)) == want["workspace"]
    assert C.char_limit(profile.config, "main", "bootstrapMaxChars", 20_000) == want["limits"]["maxChars"] == 555
    Path(want["workspace"]).mkdir(parents=True)
    found = botmemory_json(tmp_path / "bm", "agents", env={"HOME": str(user)})
    assert [(a["id"], a["path"]) for a in found if a["agent"] == "openclaw"] == [("openclaw-work", want["workspace"])]
