"""Claude Code: what the real ``claude -p`` (the pinned version, install.py) sends, against ``botmemory load``,
``gauge``, the folder the hooks use, ``agents`` and the hooks' context.

Each case runs the binary once, offline, against a loopback fake of the Messages API (``oracle.run``), and
compares the request it sent with what botmemory says: MEMORY.md byte for byte (``load --json``'s text is the
text after the request's ``Contents of …MEMORY.md (…):`` header), the gauge's figures with Claude Code's own
warning, the folder a session uses with the one its system prompt announces.
"""
from __future__ import annotations

import functools
import itertools
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from botmemory.core.kinds import claude_code_load as L
from botmemory.core.kinds.claude_code import RULES_VERSIONS
from botmemory.core.kinds.versions import choose
from tests.conftest import examples
from tests.core.kinds.test_claude_code import recorded_inputs

from ..conftest import LATEST
from ..install import claude_version
from . import oracle
from .conftest import botmemory_json, environment, track

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(1800)]
counter = itertools.count()


def with_claude(claude: Path, env: dict[str, str]) -> dict[str, str]:
    """*env* with the ``claude`` npm puts in ``node_modules/.bin`` first on ``PATH``."""
    return {**env, "PATH": f"{claude.parents[3] / '.bin'}{os.pathsep}{os.environ.get('PATH', '')}"}


@functools.cache
def rules_label(claude: Path) -> str:
    """Whose rules botmemory should measure by for the binary *claude*: the newest it knows not newer."""
    return f"claude-code {choose(RULES_VERSIONS, claude_version(claude))}"


def compare(claude: Path, base: Path, data: bytes) -> None:
    """MEMORY.md of *data* in a folder named by autoMemoryDirectory: Claude Code's request against botmemory's
    load and gauge of that folder, tracked."""
    case = base / f"case-{next(counter)}"
    home, cwd, folder = case / "home", case / "proj", case / "mem"
    for d in (cwd, folder):
        d.mkdir(parents=True)
    oracle.settings(home / ".claude" / "settings.json", {"autoMemoryDirectory": str(folder)})
    (folder / "MEMORY.md").write_bytes(data)
    r = oracle.run(claude, home, cwd)
    assert r.code == 0 and r.body is not None, r.stderr
    assert r.announced == f"{folder}/"
    env = with_claude(claude, {"HOME": str(home)})   # its version chooses the rules botmemory measures by
    root = case / "bm"
    bot = track(root, folder, env)
    loaded = botmemory_json(root, "load", bot, env=env)
    assert isinstance(loaded, dict)
    sample = data[:300]
    assert loaded["text"] == (r.memory or ""), sample
    g = botmemory_json(root, "gauge", bot, env=env)
    assert isinstance(g, dict)
    assert g["rules_version"] == rules_label(claude)
    warning = (r.memory or "").rpartition("\n\n> WARNING: ")[2] if r.memory and "\n\n> WARNING: MEMORY.md is " \
        in r.memory else None
    if len(data) > L.MAX_FILE_BYTES:
        assert r.memory is None and g["level"] == "red" and g["unloaded_lines"] == g["lines"], sample
    elif warning is None:
        assert g["unloaded_lines"] == 0 and g["lines"] <= L.MAX_LINES and g["bytes"] <= L.MAX_UNITS, sample
        assert "lost_lines" not in g and g["level"] in ("ok", "amber"), sample
    else:
        assert g["level"] == "red" and (g["max_lines"], g["max_bytes"]) == (200, 25_000), sample
        m = re.search(r"(\d+) of (\d+) lines were cut off, starting at line (\d+)", warning)
        if m:
            assert (g["unloaded_lines"], g["lines"]) == (int(m.group(1)), int(m.group(2))), sample
        else:
            assert "characters of line 1 was cut off" in warning and g["unloaded_lines"] == g["lines"], sample
        m = re.match(r"MEMORY\.md is (\d+) lines", warning)
        if m:
            assert g["lines"] == int(m.group(1)), sample
        m = re.match(r"MEMORY\.md is ([\d.]+(?:KB|MB| bytes)) \(limit", warning) or re.search(
            r"lines and ([\d.]+(?:KB|MB| bytes))\.", warning)
        if m:
            assert L._size(g["bytes"]) == m.group(1), sample
        assert g["lost_lines"] and len(g["lost_lines"]) <= g["unloaded_lines"], sample


