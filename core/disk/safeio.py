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

import _thread  # threading's own locks (threading.Lock, threading.RLock) without loading threading
import os
import stat
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from ..base.errors import BadInput, Busy, Conflict, Refused
from ..base.log import get_logger
from ..base.record import record
from .nofollow import (
    _NOFOLLOW,
    _NONBLOCK,
    Dir,
    _check_target,
    _is_link,
    _open_file,
    _parent,
    _show,
    check_hard_link,
    link_refusal,
)
from .nofollow import (  # re-exported: callers take them from safeio
    FILE_MODE as FILE_MODE,
)
from .nofollow import (
    fsync_dir as fsync_dir,
)
from .nofollow import (
    hard_link_refusal as hard_link_refusal,
)
from .nofollow import (
    hard_linked as hard_linked,
)
from .nofollow import (
    make_dirs as make_dirs,
)
from .nofollow import (
    open_dir_nofollow as open_dir_nofollow,
)
from .nofollow import (
    pread as pread,
)
from .nofollow import (
    say_hard_link as say_hard_link,
)

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from typing import Any

logger = get_logger(__name__)

TEMP_SUFFIX = ".botmemory.tmp"
MAX_FILE_BYTES = 16 * 1024 * 1024
RACY_NS = 3_000_000_000
"""A file changed less than this long ago may change again within the same time stamp tick: its size and
times alone cannot be trusted yet (the shadows hash it again at the next scan, recall re-reads it)."""
"""The largest memory file botmemory reads or writes (a larger one is bad input)."""


def new_sha256() -> Any:
    """A SHA-256 hasher. hashlib is imported on first use: loading it (OpenSSL) costs a process that
    hashes nothing, such as a search, milliseconds."""
    import hashlib

    return hashlib.sha256()


def sha256(data: bytes) -> str:
    h = new_sha256()
    h.update(data)
    return str(h.hexdigest())


def text_hash(text: str) -> str:
    return sha256(text.encode("utf-8"))


@record(frozen=True)
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


def read_file(path: Path, root: Path | None = None) -> FileText | None:
    """Read a memory file; None when it does not exist.

    With *root*, no folder between *root* and the file may be a symbolic link
    (:func:`open_dir_nofollow`); the file itself never may. Invalid UTF-8 is
    read with replacement characters and ``valid=False`` so reading commands
    still work; writers must refuse such a file.
    """
    data = _bytes_of(path, root)
    return None if data is None else _file_text(data)


def read_text(path: Path, root: Path | None = None) -> str | None:
    """:func:`read_file`'s text alone, not hashed (invalid UTF-8 read with replacement characters): for a
    reader that needs no hash, such as the gauge — hashing loads OpenSSL, milliseconds of a process."""
    data = _bytes_of(path, root)
    return None if data is None else data.decode("utf-8", errors="replace")


def _bytes_of(path: Path, root: Path | None) -> bytes | None:
    try:
        with _parent(path, root) as d:
            got = read_bytes_in(d, path.name, _show(path, root))
    except (FileNotFoundError, NotADirectoryError):
        return None
    return None if got is None else got[0]


def _file_text(data: bytes) -> FileText:
    try:
        return FileText(data.decode("utf-8"), sha256(data), True)
    except UnicodeDecodeError:
        return FileText(data.decode("utf-8", errors="replace"), sha256(data), False)


def read_in(d: Dir, name: str, shown: str) -> FileText | None:
    """Read file *name* of the opened folder *d* (see :func:`read_file`); *shown* names it in messages."""
    got = read_bytes_in(d, name, shown)
    return None if got is None else _file_text(got[0])


