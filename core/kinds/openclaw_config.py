"""Where OpenClaw keeps its settings and workspaces, and what its ``openclaw.json`` says (2026.9.6).

- Home: ``$OPENCLAW_HOME`` (``~`` expanded) else the user's home. State folder:
  ``$OPENCLAW_STATE_DIR`` else ``<home>/.openclaw`` (the legacy ``~/.clawdbot``
  when only that exists). A profile (``openclaw --profile NAME``) is the state
  folder ``<home>/.openclaw-NAME``.
- The config file: ``$OPENCLAW_CONFIG_PATH``; else the first of ``openclaw.json``
  and the legacy ``clawdbot.json`` found in ``$OPENCLAW_STATE_DIR``, then in
  ``~/.openclaw`` and ``~/.clawdbot``.
- It is JSON5 (read with the ``json5`` package, as OpenClaw reads it with
  ``json5``). ``$include`` (a path or a list of paths, relative to the file
  that names it, inside the config's folder) is replaced by what it names —
  a list merged left to right, sibling keys merged over it (objects merge,
  lists concatenate) — and ``${VAR}`` in string values is taken from the
  environment (an unset one stays as written; ``$${VAR}`` is the text ``${VAR}``).
- A bootstrap limit that is not a positive whole number makes the whole config
  invalid: OpenClaw does not start with it, and its read-only resolver uses the
  defaults (so does the gauge, and says why).
- Agents: ``agents.entries.<id>`` (or the legacy ``agents.list``); none: the one
  agent ``main``. Each agent's limits and workspace: its own entry's, else
  ``agents.defaults``'. Its workspace: its entry's ``workspace``; for the
  owner (the one marked ``default: true``, the only one, or ``main``)
  ``agents.defaults.workspace`` or the default workspace
  (``$OPENCLAW_WORKSPACE_DIR``, ``$OPENCLAW_STATE_DIR/workspace``,
  ``~/.openclaw-<$OPENCLAW_PROFILE>/workspace``, ``~/.openclaw/workspace``);
  for another ``agents.defaults.workspace/<id>``, else ``<state>/workspace-<id>``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..base.log import get_logger
from .base import read_setting

logger = get_logger(__name__)

CONFIG_NAMES = ("openclaw.json", "clawdbot.json")
MAX_CONFIG_BYTES = 2 * 1024 * 1024
MAX_INCLUDE_DEPTH = 10
DEFAULT_AGENT = "main"
_VALID_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.IGNORECASE)
_CANONICAL_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_PROFILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
LIMIT_KEYS = ("bootstrapMaxChars", "bootstrapTotalMaxChars")

Json = object


class ConfigError(ValueError):
    """The config cannot be used: OpenClaw would refuse it (the defaults are used)."""


# ----- places

def openclaw_home(user_home: Path, env: Mapping[str, str]) -> Path:
    value = env.get("OPENCLAW_HOME", "").strip()
    if value:
        return _expand_home(value, user_home)
    return user_home


def _expand_home(value: str, home: Path) -> Path:
    value = value.strip()
    if value == "~" or value.startswith(("~/", "~\\")):
        value = str(home) + value[1:]
    return Path(os.path.abspath(value))


def user_path(value: str, home: Path) -> Path:
    """``resolveUserPath``: trimmed, a leading ``~`` is OpenClaw's home, made absolute and normal."""
    return _expand_home(value, home)


def state_dir(home: Path, env: Mapping[str, str]) -> Path:
    override = env.get("OPENCLAW_STATE_DIR", "").strip()
    if override:
        return _expand_home(override, home)
    new = home / ".openclaw"
    if new.exists():
        return new
    legacy = home / ".clawdbot"
    return legacy if legacy.exists() else new


def config_path(home: Path, env: Mapping[str, str]) -> Path:
    explicit = env.get("OPENCLAW_CONFIG_PATH", "").strip()
    if explicit:
        return _expand_home(explicit, home)
    candidates: list[Path] = []
    override = env.get("OPENCLAW_STATE_DIR", "").strip()
    if override:
        candidates += [_expand_home(override, home) / n for n in CONFIG_NAMES]
    for d in (home / ".openclaw", home / ".clawdbot"):
        candidates += [d / n for n in CONFIG_NAMES]
    for c in candidates:
        if c.exists():
            return c
    return state_dir(home, env) / CONFIG_NAMES[0]


