"""``botmemory connect``: botmemory's entries in the settings of the agents people run.

- ``claude-code``: the hooks (SessionStart, UserPromptSubmit, Stop, SessionEnd
  run ``botmemory hook claude-code``) in ``<claude dir>/settings.json`` (or a
  project's ``.claude/settings.json``), and with ``--bot`` the MCP server in
  ``~/.claude.json`` (or the project's ``.mcp.json``); the hook is then bound
  to that bot (``--bot BOT`` in its command) and recalls from it too.
- ``claude-desktop``: the MCP server in ``claude_desktop_config.json``.
- ``cursor``: the MCP server in ``~/.cursor/mcp.json`` (or ``DIR/.cursor/mcp.json``).

Every other key and every other hook stays as it was; a second run changes
nothing; ``remove`` takes out exactly what was added (a file botmemory created
goes again). A file is written atomically, never through a symbolic link, after
a one-time copy of what it held before botmemory first touched it
(``FILE.botmemory-backup``; an empty backup when there was no file). A file
that is not a JSON object is refused with its path and never overwritten.
``dry_run`` says which files would change and writes nothing (the demo's
Connect).

The command written is the absolute path of the ``botmemory`` command line of
this installation — never the tray app's, whichever program connects.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import BadInput
from ..disk.paths import Home, check_bot_id
from ..disk.safeio import atomic_write, read_file

AGENTS = ("claude-code", "claude-desktop", "cursor")
NEW_FILE_MODE = 0o600   # a settings file botmemory creates; one that exists keeps its own mode
SERVER = "botmemory"
HOOK_EVENTS = {"SessionStart": 10, "UserPromptSubmit": 10, "Stop": 10, "SessionEnd": 2}  # event -> timeout (s)
HOOK_WORDS = ("hook", "claude-code")
BACKUP_SUFFIX = ".botmemory-backup"

Json = dict[str, Any]


def claude_dir() -> Path:
    """Claude Code's folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``): the Claude Code kind's rule."""
    from ..kinds.claude_code import claude_dir as kind_claude_dir

    return kind_claude_dir(Path.home(), os.environ)


def claude_json() -> Path:
    """Claude Code's user-scope MCP servers: ``~/.claude.json`` (inside $CLAUDE_CONFIG_DIR when set)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() / ".claude.json" if env else Path.home() / ".claude.json"


def claude_desktop_config() -> Path:
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support" / "Claude"
    elif sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming") / "Claude"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "Claude"
    return base / "claude_desktop_config.json"


def cursor_config(project: Path | None) -> Path:
    return (project / ".cursor" if project else Path.home() / ".cursor") / "mcp.json"


CLI_NAME = "botmemory.exe" if os.name == "nt" else "botmemory"


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def botmemory_command() -> list[str]:
    """An absolute command line that starts this installation's ``botmemory`` command line (what the agents'
    configs run) — never another program named ``botmemory*`` such as the tray app, which would raise its
    panel (or start and never exit) on every prompt. In order: the running program when it is ``botmemory``;
    the ``botmemory`` beside the running program (a virtual environment's ``bin/``, a bundle's folder) or
    beside this Python; the one on PATH; else this Python with ``-m botmemory.core.faces.cli``."""
    places: list[Path] = []
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None:
        found = shutil.which(str(argv0)) if argv0.name.startswith("botmemory") else None
        if found is not None:
            here = Path(found).absolute()
            if here.name == CLI_NAME:
                return [str(here)]
            places.append(here.parent / CLI_NAME)
    places.append(Path(sys.executable).absolute().parent / CLI_NAME)
    for candidate in places:
        if _runnable(candidate):
            return [str(candidate)]
    found = shutil.which(CLI_NAME)
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "botmemory.core.faces.cli"]


def base_command(home: Home) -> list[str]:
    """The botmemory command, plus ``--root`` when the home is not the default one."""
    cmd = botmemory_command()
    if home.root != Path.home() / ".openmausbot":
        cmd += ["--root", str(home.root)]
    return cmd


def _shell_join(parts: list[str]) -> str:
    if os.name == "nt":
        import subprocess

        return subprocess.list2cmdline(parts)
    import shlex

    return shlex.join(parts)


# ----- reading and writing one settings file


