"""Hermes Agent's memories: ``<hermes home>/memories/MEMORY.md`` and ``USER.md``.

As hermes-agent 0.19.0 reads them (``tools/memory_tool.py``, ``agent/agent_init.py``,
``hermes_cli/config.py``; proven against that code by tests/conformance):

- A file is read as UTF-8 text with universal newlines (``\\r\\n`` and a lone
  ``\\r`` are ``\\n``) and split into entries at ``"\\n§\\n"`` only — a ``§`` alone
  on its line; a ``§`` inside a line is text. Each entry is stripped, empty ones
  are dropped and duplicates folded (the first kept).
- The snapshot put into the system prompt at session start is, per file, a block:
  46 ``═``, a header ``MEMORY (your personal notes) [p% — n/limit chars]`` (or
  ``USER PROFILE (who the user is) […]``), 46 ``═``, then the entries joined by
  ``"\\n§\\n"`` — each entry with a threat (invisible characters, prompt injection,
  exfiltration, a hard-coded secret: :mod:`.hermes_guard`) replaced by a
  ``[BLOCKED: …]`` placeholder, which the header counts. Nothing is ever cut.
- Limits are ``memory.memory_char_limit`` and ``memory.user_char_limit`` of the
  home's ``config.yaml`` (2,200 and 1,375 by default), used as given: a float is
  a float. ``memory.memory_enabled`` / ``user_profile_enabled: false`` leave
  that block out. A limit that is not a number (or a ``nudge_interval`` that is
  not an integer, or ``memory`` that is not a mapping) makes Hermes drop its
  memory silently: neither file loads.
- Hermes refuses an entry that would take a file past its limit, counting the
  entries as the file has them (not the placeholders): a file is *full* when not
  even a one-character entry fits (each entry after the first costs the
  three-character separator too). The gauge is red then.

Profiles are ``<hermes root>/profiles/<name>/``, each a home of its own (its
``config.yaml`` and ``memories/``): every one is found.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ..base.errors import BadInput
from ..base.record import field, record, replace  # (Limits is a record: its replace and field)
from ..disk.paths import FileKind
from .base import MEMORY_FILE, AgentGauge, AgentKind, Found, Limits, Loaded, Piece, list_md, read_setting, split_lines
from .hermes_guard import for_prompt
from .versions import dist_info_version, on_path, venv_sites

USER_FILE = "USER.md"
DELIMITER = "\n§\n"
SEPARATOR = "═" * 46
HEADERS = {MEMORY_FILE: "MEMORY (your personal notes)", USER_FILE: "USER PROFILE (who the user is)"}
DEFAULT_LIMITS = {MEMORY_FILE: 2200, USER_FILE: 1375}
_KEYS = {MEMORY_FILE: "memory_char_limit", USER_FILE: "user_char_limit"}
_SWITCHES = {MEMORY_FILE: "memory_enabled", USER_FILE: "user_profile_enabled"}
_PROFILE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_ENV_REF = re.compile(r"\$\{([^}]+)\}")


def hermes_dir(user_home: Path, env: Mapping[str, str]) -> Path:
    """Hermes' home: ``$HERMES_HOME`` as given (stripped; Hermes expands no ``~``), else ``~/.hermes``."""
    value = env.get("HERMES_HOME", "").strip()
    return Path(value) if value else user_home / ".hermes"


# ----- entries

def _universal(text: str) -> tuple[str, list[int] | None]:
    """*text* with universal newlines, and where each of its characters starts in *text* (None: the same)."""
    if "\r" not in text:
        return text, None
    out: list[str] = []
    starts: list[int] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        starts.append(i)
        if ch == "\r":
            out.append("\n")
            i += 2 if i + 1 < n and text[i + 1] == "\n" else 1
        else:
            out.append(ch)
            i += 1
    starts.append(n)
    return "".join(out), starts


