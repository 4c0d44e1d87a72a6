"""Safe writes and the workspace lock.

Every file botmemory writes goes through :func:`atomic_write`: a temp file in the
same folder, written and fsynced, ``os.replace``d over the target, then the
folder fsynced. Files are 0600 and folders 0700. A target that is a symbolic
link, or exists and is not a regular file, is refused — a write never follows a
link out of the workspace.

Given the *root* they trust (the home), :func:`read_file`, :func:`atomic_write`,
:func:`append_file`, :func:`remove_file`, :func:`make_dirs` and
:func:`clean_stale_temps` reach the file through :func:`open_dir_nofollow`:
each folder below the root opened with ``O_NOFOLLOW`` relative to the one
before, so no read and no write passes through a symbolic link anywhere
between the home and the file (on Windows each component is checked for a
reparse point).

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
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BadInput, Busy, Conflict, LinkRefused, Refused

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
    unkept: str | None = None   # set when the text could not be read (a file too large): why


class TooLarge(BadInput):
    """A file larger than botmemory reads (:data:`MAX_FILE_BYTES`)."""

    def __init__(self, name: str, size: int) -> None:
        super().__init__(
            f"{name} is {size / 1e6:.0f} MB, larger than botmemory reads "
            f"({MAX_FILE_BYTES // (1024 * 1024)} MB); trim it in another editor"
        )
        self.size = size


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)
DIR_FD = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd and os.name != "nt"
"""True where every component is opened relative to its folder's descriptor (Linux, macOS)."""


def link_refusal(shown: str) -> LinkRefused:
    return LinkRefused(shown)


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
def open_dir_nofollow(root: Path, folder: Path, *, create: bool = False) -> Iterator[Dir]:
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


def read_file(path: Path, root: Path | None = None) -> FileText | None:
    """Read a memory file; None when it does not exist.

    With *root*, no folder between *root* and the file may be a symbolic link
    (:func:`open_dir_nofollow`); the file itself never may. Invalid UTF-8 is
    read with replacement characters and ``valid=False`` so reading commands
    still work; writers must refuse such a file.
    """
    shown = _show(path, root)
    try:
        with _parent(path, root) as d:
            return read_in(d, path.name, shown)
    except (FileNotFoundError, NotADirectoryError):
        return None


def read_in(d: Dir, name: str, shown: str) -> FileText | None:
    """Read file *name* of the opened folder *d* (see :func:`read_file`); *shown* names it in messages."""
    try:
        st = d.lstat(name)
    except FileNotFoundError:
        return None
    if _is_link(st):
        raise link_refusal(shown)
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{shown} is not a regular file")
    try:
        fd = _open_file(d, name, shown, os.O_RDONLY | _NONBLOCK)
    except FileNotFoundError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{shown} is not a regular file")
        if st.st_size > MAX_FILE_BYTES:
            raise TooLarge(shown, st.st_size)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"{shown} grew past {MAX_FILE_BYTES // (1024 * 1024)} MB while being read")
    try:
        return FileText(data.decode("utf-8"), sha256(data), True)
    except UnicodeDecodeError:
        return FileText(data.decode("utf-8", errors="replace"), sha256(data), False)


class Folders:
    """Folders below one root, each opened once without following a link, for the many reads of a scan.

    ``lstat`` and ``read`` take a path below the root; a folder on the way that
    is a symbolic link raises :class:`Refused` naming it (every time it is asked).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._stack = ExitStack()
        self._dirs: dict[Path, Dir | BaseException] = {}

    def __enter__(self) -> Folders:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def dir(self, folder: Path) -> Dir:
        got = self._dirs.get(folder)
        if got is None:
            try:
                got = self._stack.enter_context(open_dir_nofollow(self.root, folder))
            except (OSError, Refused) as e:
                got = e
            self._dirs[folder] = got
        if isinstance(got, BaseException):
            raise got
        return got

    def lstat(self, path: Path) -> os.stat_result | None:
        """A regular file's stat; None when it is missing, a link or not a regular file."""
        try:
            st = self.dir(path.parent).lstat(path.name)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return st if stat.S_ISREG(st.st_mode) and not _is_link(st) else None

    def read(self, path: Path) -> FileText | None:
        try:
            d = self.dir(path.parent)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return read_in(d, path.name, _show(path, self.root))

    def list(self, folder: Path) -> list[tuple[str, bool]]:
        """(name, is a regular file, not a link) of each entry; [] when the folder is missing."""
        try:
            d = self.dir(folder)
        except (FileNotFoundError, NotADirectoryError):
            return []
        if d.fd is None:  # pragma: no cover - Windows
            with os.scandir(d.path) as it:
                return [(e.name, e.is_file(follow_symlinks=False) and not e.is_symlink()) for e in it]
        with os.scandir(d.fd) as it:
            return [(e.name, e.is_file(follow_symlinks=False)) for e in it]


