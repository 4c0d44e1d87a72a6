"""Where Claude Code (2.1.328 to 2.1.332) keeps a project's auto memory, and whether it is on: as its own code decides.

Read from Claude Code's bundled JavaScript and proven against the real ``claude -p`` (tests/conformance/claude_code).

- **Which project.** The folder is keyed by the project's *git root*, not the working directory: the first
  folder upwards from the cwd holding a ``.git`` folder or file. A linked worktree's ``.git`` file leads
  (through its ``gitdir``, ``commondir`` and the ``gitdir`` back-link) to the main checkout, so every
  worktree of a repository shares the main one's memory; a worktree of a bare repository to the bare
  repository itself; a submodule (no ``commondir``) keeps its own. Outside git it is the cwd.
- **The folder's name** (:func:`folder_name`): every UTF-16 code unit of that path that is not an ASCII letter
  or digit becomes ``-`` (an emoji two of them); over 200 units it is cut to 200, then ``-`` and a base-36
  hash of the path. ``$CLAUDE_CODE_PROJECT_DIR_NAME`` names it instead, but only with ``$CLAUDE_CONFIG_DIR``.
- **The folder**: ``<config dir>/projects/<name>/memory/`` (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``;
  ``$CLAUDE_CODE_REMOTE_MEMORY_DIR`` replaces the config dir), unless ``autoMemoryDirectory`` is set.
- **autoMemoryDirectory** is read from the settings in Claude Code's order: managed policy
  (``/etc/claude-code/managed-settings.json`` and ``managed-settings.d/``), the project's local then shared
  settings (``<cwd>/.claude/settings.local.json``, ``<cwd>/.claude/settings.json``: the cwd, not the git
  root), then the user's (``<config dir>/settings.json``). The first that sets it wins, even with a value
  Claude Code rejects (``~x``, a relative path, ``~/..``): then the default folder is used, not the next
  source (:func:`checked_dir`). ``$CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`` comes before all of them.
- **Off** (:func:`enabled`): ``$CLAUDE_CODE_DISABLE_AUTO_MEMORY`` true (``1``, ``true``, ``yes``, ``on``),
  safe mode, ``--bare`` (``$CLAUDE_CODE_SIMPLE``), a remote session without a memory folder, or
  ``autoMemoryEnabled: false`` in the first settings that set it; the variable set false forces it on.

What is not modelled: the trust dialog of an interactive session (project settings are read as in
``claude -p``), ``--settings`` files given on the command line, autofs and network paths.
"""
from __future__ import annotations

import json
import os
import posixpath
import re
import stat
import unicodedata
from collections.abc import Mapping
from pathlib import Path

MAX_NAME = 200
POLICY_DIR = Path("/etc/claude-code")
"""Managed settings on Linux (``managed-settings.json``, ``managed-settings.d/*.json``)."""
_MAX_SETTINGS = 1024 * 1024
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


# ----- the folder's name


def _units(path: str) -> list[int]:
    b = path.encode("utf-16-le", "surrogatepass")
    return [b[i] | b[i + 1] << 8 for i in range(0, len(b), 2)]


def _hash36(path: str) -> str:
    """``Math.abs(h).toString(36)`` of Java's ``String.hashCode`` over the path's UTF-16 code units."""
    h = 0
    for u in _units(path):
        h = ((h << 5) - h + u) & 0xFFFFFFFF
    n = abs(h - (1 << 32) if h >= 1 << 31 else h)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def sanitized(path: str) -> str:
    """*path* with every UTF-16 code unit that is not ``[A-Za-z0-9]`` as ``-``, cut and hashed past 200 units."""
    name = re.sub(r"[^A-Za-z0-9]", "-", path) if path.isascii() else "".join(
        chr(u) if u < 128 and chr(u).isalnum() else "-" for u in _units(path))
    if len(name) <= MAX_NAME:
        return name
    return name[:MAX_NAME] + "-" + _hash36(path)


def folder_name(path: str, env: Mapping[str, str]) -> str:
    """The name of the folder under ``<config dir>/projects/`` for the project at *path* (its git root)."""
    if env.get("CLAUDE_CONFIG_DIR"):
        given = env.get("CLAUDE_CODE_PROJECT_DIR_NAME") or ""
        if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", given) and not re.fullmatch(
                r"con|prn|aux|nul|com[0-9]|lpt[0-9]", given, re.I):
            return given
    return sanitized(path)


# ----- the git root


def _entry(p: str) -> bool:
    """Whether *p* is a folder or a file (a link that leads to one counts)."""
    try:
        st = os.stat(p)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)


def find_git_root(start: str) -> str | None:
    """The first folder from *start* upwards (itself included, up to ``/``) that holds ``.git``, or None."""
    here = os.path.abspath(start)
    while True:
        if _entry(os.path.join(here, ".git")):
            return here
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up