def read_json(path: Path, root: Path | None = None) -> Json:
    """A settings file's object ({} when it does not exist); BadInput names a file that is not a JSON object.

    *root* is where the link-free walk starts (:func:`trust_root`); the file itself is never a link."""
    ft = read_file(path, root)
    if ft is None or not ft.text.strip():
        return {}
    if not ft.valid:  # rewriting it would replace the bytes that are not UTF-8 by U+FFFD
        raise BadInput(f"{path} is not valid UTF-8; botmemory will not overwrite it")
    try:
        data = json.loads(ft.text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{path} is not valid JSON (line {e.lineno}: {e.msg}); botmemory will not overwrite it") \
            from None
    if not isinstance(data, dict):
        raise BadInput(f"{path} does not hold a JSON object; botmemory will not overwrite it")
    return data


def _mode_of(path: Path) -> int:
    """The permission bits the agent's file has (they stay as they were); 0600 for a new file."""
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except FileNotFoundError:
        return NEW_FILE_MODE


def update_json(path: Path, change: Callable[[Json], None], root: Path | None = None, *,
                dry_run: bool = False, remove: bool = False) -> bool:
    """Apply *change* to the object in *path*; write (atomically, after a one-time backup of the file as it was
    before botmemory first touched it) when it differs. *remove*: when that leaves the file as botmemory found it
    absent (its backup is empty), the file and the backup go. *dry_run*: only say whether it would change."""
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    for _ in range(3):          # the agent may rewrite its file meanwhile: start again from what it holds
        before = read_file(path, root)
        data = read_json(path, root)
        new = json.loads(json.dumps(data))
        try:
            change(new)
        except BadInput as e:   # a part of the file is not what it should be: name the file
            raise BadInput(f"{path}: {e}") from None
        if new == data:
            return False
        if dry_run:
            return True
        if read_file(path, root) != before:
            continue
        kept = read_file(backup, root)
        if remove and not new and kept is not None and not kept.text.strip():
            os.unlink(path)          # botmemory made this file: it goes, as it was before
            os.unlink(backup)
            return True
        if kept is None:             # the file as it was before botmemory first touched it ("": none)
            atomic_write(backup, before.text.encode("utf-8") if before is not None else b"", root)
        atomic_write(path, (json.dumps(new, indent=2, ensure_ascii=False) + "\n").encode("utf-8"), root,
                     mode=_mode_of(path))
        return True
    raise BadInput(f"{path} kept changing while botmemory was writing it; try again")


def keep_empty(data: Json, original: Json) -> None:
    """Put back the empty containers (``hooks``, ``hooks.<event>``, ``mcpServers``) the file held empty
    before botmemory first added to them, so that a removal leaves exactly what was there."""
    for key in ("hooks", "mcpServers"):
        if isinstance(original.get(key), dict) and key not in data:
            data[key] = {}
    hooks, before = data.get("hooks"), original.get("hooks")
    if isinstance(hooks, dict) and isinstance(before, dict):
        for event in HOOK_EVENTS:
            if before.get(event) == [] and event not in hooks:
                hooks[event] = []


def _backup_of(path: Path, root: Path | None = None) -> Json:
    """What *path* held before botmemory first changed it ({} when unknown)."""
    try:
        return read_json(path.with_name(path.name + BACKUP_SUFFIX), root)
    except BadInput:
        return {}


def _mcp_entry(home: Home, bot: str) -> Json:
    cmd = base_command(home)
    return {"command": cmd[0], "args": [*cmd[1:], "mcp", bot], "env": {}}


def _object_at(data: Json, key: str) -> Json:
    """``data[key]``, made an empty object when it is missing; BadInput when it is not a JSON object."""
    value = data.get(key)
    if value is None:
        value = data[key] = {}
    if not isinstance(value, dict):
        raise BadInput(f"{key} is not a JSON object; botmemory will not change it")
    return value


def _is_ours_mcp(entry: object) -> bool:
    return isinstance(entry, dict) and "mcp" in (entry.get("args") or []) and "botmemory" in json.dumps(entry)


def set_mcp(data: Json, entry: Json | None) -> None:
    """Add (or with None remove) botmemory's server under ``mcpServers``; other servers stay."""
    servers = data.get("mcpServers")
    if entry is None:
        if isinstance(servers, dict) and _is_ours_mcp(servers.get(SERVER)):
            del servers[SERVER]
            if not servers:
                del data["mcpServers"]
        return
    servers = _object_at(data, "mcpServers")
    current = servers.get(SERVER)
    if current is not None and not _is_ours_mcp(current):
        raise BadInput(f"an MCP server named {SERVER!r} that is not botmemory's is already there; "
                       "rename or remove it first")
    if current != entry:
        servers[SERVER] = entry


def _is_ours_hook(h: object) -> bool:
    if not isinstance(h, dict) or not isinstance(h.get("command"), str):
        return False
    words = h["command"].split()
    return "botmemory" in h["command"] and any(words[i:i + 2] == list(HOOK_WORDS) for i in range(len(words)))


def _drop_ours(groups: list[Any], keep_first: bool) -> tuple[list[Any], dict[str, Any] | None, bool]:
    """*groups* without botmemory's hooks (the first one kept when *keep_first*); a group emptied by that goes.

    Returns (groups, the kept hook or None, whether anything was dropped).
    """
    kept_hook: dict[str, Any] | None = None
    dropped = False
    out: list[Any] = []
    for g in groups:
        inner = g.get("hooks") if isinstance(g, dict) else None
        if not isinstance(inner, list) or not any(map(_is_ours_hook, inner)):
            out.append(g)
            continue
        new_inner = []
        for h in inner:
            if _is_ours_hook(h) and not (keep_first and kept_hook is None):
                dropped = True
                continue
            if _is_ours_hook(h):
                kept_hook = h
            new_inner.append(h)
        if new_inner:
            g["hooks"] = new_inner
            out.append(g)
    return out, kept_hook, dropped


def set_hooks(data: Json, command: str | None) -> None:
    """Add (or with None remove) botmemory's hook for each event; other hooks, and their order, stay."""
    hooks = data.get("hooks")
    if command is None:
        if not isinstance(hooks, dict):
            return
        for event in HOOK_EVENTS:
            groups = hooks.get(event)
            if isinstance(groups, list):
                groups, _, dropped = _drop_ours(groups, keep_first=False)
                if dropped:
                    if groups:
                        hooks[event] = groups
                    else:
                        del hooks[event]
                        if not hooks:
                            del data["hooks"]
        return
    hooks = _object_at(data, "hooks")
    for event, timeout in HOOK_EVENTS.items():
        ours = {"type": "command", "command": command, "timeout": timeout}
        groups = hooks.get(event)
        if groups is None:
            hooks[event] = [{"hooks": [ours]}]
            continue
        if not isinstance(groups, list):
            raise BadInput(f"hooks.{event} is not a list; botmemory will not change it")
        groups, kept, _ = _drop_ours(groups, keep_first=True)
        if kept is None:
            groups.append({"hooks": [ours]})
        elif kept != ours:
            kept.clear()
            kept.update(ours)
        hooks[event] = groups


def has_hooks(data: Json) -> bool:
    hooks = data.get("hooks")
    return isinstance(hooks, dict) and all(
        isinstance(hooks.get(e), list)
        and any(isinstance(g, dict) and any(map(_is_ours_hook, g.get("hooks") or [])) for g in hooks[e])
        for e in HOOK_EVENTS)


def mcp_bot(data: Json) -> str | None:
    servers = data.get("mcpServers")
    entry = servers.get(SERVER) if isinstance(servers, dict) else None
    if not _is_ours_mcp(entry):
        return None
    args = list(entry["args"]) if isinstance(entry, dict) else []
    i = args.index("mcp")
    return str(args[i + 1]) if i + 1 < len(args) else None


# ----- the agents


@dataclass
class Outcome:
    agent: str
    changed: list[str] = field(default_factory=list)     # the files written
    files: list[str] = field(default_factory=list)       # the files looked at

    def as_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "changed": self.changed, "files": self.files}