def file_size(path: Path, root: Path | None = None) -> int | None:
    """The size of a regular file (not read), or None when absent; links refused as in :func:`read_file`."""
    shown = _show(path, root)
    try:
        with _parent(path, root) as d:
            st = d.lstat(path.name)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if _is_link(st):
        raise link_refusal(shown)
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{shown} is not a regular file")
    return st.st_size


def hash_file(path: Path, root: Path | None = None) -> tuple[str, int] | None:
    """The SHA-256 and size of a file of any size, streamed (never held whole); None when absent."""
    shown = _show(path, root)
    try:
        with _parent(path, root) as d:
            try:
                fd = _open_file(d, path.name, shown, os.O_RDONLY | _NONBLOCK)
            except FileNotFoundError:
                return None
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BadInput(f"{shown} is not a regular file")
        h = hashlib.sha256()
        size = 0
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
            size += len(chunk)
        return h.hexdigest(), size
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, root: Path | None = None, mode: int = FILE_MODE) -> None:
    """Replace *path* with *data* so that a crash leaves the old file or the new, never a torn one.

    With *root*, the folders between it and *path* are created or opened
    without following a link (a link is refused, naming it). The file gets
    *mode* (0600 unless told: a file of someone else's, such as an agent's
    settings, passes the mode it had).
    """
    shown = _show(path, root)
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"refusing to write {len(data) / 1e6:.0f} MB to {shown}: the limit is "
                       f"{MAX_FILE_BYTES // (1024 * 1024)} MB")
    if root is None:
        make_dirs(path.parent)
    with _parent(path, root, create=True) as d:
        _check_target(d, path.name, shown)
        tmp = f".{path.name}.{os.urandom(4).hex()}{TEMP_SUFFIX}"
        fd = d.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE & mode)
        try:
            try:
                view = memoryview(data)
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
                os.fsync(fd)
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, mode)
            finally:
                os.close(fd)
            if not hasattr(os, "fchmod"):  # pragma: no cover - Windows
                os.chmod(d.path / tmp, mode)
            _check_target(d, path.name, shown)
            d.replace(tmp, path.name)
        except BaseException:
            try:
                d.unlink(tmp)
            except OSError:
                pass
            raise
        d.fsync()


def append_file(path: Path, data: bytes, root: Path | None = None) -> tuple[int, bool]:
    """Append *data* to an existing regular file with ``O_APPEND``, on a line of its own, and fsync.

    The file is never read whole: only its last byte, to start on a new line.
    Returns (the size before, whether a newline was added first). A crash can
    leave part of *data* at the end; the caller writes it elsewhere only after.
    """
    got = _append(path, data, root, hashed=False)
    return got.size, got.sep


@dataclass(frozen=True)
class Appended:
    """What :func:`append_file_hashed` did: the size before, whether a newline came first, and the
    SHA-256 of the whole file before and after (streamed, never held whole)."""

    size: int
    sep: bool
    hash_before: str
    hash_after: str


def append_file_hashed(path: Path, data: bytes, root: Path | None = None) -> Appended:
    """:func:`append_file`, also hashing the file before and after (streamed from the same descriptor),
    so that the append can be taken back later by :func:`cut_file` while nothing else changed."""
    return _append(path, data, root, hashed=True)


def _stream_hash(fd: int, size: int, h: Any) -> None:
    pos = 0
    while pos < size:
        chunk = pread(fd, min(1 << 20, size - pos), pos)
        if not chunk:
            break
        h.update(chunk)
        pos += len(chunk)