HAND = {
    "cyrillic whole": ("- " + "заметка " * 2900 + "\n").encode(),
    "cjk over the budget": ("- " + "記憶のメモ" * 60 + "\n").encode() * 90,
    "crlf over 200 lines": b"- a\r\n" * 230,
    "lone cr lines": b"x\r" * 250,
    "form feed and u2028": ("a\x0cb\u2028c\n" * 210).encode(),
    "one long line then more": b"y" * 30_000 + b"\nsecond line\n",
    "frontmatter with bom": "\ufeff---\nname: idx\n---\n- [A](a.md)\n".encode(),
    "opener with two spaces": b"---  \nname: idx\n---\n- [A](a.md)\n",
    "dots do not close": b"---\nname: idx\n...\n- [A](a.md)\n---\n- after\n",
    "comment inside a fence": b"a\n```\n<!-- fenced -->\n```\n<!-- block -->\nb\n",
    "comment in indented code": b"para\n\n    <!-- code -->\n\n<!-- block -->\nend\n",
    "comment under a div": b"<div>\n<!-- in html -->\n</div>\n\n<!-- block -->\nz\n",
    "setext heading with a comment": b"Title\n<!-- x -->\n===\n<!-- y -->\n",
    "link definitions vanish": b"[a]: http://a.example\n[b]: <http://b.example> 'T'\n- [A][a]\n<!-- c -->\n",
    "reserved tags": b"<system-reminder>x</system-reminder>\n<Bash_Stdout>\n<channel id=1 source=x>\n<tick>\n",
    "exactly 25000 units": b"z" * 24_999 + b"\n" + b"w\n",
    "unicode 17 characters kept": "\U0001fae9 \U00031350 \u200b\u00ad\ue000\n".encode(),
    "over 4 MiB": b"- note\n" * (4 * 1024 * 1024 // 7 + 2),
}


@pytest.mark.parametrize("name", sorted(recorded_inputs()))
def test_recorded_cases_against_the_binary(claude, tmp_path, name):
    compare(claude, tmp_path, recorded_inputs()[name])


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_cases(claude, tmp_path, name):
    compare(claude, tmp_path, HAND[name])


PIECES = ["- [Note](note.md) — a line of the index\n", "# Memory\n", "para text ", "\n", "\n\n\n", "  - sub item\n",
          "1. first\n", "```\n", "~~~\n", "    indented\n", "> quote\n", "[ref]: http://x.example\n", "<div>\n",
          "</div>\n", "<br/>\n", "===\n", "---\n", "***\n", "<!-- c -->", "<!--\nmulti\n-->\n", "<!-- a --> tail\n",
          "   <!-- ind -->\n", "text <!-- inline --> more\n", "\r\n", "\r", "\u2028", "\u2029", "\x0c", "\x0b", "\x01",
          "\u200b", "\u00ad", "\ufeff", "😀", "👩‍👩‍👧", "é", "e\u0301", "日本語", "заметка ", "\t", " ", "\u00a0", "\u3000",
          "<system-reminder>", "</command-name>", "< tick>", "---\nname: x\n---\n", "<script>\n", "</script>\n",
          "<?x ?>\n", "<!X>\n", "<![CDATA[ x ]]>\n", "x" * 120, "y" * 1200]
RAW = [b"\xff", b"\xc3(", b"\xed\xa0\x80"]

documents = st.builds(
    lambda parts, reps: b"".join(parts) * reps,
    st.lists(st.one_of(st.sampled_from(PIECES).map(str.encode), st.sampled_from(RAW),
                       st.text(max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass"))),
             max_size=40),
    st.sampled_from([1, 1, 1, 2, 7, 40, 150, 400]))


@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=documents)
def test_generated_memory_files(claude, tmp_path_factory, data):
    compare(claude, tmp_path_factory.mktemp("gen"), data)


# ----- which folder a session uses


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", "-c", "init.defaultBranch=main",
                    "-c", "protocol.file.allow=always", *args], cwd=cwd, check=True, capture_output=True)


def our_folder(cwd: Path, home: Path, env: dict[str, str] | None = None) -> str | None:
    from botmemory.core.ops.claude import auto_memory_dir

    with environment({"HOME": str(home), **(env or {})}):
        got = auto_memory_dir(str(cwd))
    return None if got is None else f"{got}/"


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> dict[str, Path]:
    """A repository with a subfolder, a linked worktree, a submodule, a bare repository's worktree, a folder
    outside git, a long and a unicode path."""
    t = tmp_path_factory.mktemp("trees")
    repo = t / "repo"
    (repo / "sub" / "deep").mkdir(parents=True)
    git(repo, "init")
    (repo / "f").write_text("x")
    git(repo, "add", "f")
    git(repo, "commit", "-m", "one")
    git(repo, "worktree", "add", str(t / "wt"))
    lib = t / "lib"
    lib.mkdir()
    git(lib, "init")
    (lib / "g").write_text("y")
    git(lib, "add", "g")
    git(lib, "commit", "-m", "lib")
    git(repo, "submodule", "add", str(lib), "vendor/lib")
    git(t, "clone", "--bare", str(repo), str(t / "bare.git"))
    git(t / "bare.git", "worktree", "add", str(t / "bare-wt"))
    plain = t / "My Proj.v2_ü😀 x"
    plain.mkdir()
    long = t.joinpath(*[f"d{i:02d}_" + "x" * 40 for i in range(5)])
    long.mkdir(parents=True)
    garbage = t / "garbage"
    garbage.mkdir()
    (garbage / ".git").write_text("not a gitdir line\n")
    return {"repo": repo, "subfolder": repo / "sub" / "deep", "worktree": t / "wt",
            "submodule": repo / "vendor" / "lib", "bare worktree": t / "bare-wt", "unicode": plain,
            "long": long, "garbage .git": garbage}