def _files(agent: str, project: Path | None) -> tuple[Path | None, Path]:
    """(hook settings or None, MCP config) for *agent*."""
    if agent == "claude-code":
        if project is not None:
            return project / ".claude" / "settings.json", project / ".mcp.json"
        return claude_dir() / "settings.json", claude_json()
    if agent == "claude-desktop":
        if project is not None:
            raise BadInput("claude-desktop has no project settings: leave out --project")
        return None, claude_desktop_config()
    if agent == "cursor":
        return None, cursor_config(project)
    raise BadInput(f"unknown agent {agent!r}: one of {', '.join(AGENTS)}")


def trust_root(path: Path, project: Path | None) -> Path:
    """Where the walk to a settings file starts: the project for its files (its ``.claude`` may not be a link);
    else the file's own folder (``~/.claude`` itself may be a link, as dotfiles often are)."""
    if project is not None and path.is_relative_to(project):
        return project
    return path.parent


def _project(project: str | None) -> Path | None:
    if project is None:
        return None
    p = Path(project).expanduser().absolute()
    if not p.is_dir():
        raise BadInput(f"--project {project}: no such folder")
    return p


def hook_command(home: Home, bot: str | None) -> str:
    return _shell_join([*base_command(home), "hook", "claude-code", *(["--bot", bot] if bot else [])])