def _append(path: Path, data: bytes, root: Path | None, *, hashed: bool) -> Appended:
    shown = _show(path, root)
    with _parent(path, root) as d:
        fd = _open_file(d, path.name, shown, os.O_RDWR | os.O_APPEND)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"{shown} is not a regular file")
        size = st.st_size
        sep = size > 0 and pread(fd, 1, size - 1) != b"\n"
        added = (b"\n" if sep else b"") + data
        before = after = ""
        if hashed:
            h = hashlib.sha256()
            _stream_hash(fd, size, h)
            before = h.hexdigest()
            h.update(added)
            after = h.hexdigest()
        view = memoryview(added)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
        return Appended(size, sep, before, after)
    finally:
        os.close(fd)


def cut_file(path: Path, size: int, expected_hash: str, root: Path | None = None) -> tuple[bytes, str]:
    """Cut a regular file back to its first *size* bytes, only while its SHA-256 is still *expected_hash*
    (streamed, never held whole; else :class:`Conflict`, nothing written). Returns (the bytes cut off, the
    hash of what is left). The undo of an :func:`append_file_hashed`."""
    shown = _show(path, root)
    try:
        with _parent(path, root) as d:
            fd = _open_file(d, path.name, shown, os.O_RDWR)
    except (FileNotFoundError, NotADirectoryError):
        raise Conflict(shown, "", "") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"{shown} is not a regular file")
        if st.st_size < size or st.st_size - size > MAX_FILE_BYTES:
            raise Conflict(shown, "", "")
        h = hashlib.sha256()
        _stream_hash(fd, size, h)
        left = h.hexdigest()
        tail = pread(fd, st.st_size - size, size)
        h.update(tail)
        if h.hexdigest() != expected_hash:
            raise Conflict(shown, "", h.hexdigest())
        os.ftruncate(fd, size)
        os.fsync(fd)
        return tail, left
    finally:
        os.close(fd)


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


def remove_file(path: Path, root: Path | None = None) -> None:
    """Delete a regular file (refusing links, and with *root* links on the way) and sync its folder."""
    shown = _show(path, root)
    with _parent(path, root) as d:
        _check_target(d, path.name, shown)
        d.unlink(path.name)
        d.fsync()


def clean_stale_temps(folder: Path, subfolders: tuple[str, ...] = ("", "memory", "memory/log"),
                      root: Path | None = None) -> int:
    """Remove temp files a crashed writer left behind (call with the lock held).

    Only the folders botmemory writes are looked at — the workspace is also the
    bot's working folder and may hold a whole project tree. A folder reached
    through a symbolic link is skipped (and logged), never looked into.
    """
    n = 0
    for sub in subfolders:
        target = folder / sub if sub else folder
        try:
            with open_dir_nofollow(root if root is not None else folder, target) as d:
                names = d.listdir()
                for name in names:
                    if name.endswith(TEMP_SUFFIX):
                        try:
                            _check_target(d, name, name)
                            d.unlink(name)
                            n += 1
                        except (OSError, Refused) as e:
                            logger.warning("could not remove stale temp file %s: %s", name, e)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except Refused as e:
            # info, not a warning: the operation that follows refuses the same link in its own one line
            logger.info("not cleaning temp files: %s", e)
            continue
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

    def __init__(self, lock_file: Path, root: Path | None = None) -> None:
        self._thread_lock = threading.RLock()
        self._file_lock = _FileLock(lock_file)
        self._depth = 0
        self.lock_file = lock_file
        self.root = root

    @classmethod
    def for_file(cls, lock_file: Path, root: Path | None = None) -> WorkspaceLock:
        """The lock of *lock_file*; with *root* (the home) its folder is never reached through a link,
        checked again at every fresh acquisition."""
        with cls._registry_guard:
            lock = cls._registry.get(lock_file)
            if lock is None:
                make_dirs(lock_file.parent, root)
                lock = cls._registry[lock_file] = cls(lock_file, root)
            elif root is not None and lock.root is None:
                lock.root = root
            return lock

    @contextmanager
    def held(self, timeout: float = 30.0) -> Iterator[bool]:
        """Hold the lock; yields True when this is the outermost hold (a fresh acquisition)."""
        with self._thread_lock:
            first = self._depth == 0
            if first:
                if self.root is not None:
                    make_dirs(self.lock_file.parent, self.root)
                self._file_lock.acquire(timeout)
            self._depth += 1
            try:
                yield first
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._file_lock.release()
