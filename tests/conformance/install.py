"""Install the agents the differential suite asks, pinned, into a cache kept between runs.

    python -m tests.conformance.install [--latest] [--cache DIR]

- node 24 from npm's ``node@24`` package → ``<cache>/node24`` (OpenClaw needs node ≥ 24;
  the system's node may be older);
- ``openclaw@<version>`` with that node first on ``PATH`` → ``<cache>/openclaw-<version>``;
- ``hermes-agent==<version>`` in a venv of its own → ``<cache>/hermes-<version>``;
- ``@anthropic-ai/claude-code@<version>`` → ``<cache>/claude-code-<version>`` (its ``bin/claude.exe`` is a
  self-contained binary that needs no node; the suite runs it as ``claude -p`` against a loopback fake model).

The cache is ``$BOTMEMORY_CONFORMANCE_CACHE``, else ``~/.cache/botmemory-conformance``.
A second run only checks what is there. ``--latest`` asks the registries for
the newest versions instead of the pinned ones (``./dev conformance --latest``
reports the drift). Prints one JSON object: the paths and versions. Anything
that cannot be installed raises :class:`Missing` with one line saying what.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

OPENCLAW = "2026.9.6"
HERMES = "0.19.0"
CLAUDE_CODE = "2.1.332"
NODE_MAJOR = 24


class Missing(RuntimeError):
    """What the suite needs and cannot install, in one line."""


@dataclass(frozen=True)
class Agents:
    node: str
    openclaw_pkg: str
    openclaw_version: str
    hermes_python: str
    hermes_version: str
    claude: str
    claude_version: str


def cache_dir() -> Path:
    given = os.environ.get("BOTMEMORY_CONFORMANCE_CACHE", "").strip()
    return Path(given) if given else Path.home() / ".cache" / "botmemory-conformance"


def _log(msg: str) -> None:
    print(f"conformance: {msg}", file=sys.stderr, flush=True)


def _run(cmd: list[str], what: str, env: dict[str, str] | None = None) -> str:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200)
    except FileNotFoundError:
        raise Missing(f"{cmd[0]} is missing: it is needed to install {what}") from None
    except subprocess.TimeoutExpired:
        raise Missing(f"installing {what} took more than 20 minutes") from None
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["no output"])[-1]
        raise Missing(f"could not install {what}: {last}")
    return r.stdout


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise Missing(f"npm is missing: it installs node@{NODE_MAJOR} and openclaw (Debian: apt-get install npm)")
    return npm


def _node_version(node: Path) -> int | None:
    try:
        out = subprocess.run([str(node), "-p", "process.versions.node"], capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    try:
        return int(out.stdout.strip().split(".")[0])
    except ValueError:
        return None


def install_node(cache: Path) -> Path:
    folder = cache / f"node{NODE_MAJOR}"
    for candidate in (folder / "node_modules/node/bin/node", folder / "node_modules/.bin/node"):
        if candidate.is_file() and _node_version(candidate) == NODE_MAJOR:
            return candidate
    _log(f"installing node@{NODE_MAJOR} into {folder}")
    _run([_npm(), "install", "--no-audit", "--no-fund", "--prefix", str(folder), f"node@{NODE_MAJOR}"],
         f"node@{NODE_MAJOR}")
    for candidate in (folder / "node_modules/node/bin/node", folder / "node_modules/.bin/node"):
        if candidate.is_file() and _node_version(candidate) == NODE_MAJOR:
            return candidate
    raise Missing(f"node@{NODE_MAJOR} was installed but no node {NODE_MAJOR} binary runs from {folder}")


def latest_openclaw() -> str:
    return _run([_npm(), "view", "openclaw", "version"], "the newest openclaw version").strip()


def install_openclaw(cache: Path, node: Path, version: str) -> Path:
    pkg = cache / f"openclaw-{version}" / "node_modules" / "openclaw"
    if _package_version(pkg) == version:
        return pkg
    _log(f"installing openclaw@{version} into {pkg.parent.parent}")
    env = {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    _run([_npm(), "install", "--no-audit", "--no-fund", "--prefix", str(pkg.parent.parent), f"openclaw@{version}"],
         f"openclaw@{version}", env)
    if _package_version(pkg) != version:
        raise Missing(f"openclaw@{version} did not install into {pkg}")
    return pkg


def _package_version(pkg: Path) -> str | None:
    try:
        v = json.loads((pkg / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    return v if isinstance(v, str) else None


def _hermes_version(python: Path) -> str | None:
    if not python.is_file():
        return None
    r = subprocess.run([str(python), "-c", "import importlib.metadata as m; print(m.version('hermes-agent'))"],
                       capture_output=True, text=True, timeout=120)
    return r.stdout.strip() or None if r.returncode == 0 else None


def _python() -> str:
    for name in ("python3.11", "python3.12", "python3.13", "python3"):
        found = shutil.which(name)
        if found:
            r = subprocess.run([found, "-c", "import sys, venv; print(sys.version_info >= (3, 11))"],
                               capture_output=True, text=True)
            if r.stdout.strip() == "True":
                return found
    raise Missing("no python3 (3.11 to 3.13) with venv to make hermes-agent's venv (Debian: apt-get install python3-venv)")


def install_hermes(cache: Path, version: str | None) -> tuple[Path, str]:
    folder = cache / (f"hermes-{version}" if version else "hermes-latest")
    python = folder / "bin" / "python"
    have = _hermes_version(python)
    if have is not None and (version is None or have == version) and not (version is None and _stale(folder)):
        return python, have
    _log(f"installing hermes-agent{'==' + version if version else ' (newest)'} into {folder}")
    if not python.is_file():
        _run([_python(), "-m", "venv", str(folder)], "hermes-agent's venv")
    spec = f"hermes-agent=={version}" if version else "hermes-agent"
    _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", "--upgrade", spec], spec)
    have = _hermes_version(python)
    if have is None or (version is not None and have != version):
        raise Missing(f"{spec} did not install into {folder}")
    (folder / ".checked").write_text("")
    return python, have


def _stale(folder: Path) -> bool:
    """The newest version is asked again once a day."""
    import time

    mark = folder / ".checked"
    return not mark.exists() or time.time() - mark.stat().st_mtime > 86_400


def claude_version(claude: Path) -> str | None:
    """What ``claude --version`` says (``2.1.328 (Claude Code)`` → ``2.1.328``), or None."""
    if not claude.is_file():
        return None
    try:
        r = subprocess.run([str(claude), "--version"], capture_output=True, text=True, timeout=60,
                           env={"PATH": os.environ.get("PATH", ""), "HOME": str(claude.parent), "LANG": "C.UTF-8"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = r.stdout.split()
    return words[0] if r.returncode == 0 and words else None


def latest_claude_code() -> str:
    return _run([_npm(), "view", "@anthropic-ai/claude-code", "version"], "the newest claude-code version").strip()


def install_claude_code(cache: Path, version: str) -> Path:
    folder = cache / f"claude-code-{version}"
    claude = folder / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    if claude_version(claude) == version:
        return claude
    _log(f"installing @anthropic-ai/claude-code@{version} into {folder}")
    _run([_npm(), "install", "--no-audit", "--no-fund", "--prefix", str(folder), f"@anthropic-ai/claude-code@{version}"],
         f"@anthropic-ai/claude-code@{version}")
    got = claude_version(claude)
    if got != version:
        raise Missing(f"@anthropic-ai/claude-code@{version} installed, but {claude} "
                      + ("does not run" if got is None else f"says it is {got}"))
    return claude


def install(latest: bool = False, cache: Path | None = None) -> Agents:
    cache = cache or cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    node = install_node(cache)
    oc_version = latest_openclaw() if latest else OPENCLAW
    pkg = install_openclaw(cache, node, oc_version)
    python, h_version = install_hermes(cache, None if latest else HERMES)
    cc_version = latest_claude_code() if latest else CLAUDE_CODE
    claude = install_claude_code(cache, cc_version)
    return Agents(str(node), str(pkg), oc_version, str(python), h_version, str(claude), cc_version)


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latest", action="store_true", help="the newest versions on the registries")
    ap.add_argument("--cache", help="the cache folder (default $BOTMEMORY_CONFORMANCE_CACHE or "
                                    "~/.cache/botmemory-conformance)")
    args = ap.parse_args(argv)
    try:
        agents = install(args.latest, Path(args.cache) if args.cache else None)
    except Missing as e:
        print(f"conformance: {e}", file=sys.stderr)
        return 1
    print(json.dumps(asdict(agents)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
