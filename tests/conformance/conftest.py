"""The differential suite's fixtures: the pinned agents installed (or one line saying what is missing), their
own code running as oracles, and botmemory's CLI run in-process in the same made-up home.

Marked ``conformance``: ``./dev test`` leaves it out; ``.ci/run`` and ``./dev conformance`` run it.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from .install import Agents, Missing, install

LATEST = os.environ.get("BOTMEMORY_CONFORMANCE_LATEST") == "1"


@pytest.fixture(scope="session")
def agents() -> Agents:
    try:
        return install(latest=LATEST)
    except Missing as e:
        pytest.fail(f"conformance: {e}", pytrace=False)


@pytest.fixture(scope="session")
def oracle_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("oracle-home")
    (home / "no-managed-scope").mkdir()
    return home


def _server(kind: str, agents: Agents, home: Path):
    from .agents import ORACLES

    server = importlib.import_module(ORACLES[kind]).start(agents, home)
    return server


@pytest.fixture(scope="session")
def openclaw_oracle(agents, oracle_home):
    server = _server("openclaw", agents, oracle_home)
    yield server
    server.close()


@pytest.fixture(scope="session")
def hermes_oracle(agents, oracle_home):
    server = _server("hermes", agents, oracle_home)
    yield server
    server.close()


AGENT_VARS = ("OPENCLAW_", "HERMES_", "CLAUDE_", "BOTMEMORY_TODAY", "OPENMAUSBOT_HOME")


@contextlib.contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """os.environ with no agent variable but *values* for the time of the block."""
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
    from botmemory.core.kinds import versions

    out = io.StringIO()
    versions.forget_cache()
    with environment(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--root", str(root), *args])
    return code, out.getvalue()


def botmemory_json(root: Path, *args: str, env: Mapping[str, str]) -> object:
    code, out = botmemory(root, *args, "--json", env=env)
    assert code == 0, (args, out)
    return json.loads(out)


def track(root: Path, folder: Path, kind: str, env: Mapping[str, str]) -> str:
    """Track *folder* in the botmemory home *root*: its id."""
    got = botmemory_json(root, "track", "--path", str(folder), "--agent", kind, env=env)
    assert isinstance(got, dict)
    return str(got["id"])


sys.dont_write_bytecode = True
