"""Loggers that import :mod:`logging` only when a record could be shown.

``botmemory recall`` runs before every turn; importing :mod:`logging` (with
``traceback``, ``linecache``, ``tokenize``, ``threading``…) costs that process
milliseconds for records it never shows. ``get_logger(__name__)`` returns a
:class:`Logger` with the methods core calls (``debug``, ``info``, ``warning``,
``error``, ``exception``, ``critical``, ``log``):

- while nobody has imported :mod:`logging`, a DEBUG or INFO record is dropped
  without importing it. That is what :mod:`logging` would do too: nothing can
  have configured a handler or a level without importing it, so the root level
  is WARNING, every logger's effective level is WARNING, and the last-resort
  handler shows WARNING and up only;
- anything else (a WARNING or worse, or any record once :mod:`logging` is
  imported by anyone: ``--verbose``, the tray app, a test) goes to
  ``logging.getLogger(name)`` exactly as before, with the caller's file and line.

:func:`setup` is the command line's ``basicConfig``: with *verbose* it
configures :mod:`logging` at once (INFO and up, the ``botmemory:`` format);
without, the same configuration at WARNING waits for the first record that
needs :mod:`logging`, so a quiet process never imports it.
"""
from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging

DEBUG, INFO, WARNING, ERROR, CRITICAL = 10, 20, 30, 40, 50   # logging's levels, without importing it
FORMAT = "botmemory: %(levelname)s %(name)s: %(message)s"

_pending: int | None = None
"""A ``basicConfig`` level that :func:`setup` deferred until logging is first needed."""


def setup(verbose: bool) -> None:
    """The command line's logging: INFO and up with *verbose* (configured now), else WARNING and up
    (configured when the first record needs :mod:`logging`)."""
    global _pending
    if verbose:
        _pending = None
        import logging

        logging.basicConfig(level=logging.INFO, format=FORMAT)
    else:
        _pending = WARNING
        if "logging" in sys.modules:
            _logging()


def _logging() -> None:
    """Import :mod:`logging`, applying a configuration :func:`setup` deferred."""
    global _pending
    import logging

    if _pending is not None:
        level, _pending = _pending, None
        logging.basicConfig(level=level, format=FORMAT)


class Logger:
    """A named logger that imports :mod:`logging` only for a record that could be shown (module docstring)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<botmemory.core.base.log.Logger {self.name}>"

    def real(self) -> logging.Logger:
        """The :mod:`logging` logger of the same name (imports :mod:`logging`)."""
        _logging()
        import logging

        return logging.getLogger(self.name)

    def log(self, level: int, msg: object, *args: object, exc_info: object = None,
            stack_info: bool = False, stacklevel: int = 1, extra: dict[str, object] | None = None) -> None:
        if level < WARNING and "logging" not in sys.modules:
            return              # dropped, as logging would drop it: nothing configured a lower level
        self.real().log(level, msg, *args, exc_info=exc_info, stack_info=stack_info,  # type: ignore[arg-type]
                        stacklevel=stacklevel + 1, extra=extra)

    def debug(self, msg: object, *args: object, exc_info: object = None, stacklevel: int = 1) -> None:
        self.log(DEBUG, msg, *args, exc_info=exc_info, stacklevel=stacklevel + 1)

    def info(self, msg: object, *args: object, exc_info: object = None, stacklevel: int = 1) -> None:
        self.log(INFO, msg, *args, exc_info=exc_info, stacklevel=stacklevel + 1)

    def warning(self, msg: object, *args: object, exc_info: object = None, stacklevel: int = 1) -> None:
        self.log(WARNING, msg, *args, exc_info=exc_info, stacklevel=stacklevel + 1)

    def error(self, msg: object, *args: object, exc_info: object = None, stacklevel: int = 1) -> None:
        self.log(ERROR, msg, *args, exc_info=exc_info, stacklevel=stacklevel + 1)

    def exception(self, msg: object, *args: object, exc_info: object = True, stacklevel: int = 1) -> None:
        self.log(ERROR, msg, *args, exc_info=exc_info, stacklevel=stacklevel + 1)

    def critical(self, msg: object, *args: object, exc_info: object = None, stacklevel: int = 1) -> None:
        self.log(CRITICAL, msg, *args, exc_info=exc_info, stacklevel=stacklevel + 1)


def get_logger(name: str) -> Logger:
    """A lazy logger for module *name* (use as ``logger = get_logger(__name__)``)."""
    return Logger(name)
