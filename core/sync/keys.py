"""A synced folder's key: the same on every computer, so the same memory meets itself.

For a Claude Code project it is the project's git remote URL, normalized (:func:`normalize_remote`), so that
``/home/priya/shop`` on Linux and ``/Users/priya/code/shop`` on macOS, cloned over ssh on one and https on the
other, meet under ``github.com/priya/shop``: the scheme, a ``user@`` (or ``user:token@``), a port, a final
``.git`` and ``/`` go, and the host is lowercased. Otherwise the key is a name the person gives (``--name``),
else the folder's id. In the repository a key is one top-level folder: the key with ``%`` and ``/`` (and
anything a file name cannot hold) percent-encoded (:func:`key_dir`), so no key's folder is inside another's.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from ..base.errors import BadInput
from ..base.log import get_logger

logger = get_logger(__name__)

MAX_KEY = 200
_SCP = re.compile(r"^(?:(?P<user>[^@/:]+)@)?(?P<host>[^/:\[\]]+|\[[^\]]+\]):(?P<path>(?!//).*)$")
_SAFE = "@+=,~-._ "


def normalize_remote(url: str) -> str | None:
    """The key of a git remote URL (``host/path``), the same for its ssh, https, ``git://`` and scp-like
    (``git@host:path``) forms; a local path or ``file://`` URL keys by its path. None when *url* is not one."""
    url = url.strip()
    if not url or url.startswith("-") or "\n" in url:
        return None
    host = ""
    if "://" in url:
        try:
            parts = urlsplit(url)
        except ValueError:
            return None
        scheme = parts.scheme.lower()
        if scheme == "file":
            path = unquote(parts.path)
        else:
            host = (parts.hostname or "").lower()
            path = unquote(parts.path)
            if not host:
                return None
    elif url.startswith(("/", "~", ".")) or re.match(r"^[A-Za-z]:[\\/]", url):
        path = url
    else:
        m = _SCP.match(url)
        if not m:
            return None
        host = m.group("host").strip("[]").lower()
        path = m.group("path")
    path = path.replace("\\", "/").strip()
    path = re.sub(r"/+", "/", path).strip("/")
    if path.startswith("~"):
        path = path.lstrip("~").lstrip("/")
    for suffix in ("/.git", ".git"):
        if path.endswith(suffix):
            path = path[: -len(suffix)].rstrip("/")
    if not path:
        return None
    return f"{host}/{path}" if host else path


def check_key(key: str) -> str:
    """A key a person gives (``--name``): 1-200 characters on one line, no leading or trailing space."""
    if not key or len(key) > MAX_KEY or key != key.strip() or any(ord(c) < 32 or c == "\x7f" for c in key):
        raise BadInput(f"bad key {key!r}: use 1-{MAX_KEY} characters on one line, without spaces at either end")
    if key in (".", "..") or key.startswith("."):
        raise BadInput(f"bad key {key!r}: a key may not start with a dot")
    return key


def key_dir(key: str) -> str:
    """The repository's top-level folder of *key* (one path component; :func:`dir_key` reads it back)."""
    name = quote(key, safe=_SAFE)
    return "%2E" + name[1:] if name.startswith(".") else name


def dir_key(name: str) -> str:
    return unquote(name)


def decode_project_dir(name: str, root: Path = Path("/"), limit: int = 5000) -> Path | None:
    """The existing folder Claude Code named *name* (``-home-priya-my-shop``: every character that is not a
    letter or digit became ``-``), found by walking the disk: at each ``-`` the name continues a folder's name
    (as ``-``, ``.``, ``_`` or a space) or starts the next folder. The first full match wins (at most *limit*
    folders are looked at); None when there is none."""
    if not name.startswith("-"):
        return None
    tokens = name[1:].split("-")
    budget = [limit]

    def components(i: int, j: int) -> list[str]:
        out = [tokens[i]]
        for t in tokens[i + 1:j + 1]:
            out = [o + sep + t for o in out for sep in _SEPS]
        return out

    def walk(folder: Path, i: int) -> Path | None:
        if i == len(tokens):
            return folder
        for j in range(i, min(len(tokens), i + 6)):
            for comp in components(i, j):
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                if comp and comp not in (".", "..") and (folder / comp).is_dir():
                    found = walk(folder / comp, j + 1)
                    if found is not None:
                        return found
        return None

    return walk(root, 0)


_SEPS = ("-", ".", "_", " ")


def project_of(folder: Path, name: str) -> Path | None:
    """The project a tracked Claude Code folder belongs to: for ``<claude dir>/projects/<name>/memory`` the
    ``cwd`` its transcripts name (the kind reads it), else its folder name decoded; for a project's subagent
    memory (``<project>/.claude/agent-memory/<agent>``) that project; else the folder's name when it is a path."""
    if folder.name == "memory" and folder.parent.parent.name == "projects":
        from ..kinds.claude_code import project_name

        cwd = Path(project_name(folder.parent))
        if cwd.is_absolute() and cwd.is_dir():
            return cwd
        return decode_project_dir(folder.parent.name)
    if folder.parent.name == "agent-memory" and folder.parent.parent.name == ".claude":
        return folder.parent.parent.parent
    here = Path(name) if name else None
    if here is not None and here.is_absolute() and here.is_dir() and here != folder:
        return here
    return None


def _git_dir(project: Path) -> Path | None:
    dot = project / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():   # a worktree or submodule: "gitdir: PATH"
        try:
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            p = Path(text[len("gitdir:"):].strip())
            p = p if p.is_absolute() else (project / p)
            common = p / "commondir"
            if common.is_file():
                try:
                    c = Path(common.read_text().strip())
                    return c if c.is_absolute() else (p / c)
                except OSError:
                    return p
            return p
    return None


def remote_url(project: Path) -> str | None:
    """The project's git remote URL (``origin`` first, else the first remote), read from its config file only:
    no repository of the project's is opened (none of its hooks or settings can run)."""
    gd = _git_dir(project)
    if gd is None or not (gd / "config").is_file():
        return None
    try:
        p = subprocess.run(["git", "config", "--file", str(gd / "config"), "--get-regexp", r"^remote\..*\.url$"],
                           capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        logger.info("could not read the remotes of %s: %s", project, e)
        return None
    remotes: dict[str, str] = {}
    for line in p.stdout.splitlines():
        name, _, value = line.partition(" ")
        remotes.setdefault(name[len("remote."):-len(".url")], value.strip())
    if not remotes:
        return None
    return remotes.get("origin") or remotes[sorted(remotes)[0]]


def project_key(project: Path) -> str | None:
    """The key of a project folder: its normalized git remote URL, or None when it has no remote."""
    url = remote_url(project)
    return normalize_remote(url) if url else None


__all__ = ["MAX_KEY", "check_key", "decode_project_dir", "dir_key", "key_dir", "normalize_remote", "project_key",
           "project_of", "remote_url"]