def _segments(text: str) -> list[tuple[int, int, str]]:
    """The parts of *text* between Hermes' separators: (start, end) in *text*, and the part as Hermes reads it."""
    t, starts = _universal(text)

    def at(k: int) -> int:
        return k if starts is None else starts[k]

    out = []
    pos = 0
    for part in t.split(DELIMITER):
        out.append((at(pos), at(pos + len(part)), part))
        pos += len(part) + len(DELIMITER)
    return out


def entries_of(text: str) -> list[str]:
    """The entries Hermes keeps of a file's text: split, stripped, empty ones dropped, duplicates folded."""
    t, _ = _universal(text)
    if not t.strip():
        return []
    return list(dict.fromkeys(e for e in (p.strip() for p in t.split(DELIMITER)) if e))


def _pieces(text: str) -> list[Piece]:
    """Every entry of *text* as it stands in the file (duplicates too), as Hermes reads its text."""
    out: list[Piece] = []
    for start, end, part in _segments(text):
        body = part.strip()
        if body:
            out.append(Piece(body, start, end))
    return out


def live_chars(entries: Sequence[str]) -> int:
    """What Hermes counts a file as when it budgets a write: its entries joined by the separator."""
    return len(DELIMITER.join(entries))


def render(file: str, entries: Sequence[str], limit: object) -> str:
    """Hermes' block for a file in its prompt (``_render_block``); "" without entries. Raises what Hermes' own
    arithmetic raises for a limit that is not a number."""
    if not entries:
        return ""
    content = DELIMITER.join(entries)
    current = len(content)
    pct = min(100, int((current / limit) * 100)) if limit > 0 else 0    # type: ignore[operator]
    header = f"{HEADERS[file]} [{pct}% — {current:,}/{limit:,} chars]"
    return f"{SEPARATOR}\n{header}\n{SEPARATOR}\n{content}"


# ----- settings

@record(frozen=True)
class HermesLimits(Limits):
    """Hermes' settings for one home, as its agent start-up reads them."""

    raw: dict[str, object] = field(default_factory=dict)   # each file's limit exactly as the config gives it
    enabled: dict[str, bool] = field(default_factory=dict)
    broken: str = ""     # why Hermes builds no memory at all from these settings ("" when it does)


def _merge(base: dict[str, object], over: Mapping[object, object]) -> dict[str, object]:
    """Hermes' deep merge: mappings merge, a None over a mapping keeps it, anything else replaces."""
    out = dict(base)
    for k, v in over.items():
        key = str(k)
        old = out.get(key)
        if isinstance(old, dict) and isinstance(v, dict):
            out[key] = _merge(old, v)
        elif isinstance(old, dict) and v is None and key in out:
            continue
        else:
            out[key] = v
    return out


