"""Whether a bot's recall index is current (the tray app's question before it starts a builder), and the builder."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from botmemory.core.disk.paths import Home
from botmemory.core.recall.index import builder_command, index_current, index_path, refresh_index

from ..recall_fixtures import BOT, home, ws  # noqa: F401 (fixtures)


def write(ws: Path, name: str, text: str) -> None:
    (ws / "memory" / name).write_text(text, encoding="utf-8")
    time.sleep(0.1)     # older than a timestamp tick: an index built now is not "racy"


def test_no_topics_needs_no_index_and_a_new_topic_makes_it_stale(home: Home, ws: Path) -> None:
    assert index_current(home, BOT)
    assert not index_path(home, BOT).exists()      # asking builds nothing
    write(ws, "trips.md", "# Trips\n\nThe Zanzibar ferry leaves at 07:40.\n")
    assert not index_current(home, BOT)
    assert not index_path(home, BOT).exists()


def test_built_is_current_until_a_topic_changes_or_goes(home: Home, ws: Path) -> None:
    write(ws, "trips.md", "# Trips\n\nThe Zanzibar ferry leaves at 07:40.\n")
    write(ws, "food.md", "# Food\n\nAna is vegetarian.\n")
    refresh_index(home, BOT)
    assert index_current(home, BOT)
    write(ws, "trips.md", "# Trips\n\nThe Zanzibar ferry leaves at 08:10.\n")
    assert not index_current(home, BOT)
    refresh_index(home, BOT)
    assert index_current(home, BOT)
    (ws / "memory" / "food.md").unlink()
    assert not index_current(home, BOT)


def test_an_index_of_another_version_or_a_damaged_one_is_not_current(home: Home, ws: Path) -> None:
    import sqlite3

    write(ws, "trips.md", "# Trips\n\nThe Zanzibar ferry leaves at 07:40.\n")
    refresh_index(home, BOT)
    path = index_path(home, BOT)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    assert not index_current(home, BOT)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"not a database at all" * 100)
    assert not index_current(home, BOT)


def test_a_linked_index_folder_is_never_read(home: Home, ws: Path, tmp_path: Path) -> None:
    write(ws, "trips.md", "# Trips\n\nThe Zanzibar ferry leaves at 07:40.\n")
    refresh_index(home, BOT)
    folder = index_path(home, BOT).parent
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    os.symlink(elsewhere, folder)
    assert not index_current(home, BOT)


def test_the_builder_command_brings_the_index_up_to_date(home: Home, ws: Path) -> None:
    write(ws, "trips.md", "# Trips\n\nThe Zanzibar ferry leaves at 07:40.\n")
    command = builder_command(home, BOT)
    assert command is not None and command[0] == sys.executable
    subprocess.run(command, check=True, timeout=120)
    assert index_current(home, BOT)


def test_a_frozen_bundle_has_no_builder_command(home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert builder_command(home, BOT) is None
