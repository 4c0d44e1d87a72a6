"""Safe writes and the workspace lock.

Every file botmemory writes goes through :func:`atomic_write`: a temp file in the
same folder, written and fsynced, ``os.replace``d over the target, then the
folder fsynced. Files are 0600 and folders 0700. A target that is a symbolic
link, or exists and is not a regular file, is refused — a write never follows a
link out of the workspace.

The lock is one per workspace: ``flock`` on a file under ``<home>/botmemory/locks``
(outside the workspace, never renamed), reentrant within a process.
"""
from __future__ import annotations

import errno
import hashlib
import logging
import os
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BadInput, Busy, Refused

logger = logging.getLogger(__name__)

FILE_MODE = 0o600
DIR_MODE = 0o700
TEMP_SUFFIX = ".botmemory.tmp"
MAX_FILE_BYTES = 16 * 1024 * 1024
RACY_NS = 3_000_000_000
"""A file changed less than this long ago may change again within the same time stamp tick: its size and
times alone cannot be trusted yet (the shadows hash it again at the next scan, recall re-reads it)."""
"""The largest memory file botmemory reads or writes (a larger one is bad input)."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    return sha256(text.encode("utf-8"))


@dataclass(frozen=True)
class FileText:
    """A file's text as read: ``valid`` is False when the bytes were not UTF-8."""

    text: str
    hash: str
    valid: bool = True


def make_dirs(path: Path) -> None:
    """Create *path* and missing parents with mode 0700."""
    if path.is_dir():
        return
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            pass
        os.chmod(d, DIR_MODE)


def _check_target(path: Path) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise Refused(f"{path.name} is a symbolic link; botmemory never writes through a link")
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"{path.name} is not a regular file")


def read_file(path: Path) -> FileText | None:
    """Read a memory file; None when it does not exist.

    Invalid UTF-8 is read with replacement characters and ``valid=False`` so
    reading commands still work; writers must refuse such a file.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise Refused(f"{path.name} is a symbolic link; botmemory does not follow links")
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{path.name} is not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise BadInput(
            f"{path.name} is {st.st_size / 1e6:.0f} MB, larger than botmemory reads "
            f"({MAX_FILE_BYTES // (1024 * 1024)} MB); trim it in another editor"
        )
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"{path.name} grew past {MAX_FILE_BYTES // (1024 * 1024)} MB while being read")
    try:
        return FileText(data.decode("utf-8"), sha256(data), True)
    except UnicodeDecodeError:
        return FileText(data.decode("utf-8", errors="replace"), sha256(data), False)


def atomic_write(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Replace *path* with *data* so that a crash leaves the old file or the new, never a torn one.

    The file gets *mode* (0600 unless told: a file of someone else's, such as an
    agent's settings, passes the mode it had)."""
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"refusing to write {len(data) / 1e6:.0f} MB to {path.name}: the limit is "
                       f"{MAX_FILE_BYTES // (1024 * 1024)} MB")
    make_dirs(path.parent)
    _check_target(path)
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}{TEMP_SUFFIX}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), FILE_MODE & mode)
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        _check_target(path)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


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


def remove_file(path: Path) -> None:
    """Delete a regular file (refusing links) and sync its folder."""
    _check_target(path)
    os.unlink(path)
    fsync_dir(path.parent)


def clean_stale_temps(folder: Path, subfolders: tuple[str, ...] = ("", "memory", "memory/log")) -> int:
    """Remove temp files a crashed writer left behind (call with the lock held).

    Only the folders botmemory writes are looked at — the workspace is also the
    bot's working folder and may hold a whole project tree.
    """
    n = 0
    for sub in subfolders:
        try:
            names = os.listdir(folder / sub)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            if name.endswith(TEMP_SUFFIX):
                try:
                    os.unlink(folder / sub / name)
                    n += 1
                except OSError as e:
                    logger.warning("could not remove stale temp file %s: %s", name, e)
    if n:
        logger.info("removed %d stale temp file(s) under %s", n, folder)
    return n


class _FileLock:
    """``flock`` on POSIX (kernel-released when the process dies); filelock's msvcrt lock on Windows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._other: Any = None

    def acquire(self, timeout: float) -> None:
        if os.name == "nt":  # pragma: no cover - exercised on Windows only
            from filelock import FileLock

            self._other = FileLock(str(self.path), thread_local=False)
            try:
                self._other.acquire(timeout=timeout)
            except TimeoutError:
                raise self._busy() from None
            return
        import fcntl

        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise self._busy() from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
            except BaseException:
                os.close(fd)
                raise
        self._fd = fd

    def _busy(self) -> Busy:
        name = self.path.stem
        what = "the home" if name == "_home" else f"{name}'s workspace"
        return Busy(f"{what} is busy: another botmemory is writing; try again")

    def release(self) -> None:
        if self._other is not None:  # pragma: no cover - Windows
            self._other.release()
            self._other = None
            return
        if self._fd is not None:
            import fcntl

            fd, self._fd = self._fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


class WorkspaceLock:
    """A cross-process lock on one workspace, reentrant within this process."""

    _registry: dict[Path, WorkspaceLock] = {}
    _registry_guard = threading.Lock()

    def __init__(self, lock_file: Path) -> None:
        self._thread_lock = threading.RLock()
        self._file_lock = _FileLock(lock_file)
        self._depth = 0
        self.lock_file = lock_file

    @classmethod
    def for_file(cls, lock_file: Path) -> WorkspaceLock:
        with cls._registry_guard:
            lock = cls._registry.get(lock_file)
            if lock is None:
                make_dirs(lock_file.parent)
                lock = cls._registry[lock_file] = cls(lock_file)
            return lock

    @contextmanager
    def held(self, timeout: float = 30.0) -> Iterator[bool]:
        """Hold the lock; yields True when this is the outermost hold (a fresh acquisition)."""
        with self._thread_lock:
            first = self._depth == 0
            if first:
                self._file_lock.acquire(timeout)
            self._depth += 1
            try:
                yield first
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._file_lock.release()
