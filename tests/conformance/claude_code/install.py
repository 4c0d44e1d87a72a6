"""Install Claude Code, pinned, into the differential suite's cache (kept between runs).

    python -m tests.conformance.claude_code.install [--latest] [--cache DIR]

``npm install @anthropic-ai/claude-code@<version>`` into ``<cache>/claude-code-<version>``; its ``bin/claude.exe``
is a self-contained binary (it needs no node). The cache is ``$BOTMEMORY_CONFORMANCE_CACHE``, else
``~/.cache/botmemory-conformance``, as for the other agents; a second run only checks that the binary there
says its version. Anything that cannot be installed raises :class:`Missing` with one line saying what.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

VERSION = "2.1.328"
PACKAGE = "@anthropic-ai/claude-code"


class Missing(RuntimeError):
    """What the suite needs and cannot install, in one line."""


def cache_dir() -> Path:
    given = os.environ.get("BOTMEMORY_CONFORMANCE_CACHE", "").strip()
    return Path(given) if given else Path.home() / ".cache" / "botmemory-conformance"


def binary(folder: Path) -> Path:
    return folder / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"


def version_of(claude: Path) -> str | None:
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


def latest() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise Missing(f"npm is missing: it installs {PACKAGE} (Debian: apt-get install npm)")
    r = subprocess.run([npm, "view", PACKAGE, "version"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or not r.stdout.strip():
        raise Missing(f"could not ask npm for the newest {PACKAGE}: "
                      f"{(r.stderr.strip().splitlines() or ['no output'])[-1]}")
    return r.stdout.strip()


def install(version: str = VERSION, cache: Path | None = None) -> Path:
    """The path of ``claude.exe`` of *version*, installed into the cache when it is not there yet."""
    folder = (cache or cache_dir()) / f"claude-code-{version}"
    claude = binary(folder)
    if version_of(claude) == version:
        return claude
    npm = shutil.which("npm")
    if npm is None:
        raise Missing(f"npm is missing: it installs {PACKAGE}@{version} (Debian: apt-get install npm)")
    print(f"conformance: installing {PACKAGE}@{version} into {folder}", file=sys.stderr, flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        r = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(folder),
                            f"{PACKAGE}@{version}"], capture_output=True, text=True, timeout=1200)
    except subprocess.TimeoutExpired:
        raise Missing(f"installing {PACKAGE}@{version} took more than 20 minutes") from None
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["no output"])[-1]
        raise Missing(f"could not install {PACKAGE}@{version}: {last}")
    got = version_of(claude)
    if got != version:
        raise Missing(f"{PACKAGE}@{version} installed, but {claude} "
                      + ("does not run" if got is None else f"says it is {got}"))
    return claude


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latest", action="store_true", help="the newest version on npm")
    ap.add_argument("--cache", help="the cache folder")
    args = ap.parse_args(argv)
    try:
        claude = install(latest() if args.latest else VERSION, Path(args.cache) if args.cache else None)
    except Missing as e:
        print(f"conformance: {e}", file=sys.stderr)
        return 1
    print(claude)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
