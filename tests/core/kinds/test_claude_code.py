"""Claude Code's own rules (2.1.328's and 2.1.332's): what loads of MEMORY.md, and which folder a session uses.

The expected texts are what the real ``claude -p`` sent (recorded against a loopback fake of the Messages API,
``tests/core/data/claude_code``); tests/conformance/claude_code runs the binary itself on generated files.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from botmemory.core import kinds
from botmemory.core.kinds import claude_code_load as L
from botmemory.core.kinds import claude_code_paths as P
from botmemory.core.kinds.base import Limits

CC = kinds.get("claude-code")
DATA = Path(__file__).parents[1] / "data" / "claude_code"
"""``loaded_by_claude_code_<version>.json``: what each version's real ``claude -p`` sent for each input."""
MIB = 1024 * 1024


def recorded_inputs() -> dict[str, bytes]:
    """The MEMORY.md files the recorded answers were given (by name)."""
    c = {
        "01_plain": "# Index\n- [A](a.md) — first\n- [B](b.md) — second\n",
        "02_cjk_emoji": "# 記憶\n- 日本語のメモ 🎉 emoji 👩‍👩‍👧 family\n- 中文 测试\n",
        "03_crlf": "line1\r\nline2\r\n\r\nline4\r\n",
        "04_lone_cr": "a\rb\rc\n",
        "05_u2028": "a\u2028b\u2029c\n",
        "06_formfeed_ctrl": "a\x0cb\x0bc\x01d\x7fe\u200bf\u200dg\ufe0fh\u00adi\n",
        "07_fm_basic": "---\nname: x\ndescription: y\n---\n\n# Body\ntext\n",
        "08_fm_bom": "\ufeff---\nname: x\n---\nbody\n",
        "09_fm_spaces_dots": "---   \nname: x\n...\nbody\n---\nafter\n",
        "10_fm_not_at_start": "\n---\nname: x\n---\nbody\n",
        "11_fm_inline_closer": "---\na: b---\nrest\n",
        "12_comment_in_fence": "a\n```\n<!-- keep me -->\n```\n<!-- drop me -->\nb\n",
        "13_comment_indented_code": "para\n\n    <!-- indented keep -->\n\n<!-- drop -->\nend\n",
        "14_inline_comment": "text <!-- inline keep --> more\n<!-- multi\nline -->\nafter\n",
        "15_comment_tail": "<!-- c --> tail text\nnext\n",
        "16_unclosed_comment": "a\n<!-- never closed\nb\nc\n",
        "17_comment_blanklines": "a\n\n<!-- c -->\n\n\nb\n",
        "18_linkdef_with_comment": "[ref]: http://example.com\n<!-- c -->\ntext [ref]\n",
        "19_linkdef_no_comment": "[ref]: http://example.com\ntext [ref]\n",
        "20_tags": "<system-reminder>x</system-reminder>\n<command-name>y</command-name>\n< system-reminder>\n"
                   "<SYSTEM-REMINDER>\n",
        "21_260_lines": "".join(f"- line {i}\n" for i in range(1, 261)),
        "22_one_long_line": "x" * 30000 + "\n",
        "23_long_lines_bytes": "".join(f"- entry {i:03d} " + "y" * 200 + "\n" for i in range(150)),
        "24_trim_ws": "\n\n   \t\u00a0\u3000text\u3000 \n\n\n",
        "25_only_comment": "<!-- only -->\n",
        "26_emoji_boundary": "é" * 24999 + "😀" + "tail\n",
        "28_bom_only_body": "\ufeffhello\n",
        "29_comment_in_list": "- item\n  <!-- in list -->\n- item2\n<!-- top -->\n",
        "30_exact_200": "".join(f"l{i}\n" for i in range(1, 201)),
        "31_201": "".join(f"l{i}\n" for i in range(1, 202)),
        "37_linkdef_crlf_comment": "[a]: http://a.example\r\n<!-- c -->\r\ntext [a]\r\n",
        "38_crlf_comment_in_fence_only": "a\r\n```\r\n<!-- keep -->\r\n```\r\nb\r\n",
        "39_linkdefs_around_comments": "[a]: <http://a.example> \"A\"\n\n<!-- one -->\n[b]: http://b.example\n"
                                       "- [A][a] and [B][b]\n<!-- two -->\n",
        "40_comment_block_with_text": "<!-- c --> kept tail\n[x]: /y\n",
    }
    out = {k: v.encode("utf-8") for k, v in c.items()}
    out["27_invalid_utf8"] = b"ok \xff\xfe bad \xc3( end\n"
    out["32_5mib"] = b"a\n" * (5 * MIB // 2)
    out["33_4mib_exact"] = b"a" * (4 * MIB - 1) + b"\n"
    out["34_4mib_plus1"] = b"a" * (4 * MIB) + b"\n"
    out["35_empty"] = b""
    out["36_whitespace_only"] = b"  \n\n \t\n"
    return out


RECORDED: dict[str, dict[str, object]] = {
    v: json.loads((DATA / f"loaded_by_claude_code_{v}.json").read_text(encoding="utf-8")) for v in L.RULES}


def same(got: str, want: object) -> bool:
    if isinstance(want, dict):      # a long answer, kept as its hash, length and end
        return (hashlib.sha256(got.encode("utf-8", "surrogatepass")).hexdigest() == want["sha256"]
                and len(got) == want["chars"] and got.endswith(want["tail"]))
    return got == (want or "")


@pytest.mark.parametrize("version", L.RULES)
@pytest.mark.parametrize("name", sorted(recorded_inputs()))
def test_what_loads_is_what_the_real_claude_code_sent(name, version):
    assert same(L.load_bytes(recorded_inputs()[name], version).text, RECORDED[version][name])


def test_every_version_was_recorded_on_every_input_and_the_kind_knows_each():
    assert all(set(RECORDED[v]) == set(recorded_inputs()) for v in L.RULES)
    assert CC.rules_versions == L.RULES


def test_from_2_1_332_link_definitions_stay_and_a_text_without_a_comment_block_keeps_its_crs():
    text = "[ref]: http://example.com\n<!-- c -->\ntext [ref]\n"
    assert L.measure(text, rules="2.1.328").text == "text [ref]"
    assert L.measure(text, rules="2.1.332").text == "[ref]: http://example.com\ntext [ref]"
    assert L.measure(text).text == L.measure(text, rules="2.1.332").text     # the newest by default
    lone_crs = "x\r" * 250 + "\n```\n<!-- in a fence -->\n```\n"       # no top-level comment block
    assert L.measure(lone_crs, rules="2.1.328").unloaded_lines > 0      # its CRs made line feeds: cut
    assert L.measure(lone_crs, rules="2.1.332").unloaded_lines == 0     # left as it was: 4 lines


def test_the_rules_follow_the_installed_version(tmp_path):
    text = "[ref]: http://example.com\n<!-- c -->\ntext [ref]\n"
    for version, loaded in (("2.1.328", "text [ref]"), ("2.1.330", "text [ref]"),
                            ("2.1.332", "[ref]: http://example.com\ntext [ref]"),
                            ("2.2.0", "[ref]: http://example.com\ntext [ref]")):
        from botmemory.core.kinds.versions import choose
        limits = Limits(rules=f"claude-code {choose(CC.rules_versions, version)}")
        assert CC.loaded("MEMORY.md", text, limits).text == loaded, version
    assert CC.loaded("MEMORY.md", text, Limits()).text == "[ref]: http://example.com\ntext [ref]"


def test_the_budget_counts_utf16_units_after_trimming_not_bytes():
    cyrillic = "- " + "заметка " * 2900 + "\n"             # 23,202 units, 42,000+ UTF-8 bytes
    got = L.measure(cyrillic)
    assert not got.cut and got.units == len(cyrillic.strip()) and got.text == cyrillic.strip()
    assert L.measure("\n\n\n" + "x\n" * 200 + "\n\n").unloaded_lines == 0     # trimmed first: 200 lines


def test_only_a_line_feed_ends_a_line():
    assert L.measure("x\r" * 250).lines == 1                      # lone CRs: one line, nothing cut
    assert L.measure("a\u2028b\x0cc\n" * 150).lines == 150
    assert L.measure("- a\r\n" * 201).unloaded_lines == 1


def test_one_line_over_the_budget_loads_its_first_25000_units_and_says_so():
    got = L.measure("y" * 30_000 + "\nsecond\n")
    assert got.cut and got.whole == 0 and got.unloaded_lines == 2 and got.lost == (1, 2)
    assert got.text.startswith("y" * 25_000 + "\n\n> WARNING: MEMORY.md is 29.3KB (limit: 24.4KB)")
    assert "everything after the first 25000 characters of line 1 was cut off." in got.text


def test_a_file_over_4_mib_does_not_load_at_all():
    over = L.load_bytes(b"- note\n" * (4 * MIB // 7 + 1))
    assert over.skipped and over.text == "" and over.unloaded_lines == over.lines
    assert not L.load_bytes(b"a" * (4 * MIB - 1) + b"\n").skipped


@pytest.mark.parametrize("text,loaded", [
    ("\ufeff---\nname: x\n---\nbody\n", "body"),                    # a BOM before the frontmatter
    ("---  \nname: x\n---\nbody\n", "body"),                       # spaces after the opener
    ("---\nname: x\n...\nbody\n", "---\nname: x\n...\nbody"),      # no "..." closer
    ("---\na: b---\nrest\n", "rest"),                               # the first later --- closes it
    ("x\n---\na: b\n---\nrest\n", "x\n---\na: b\n---\nrest"),        # not on line 1: not frontmatter
])
def test_frontmatter_as_claude_codes_parser_sees_it(text, loaded):
    assert L.measure(text).text == loaded


@pytest.mark.parametrize("text,loaded", [
    ("a\n```\n<!-- in a fence -->\n```\n<!-- block -->\nb\n", "a\n```\n<!-- in a fence -->\n```\nb"),
    ("para\n\n    <!-- indented code -->\n\n<!-- block -->\nend\n", "para\n\n    <!-- indented code -->\n\nend"),
    ("- item\n  <!-- in the item -->\n- item2\n<!-- block -->\n", "- item\n  <!-- in the item -->\n- item2"),
    ("text <!-- inline --> more\n", "text <!-- inline --> more"),
    ("<!-- c --> tail\nnext\n", "tail\nnext"),
    ("para\n   <!-- follows a paragraph -->\n", "para\n   <!-- follows a paragraph -->"),
    ("<div>\n<!-- in an html block -->\n</div>\n", "<div>\n<!-- in an html block -->\n</div>"),
    ("[ref]: http://example.com\ntext [ref] <!-- x -->\n", "text [ref] <!-- x -->"),   # a definition goes
])
def test_html_comments_as_claude_codes_markdown_lexer_sees_them(text, loaded):
    assert L.measure(text, rules="2.1.328").text == loaded
    if "[ref]:" not in text:     # 2.1.332 cuts the same blocks; only a definition stays there
        assert L.measure(text, rules="2.1.332").text == loaded
    else:
        assert L.measure(text, rules="2.1.332").text == text.strip()


def test_the_lost_lines_are_numbered_as_in_the_file():
    text = ("---\nmodified: 2026-11-30T10:00:00Z\n---\n<!-- a comment\nover lines -->\n"
            + "".join(f"- line {i}\n" for i in range(205)))
    got = CC.loaded("MEMORY.md", text, Limits())
    assert (got.lines, got.unloaded_lines, got.max_bytes) == (205, 5, 25_000)
    assert got.text.startswith("- line 0\n") and "- line 199\n\n> WARNING: MEMORY.md is 205 lines (limit: 200)" \
        in got.text
    assert got.lost == tuple(range(206, 211))
    assert CC.lines_on_disk("a\r\nb\x0cc\n")[:2] == ["a", "b\x0cc"]


def test_tags_claude_code_keeps_for_itself_are_neutralised():
    got = L.measure("<system-reminder>x</system-reminder> <Command_Name> <tick> <ticket>\n").text
    assert got == "<\\system-reminder>x<\\/system-reminder> <\\Command_Name> <\\tick> <ticket>"


def test_nothing_loads_from_an_empty_or_comment_only_file():
    for text in ("", "  \n\n", "<!-- only a comment -->\n", "\u200b\n"):
        got = L.measure(text)
        assert got.text == "" and got.unloaded_lines == 0 and got.lost == ()


# ----- which folder


@pytest.mark.parametrize("path,name", [
    ("/home/u/proj", "-home-u-proj"),
    ("/home/u/My Proj.v2_\xfc\U0001f600", "-home-u-My-Proj-v2----"),           # an emoji is two units: "--"
    ("/tmp/caf\xe9", "-tmp-caf-"),
    ("/tmp/cafe\u0301", "-tmp-cafe-"),
    ("/srv/" + "a" * 250, "-srv-" + "a" * 195 + "-z5vs61"),
    ("/srv/" + "日本" * 120, "-srv" + "-" * 196 + "-e384r3"),
    ("/x/" + "b" * 195 + "\U0001f600", "-x-" + "b" * 195 + "--"),             # 200 units: not cut
])
def test_folder_names_as_claude_codes_own_function_gives_them(path, name):
    assert P.folder_name(path, {}) == name


def test_the_folder_name_override_needs_the_config_dir():
    assert P.folder_name("/a/b", {"CLAUDE_CODE_PROJECT_DIR_NAME": "mine"}) == "-a-b"
    assert P.folder_name("/a/b", {"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "mine"}) == "mine"
    assert P.folder_name("/a/b", {"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "CON"}) == "-a-b"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", "-c", "init.defaultBranch=main",
                    "-c", "protocol.file.allow=always", *args], cwd=cwd, check=True, capture_output=True)


def test_a_session_is_keyed_by_its_git_root_and_a_worktree_by_its_main_checkout(tmp_path):
    repo = tmp_path / "repo"
    (repo / "sub" / "deep").mkdir(parents=True)
    git(repo, "init")
    (repo / "f").write_text("x")
    git(repo, "add", "f")
    git(repo, "commit", "-m", "one")
    git(repo, "worktree", "add", str(tmp_path / "wt"))
    (tmp_path / "wt" / "inner").mkdir()
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init")
    (lib / "g").write_text("y")
    git(lib, "add", "g")
    git(lib, "commit", "-m", "lib")
    git(repo, "submodule", "add", str(lib), "vendor/lib")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "--bare", str(repo), str(bare))
    git(bare, "worktree", "add", str(tmp_path / "bare-wt"))
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / ".git").write_text("not a gitdir line\n")
    (tmp_path / "outside").mkdir()
    cases = {
        repo: repo, repo / "sub" / "deep": repo, tmp_path / "wt": repo, tmp_path / "wt" / "inner": repo,
        repo / "vendor" / "lib": repo / "vendor" / "lib", tmp_path / "bare-wt": bare,
        tmp_path / "garbage": tmp_path / "garbage",
    }
    for cwd, root in cases.items():
        assert P.project_root(str(cwd)) == str(root), cwd
    assert P.find_git_root(str(tmp_path / "outside")) in (None, *map(str, Path(tmp_path).parents))


@pytest.mark.parametrize("value,got", [
    ("~/mem", "{home}/mem/"), ("~/a/../b", "{home}/b/"), ("~", None), ("~/", None), ("~/..", None),
    ("~/a/../..", None), ("~foo", None), ("rel/dir", None), ("/a", None), ("", None), (None, None),
    ("/ab", "/ab/"), ("//srv/share", "/srv/share/"), ("/tmp//x///", "/tmp/x/"), ("/m/d/../d2", "/m/d2/"),
    (5, None), ("/a\x00b", None),
])
def test_auto_memory_directory_values_claude_code_accepts_and_rejects(value, got):
    home = Path("/home/u")
    assert P.checked_dir(value, home) == (got.format(home=home) if got else None)


def test_the_first_settings_that_set_the_folder_win_even_with_a_value_claude_code_rejects(tmp_path):
    user, project = tmp_path / "user", tmp_path / "proj"
    (user / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    env = {"HOME": str(user)}
    none = tmp_path / "no-policy"

    def folder() -> Path | None:
        return P.memory_dir(str(project), user, env, none)

    default = user / ".claude" / "projects" / P.sanitized(str(project)) / "memory"
    assert folder() == default
    (user / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "u")}))
    assert folder() == tmp_path / "u"
    (project / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "p")}))
    assert folder() == tmp_path / "p"
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"autoMemoryDirectory": "relative"}))
    assert folder() == default                          # local comes first, and Claude Code rejects it
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"autoMemoryEnabled": False}))
    assert folder() is None
    assert P.memory_dir(str(project), user, {**env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"}, none) == tmp_path / "p"
    policy = tmp_path / "policy"
    policy.mkdir()
    (policy / "managed-settings.json").write_text(json.dumps({"autoMemoryEnabled": True,
                                                              "autoMemoryDirectory": "/srv/mem"}))
    assert P.memory_dir(str(project), user, env, policy) == Path("/srv/mem")


@pytest.mark.parametrize("env,on", [
    ({}, True), ({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}, False), ({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "yes"}, False),
    ({"CLAUDE_CODE_SIMPLE": "1"}, False), ({"CLAUDE_CODE_SAFE_MODE": "true"}, False),
    ({"CLAUDE_CODE_REMOTE": "1"}, False), ({"CLAUDE_CODE_REMOTE": "1", "CLAUDE_CODE_REMOTE_MEMORY_DIR": "/r"}, True),
])
def test_the_switches_that_turn_auto_memory_off(env, on):
    assert P.enabled(env, []) is on


def test_the_installed_claude_codes_version_is_read_from_its_package_its_install_or_its_answer(tmp_path):
    from botmemory.core.kinds.claude_code import installed_version

    npm = tmp_path / "npm" / "node_modules" / "@anthropic-ai" / "claude-code"
    (npm / "bin").mkdir(parents=True)
    (npm / "package.json").write_text(json.dumps({"name": "@anthropic-ai/claude-code", "version": "2.1.328"}))
    (npm / "bin" / "claude.exe").write_text("#!/bin/sh\nexit 1\n")
    (npm / "bin" / "claude.exe").chmod(0o755)
    on_path = tmp_path / "bin1"
    on_path.mkdir()
    (on_path / "claude").symlink_to(npm / "bin" / "claude.exe")
    assert installed_version({"PATH": str(on_path)}) == "2.1.328"
    native = tmp_path / "share" / "claude" / "versions" / "2.1.330"
    native.parent.mkdir(parents=True)
    native.write_text("#!/bin/sh\nexit 1\n")
    native.chmod(0o755)
    (tmp_path / "bin2").mkdir()
    (tmp_path / "bin2" / "claude").symlink_to(native)
    assert installed_version({"PATH": str(tmp_path / "bin2")}) == "2.1.330"
    (tmp_path / "bin3").mkdir()
    (tmp_path / "bin3" / "claude").write_text("#!/bin/sh\necho '2.1.329 (Claude Code)'\n")
    (tmp_path / "bin3" / "claude").chmod(0o755)
    assert installed_version({"PATH": f"{tmp_path / 'none'}:{tmp_path / 'bin3'}:{on_path}"}) == "2.1.329"
    assert installed_version({"PATH": str(tmp_path / "none")}) is None


def test_found_folders_keep_their_ids_when_another_project_appears(tmp_path):
    """An id depends on the folder's own path only: a new project whose name makes the same slug (other
    capitals, dashes, the same folder name elsewhere) gets an id of its own and changes no other."""
    from botmemory.core.disk.paths import Home
    from botmemory.core.kinds import tracked

    user = tmp_path / "user"
    projects = user / ".claude" / "projects"

    def project(cwd: Path, agent: str | None = None) -> None:
        d = projects / P.sanitized(str(cwd))
        (d / "memory").mkdir(parents=True)
        (d / "s.jsonl").write_text(json.dumps({"type": "user", "cwd": str(cwd)}) + "\n")
        if agent:
            (cwd / ".claude" / "agent-memory" / agent).mkdir(parents=True)

    home = Home(tmp_path / "home")

    def ids() -> dict[Path, str]:
        return {c.path: c.id for c in tracked.discover(home, user, {})[0]}

    project(tmp_path / "b" / "app", agent="qa")
    project(tmp_path / "b" / "web")
    (user / ".claude" / "agent-memory" / "reviewer").mkdir(parents=True)
    before = ids()
    project(tmp_path / "a" / "app", agent="qa")          # the same folder and agent names, listed first
    project(tmp_path / "b" / "Web")                       # the same slug but for a capital
    project(tmp_path / "b" / "-web")
    after = ids()
    assert {p: after[p] for p in before} == before
    assert len(set(after.values())) == len(after) == len(before) + 4


def test_the_kinds_budget_is_the_loaders():
    from botmemory.core.kinds import claude_code

    assert (claude_code.MAX_LINES, claude_code.MAX_BYTES) == (L.MAX_LINES, L.MAX_UNITS)
