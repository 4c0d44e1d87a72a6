"""The errors core raises; the CLI maps each kind to its exit code (:func:`exit_code_for`)."""
from __future__ import annotations

import sys

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time

if TYPE_CHECKING:
    from logging import Logger

    from .log import Logger as LazyLogger


class BotMemoryError(Exception):
    """Base class of every error core raises (its name keeps it apart from the builtin ``MemoryError``)."""

    exit_code = 1


class BadInput(BotMemoryError):
    """Bad usage or bad input: nothing was written (exit 2)."""

    exit_code = 2


class Conflict(BotMemoryError):
    """The expected hash no longer matches the file (exit 3)."""

    exit_code = 3

    def __init__(self, path: str, text: str, hash_: str) -> None:
        super().__init__(f"{path} changed since it was opened")
        self.path = path
        self.text = text
        self.hash = hash_

    def extra(self) -> dict[str, object]:
        """More for ``--json`` and the routes' 409 beside ``text`` and ``hash`` (an undo's other text)."""
        return {}

    def shown(self) -> str:
        """What the command line prints on stdout: the current text (an undo: both texts)."""
        return self.text


class Refused(BotMemoryError):
    """A rule refuses the request (exit 4)."""

    exit_code = 4


class LinkRefused(Refused):
    """A symbolic link on the way to a file (exit 4): botmemory neither reads nor writes through one."""

    def __init__(self, shown: str) -> None:
        super().__init__(f"{shown} is a symbolic link; botmemory does not read or write through links")
        self.link = shown


class HardLinkRefused(LinkRefused):
    """A regular file with more than one name (exit 4): treated like a symbolic link, since a write in
    place (the archive's append) or a copy of its text would reach the file its other name belongs to.

    With *links*, *shown* is the file as named in messages; without, *shown* is the whole message."""

    def __init__(self, shown: str, links: int | None = None) -> None:
        if links is None:
            Refused.__init__(self, shown)
        else:
            Refused.__init__(self, f"{shown} is a hard link ({links} names for one file); botmemory does not "
                                   "read or write a file that is also elsewhere")
        self.link = shown
        self.ident: tuple[int, int] | None = None   # the file's device and inode, when known


class Busy(BotMemoryError, TimeoutError):
    """Another botmemory process holds the lock too long (exit 1): nothing was written; try again."""

    exit_code = 1


class DiskFull(BotMemoryError):
    """The disk, or the user's quota, is full (exit 5)."""

    exit_code = 5


class PermissionDenied(BotMemoryError):
    """The system refused a read or a write: the file's or folder's permissions, a read-only file system
    (exit 6)."""

    exit_code = 6


def named(e: OSError, done: str = "") -> BotMemoryError | None:
    """The named error for an OSError whose cause a person can act on (a full disk, a permission), or
    None. *done*: what was (not) written, said after the cause (``"nothing was written"``)."""
    import errno as E

    full = {getattr(E, "ENOSPC", 28), getattr(E, "EDQUOT", 122)}
    denied = {getattr(E, "EPERM", 1), getattr(E, "EACCES", 13), getattr(E, "EROFS", 30)}
    where = f" ({e.filename})" if e.filename else ""
    tail = f"; {done}" if done else ""
    if e.errno in full:
        return DiskFull(f"disk full: {e.strerror or 'no space left'}{where}{tail}; free some space and try again")
    if e.errno in denied:
        return PermissionDenied(f"permission denied: {e.strerror or 'not permitted'}{where}{tail}")
    return None


def exit_code_for(e: Exception | KeyboardInterrupt, verbose: bool, logger: Logger | LazyLogger) -> int:
    """The exit code for an error that reached the command line, said plainly on stderr first.

    Shared by ``cli.main`` and the fast path in ``quick.main``: a core error
    gives its own code, a full disk 5 and a permission the system refused 6
    (:func:`named`), Ctrl-C 130, a closed pipe 0, anything else 1 (with the
    traceback logged when *verbose*).
    """
    if isinstance(e, OSError) and not isinstance(e, BotMemoryError):
        known = named(e)
        if known is not None:
            e = known
    if isinstance(e, BotMemoryError):
        sys.stderr.write(f"botmemory: {e}\n")
        return e.exit_code
    if isinstance(e, KeyboardInterrupt):
        return 130
    if isinstance(e, BrokenPipeError):
        return 0
    if verbose:
        logger.exception("unexpected error")
    sys.stderr.write(f"botmemory: unexpected error: {type(e).__name__}: {e}\n")
    return 1