def _read_small(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        return None


def canonical_git_root(root: str) -> str:
    """The folder whose memory a git root *root* uses: a linked worktree's main checkout (or bare repository),
    else *root* itself."""
    text = _read_small(os.path.join(root, ".git"))     # a folder (EISDIR) or unreadable: root itself
    if text is None:
        return root
    text = text.strip()
    if not text.startswith("gitdir:"):
        return root
    gitdir = os.path.normpath(os.path.join(root, text[7:].strip()))
    common_file = os.path.join(gitdir, "commondir")
    if not os.path.isfile(common_file) or os.path.islink(common_file):     # a submodule has none
        return root
    common = os.path.normpath(os.path.join(gitdir, (_read_small(common_file) or "").strip()))
    if os.path.dirname(gitdir) != os.path.join(common, "worktrees"):
        return root
    back_file = os.path.join(gitdir, "gitdir")
    if not os.path.isfile(back_file) or os.path.islink(back_file):
        return root
    back = os.path.realpath(os.path.join(gitdir, (_read_small(back_file) or "").strip()))
    if back != os.path.join(os.path.realpath(root), ".git"):
        return root
    if os.path.basename(common) != ".git":          # a bare repository's worktree: the repository
        return root if _entry(os.path.join(common, ".git")) else common
    return os.path.dirname(common)


def project_root(cwd: str) -> str:
    """The path Claude Code keys a session's memory by: the canonical git root of *cwd*, else *cwd*."""
    root = find_git_root(cwd)
    return canonical_git_root(root) if root is not None else cwd


# ----- settings


def config_dir(user_home: Path, env: Mapping[str, str]) -> Path:
    given = env.get("CLAUDE_CONFIG_DIR")
    return Path(unicodedata.normalize("NFC", given)) if given else user_home / ".claude"


def read_settings(path: Path) -> tuple[dict[str, object] | None, str | None]:
    """A settings file as a JSON object (None when absent or not an object), and a note when it could not be
    read. Claude Code ignores a file it cannot parse."""
    try:
        with open(path, "rb") as f:
            raw = f.read(_MAX_SETTINGS)
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, f"could not read {path}: {e.strerror or e}"
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as e:
        return None, f"could not read {path}: {e}"
    if not isinstance(data, dict):
        return None, f"could not read {path}: not a JSON object"
    return data, None


def _policy(policy_dir: Path) -> dict[str, object]:
    data: dict[str, object] = {}
    base, _ = read_settings(policy_dir / "managed-settings.json")
    data.update(base or {})
    try:
        extra = sorted(p for p in (policy_dir / "managed-settings.d").iterdir() if p.name.endswith(".json"))
    except OSError:
        extra = []
    for p in extra:
        more, _ = read_settings(p)
        data.update(more or {})
    return data


def sources(cwd: str | None, user_home: Path, env: Mapping[str, str],
            policy_dir: Path = POLICY_DIR) -> list[tuple[str, Path | None, dict[str, object]]]:
    """Claude Code's settings by precedence (the first that sets a key wins): ``(source, file, settings)``."""
    out: list[tuple[str, Path | None, dict[str, object]]] = [("policy", policy_dir, _policy(policy_dir))]
    if cwd:
        for name, file in (("local", "settings.local.json"), ("project", "settings.json")):
            p = Path(cwd) / ".claude" / file
            out.append((name, p, read_settings(p)[0] or {}))
    user = config_dir(user_home, env) / "settings.json"
    out.append(("user", user, read_settings(user)[0] or {}))
    return out


def first_set(settings: list[tuple[str, Path | None, dict[str, object]]], key: str) -> object:
    """The value of *key* in the first settings that set it (not null), or None."""
    for _source, _file, data in settings:
        if data.get(key) is not None:
            return data[key]
    return None


def checked_dir(value: object, user_home: Path, tilde: bool = True) -> str | None:
    """A memory folder setting as Claude Code accepts it (absolute, ``/``-ended, NFC), or None when it rejects
    it: empty, not text, ``~`` alone, ``~/..`` and what escapes the home, ``~user``, a relative path, a path
    under 3 characters or holding NUL."""
    if not isinstance(value, str) or not value:
        return None
    v = value
    if tilde and (v.startswith("~/") or v.startswith("~\\")):
        rest = v[2:]
        n = posixpath.normpath(rest or ".")
        if n in (".", "..") or n.startswith("../") or n.startswith("..\\"):
            return None
        v = posixpath.join(str(user_home), rest)
    g = posixpath.normpath(v)
    if g.startswith("//"):
        g = "/" + g.lstrip("/")     # node keeps one leading slash
    g = re.sub(r"[/\\]+$", "", g)
    if not g.startswith("/") or len(g) < 3 or "\x00" in g:
        return None
    return unicodedata.normalize("NFC", g + "/")


def enabled(env: Mapping[str, str], settings: list[tuple[str, Path | None, dict[str, object]]]) -> bool:
    """Whether Claude Code's auto memory is on (see the module's docstring)."""
    if env.get("CLAUDE_CODE_SAFE_MODE", "").strip().lower() in _TRUE:
        return False
    switch = env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    if switch is not None and switch.strip().lower() in _TRUE:
        return False
    if switch is not None and switch.strip().lower() in _FALSE:
        return True
    if env.get("CLAUDE_CODE_SIMPLE"):
        return False
    if env.get("CLAUDE_CODE_REMOTE") and not (env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR")
                                              or env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")):
        return False
    on = first_set(settings, "autoMemoryEnabled")
    return on is not False


def default_dir(cwd: str, user_home: Path, env: Mapping[str, str]) -> Path:
    """``<config dir>/projects/<folder_name(project_root(cwd))>/memory``."""
    key = project_root(cwd)
    remote = env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR")
    if remote:
        return Path(unicodedata.normalize("NFC", posixpath.normpath(posixpath.join(
            remote, "projects", sanitized(key), "memory"))))
    base = config_dir(user_home, env)
    return Path(unicodedata.normalize("NFC", posixpath.normpath(posixpath.join(
        str(base), "projects", folder_name(key, env), "memory"))))


def memory_dir(cwd: str, user_home: Path, env: Mapping[str, str], policy_dir: Path = POLICY_DIR) -> Path | None:
    """The auto memory folder of a session started in *cwd*, or None when auto memory is off there."""
    settings = sources(cwd, user_home, env, policy_dir)
    if not enabled(env, settings):
        return None
    override = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if override:
        got = checked_dir(override, user_home, tilde=False)
        if got:
            return Path(got)
    got = checked_dir(first_set(settings, "autoMemoryDirectory"), user_home)
    return Path(got) if got else default_dir(cwd, user_home, env)