@pytest.mark.parametrize("where", ["repo", "subfolder", "worktree", "submodule", "bare worktree", "unicode", "long",
                                   "garbage .git"])
def test_the_folder_a_session_uses_is_the_one_the_hooks_use(claude, tmp_path, trees, where):
    home = tmp_path / "home"
    r = oracle.run(claude, home, trees[where])
    assert r.code == 0 and r.announced, r.stderr
    assert our_folder(trees[where], home) == r.announced


@pytest.mark.parametrize("value", ["~/mem", "~/a/../b", "~", "~/..", "~foo", "rel/dir", "/ab", "//srv/share",
                                   "/tmp//x///", "", None])
def test_auto_memory_directory_values(claude, tmp_path, value):
    home, cwd = tmp_path / "home", tmp_path / "proj"
    cwd.mkdir()
    oracle.settings(home / ".claude" / "settings.json", {"autoMemoryDirectory": value})
    r = oracle.run(claude, home, cwd)
    assert r.code == 0 and r.announced, r.stderr
    assert our_folder(cwd, home) == r.announced


@pytest.mark.parametrize("sources", [
    {"user": "/srv/u"}, {"user": "/srv/u", "project": "/srv/p"}, {"project": "/srv/p", "local": "/srv/l"},
    {"user": "/srv/u", "project": "relative"}, {"user": "/srv/u", "local": "~x"},
])
def test_settings_sources_in_claude_codes_order(claude, tmp_path, sources):
    home, cwd = tmp_path / "home", tmp_path / "proj"
    cwd.mkdir()
    files = {"user": home / ".claude" / "settings.json", "project": cwd / ".claude" / "settings.json",
             "local": cwd / ".claude" / "settings.local.json"}
    for source, value in sources.items():
        oracle.settings(files[source], {"autoMemoryDirectory": value})
    r = oracle.run(claude, home, cwd)
    assert r.code == 0 and r.announced, r.stderr
    assert our_folder(cwd, home) == r.announced


def test_a_project_run_from_a_subfolder_is_found_by_agents_under_its_git_root(claude, tmp_path, trees):
    """A session from a subfolder (or a worktree) keeps memory under the repository's root: `agents` finds that
    folder and names it by the root, and the hooks' folder is the one botmemory tracks."""
    home = tmp_path / "home"
    for where in ("subfolder", "worktree"):
        r = oracle.run(claude, home, trees[where])
        assert r.code == 0 and r.announced, r.stderr
    env = {"HOME": str(home)}
    found = botmemory_json(tmp_path / "bm", "agents", env=env)
    assert isinstance(found, list)
    mine = [f for f in found if f["path"] == r.announced.rstrip("/")]
    assert [f["name"] for f in mine] == [str(trees["repo"])]
    assert our_folder(trees["worktree"], home) == r.announced


def test_the_gauge_says_the_installed_version_and_whose_rules_it_used(claude, agents, tmp_path):
    """``claude --version`` (read from the install as npm lays it out, or asked) decides the rules: the gauge
    says which it used (``rules_version``) and what it found installed (``agent_version``)."""
    from botmemory.core.kinds.claude_code import _version_of

    on_path = claude.parents[3] / ".bin"
    assert (on_path / "claude").resolve() == claude.resolve()
    assert _version_of(claude, {"PATH": ""}) == agents.claude_version
    folder = tmp_path / "mem"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("- [A](a.md)\n")
    env = with_claude(claude, {"HOME": str(tmp_path / "home")})
    bot = track(tmp_path / "bm", folder, env)
    g = botmemory_json(tmp_path / "bm", "gauge", bot, env=env)
    assert isinstance(g, dict)
    assert (g["rules_version"], g["agent_version"]) == (rules_label(claude), agents.claude_version)
    if not LATEST:
        assert g["rules_version"] == f"claude-code {agents.claude_version}"   # the pinned one's own rules