def read_bytes_in(d: Dir, name: str, shown: str) -> tuple[bytes, os.stat_result] | None:
    """The bytes of file *name* of the opened folder *d* and its status when opened, never through a link
    (:class:`LinkRefused`); None when it is gone. Not a regular file, or over :data:`MAX_FILE_BYTES`
    (:class:`TooLarge`, or growing past it while read): :class:`BadInput`. *shown* names it in messages."""
    if d.fd is None:   # pragma: no cover - Windows: no O_NOFOLLOW, the name is checked first
        try:
            if _is_link(d.lstat(name)):
                raise link_refusal(shown)
        except FileNotFoundError:
            return None
    try:
        fd = _open_file(d, name, shown, os.O_RDONLY | _NONBLOCK)
    except FileNotFoundError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{shown} is not a regular file")
        check_hard_link(st, shown)
        if st.st_size > MAX_FILE_BYTES:
            raise TooLarge(shown, st.st_size)
        chunks = [os.read(fd, st.st_size + 1)]     # one read when the size held (a short read: the end)
        size = len(chunks[0])
        while size > st.st_size and size <= MAX_FILE_BYTES:     # it grew meanwhile: read on to the end
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise BadInput(f"{shown} grew past {MAX_FILE_BYTES // (1024 * 1024)} MB while being read")
    return (chunks[0] if len(chunks) == 1 else b"".join(chunks)), st


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
        """A regular file's stat; None when it is missing, a link or not a regular file. A regular file
        with another name (a hard link) is :class:`HardLinkRefused`: neither read nor taken as gone."""
        try:
            st = self.dir(path.parent).lstat(path.name)
        except (FileNotFoundError, NotADirectoryError):
            return None
        if not stat.S_ISREG(st.st_mode) or _is_link(st):
            return None
        check_hard_link(st, _show(path, self.root))
        return st

    def read(self, path: Path) -> FileText | None:
        try:
            d = self.dir(path.parent)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return read_in(d, path.name, _show(path, self.root))

    def list(self, folder: Path) -> list[tuple[str, bool]]:
        """(name, is a regular file with one name, not a link) of each entry; [] when the folder is missing.
        A hard-linked file is listed as not regular, and said once (:func:`say_hard_link`)."""
        try:
            d = self.dir(folder)
        except (FileNotFoundError, NotADirectoryError):
            return []
        out: list[tuple[str, bool]] = []
        with os.scandir(d.fd if d.fd is not None else d.path) as it:
            for e in it:
                regular = e.is_file(follow_symlinks=False) and not e.is_symlink()
                if regular:
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        regular = False
                    else:
                        if hard_linked(st):
                            say_hard_link(hard_link_refusal(st, _show(folder / e.name, self.root)))
                            regular = False
                out.append((e.name, regular))
        return out


def file_size(path: Path, root: Path | None = None) -> int | None:
    """The size of a regular file (not read), or None when absent; links refused as in :func:`read_file`."""
    shown = _show(path, root)
    st = _lstat(path, root)
    if st is None:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{shown} is not a regular file")
    check_hard_link(st, shown)
    return st.st_size


def file_mode(path: Path, root: Path | None = None) -> int | None:
    """The permission bits of a regular file (not read), or None when absent (links refused as in
    :func:`read_file`)."""
    st = _lstat(path, root)
    return None if st is None else stat.S_IMODE(st.st_mode)


def _lstat(path: Path, root: Path | None) -> os.stat_result | None:
    """*path*'s own status (not followed), or None when absent; a symbolic link is refused, naming it."""
    try:
        with _parent(path, root) as d:
            st = d.lstat(path.name)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if _is_link(st):
        raise link_refusal(_show(path, root))
    return st


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
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{shown} is not a regular file")
        check_hard_link(st, shown)
        h = new_sha256()
        size = 0
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
            size += len(chunk)
        return h.hexdigest(), size
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, root: Path | None = None, mode: int = FILE_MODE, *,
                 durable: bool = True) -> None:
    """Replace *path* with *data* so that a crash leaves the old file or the new, never a torn one.

    With *root*, the folders between it and *path* are created or opened
    without following a link (a link is refused, naming it). The file gets
    *mode* (0600 unless told: a file of someone else's, such as an agent's
    settings, passes the mode it had). Not *durable*: no fsync (the new file
    may be lost in a power cut, still never torn) — for bookkeeping a hook
    writes before every prompt.
    """
    with Stager() as st:
        st.stage(path, data, root, mode, durable=durable).commit()


