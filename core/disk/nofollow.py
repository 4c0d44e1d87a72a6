"""Reaching a file below a trusted root without passing through a symbolic link.

:func:`open_dir_nofollow` opens each folder below the root with ``O_NOFOLLOW``
relative to the one before (on Windows each component is checked for a
reparse point); :class:`Dir` is such an opened folder, :func:`make_dirs`
creates folders the same way. :mod:`.safeio` reads and writes through them.
"""
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..base.errors import BadInput, HardLinkRefused, LinkRefused, Refused
from ..base.log import get_logger

logger = get_logger(__name__)

FILE_MODE = 0o600
DIR_MODE = 0o700


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)
DIR_FD = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd and os.name != "nt"
"""True where every component is opened relative to its folder's descriptor (Linux, macOS)."""


def link_refusal(shown: str) -> LinkRefused:
    return LinkRefused(shown)


def hard_linked(st: os.stat_result) -> bool:
    """A regular file with more than one name: treated like a symbolic link (a folder always has several)."""
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1


def check_hard_link(st: os.stat_result, shown: str) -> None:
    """:class:`HardLinkRefused` naming *shown* when *st* is a regular file with another name."""
    if hard_linked(st):
        raise hard_link_refusal(st, shown)


def hard_link_refusal(st: os.stat_result, shown: str) -> HardLinkRefused:
    e = HardLinkRefused(shown, st.st_nlink)
    e.ident = (st.st_dev, st.st_ino)
    return e


_SAID: set[object] = set()


def say_hard_link(e: HardLinkRefused) -> None:
    """Log that a hard-linked file was left out, once per process and file (by its device and inode), so
    a command that only looks says it once however many times it meets the file."""
    key = e.ident if e.ident is not None else str(e)
    if key in _SAID:
        return
    _SAID.add(key)
    logger.warning("left out: %s", e)


def _is_link(st: os.stat_result) -> bool:
    """A symbolic link, or on Windows any reparse point (a junction too)."""
    if stat.S_ISLNK(st.st_mode):
        return True
    return bool(getattr(st, "st_file_attributes", 0) & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0))


class Dir:
    """An opened folder: on Linux and macOS a descriptor reached without following any link; elsewhere
    a path whose every component was checked. Names passed to its methods are single components."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    def _p(self, name: str) -> str:
        return name if self.fd is not None else str(self.path / name)

    def open(self, name: str, flags: int, mode: int = 0o777) -> int:
        return os.open(self._p(name), flags | _BINARY, mode, dir_fd=self.fd)

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(self._p(name), dir_fd=self.fd, follow_symlinks=False)

    def replace(self, src: str, dst: str) -> None:
        os.replace(self._p(src), self._p(dst), src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        os.unlink(self._p(name), dir_fd=self.fd)

    def listdir(self) -> list[str]:
        return os.listdir(self.fd if self.fd is not None else self.path)

    def fsync(self) -> None:
        if self.fd is None:
            fsync_dir(self.path)
            return
        try:
            os.fsync(self.fd)
        except OSError as e:  # some file systems refuse fsync on a folder
            if e.errno not in (errno.EINVAL, errno.ENOTSUP):
                raise

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)


def pread(fd: int, n: int, offset: int) -> bytes:
    """Up to *n* bytes at *offset* (``os.pread`` where there is one; Windows seeks)."""
    if hasattr(os, "pread"):
        return os.pread(fd, n, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # pragma: no cover - Windows
    out = b""  # pragma: no cover
    while len(out) < n:  # pragma: no cover
        chunk = os.read(fd, n - len(out))
        if not chunk:
            break
        out += chunk
    return out  # pragma: no cover


def _parts(root: Path, path: Path) -> list[str]:
    parts = list(path.relative_to(root).parts)
    if any(p in ("", ".", "..") for p in parts):
        raise BadInput(f"bad path {path}")
    return parts


def _shown(parts: Sequence[str], i: int) -> str:
    return "/".join(parts[: i + 1])


@contextmanager
def open_dir_nofollow(root: Path, folder: Path, *, create: bool = False) -> Iterator[Dir]:  # noqa: C901
    """Open *folder* (inside *root*) without passing through a symbolic link below *root*.

    Every component after *root* is opened with ``O_NOFOLLOW | O_DIRECTORY``
    relative to the one before (on Windows: checked for a reparse point).
    *create* makes missing folders (0700), never through a link. A link is
    :class:`Refused` naming it relative to *root*; a missing folder raises
    FileNotFoundError (without *create*).
    """
    parts = _parts(root, folder)
    if create and not root.is_dir():
        os.makedirs(root, DIR_MODE, exist_ok=True)
    if not DIR_FD:  # pragma: no cover - Windows
        p = root
        for i, part in enumerate(parts):
            p = p / part
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(p, DIR_MODE)
                st = os.lstat(p)
            if _is_link(st):
                raise link_refusal(_shown(parts, i))
            if not stat.S_ISDIR(st.st_mode):
                raise NotADirectoryError(errno.ENOTDIR, f"{_shown(parts, i)} is not a folder")
        yield Dir(folder, None)
        return
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for i, part in enumerate(parts):
            try:
                nfd = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, DIR_MODE, dir_fd=fd)
                except FileExistsError:
                    pass
                nfd = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
                os.fchmod(nfd, DIR_MODE)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    try:
                        st = os.stat(part, dir_fd=fd, follow_symlinks=False)
                    except OSError:
                        raise e from None
                    if stat.S_ISLNK(st.st_mode):
                        raise link_refusal(_shown(parts, i)) from None
                raise
            old, fd = fd, nfd
            os.close(old)
        d = Dir(folder, fd)
    except BaseException:
        os.close(fd)
        raise
    try:
        yield d
    finally:
        d.close()


@contextmanager
def _parent(path: Path, root: Path | None, *, create: bool = False) -> Iterator[Dir]:
    """The folder of *path*, opened from *root* (None: only *path* itself is checked, its folder trusted)."""
    if root is None:
        root = path.parent
    with open_dir_nofollow(root, path.parent, create=create) as d:
        yield d


def _check_target(d: Dir, name: str, shown: str) -> None:
    try:
        st = d.lstat(name)
    except FileNotFoundError:
        return
    if _is_link(st):
        raise link_refusal(shown)
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"{shown} is not a regular file")
    check_hard_link(st, shown)


def _show(path: Path, root: Path | None) -> str:
    if root is None:
        return path.name
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


def make_dirs(path: Path, root: Path | None = None) -> None:
    """Create *path* and missing parents with mode 0700; below *root*, never through a link."""
    if root is not None:
        with open_dir_nofollow(root, path, create=True):
            return
    if path.is_dir() and not path.is_symlink():
        return
    missing = []
    p = path
    while not p.exists():
        if p.is_symlink():
            raise link_refusal(p.name)
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            pass
        os.chmod(d, DIR_MODE)


def _open_file(d: Dir, name: str, shown: str, flags: int) -> int:
    try:
        return d.open(name, flags | _NOFOLLOW)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):
            raise link_refusal(shown) from None
        raise


def fsync_dir(path: Path) -> None:
    if os.name == "nt":  # folders cannot be fsynced on Windows; NTFS journals the rename
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as e:  # some file systems refuse fsync on a folder
        if e.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)