def _expand(value: object, env: Mapping[str, str]) -> object:
    """``${VAR}`` in string values, from the environment; an unset one stays as written."""
    if isinstance(value, str):
        return _ENV_REF.sub(lambda m: env.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {k: _expand(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, env) for v in value]
    return value


def _yaml(path: Path) -> object:
    import yaml  # imported on first use

    return yaml.safe_load(read_setting(path).decode("utf-8"))


def _yaml_errors() -> tuple[type[Exception], ...]:
    import yaml

    return (OSError, ValueError, RecursionError, yaml.YAMLError)


def _managed(env: Mapping[str, str]) -> Path | None:
    """The managed scope's folder: ``$HERMES_MANAGED_DIR`` when set (and a folder), else ``/etc/hermes``."""
    override = env.get("HERMES_MANAGED_DIR", "").strip()
    if override:
        return Path(override) if Path(override).is_dir() else None
    return Path("/etc/hermes") if Path("/etc/hermes").is_dir() else None


def read_limits(home: Path, env: Mapping[str, str]) -> HermesLimits:
    """The memory settings of the Hermes *home* (``home/config.yaml`` over Hermes' defaults, the managed
    scope over both), and what Hermes' agent start-up does with them."""
    memory: object = {"memory_enabled": True, "user_profile_enabled": True,
                      "memory_char_limit": DEFAULT_LIMITS[MEMORY_FILE], "user_char_limit": DEFAULT_LIMITS[USER_FILE]}
    config: dict[str, object] = {"memory": memory}
    unread: tuple[str, ...] = ()
    path = home / "config.yaml"
    if path.exists():
        try:
            data = _yaml(path)
            if data is not None and not isinstance(data, dict):
                raise ValueError("not a mapping")
            config = _merge(config, data or {})
        except _yaml_errors() as e:    # Hermes warns and starts with its defaults
            first = str(e).splitlines()[0] if str(e) else ""
            unread = (f"could not read {path}: {type(e).__name__}: {first}",)
    config = {k: _expand(v, env) for k, v in config.items()}
    managed = _managed(env)
    if managed is not None and (managed / "config.yaml").is_file():
        try:
            data = _yaml(managed / "config.yaml")
        except _yaml_errors():
            data = None
        if isinstance(data, dict):
            config = _merge(config, {k: _expand(v, env) for k, v in data.items()})
    memory = config.get("memory")
    broken = ""
    enabled = {MEMORY_FILE: False, USER_FILE: False}
    raw: dict[str, object] = dict(DEFAULT_LIMITS)
    if not isinstance(memory, dict):
        broken = "memory in config.yaml is not a mapping: Hermes starts without memory"
    else:
        enabled = {rel: bool(memory.get(key, False)) for rel, key in _SWITCHES.items()}
        raw = {rel: memory.get(key, DEFAULT_LIMITS[rel]) for rel, key in _KEYS.items()}
        try:
            int(memory.get("nudge_interval", 10))
        except (TypeError, ValueError, OverflowError):
            broken = "memory.nudge_interval in config.yaml is not a whole number: Hermes starts without memory"
    numbers = {rel: float(v) if isinstance(v, float) else int(v) for rel, v in raw.items()
               if isinstance(v, (int, float))}
    return HermesLimits(max_chars={rel: numbers.get(rel, DEFAULT_LIMITS[rel]) for rel in DEFAULT_LIMITS},
                        unread=unread, raw=raw, enabled=enabled, broken=broken)


@dataclass(frozen=True)
class Snapshot:
    """What Hermes makes of both files at session start."""

    entries: dict[str, list[str]]
    blocks: dict[str, str]        # the rendered block of each file that reaches the prompt
    blocked: dict[str, int]
    shown: dict[str, int]         # each file's count as its prompt header says it
    off: tuple[tuple[str, str], ...]

    @property
    def prompt(self) -> str:
        """The memory part of Hermes' system prompt: the blocks, each stripped, joined by an empty line."""
        return "\n\n".join(b.strip() for b in self.blocks.values() if b.strip())


def snapshot(texts: Mapping[str, str], limits: Limits) -> Snapshot:
    """Hermes' ``load_from_disk`` and its prompt assembly, for the two files' texts."""
    hl = limits if isinstance(limits, HermesLimits) else HermesLimits(max_chars=dict(limits.max_chars),
                                                                     raw=dict(limits.max_chars),
                                                                     enabled={MEMORY_FILE: True, USER_FILE: True})
    entries = {rel: entries_of(texts.get(rel, "")) for rel in DEFAULT_LIMITS}
    sanitized = {rel: for_prompt(rel, e) for rel, e in entries.items()}
    shown = {rel: live_chars(s) if s else 0 for rel, (s, _) in sanitized.items()}
    blocked = {rel: n for rel, (_, n) in sanitized.items()}
    nothing = {rel: "" for rel in DEFAULT_LIMITS}
    if hl.broken:
        return Snapshot(entries, nothing, blocked, shown, tuple((rel, hl.broken) for rel in DEFAULT_LIMITS))
    if not any(hl.enabled.values()):
        why = "memory.memory_enabled and user_profile_enabled are false in config.yaml"
        return Snapshot(entries, nothing, blocked, shown, tuple((rel, why) for rel in DEFAULT_LIMITS))
    blocks: dict[str, str] = {}
    try:
        for rel, (s, _) in sanitized.items():
            blocks[rel] = render(rel, s, hl.raw.get(rel, DEFAULT_LIMITS[rel]))
    except Exception as e:  # noqa: BLE001 - Hermes' start-up swallows any error here and runs without memory
        why = f"its limit in config.yaml is not a number ({type(e).__name__}): Hermes loads neither file"
        return Snapshot(entries, nothing, blocked, shown, tuple((rel, why) for rel in DEFAULT_LIMITS))
    off = tuple((rel, f"memory.{_SWITCHES[rel]} is false in config.yaml") for rel in DEFAULT_LIMITS
                if not hl.enabled[rel])
    return Snapshot(entries, {rel: b for rel, b in blocks.items() if hl.enabled[rel]}, blocked, shown, off)


def _full(count: int, has_entries: bool, limit: object) -> bool:
    """True when Hermes would refuse even a one-character entry (``add``: the new total past the limit)."""
    try:
        return bool(count + (len(DELIMITER) if has_entries else 0) + 1 > limit)    # type: ignore[operator]
    except TypeError:
        return False


# ----- the kind

class Hermes(AgentKind):
    name = "hermes"
    label = "Hermes"
    topic_dir = None        # MEMORY.md and USER.md only
    budgeted = (MEMORY_FILE, USER_FILE)
    red_at_limit = True
    refusal = "Hermes writes its own memory: botmemory shows, edits and undoes it, but does not add to it"
    rules_versions = ("0.19.0",)

    def installed_version(self, user_home: Path, env: Mapping[str, str]) -> str | None:
        """hermes-agent's own package metadata, in the Python its ``hermes`` command runs with (a venv,
        pipx or uv tool), else in a pipx or uv tool folder of this user."""
        for script in on_path("hermes", env):
            for site in venv_sites(script):
                found = dist_info_version(site, "hermes-agent")
                if found:
                    return found
        for venv in (user_home / ".local/share/pipx/venvs/hermes-agent", user_home / ".local/share/uv/tools/hermes-agent"):
            for site in sorted(venv.glob("lib/python3*/site-packages")):
                found = dist_info_version(site, "hermes-agent")
                if found:
                    return found
        return None

    def classify(self, rel: str) -> FileKind:
        if rel in (MEMORY_FILE, USER_FILE):
            return FileKind.MEMORY
        raise BadInput(f"bad path {rel!r}: Hermes' memory is MEMORY.md and USER.md")

    def memory_files(self, folder: Path) -> list[str]:
        return [r for r in list_md(folder) if r in (MEMORY_FILE, USER_FILE)]

    def limits(self, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object]) -> Limits:
        return read_limits(hermes_dir(user_home, env), env)

    def measure(self, folder: Path, user_home: Path, env: Mapping[str, str], settings: Mapping[str, object],
                today: date | None = None) -> Limits:
        """The settings of the home this ``memories`` folder belongs to (its parent: a profile has its own)."""
        base = super().measure(folder, user_home, env, settings)
        own = read_limits(folder.parent, env)
        return replace(own, rules=base.rules, installed=base.installed)

    def loaded(self, rel: str, text: str, limits: Limits) -> Loaded:
        return self._files({rel: text}, limits)[rel]

    def _files(self, texts: Mapping[str, str], limits: Limits) -> dict[str, Loaded]:
        snap = snapshot(texts, limits)
        raw = limits.raw if isinstance(limits, HermesLimits) else dict(limits.max_chars)
        out = {}
        for rel in texts:
            entries = snap.entries[rel]
            text = texts[rel]
            limit = limits.max_chars.get(rel, DEFAULT_LIMITS[rel])
            out[rel] = Loaded(rel, snap.blocks.get(rel, ""), len(split_lines(text)), len(text.encode("utf-8")),
                              live_chars(entries), max_chars=limit,
                              full=_full(live_chars(entries), bool(entries), raw.get(rel, limit)),
                              prompt_chars=snap.shown[rel], blocked=snap.blocked[rel])
        return out

    def gauge(self, texts: Mapping[str, str], limits: Limits) -> AgentGauge:
        full = {rel: texts.get(rel, "") for rel in self.budgeted}
        files = self._files(full, limits)
        snap = snapshot(full, limits)
        broken = isinstance(limits, HermesLimits) and bool(limits.broken)
        order = {"ok": 0, "amber": 1, "red": 2}
        levels = [files[rel].level(True) for rel in self.budgeted]
        if broken or any(why.startswith("its limit") for _, why in snap.off):
            levels.append("red")    # memory the person keeps does not reach Hermes at all
        level = max(levels, key=order.__getitem__)
        return AgentGauge(self.name, tuple(files[rel] for rel in self.budgeted), level, limits.unread,
                          rules_version=limits.rules, agent_version=limits.installed, off=snap.off)

    def load(self, texts: Mapping[str, str], limits: Limits) -> str:
        """The memory part of Hermes' system prompt, exactly (both blocks, an empty line between)."""
        return snapshot({rel: texts.get(rel, "") for rel in self.budgeted}, limits).prompt

    def pieces(self, rel: str, text: str) -> list[Piece]:
        """Every entry as Hermes reads it, each copy of a folded duplicate too (so forget takes them all)."""
        return _pieces(text)

    def without(self, rel: str, text: str, gone: Sequence[Piece]) -> str:
        """*text* without the entries *gone*, each with one separator; the rest of the file stays byte for byte
        (its line ends, the blank parts between separators, a final line end)."""
        starts = {p.start for p in gone}
        segments = _segments(text)
        kept = [k for k, (s, _e, part) in enumerate(segments) if not (part.strip() and s in starts)]
        if not kept:
            return ""
        out = [text[segments[kept[0]][0]:segments[kept[0]][1]]]
        for k in kept[1:]:
            out.append(text[segments[k - 1][1]:segments[k][0]])     # the separator just before it, as written
            out.append(text[segments[k][0]:segments[k][1]])
        result = "".join(out)
        ending = re.search(r"(\r\n|\r|\n)\Z", text)
        if ending and result and not result.endswith(("\n", "\r")):
            result += ending.group(1)
        want = list(dict.fromkeys(p.text for p in _pieces(text) if p.start not in starts))
        if entries_of(result) != want:      # never expected; Hermes' own way of writing is the safe answer
            result = DELIMITER.join(want) + (ending.group(1) if ending and want else "")
        return result

    def discover(self, user_home: Path, env: Mapping[str, str]) -> tuple[list[Found], list[str]]:
        """The home's ``memories/`` and every profile's (``<root>/profiles/<name>/memories``)."""
        home = hermes_dir(user_home, env)
        found: list[Found] = []
        for folder, slug, name in _homes(home):
            mem = folder / "memories"
            if mem.is_dir() and not mem.is_symlink() and not folder.is_symlink():
                found.append(Found(self.name, mem, slug, name))
        return found, []


def _homes(home: Path) -> Iterable[tuple[Path, str, str]]:
    """The Hermes homes to look in: the root (*home*, or the root of the profile *home* is) and its profiles."""
    root = home.parent.parent if home.parent.name == "profiles" else home
    yield root, "hermes", "Hermes memories"
    profiles = root / "profiles"
    if profiles.is_dir() and not profiles.is_symlink():
        try:
            names = sorted(os.listdir(profiles))
        except OSError:
            names = []
        for name in names:
            if _PROFILE.fullmatch(name):
                yield profiles / name, f"hermes-{name}", f"Hermes profile {name}"


KIND = Hermes()