def default_workspace(home: Path, env: Mapping[str, str]) -> Path:
    explicit = env.get("OPENCLAW_WORKSPACE_DIR", "").strip()
    if explicit:
        return Path(os.path.abspath(explicit))
    if env.get("OPENCLAW_STATE_DIR", "").strip():
        return state_dir(home, env) / "workspace"
    profile = env.get("OPENCLAW_PROFILE", "").strip()
    if profile and profile.lower() != "default":
        return home / f".openclaw-{profile}" / "workspace"
    return home / ".openclaw" / "workspace"


# ----- reading openclaw.json

def _parse(raw: str) -> Json:
    try:
        return json.loads(raw)
    except ValueError:
        import json5  # the maintained JSON5 reader; only a config that is not plain JSON needs it

        return json5.loads(raw)


def _read(path: Path) -> str:
    data = read_setting(path, MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes")
    return data.decode("utf-8", "replace")


def _merge(a: Json, b: Json) -> Json:
    """OpenClaw's include merge: objects merge key by key, lists concatenate, anything else is replaced."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = _merge(out[k], v) if k in out else v
        return out
    if isinstance(a, list) and isinstance(b, list):
        return a + b
    return b


def _within(root: Path, p: Path) -> bool:
    try:
        p.relative_to(root)
        return True
    except ValueError:
        return False


def _includes(value: Json, base: Path, root: Path, seen: tuple[Path, ...], depth: int) -> Json:
    if isinstance(value, list):
        return [_includes(v, base, root, seen, depth) for v in value]
    if not isinstance(value, dict):
        return value
    if "$include" not in value:
        return {k: _includes(v, base, root, seen, depth) for k, v in value.items()}
    spec = value["$include"]
    names = [spec] if isinstance(spec, str) else spec if isinstance(spec, list) else None
    if names is None or not all(isinstance(n, str) for n in names):
        raise ConfigError("$include must be a path or a list of paths")
    included: Json = {}
    for name in names:
        target = Path(os.path.normpath(base.parent / name))
        real = Path(os.path.realpath(target))
        if not _within(root, target) or not _within(Path(os.path.realpath(root)), real):
            raise ConfigError(f"$include {name} leaves the config's folder")
        if target in seen:
            raise ConfigError(f"$include {name} includes itself")
        if depth >= MAX_INCLUDE_DEPTH:
            raise ConfigError(f"$include {name}: more than {MAX_INCLUDE_DEPTH} levels")
        import json5

        parsed = json5.loads(_read(target))
        part = _includes(parsed, target, root, (*seen, target), depth + 1)
        included = part if len(names) == 1 else _merge(included, part)
    rest = {k: _includes(v, base, root, seen, depth) for k, v in value.items() if k != "$include"}
    if not rest:
        return included
    if not isinstance(included, dict):
        raise ConfigError("keys beside $include need it to name an object")
    return _merge(included, rest)


def _env_text(value: str, env: Mapping[str, str]) -> str:
    if "$" not in value:
        return value
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "$":
            escaped = value.startswith("${", i + 1)
            start = i + 3 if escaped else i + 2
            if escaped or value.startswith("{", i + 1):
                end = value.find("}", start)
                name = value[start:end] if end >= 0 else ""
                if end >= 0 and _ENV_NAME.fullmatch(name):
                    out.append("${" + name + "}" if escaped or not env.get(name) else env[name])
                    i = end + 1
                    continue
        out.append(ch)
        i += 1
    return "".join(out)


def _env(value: Json, env: Mapping[str, str]) -> Json:
    if isinstance(value, str):
        return _env_text(value, env)
    if isinstance(value, list):
        return [_env(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _env(v, env) for k, v in value.items()}
    return value


def _is_count(v: object) -> bool:
    """A positive whole number, as OpenClaw's schema wants a bootstrap limit (``1000.0`` is one: JSON has no
    separate integers)."""
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and v not in (float("inf"),)
            and v > 0 and float(v).is_integer())


def _check(config: dict[str, Json]) -> None:
    agents = config.get("agents")
    if not isinstance(agents, dict):
        return
    listed = agents.get("list")
    if listed is not None and agents.get("entries") is None:     # the old roster, moved into entries when it can be
        if not isinstance(listed, list) or not all(isinstance(e, dict) and isinstance(e.get("id"), str)
                                                   and _CANONICAL_ID.fullmatch(e["id"]) for e in listed):
            raise ConfigError("agents.list cannot become agents.entries: each needs an id of lowercase letters, "
                              "digits, '_' and '-'")
    elif listed is not None:
        raise ConfigError('unrecognized key "list" in agents')
    if has_roster(config) and not roster(config):
        raise ConfigError("agents.entries must contain at least one configured agent")
    if len(roster(config)) > 1 and agents.get("ownership") != "explicit" \
            and sum(e.get("default") is True for _, e in roster(config)) != 1:
        raise ConfigError('multi-agent rosters require agents.ownership="explicit" or one default=true marker')
    places: list[tuple[str, object]] = []
    defaults = agents.get("defaults")
    if isinstance(defaults, dict):
        places.append(("agents.defaults", defaults))
    for entry_id, entry in roster(config):
        places.append((f"agents.entries.{entry_id}", entry))
    for where, d in places:
        if not isinstance(d, dict):
            continue
        for key in LIMIT_KEYS:
            if key in d and not _is_count(d[key]):
                raise ConfigError(f"{where}.{key} must be a positive whole number (it is {d[key]!r})")


def load_config(path: Path, env: Mapping[str, str]) -> tuple[dict[str, Json], str | None]:
    """``openclaw.json`` as OpenClaw resolves it, and why it could not be used (then ``{}``: the defaults)."""
    if not path.exists():
        return {}, None
    try:
        data = _parse(_read(path))
        if not isinstance(data, dict):
            raise ConfigError("not a JSON object")
        resolved = _includes(data, path, Path(os.path.normpath(path.parent)), (path,), 0)
        if not isinstance(resolved, dict):
            raise ConfigError("not a JSON object")
        config = _env(resolved, env)
        assert isinstance(config, dict)
        _check(config)
    except (OSError, ValueError, RecursionError) as e:
        return {}, f"could not use {path}: {e}"
    return config, None


# ----- agents

def normalize_id(value: object) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if _VALID_ID.fullmatch(text):
        return text.lower()
    cut = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-")[:64]
    return cut or DEFAULT_AGENT


def _agents(config: Mapping[str, Json]) -> dict[str, Json]:
    agents = config.get("agents")
    return agents if isinstance(agents, dict) else {}


def has_roster(config: Mapping[str, Json]) -> bool:
    a = _agents(config)
    return a.get("entries") is not None or a.get("list") is not None


def roster(config: Mapping[str, Json]) -> list[tuple[str, dict[str, Json]]]:
    """The configured agents, in order: (id as written, entry)."""
    a = _agents(config)
    entries = a.get("entries")
    if entries is not None:
        return [(k, v) for k, v in entries.items() if isinstance(v, dict)] if isinstance(entries, dict) else []
    listed = a.get("list")
    if isinstance(listed, list):
        return [(str(v.get("id", "")), v) for v in listed if isinstance(v, dict)]
    return []


def agent_ids(config: Mapping[str, Json]) -> list[str]:
    if not roster(config) and not has_roster(config):
        return [DEFAULT_AGENT]
    return list(dict.fromkeys(normalize_id(i) for i, _ in roster(config)))


def entry(config: Mapping[str, Json], agent: str) -> dict[str, Json] | None:
    want = normalize_id(agent)
    for i, e in roster(config):
        if normalize_id(i) == want:
            return e
    return {} if want == DEFAULT_AGENT and not has_roster(config) else None


def owner(config: Mapping[str, Json]) -> str | None:
    """The agent that inherits the default workspace: the one marked ``default: true`` (unless ownership is
    explicit), else the only one (``main`` with no roster)."""
    if _agents(config).get("ownership") != "explicit":
        marked = [i for i, e in roster(config) if e.get("default") is True]
        if len(marked) == 1:
            return normalize_id(marked[0])
    listed = roster(config)
    if not listed:
        return None if has_roster(config) else DEFAULT_AGENT
    return normalize_id(listed[0][0]) if len(listed) == 1 else None


def default_agent(config: Mapping[str, Json]) -> str:
    """The agent a plain session runs as (the configured system agent, else the owner, else ``main``)."""
    defaults = _agents(config).get("defaults")
    system = defaults.get("systemAgent") if isinstance(defaults, dict) else None
    chosen = system.get("agentId") if isinstance(system, dict) else None
    if isinstance(chosen, str) and chosen.strip():
        return normalize_id(chosen)
    return owner(config) or DEFAULT_AGENT


def setting(config: Mapping[str, Json], agent: str, key: str) -> Json:
    """An agent's own value for *key*, else ``agents.defaults``'."""
    own = entry(config, agent)
    if own is not None and own.get(key) is not None:
        return own.get(key)
    defaults = _agents(config).get("defaults")
    return defaults.get(key) if isinstance(defaults, dict) else None


def char_limit(config: Mapping[str, Json], agent: str, key: str, default: int) -> int:
    v = setting(config, agent, key)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf") and v > 0:
        return int(v // 1)
    return default


def workspace_of(config: Mapping[str, Json], agent: str, home: Path, env: Mapping[str, str]) -> Path:
    """``resolveAgentWorkspaceDir``."""
    agent = normalize_id(agent)
    own = entry(config, agent)
    configured = own.get("workspace") if own is not None else None
    if isinstance(configured, str) and configured.strip():
        return user_path(configured, home)
    defaults = _agents(config).get("defaults")
    fallback = defaults.get("workspace") if isinstance(defaults, dict) else None
    fallback = fallback.strip() if isinstance(fallback, str) else ""
    if agent == owner(config):
        return user_path(fallback, home) if fallback else default_workspace(home, env)
    if fallback:
        return user_path(fallback, home) / agent
    return state_dir(home, env) / f"workspace-{agent}"


# ----- set-ups: the default one and each profile

@dataclass(frozen=True)
class Setup:
    """One OpenClaw installation's settings: its environment (a profile's is the default's with its state
    folder and config file), its state folder, and its config."""

    name: str                       # "" for the default, else the profile's name
    env: Mapping[str, str]
    home: Path
    state: Path
    config_path: Path
    config: dict[str, Json]
    problem: str | None

    def workspaces(self) -> Iterator[tuple[str, Path]]:
        """Each agent's workspace, and the ``workspace-<id>`` folders in the state folder."""
        seen: set[Path] = set()
        for agent in agent_ids(self.config):
            p = workspace_of(self.config, agent, self.home, self.env)
            if p not in seen:
                seen.add(p)
                yield agent, p
        try:
            extra = sorted(n for n in os.listdir(self.state) if n.startswith("workspace-"))
        except OSError:
            extra = []
        for name in extra:
            p = self.state / name
            if p not in seen and p.is_dir():
                seen.add(p)
                yield normalize_id(name[len("workspace-"):]), p


