"""Fixtures of Claude Code's differential suite: the pinned binary (installed into the cache, or one line saying
what is missing), a HOME of the test's, and botmemory's CLI run in-process under the same environment.

Marked ``conformance``: ``./dev test`` leaves it out; ``./dev conformance`` and ``.ci/run`` run it.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from .install import Missing, install

AGENT_VARS = ("CLAUDE_", "ANTHROPIC_", "BOTMEMORY_TODAY", "OPENMAUSBOT_HOME", "HOME")


@pytest.fixture(scope="session")
def claude() -> Path:
    try:
        return install()
    except Missing as e:
        pytest.fail(f"conformance: {e}", pytrace=False)


@contextlib.contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """os.environ with no Claude Code variable of this machine but *values*, for the time of the block."""
    saved = dict(os.environ)
    try:
        for k in list(os.environ):
            if k.startswith(AGENT_VARS):
                del os.environ[k]
        os.environ.update(values)
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def botmemory(root: Path, *args: str, env: Mapping[str, str]) -> tuple[int, str]:
    """botmemory's CLI, in this process: its exit code and stdout."""
    from botmemory.core.faces.cli import main

    out = io.StringIO()
    with environment(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--root", str(root), *args])
    return code, out.getvalue()


def botmemory_json(root: Path, *args: str, env: Mapping[str, str]) -> object:
    code, out = botmemory(root, *args, "--json", env=env)
    assert code == 0, (args, out)
    return json.loads(out)


def track(root: Path, folder: Path, env: Mapping[str, str]) -> str:
    got = botmemory_json(root, "track", "--path", str(folder), "--agent", "claude-code", env=env)
    assert isinstance(got, dict)
    return str(got["id"])
