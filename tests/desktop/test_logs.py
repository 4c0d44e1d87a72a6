"""Logging: the rotating file, the in-memory tail, --verbose, and "Show log"."""
from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from botmemory.desktop import logs


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    logs._tail.clear()
    yield
    logs.shutdown_logging()
    logs._tail.clear()
    root.setLevel(level)


def test_file_and_tail_get_every_record(tmp_path: Path) -> None:
    path = logs.setup_logging(False, directory=tmp_path / "log")
    assert path == tmp_path / "log" / "botmemory.log"
    assert logs.log_path() == path

    logging.getLogger("botmemory.desktop.tray").info("tray icon is %s", "amber")
    logging.getLogger("botmemory.desktop.tray").debug("not shown without --verbose")

    assert logs.tail()[-1].endswith("INFO    botmemory.desktop.tray: tray icon is amber")
    assert not any("without --verbose" in line for line in logs.tail())
    text = path.read_text(encoding="utf-8")
    assert "tray icon is amber" in text
    assert "without --verbose" not in text


def test_verbose_logs_debug_to_file_and_stderr(tmp_path: Path) -> None:
    stream = io.StringIO()
    path = logs.setup_logging(True, directory=tmp_path, stream=stream)
    logging.getLogger("botmemory.core.store.writer").debug("wrote MEMORY.md")
    assert "DEBUG   botmemory.core.store.writer: wrote MEMORY.md" in stream.getvalue()
    assert "wrote MEMORY.md" in path.read_text(encoding="utf-8")
    assert "wrote MEMORY.md" in logs.tail()[-1]


def test_setting_up_twice_does_not_double_lines(tmp_path: Path) -> None:
    logs.setup_logging(False, directory=tmp_path)
    logs.setup_logging(False, directory=tmp_path)
    logging.getLogger("botmemory.x").warning("once")
    assert [line for line in logs.tail() if line.endswith("once")] == [logs.tail()[-1]]
    assert (tmp_path / "botmemory.log").read_text(encoding="utf-8").count("once") == 1


def test_tail_keeps_only_the_newest_lines() -> None:
    handler = logs.TailHandler(capacity=3)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log = logging.getLogger("botmemory.test.tail")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        for i in range(5):
            log.info("line %d", i)
    finally:
        log.removeHandler(handler)
    assert handler.lines() == ["line 2", "line 3", "line 4"]


def test_tail_limit(tmp_path: Path) -> None:
    logs.setup_logging(False, directory=tmp_path)
    for i in range(4):
        logging.getLogger("botmemory.x").info("n%d", i)
    assert [line[-2:] for line in logs.tail(2)] == ["n2", "n3"]


def test_the_file_rotates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "MAX_BYTES", 300)
    logs.setup_logging(False, directory=tmp_path)
    for i in range(40):
        logging.getLogger("botmemory.x").info("a line long enough to fill the file quickly %d", i)
    assert (tmp_path / "botmemory.log.1").exists()
    assert not (tmp_path / f"botmemory.log.{logs.BACKUP_COUNT + 1}").exists()


def test_an_unwritable_log_folder_leaves_the_tail_working(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    logs.setup_logging(False, directory=blocker / "log")
    logging.getLogger("botmemory.x").info("still here")
    assert any("logging to memory only" in line for line in logs.tail())
    assert logs.tail()[-1].endswith("still here")


def test_default_log_folder_is_where_platformdirs_puts_logs() -> None:
    import platformdirs

    assert logs.log_dir() == Path(platformdirs.user_log_dir("botmemory", appauthor=False))


def test_show_log_opens_the_file(tmp_path: Path) -> None:
    logs.setup_logging(False, directory=tmp_path)
    opened = []

    def fake_open(url: object) -> bool:
        opened.append(url)
        return True

    assert logs.show_log(open_url=fake_open)
    (url,) = opened
    assert url.toLocalFile() == str(tmp_path / "botmemory.log")  # type: ignore[attr-defined]
    assert (tmp_path / "botmemory.log").exists()


def test_show_log_says_when_nothing_opened_it(tmp_path: Path) -> None:
    logs.setup_logging(False, directory=tmp_path)
    assert not logs.show_log(open_url=lambda url: False)
    assert "no application opened the log file" in logs.tail()[-1]


def test_verbose_does_not_log_every_inotify_event(tmp_path):
    import io
    import logging

    from botmemory.desktop import logs

    logs.setup_logging(True, directory=tmp_path, stream=io.StringIO())
    try:
        assert logging.getLogger("botmemory").getEffectiveLevel() == logging.DEBUG
        assert logging.getLogger("watchdog.observers.inotify").getEffectiveLevel() == logging.INFO
    finally:
        logs.shutdown_logging()