def _setup(name: str, env: Mapping[str, str], home: Path) -> Setup:
    path = config_path(home, env)
    config, problem = load_config(path, env)
    return Setup(name, env, home, state_dir(home, env), path, config, problem)


def setups(user_home: Path, env: Mapping[str, str]) -> list[Setup]:
    """The default set-up (as the environment says) and one for each profile folder ``<home>/.openclaw-NAME``."""
    home = openclaw_home(user_home, env)
    out = [_setup("", env, home)]
    try:
        names = sorted(os.listdir(home))
    except OSError:
        names = []
    for n in names:
        profile = n[len(".openclaw-"):]
        if not n.startswith(".openclaw-") or not _PROFILE.fullmatch(profile) or not (home / n).is_dir():
            continue
        if profile.lower() == "default":
            continue
        state = home / n
        penv = {**env, "OPENCLAW_PROFILE": profile, "OPENCLAW_STATE_DIR": str(state),
                "OPENCLAW_CONFIG_PATH": str(state / CONFIG_NAMES[0])}
        penv.pop("OPENCLAW_WORKSPACE_DIR", None)
        if state == out[0].state:
            continue
        out.append(_setup(profile, penv, home))
    return out


def owning(folder: Path, user_home: Path, env: Mapping[str, str]) -> tuple[Setup, str]:
    """The set-up and agent whose workspace *folder* is (the default set-up's default agent when none is)."""
    all_setups = setups(user_home, env)
    want = _real(folder)
    for s in all_setups:
        for agent, p in s.workspaces():
            if _real(p) == want:
                return s, agent
    first = all_setups[0]
    return first, default_agent(first.config)


def _real(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p.absolute()


# ----- the workspace's set-up state

def setup_completed(state: Path, workspace: Path) -> bool:
    """True when OpenClaw's state database records the workspace's setup as completed (then it no longer
    injects ``BOOTSTRAP.md``). The database is only read; one that cannot be read says no, as OpenClaw's does."""
    db = state / "state" / "openclaw.sqlite"
    if not db.is_file():
        return False
    key = hashlib.sha256(unicodedata.normalize("NFC", os.path.normpath(str(_real(workspace)))).encode()).hexdigest()
    try:
        con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=0.5)
        try:
            row = con.execute("SELECT setup_completed_at FROM workspace_setup_state WHERE workspace_key = ?",
                              (key,)).fetchone()
        finally:
            con.close()
    except sqlite3.Error as e:
        logger.info("could not read %s: %s", db, e)
        return False
    return bool(row and isinstance(row[0], str) and row[0].strip())
