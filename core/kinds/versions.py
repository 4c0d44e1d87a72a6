"""Whose rules measure a folder: the installed agent's version, read where it can be, and the rules chosen for it.

The rules of what an agent loads change between its versions. A kind lists the
versions whose rules it knows (``AgentKind.rules_versions``, oldest first, each
proven against that version's own code by tests/conformance) and says how to
read the installed version (``AgentKind.installed_version``: OpenClaw's
``package.json``, hermes-agent's package metadata; Claude Code's
``claude --version``). :func:`choose` takes the newest known rules not newer
than the installed version, the oldest known for an older one, and the newest
known when no version could be read. ``gauge --json`` says which in
``rules_version`` (``"openclaw 2026.9.6"``) and what was found in
``agent_version``.

Reading a version never runs the agent: only its files are read, and each
answer is kept for the life of the process (keyed by ``PATH`` and the home).
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.log import get_logger

if TYPE_CHECKING:
    from .base import AgentKind

logger = get_logger(__name__)

_MAX_META = 256 * 1024
_cache: dict[tuple[str, str, str], str | None] = {}


def version_key(version: str) -> tuple[int, ...]:
    """``"2026.9.6"`` → ``(2026, 9, 6)``: the numbers of a version, for ordering (a pre-release tag is ignored)."""
    head = re.split(r"[-+]", version.strip(), maxsplit=1)[0]
    return tuple(int(n) for n in re.findall(r"\d+", head))


def choose(known: Sequence[str], installed: str | None) -> str:
    """Which of the *known* versions' rules apply to *installed* (see the module's docstring)."""
    if not known:
        return ""
    ordered = sorted(known, key=version_key)
    if installed is None or not version_key(installed):
        return ordered[-1]
    fitting = [v for v in ordered if version_key(v) <= version_key(installed)]
    return fitting[-1] if fitting else ordered[0]


def label_version(label: str) -> str:
    """The version a rules label names: ``"claude-code 2.1.332"`` → ``"2.1.332"`` ("" for no label)."""
    return label.rpartition(" ")[2]


def rules_for(kind: AgentKind, user_home: Path, env: Mapping[str, str]) -> tuple[str, str | None]:
    """``("openclaw 2026.9.6", "2026.9.6")``: the rules label for *kind* and the installed version found (or None)."""
    if not kind.rules_versions:
        return "", None
    key = (kind.name, env.get("PATH", ""), str(user_home))
    if key not in _cache:
        try:
            _cache[key] = kind.installed_version(user_home, env)
        except (OSError, ValueError) as e:   # a version that cannot be read is one not found
            logger.info("could not read the installed %s version: %s", kind.name, e)
            _cache[key] = None
    installed = _cache[key]
    return f"{kind.name} {choose(kind.rules_versions, installed)}", installed


def forget_cache() -> None:
    """Read the installed versions again (tests, and an app that stays open across an upgrade)."""
    _cache.clear()


# ----- the ways agents are installed, for the kinds' installed_version

def on_path(command: str, env: Mapping[str, str]) -> list[Path]:
    """Every executable called *command* on ``$PATH``, in order."""
    out: list[Path] = []
    for d in env.get("PATH", "").split(os.pathsep):
        if not d:
            continue
        p = Path(d) / command
        if p.is_file() and os.access(p, os.X_OK):
            out.append(p)
    return out


def package_json_version(start: Path, name: str) -> str | None:
    """The ``version`` of the npm package *name* whose folder holds *start* (a file inside it, often its bin
    script reached through the link npm puts on ``PATH``), or None."""
    try:
        here = start.resolve()
    except OSError:
        return None
    for folder in [here, *here.parents]:
        pkg = folder / "package.json"
        if pkg.is_file():
            try:
                data = json.loads(pkg.read_bytes()[:_MAX_META])
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and data.get("name") == name and isinstance(data.get("version"), str):
                return str(data["version"])
    return None


def dist_info_version(site: Path, distribution: str) -> str | None:
    """The version in ``<site>/<distribution>-<version>.dist-info/METADATA`` (a wheel's own record), or None."""
    stem = re.sub(r"[-_.]+", "_", distribution).lower()
    try:
        candidates = sorted(site.glob("*.dist-info"))
    except OSError:
        return None
    for info in candidates:
        name, _, _rest = info.name[:-len(".dist-info")].partition("-")
        if re.sub(r"[-_.]+", "_", name).lower() != stem:
            continue
        try:
            meta = (info / "METADATA").read_bytes()[:_MAX_META].decode("utf-8", "replace")
        except OSError:
            continue
        m = re.search(r"^Version:\s*(\S+)\s*$", meta, re.MULTILINE)
        if m:
            return m.group(1)
    return None


def venv_sites(script: Path) -> list[Path]:
    """The site-packages folders of the Python a console *script* runs with (read from its ``#!`` line)."""
    try:
        with open(script, "rb") as f:
            first = f.readline(4096)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return []
    python = Path(words[0])
    prefix = python.parent.parent
    sites = sorted(prefix.glob("lib/python3*/site-packages")) + sorted(prefix.glob("Lib/site-packages"))
    return [s for s in sites if s.is_dir()]
