"""The lazy logger: what it drops without importing logging is what logging would drop; the rest is logging's."""
from __future__ import annotations

import subprocess
import sys

import pytest

from botmemory.core.base import log


def _stderr(code: str) -> tuple[str, str]:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return p.stdout, p.stderr


CALLS = ("logger.debug('d %s', 1); logger.info('i %s', 2); logger.warning('w %s', 3); logger.error('e'); "
         "logger.critical('c'); logger.log(25, 'l');"
         "\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    logger.exception('x')\n")


def test_an_unconfigured_process_shows_what_logging_would_show() -> None:
    plain = _stderr("import logging; logger = logging.getLogger('botmemory.core.t')\n" + CALLS)
    lazy = _stderr("import sys; from botmemory.core.base.log import get_logger; logger = get_logger('botmemory.core.t')\n"
                   + CALLS)
    assert lazy == plain and "w 3" in plain[1] and "i 2" not in plain[1]


@pytest.mark.parametrize("verbose", [False, True])
def test_setup_configures_as_the_command_lines_basic_config(verbose: bool) -> None:
    level = "INFO" if verbose else "WARNING"
    plain = _stderr(f"import logging; logging.basicConfig(level=logging.{level}, format={log.FORMAT!r});"
                    "logger = logging.getLogger('botmemory.core.t')\n" + CALLS)
    lazy = _stderr(f"from botmemory.core.base import log; log.setup({verbose}); logger = log.get_logger('botmemory.core.t')\n"
                   + CALLS)
    assert lazy == plain and "botmemory: WARNING botmemory.core.t: w 3" in plain[1]
    assert ("botmemory: INFO botmemory.core.t: i 2" in plain[1]) == verbose


def test_debug_and_info_do_not_import_logging_until_something_does() -> None:
    out, _ = _stderr("import sys; from botmemory.core.base import log; log.setup(False);"
                     "logger = log.get_logger('botmemory.core.t'); logger.debug('d'); logger.info('i');"
                     "print('logging' in sys.modules)")
    assert out.strip() == "False"


def test_records_keep_the_callers_place(caplog: pytest.LogCaptureFixture) -> None:
    logger = log.get_logger("botmemory.core.t")
    with caplog.at_level(log.DEBUG, logger="botmemory.core.t"):
        logger.debug("d")
        logger.info("i")
        logger.warning("w %s", 3)
        logger.log(log.INFO, "l")
    assert [(r.levelname, r.getMessage(), r.funcName, r.filename) for r in caplog.records] == [
        ("DEBUG", "d", "test_records_keep_the_callers_place", "test_log.py"),
        ("INFO", "i", "test_records_keep_the_callers_place", "test_log.py"),
        ("WARNING", "w 3", "test_records_keep_the_callers_place", "test_log.py"),
        ("INFO", "l", "test_records_keep_the_callers_place", "test_log.py"),
    ]