class Staged:
    """A file's new bytes, written and fsynced to a temp file beside it, not yet in its place.

    :meth:`commit` renames it over the file (raising only when the file was *not* replaced);
    :meth:`abort` deletes it. Staging every file of a batch first means a full disk or a refused
    write stops the batch before any file changed.
    """

    def __init__(self, d: Dir, name: str, tmp: str, shown: str, durable: bool = True) -> None:
        self._d, self.name, self.tmp, self.shown, self.durable = d, name, tmp, shown, durable
        self.done = False
        self.evidence = False   # left in place when not committed: its presence says the rename never happened

    def commit(self) -> None:
        if self.done:
            raise ValueError(f"{self.shown} was committed or aborted already")
        try:
            _check_target(self._d, self.name, self.shown)
            self._d.replace(self.tmp, self.name)
        except BaseException:
            self.abort()
            raise
        self.done = True
        if not self.durable:
            return
        try:
            self._d.fsync()
        except OSError as e:   # the file is in place; only the folder's own record may lag
            logger.warning("could not sync the folder of %s: %s", self.shown, e)

    def abort(self) -> None:
        """Delete the temp file (unless it is :attr:`evidence`: then it stays for the next start, which
        reads it as "not renamed" and cleans it)."""
        if self.done or self.evidence:   # evidence: left pending (the stager's end aborts it, if no longer)
            return
        self.done = True
        try:
            self._d.unlink(self.tmp)
        except OSError:
            pass


class Stager:
    """Stages files (:class:`Staged`), keeping each folder opened once; on leaving, whatever was staged
    and neither committed nor aborted is aborted, and the folders are closed."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._dirs: dict[tuple[Path, Path | None], Dir] = {}
        self.staged: list[Staged] = []

    def __enter__(self) -> Stager:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            for s in self.staged:
                s.abort()
        finally:
            self._stack.close()

    def stage(self, path: Path, data: bytes, root: Path | None = None, mode: int = FILE_MODE, *,
              durable: bool = True) -> Staged:
        """Write *data* to a temp file beside *path* (see :func:`atomic_write`); nothing replaced yet."""
        shown = _show(path, root)
        if len(data) > MAX_FILE_BYTES:
            raise BadInput(f"refusing to write {len(data) / 1e6:.0f} MB to {shown}: the limit is "
                           f"{MAX_FILE_BYTES // (1024 * 1024)} MB")
        key = (path.parent, root)
        d = self._dirs.get(key)
        if d is None:
            if root is None:
                make_dirs(path.parent)
            d = self._dirs[key] = self._stack.enter_context(_parent(path, root, create=True))
        _check_target(d, path.name, shown)
        tmp = f".{path.name}.{os.urandom(4).hex()}{TEMP_SUFFIX}"
        fd = d.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE & mode)
        staged = Staged(d, path.name, tmp, shown, durable)
        try:
            try:
                view = memoryview(data)
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
                if durable:
                    os.fsync(fd)
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, mode)
            finally:
                os.close(fd)
            if not hasattr(os, "fchmod"):  # pragma: no cover - Windows
                os.chmod(d.path / tmp, mode)
        except BaseException:
            staged.abort()
            raise
        self.staged.append(staged)
        return staged


def append_file(path: Path, data: bytes, root: Path | None = None) -> tuple[int, bool]:
    """Append *data* to an existing regular file with ``O_APPEND``, on a line of its own, and fsync.

    The file is never read whole: only its last byte, to start on a new line.
    Returns (the size before, whether a newline was added first). A crash can
    leave part of *data* at the end; the caller writes it elsewhere only after.
    """
    got = _append(path, data, root, hashed=False)
    return got.size, got.sep


@record(frozen=True)
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
        check_hard_link(st, shown)   # an append in place would land in the file's other name too
        size = st.st_size
        sep = size > 0 and pread(fd, 1, size - 1) != b"\n"
        added = (b"\n" if sep else b"") + data
        before = after = ""
        if hashed:
            h = new_sha256()
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
        check_hard_link(st, shown)
        if st.st_size < size or st.st_size - size > MAX_FILE_BYTES:
            raise Conflict(shown, "", "")
        h = new_sha256()
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


def remove_file(path: Path, root: Path | None = None) -> None:
    """Delete a regular file (refusing links, and with *root* links on the way) and sync its folder."""
    shown = _show(path, root)
    with _parent(path, root) as d:
        _check_target(d, path.name, shown)
        d.unlink(path.name)
        try:
            d.fsync()
        except OSError as e:   # the file is gone (raising would say it was not); only the folder's record may lag
            logger.warning("could not sync the folder of %s: %s", shown, e)


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
    _registry_guard = _thread.allocate_lock()

    def __init__(self, lock_file: Path, root: Path | None = None) -> None:
        self._thread_lock = _thread.RLock()
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
