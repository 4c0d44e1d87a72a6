"""Every error core raises derives from BotMemoryError; a busy workspace is a plain exit 1, not "unexpected"."""
from __future__ import annotations

import fcntl
import os

import pytest

from botmemory.core.base.errors import BotMemoryError, Busy
from botmemory.core.disk import safeio
from botmemory.core.faces.cli import main
from botmemory.core.store.memory import Memory
from botmemory.core.store.writer import Actor
from botmemory.core.upkeep.helper import HelperError

from ..conftest import BOT


@pytest.fixture
def held_elsewhere(mem: Memory, monkeypatch):
    """The bot's workspace lock held by "another process" (another open file), and a short wait for it."""
    real = safeio._FileLock.acquire
    monkeypatch.setattr(safeio._FileLock, "acquire", lambda self, timeout: real(self, 0.05))
    path = mem.home.lock_file(BOT)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        yield path
    finally:
        os.close(fd)


def test_every_core_error_has_one_base():
    assert issubclass(HelperError, BotMemoryError)
    assert issubclass(Busy, BotMemoryError) and issubclass(Busy, TimeoutError)


def test_every_error_of_core_errors_is_on_the_surface_under_the_one_base():
    import inspect

    import botmemory.core as surface
    from botmemory.core.base import errors

    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__]
    assert {c.__name__ for c in classes} >= {"BotMemoryError", "LinkRefused"}
    for c in classes:
        assert issubclass(c, surface.BotMemoryError), c
        assert c.__name__ in surface.__all__ and getattr(surface, c.__name__) is c, c
    assert issubclass(surface.LinkRefused, surface.Refused) and surface.LinkRefused.exit_code == 4


def test_a_busy_workspace_raises_busy_naming_it(mem, held_elsewhere):
    with pytest.raises(Busy, match=f"^{BOT}'s workspace is busy: another botmemory is writing; try again$"):
        mem.store.write(BOT, "memory/a.md", "a\n", Actor.person())
    assert not (mem.home.workspace(BOT) / "memory" / "a.md").exists()


def test_the_cli_says_busy_in_one_line_with_exit_1(mem, held_elsewhere, capsys):
    code = main(["--root", str(mem.home.root), "remember", BOT, "a note"])
    _, err = capsys.readouterr()
    assert code == 1
    assert err == f"botmemory: {BOT}'s workspace is busy: another botmemory is writing; try again\n"
