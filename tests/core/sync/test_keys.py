"""Keys: the same project meets itself on every computer, whatever the URL form or the local path."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from botmemory.core.base.errors import BadInput
from botmemory.core.kinds.tracked import track
from botmemory.core.ops import sync
from botmemory.core.store.memory import Memory
from botmemory.core.sync.keys import check_key, decode_project_dir, dir_key, key_dir, normalize_remote, project_key, project_of

from ..conftest import TODAY


@pytest.mark.parametrize("url", [
    "git@github.com:priya/shop.git",
    "git@GitHub.com:priya/shop",
    "ssh://git@github.com/priya/shop.git",
    "ssh://git@github.com:22/priya/shop.git/",
    "https://github.com/priya/shop.git",
    "https://priya:ghp_Zq8r2LmN4pX7vB1cD9fG3hJ6kS0tU5wY@github.com/priya/shop",
    "http://github.com//priya/shop/",
    "git://github.com/priya/shop.git",
    "github.com:priya/shop.git",
])
def test_ssh_https_and_scp_forms_of_one_repository_meet(url):
    assert normalize_remote(url) == "github.com/priya/shop"


def test_other_repositories_and_local_paths_get_their_own_keys():
    assert normalize_remote("git@gitlab.com:priya/shop.git") == "gitlab.com/priya/shop"
    assert normalize_remote("git@github.com:priya/Shop.git") == "github.com/priya/Shop"   # a path keeps its case
    assert normalize_remote("/srv/git/shop.git") == "srv/git/shop"
    assert normalize_remote("file:///srv/git/shop.git") == "srv/git/shop"
    assert normalize_remote("ssh://nas.local/volume1/git/shop.git") == "nas.local/volume1/git/shop"
    for bad in ("", "-oProxyCommand=x", "not a url", "https://"):
        assert normalize_remote(bad) is None


def test_a_key_is_one_folder_of_the_repository_and_reads_back():
    for key in ("scout", "github.com/priya/shop", "a%2Fb", "with space", "日本語", ".hidden-looking"):
        d = key_dir(key)
        assert "/" not in d and not d.startswith(".") and dir_key(d) == key
    assert key_dir("github.com/priya/shop") == "github.com%2Fpriya%2Fshop"
    assert len({key_dir(k) for k in ("a/b", "a%2Fb", "a_b")}) == 3


def test_a_name_given_is_checked():
    assert check_key("scout") == "scout"
    for bad in ("", " x", "x ", "a\nb", ".x", "x" * 201):
        with pytest.raises(BadInput):
            check_key(bad)


def test_a_claude_code_folder_name_decodes_to_the_project_folder(tmp_path):
    project = tmp_path / "src" / "my-shop.web" / "app_v2"
    project.mkdir(parents=True)
    (tmp_path / "src" / "my").mkdir()          # a decoy: "my" exists but leads nowhere
    name = "-" + "-".join(str(project).strip("/").replace(".", "-").replace("_", "-").split("/"))
    assert decode_project_dir(name) == project
    assert decode_project_dir("-no-such-folder-anywhere-xyz") is None
    assert decode_project_dir("relative") is None


def _repo_with_origin(path: Path, url: str) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", url], check=True)


def test_a_tracked_claude_code_folder_is_keyed_by_its_projects_remote_on_every_computer(tmp_path, monkeypatch):
    """The laptop's /home/priya/shop (ssh) and the desktop's /Users/priya/code/shop (https) meet."""
    keys_found = []
    for host, where, url, by_transcript in (("laptop", "home/priya/shop", "git@github.com:priya/shop.git", True),
                                            ("desktop", "Users/priya/code/shop", "https://github.com/priya/shop", False)):
        root = tmp_path / host
        user = root / "user"
        project = root / where
        project.mkdir(parents=True)
        _repo_with_origin(project, url)
        claude = user / ".claude" / "projects" / ("-" + str(project).strip("/").replace("/", "-").replace(".", "-"))
        (claude / "memory").mkdir(parents=True)
        (claude / "memory" / "MEMORY.md").write_text("- notes\n")
        if by_transcript:
            (claude / "s.jsonl").write_text(json.dumps({"cwd": str(project)}) + "\n")
        monkeypatch.setenv("HOME", str(user))
        monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
        mem = Memory.open(str(root / "home"), TODAY)
        t = track(mem.home, path=str(claude / "memory"), agent="claude-code")
        mem = Memory.open(str(root / "home"), TODAY)
        assert project_of(claude / "memory", mem.home.folder(t.id).name) == project
        keys_found.append(sync.default_key(mem, t.id))
    assert keys_found == ["github.com/priya/shop", "github.com/priya/shop"]


def test_a_project_without_a_remote_or_an_other_folder_is_keyed_by_its_id(tmp_path):
    project = tmp_path / "p"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert project_key(project) is None
    mem = Memory.open(str(tmp_path / "home"), TODAY)
    mem.store.init("scout")
    assert sync.default_key(mem, "scout") == "scout"


def test_a_worktree_reads_its_main_repositorys_remote(tmp_path):
    main = tmp_path / "main"
    _repo_with_origin(main, "git@github.com:priya/shop.git")
    subprocess.run(["git", "-C", str(main), "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(tmp_path / "wt")], check=True)
    assert project_key(tmp_path / "wt") == "github.com/priya/shop"