def connect(home: Home, agent: str, *, project: str | None = None, bot: str | None = None,
            remove: bool = False, dry_run: bool = False) -> Outcome:
    """Add (or remove) botmemory's entries in *agent*'s settings; the files written are in ``changed``
    (*dry_run*: the files that would change; nothing is written)."""
    proj = _project(project)
    hooks_file, mcp_file = _files(agent, proj)
    if bot is not None:
        check_bot_id(bot)
        if not remove:
            home.require_bot(bot)
    if agent != "claude-code" and bot is None and not remove:
        raise BadInput(f"connect {agent} needs --bot BOT: the memory its MCP server serves")
    out = Outcome(agent)
    for path in (hooks_file, mcp_file):   # check both files before writing either
        if path is not None:
            out.files.append(str(path))
            read_json(path, trust_root(path, proj))
    if hooks_file is not None:
        command = None if remove else hook_command(home, bot)
        if _set(hooks_file, lambda d: set_hooks(d, command), remove, trust_root(hooks_file, proj), dry_run):
            out.changed.append(str(hooks_file))
    if remove or bot is not None:
        entry = None if remove else _mcp_entry(home, bot or "")
        if _set(mcp_file, lambda d: set_mcp(d, entry), remove, trust_root(mcp_file, proj), dry_run):
            out.changed.append(str(mcp_file))
    return out


def _set(path: Path, change: Callable[[Json], None], remove: bool, root: Path, dry_run: bool = False) -> bool:
    """Apply *change* to a JSON settings file; on removal, put back the empty containers it held before we
    connected (from its backup). True when the file changed (*dry_run*: would change)."""
    original = _backup_of(path, root) if remove else {}

    def apply(d: Json) -> None:
        change(d)
        if remove:
            keep_empty(d, original)

    return update_json(path, apply, root, dry_run=dry_run, remove=remove)


def _found(agent: str) -> bool:
    """Whether *agent* looks installed on this computer (its settings folder exists)."""
    if agent == "claude-code":
        return claude_dir().is_dir() or claude_json().exists() or shutil.which("claude") is not None
    if agent == "claude-desktop":
        return claude_desktop_config().parent.is_dir()
    return cursor_config(None).parent.is_dir()


WHAT_IT_DOES = {
    "claude-code": "hooks: each prompt gets the matching notes, each session says when MEMORY.md no longer all "
                   "loads, and what Claude changes in its memory folder is journaled as its work; with a bot, "
                   "also the memory tools over MCP",
    "claude-desktop": "the memory tools over MCP: Claude can remember, forget, search and edit the bot's notes "
                      "(restart Claude Desktop after connecting)",
    "cursor": "the memory tools over MCP: Cursor's agent can remember, forget, search and edit the bot's notes",
}


def status(project: str | None = None) -> list[dict[str, Any]]:
    """Per agent: found on this computer, hooks connected, the bot its MCP server serves."""
    proj = _project(project)
    out: list[dict[str, Any]] = []
    for agent in AGENTS:
        if agent == "claude-desktop" and proj is not None:
            hooks_file, mcp_file = _files(agent, None)
        else:
            hooks_file, mcp_file = _files(agent, proj)
        d: dict[str, Any] = {"agent": agent, "found": _found(agent), "does": WHAT_IT_DOES[agent]}
        errors: list[str] = []

        def load(p: Path) -> Json:   # called in this pass of the loop only (B023 below)
            try:
                return read_json(p, trust_root(p, proj))
            except Exception as e:  # noqa: BLE001 - a status line names the broken file, never fails
                errors.append(str(e))  # noqa: B023
                return {}

        hooks = has_hooks(load(hooks_file)) if hooks_file is not None else None
        bot = mcp_bot(load(mcp_file))
        d.update({"hooks": hooks, "mcp_bot": bot,
                  "connected": bool(hooks) or bot is not None,
                  "files": [str(p) for p in (hooks_file, mcp_file) if p is not None]})
        if errors:
            d["error"] = errors[0]
        out.append(d)
    return out
