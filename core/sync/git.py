"""The git command line, for botmemory's own repository (``<home>/botmemory/sync/repo``, bare, never checked out).

Sync uses the ``git`` the person already has, so their credentials, ssh agent, ``url.*.insteadOf`` and
credential helpers work unchanged; there is no transport of our own. Its version is checked once per process
(:func:`check_git`): when git is missing or too old, one line says so.

Every call runs with ``GIT_DIR`` set to our repository and nothing else of the caller's git environment, with
no terminal prompt (``GIT_TERMINAL_PROMPT=0``, stdin closed, a session of its own: a sync never waits for a
password someone cannot see), with no hooks of ours, umask 077, and a time limit: a network call that does
not answer in :data:`NETWORK_TIMEOUT_S` is ended (its whole process group) and reported. A failure to reach
or authenticate is :class:`Unreachable`, said in one line that never shows a credential.

A git process left running by a botmemory that was killed is found through ``git.pid`` and ended before the
next round; then the ``*.lock`` files it left in our repository are removed (only ever under our own lock).
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import BotMemoryError
from ..base.log import get_logger

logger = get_logger(__name__)

MIN_VERSION = (2, 20)
NETWORK_TIMEOUT_S = 120.0
LOCAL_TIMEOUT_S = 120.0
ORPHAN_WAIT_S = 20.0

_CLEARED_ENV = ("GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                "GIT_NAMESPACE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
                "GIT_QUARANTINE_PATH", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE",
                "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TRACE", "GIT_TRACE_PACKET", "GIT_PREFIX")
_SHA = re.compile(r"[0-9a-f]{40}")
_POSIX: dict[str, Any] = {"start_new_session": True, "umask": 0o077} if os.name == "posix" else {}
"""A session of its own (no terminal to prompt on; its group ended at a time limit) and nothing readable by others."""


class SyncError(BotMemoryError):
    """Sync could not run now (exit 1); nothing was lost, and it is tried again later."""

    exit_code = 1


class GitMissing(SyncError):
    """The git command line is absent or too old."""


class Unreachable(SyncError):
    """The remote could not be reached, refused our credentials, or is gone: nothing was lost."""


class Rejected(SyncError):
    """A push the remote refused because it moved on meanwhile (someone else pushed): fetch and try again."""


_checked: str | None = None


def check_git() -> str:
    """The installed git's version (``"2.39.5"``), checked once per process; :class:`GitMissing` in one line."""
    global _checked
    if _checked is not None:
        return _checked
    need = ".".join(map(str, MIN_VERSION))
    try:
        p = subprocess.run(["git", "--version"], capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise GitMissing(f"sync needs the git command line ({need} or newer), and `git` is not on PATH: "
                         "install git, then try again") from None
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GitMissing(f"sync needs the git command line ({need} or newer), and `git --version` failed: {e}") from None
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", p.stdout)
    if p.returncode != 0 or not m:
        raise GitMissing(f"sync needs the git command line ({need} or newer), and `git --version` said "
                         f"{(p.stdout or p.stderr).strip()[:100]!r}")
    found = (int(m.group(1)), int(m.group(2)))
    if found < MIN_VERSION:
        raise GitMissing(f"sync needs git {need} or newer; this computer has git {m.group(0)}: update git, then try again")
    _checked = m.group(0)
    return _checked


_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)([^/@]*@)")


def shown_url(url: str) -> str:
    """*url* as it may be shown and logged: a ``user:password@`` (or token) part is dropped."""
    return _USERINFO.sub(r"\1", url)


def reason(stderr: str) -> str:
    """What git's error output means for a person, in a few words, with git's own last line."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip() and not ln.lower().startswith(("hint:", "warning:"))]
    last = lines[-1] if lines else "git failed without saying why"
    last = shown_url(re.sub(r"^(fatal|error|remote): ", "", last))
    last = re.sub(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^/@\s']*@", lambda m: m.group(0).split("//")[0] + "//", last)
    low = stderr.lower()
    if any(w in low for w in ("could not read username", "could not read password", "authentication failed",
                              "permission denied", "access denied", "terminal prompts disabled",
                              "invalid credentials", "host key verification failed")) or re.search(r"\b40[13]\b", low):
        what = "the remote refused this computer's credentials"
    elif any(w in low for w in ("could not resolve host", "connection refused", "network is unreachable",
                                "timed out", "connection reset", "no route to host", "unable to connect",
                                "failed to connect", "couldn't connect", "unable to look up")):
        what = "the remote cannot be reached"
    elif any(w in low for w in ("does not appear to be a git repository", "repository not found", "not found",
                                "no such file or directory", "does not exist")):
        what = "the remote repository is not there"
    else:
        what = "git failed"
    return f"{what} ({last[:200]})"


@dataclass(frozen=True)
class Done:
    code: int
    out: bytes
    err: str

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", "replace")


@dataclass(frozen=True)
class Commit:
    """A commit of the remote's history as the engine reads it."""

    sha: str
    parents: tuple[str, ...]
    author: str
    email: str
    at: int
    message: str

    def trailers(self) -> dict[str, str]:
        """The ``Botmemory-*`` trailers of its message, lowercased names without the prefix (last wins)."""
        out: dict[str, str] = {}
        for line in self.message.splitlines():
            name, sep, value = line.partition(": ")
            if sep and name.lower().startswith("botmemory-"):
                out[name[len("botmemory-"):].lower()] = value.strip()
        return out

    def all_trailers(self, name: str) -> list[str]:
        want = f"botmemory-{name}".lower()
        return [line.partition(": ")[2].strip() for line in self.message.splitlines()
                if line.partition(": ")[0].lower() == want]


@dataclass(frozen=True)
class Changed:
    """One path a commit changed against its (first) parent."""

    path: str
    status: str          # A, M, D, T
    oid: str | None      # the new blob (None: deleted)


class Git:
    """git, run on one bare repository."""

    def __init__(self, git_dir: Path, *, pid_file: Path | None = None, timeout: float = NETWORK_TIMEOUT_S) -> None:
        self.git_dir = git_dir
        self.pid_file = pid_file
        self.timeout = timeout

    # ----- running

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _CLEARED_ENV}
        env.update(GIT_DIR=str(self.git_dir), GIT_TERMINAL_PROMPT="0", LC_ALL="C", LANGUAGE="C",
                   GIT_CONFIG_NOSYSTEM=env.get("GIT_CONFIG_NOSYSTEM", ""))
        if not env["GIT_CONFIG_NOSYSTEM"]:
            del env["GIT_CONFIG_NOSYSTEM"]
        if extra:
            env.update(extra)
        return env

    def run(self, *args: str, input: bytes | None = None, network: bool = False, check: bool = True,
            extra_env: Mapping[str, str] | None = None) -> Done:
        """Run ``git ARGS`` on our repository. *check*: a non-zero exit raises (:class:`Unreachable` for a
        *network* call, else :class:`SyncError`), with git's reason."""
        cmd = ["git", "-c", f"core.hooksPath={self.git_dir / 'hooks-off'}", "-c", "gc.autoDetach=false",
               "-c", "core.quotePath=false", *args]
        timeout = self.timeout if network else LOCAL_TIMEOUT_S
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env(extra_env),
                                    **_POSIX)
        except FileNotFoundError:
            raise GitMissing("sync needs the git command line, and `git` is not on PATH: install git, "
                             "then try again") from None
        self._note(proc.pid)
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            proc.communicate()
            what = "the remote did not answer" if network else "git did not finish"
            raise (Unreachable if network else SyncError)(f"{what} in {timeout:.0f} s (git {args[0]})") from None
        except BaseException:
            _kill_group(proc.pid)
            proc.wait()
            raise
        finally:
            self._note(None)
        done = Done(proc.returncode, out, err.decode("utf-8", "replace"))
        if check and done.code != 0:
            if network:
                raise Unreachable(reason(done.err))
            raise SyncError(f"git {args[0]} failed: {reason(done.err)}")
        return done

    def _note(self, pid: int | None) -> None:
        """Keep the running git's pid in ``git.pid`` (a killed botmemory's git is found by the next round)."""
        if self.pid_file is None:
            return
        try:
            if pid is None:
                self.pid_file.unlink(missing_ok=True)
            else:
                fd = os.open(self.pid_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                             0o600)
                try:
                    os.write(fd, str(pid).encode())
                finally:
                    os.close(fd)
        except OSError as e:
            logger.debug("could not note the git pid in %s: %s", self.pid_file, e)

    def clear_leftovers(self) -> None:
        """End a git a killed botmemory left running on our repository, then remove the lock files git left.

        Called with the sync lock held: no git of ours can be running on the repository but that orphan.
        """
        if self.pid_file is not None:
            try:
                pid = int(self.pid_file.read_text().strip() or "0")
            except (OSError, ValueError):
                pid = 0
            if pid > 0 and _is_git(pid):
                deadline = time.monotonic() + ORPHAN_WAIT_S
                while _alive(pid) and time.monotonic() < deadline:
                    time.sleep(0.1)
                if _alive(pid):
                    logger.warning("ending git process %d, left running by a botmemory that stopped", pid)
                    _kill_group(pid)
            try:
                self.pid_file.unlink(missing_ok=True)
            except OSError:
                pass
        if not self.git_dir.is_dir():
            return
        for dirpath, dirnames, filenames in os.walk(self.git_dir):
            dirnames[:] = [d for d in dirnames if d != "objects" or dirpath != str(self.git_dir)]
            for name in filenames:
                if name.endswith(".lock"):
                    p = Path(dirpath) / name
                    logger.info("removing %s, left by a git that was stopped", p)
                    try:
                        p.unlink()
                    except OSError as e:
                        logger.warning("could not remove %s: %s", p, e)

    # ----- the repository

    def init(self, branch: str) -> None:
        self.git_dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.run("init", "-q", "--bare", str(self.git_dir))
        self.run("symbolic-ref", "HEAD", f"refs/heads/{branch}")

    def set_remote(self, url: str) -> None:
        self.run("config", "remote.origin.url", url)

    def rev(self, ref: str) -> str | None:
        done = self.run("rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
        sha = done.text.strip()
        return sha if done.code == 0 and _SHA.fullmatch(sha) else None

    def has(self, sha: str) -> bool:
        return self.run("cat-file", "-e", f"{sha}^{{commit}}", check=False).code == 0

    def is_ancestor(self, older: str, newer: str) -> bool | None:
        """Whether *older* is in *newer*'s history; None when git cannot tell (an object is missing)."""
        code = self.run("merge-base", "--is-ancestor", older, newer, check=False).code
        return True if code == 0 else False if code == 1 else None

    def top(self, commit: str) -> dict[str, str]:
        """The folders at the top of *commit*'s tree: name -> tree id."""
        out: dict[str, str] = {}
        for entry in self.run("ls-tree", "-z", commit).out.split(b"\0"):
            if not entry:
                continue
            meta, _, name = entry.partition(b"\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == b"tree":
                out[name.decode("utf-8", "surrogateescape")] = parts[2].decode()
        return out

    def files(self, tree: str) -> dict[str, str]:
        """Every blob below *tree*: relative path -> blob id."""
        out: dict[str, str] = {}
        for entry in self.run("ls-tree", "-r", "-z", tree).out.split(b"\0"):
            if not entry:
                continue
            meta, _, name = entry.partition(b"\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == b"blob":
                out[name.decode("utf-8", "surrogateescape")] = parts[2].decode()
        return out

    def blobs(self, oids: Iterable[str]) -> dict[str, bytes]:
        """The contents of the blobs *oids* (one ``cat-file --batch``)."""
        want = sorted(set(oids))
        if not want:
            return {}
        data = self.run("cat-file", "--batch", input=("\n".join(want) + "\n").encode()).out
        out: dict[str, bytes] = {}
        pos = 0
        for oid in want:
            nl = data.index(b"\n", pos)
            head = data[pos:nl].split()
            pos = nl + 1
            if len(head) < 3 or head[1] == b"missing":
                raise SyncError(f"git cat-file: blob {oid} is missing from botmemory's repository")
            size = int(head[2])
            out[oid] = data[pos:pos + size]
            pos += size + 1
        return out

    def fast_import(self, stream: bytes, marks: Path) -> dict[str, str]:
        """Write commits (and their blobs and trees) from a ``git fast-import`` stream; mark -> commit id."""
        self.run("fast-import", "--quiet", "--force", "--date-format=raw", f"--export-marks={marks}", input=stream)
        out: dict[str, str] = {}
        try:
            for line in marks.read_text().splitlines():
                mark, _, sha = line.partition(" ")
                out[mark] = sha.strip()
        finally:
            marks.unlink(missing_ok=True)
        return out

    def update_ref(self, ref: str, sha: str | None) -> None:
        if sha is None:
            self.run("update-ref", "-d", ref, check=False)
        else:
            self.run("update-ref", ref, sha)

    def tree_of(self, commit: str) -> str:
        return self.run("rev-parse", f"{commit}^{{tree}}").text.strip()

    # ----- the remote

    def remote_head(self) -> tuple[bool, str | None]:
        """Whether the remote answers, and the branch its HEAD names (None: an empty repository)."""
        done = self.run("ls-remote", "--symref", "origin", "HEAD", network=True)
        for line in done.text.splitlines():
            if line.startswith("ref: refs/heads/") and line.endswith("\tHEAD"):
                return True, line[len("ref: refs/heads/"):-len("\tHEAD")]
        return True, None

    def remote_tip(self, branch: str) -> str | None:
        """The remote branch's commit, asked over the network without fetching (None: no such branch)."""
        done = self.run("ls-remote", "origin", f"refs/heads/{branch}", network=True)
        for line in done.text.splitlines():
            sha, _, ref = line.partition("\t")
            if ref == f"refs/heads/{branch}" and _SHA.fullmatch(sha):
                return sha
        return None

    def fetch(self, branch: str) -> str | None:
        """Fetch the remote branch into ``refs/remotes/origin/BRANCH``; its commit, or None when it has none."""
        tracking = f"refs/remotes/origin/{branch}"
        done = self.run("fetch", "--no-tags", "-q", "origin",
                        f"+refs/heads/{branch}:{tracking}", network=True, check=False)
        if done.code != 0:
            if "couldn't find remote ref" in done.err.lower():
                self.update_ref(tracking, None)
                return None
            raise Unreachable(reason(done.err))
        return self.rev(tracking)

    def push(self, sha: str, branch: str) -> None:
        """Push *sha* to the remote branch, never forced: :class:`Rejected` when the remote moved on."""
        done = self.run("push", "--porcelain", "-q", "origin", f"{sha}:refs/heads/{branch}", network=True,
                        check=False)
        if done.code == 0:
            return
        text = (done.text + "\n" + done.err).lower()
        if "[rejected]" in text or "non-fast-forward" in text or "fetch first" in text or "stale info" in text:
            raise Rejected("the remote moved on while this computer pushed")
        raise Unreachable(reason(done.err or done.text))

    # ----- history

    def log(self, base: str | None, tip: str, *, first_parent: bool = False, limit: int | None = None) -> list[Commit]:
        """The commits in *tip* but not *base*, newest first (topological)."""
        args = ["log", "-z", "--topo-order", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%at%x1f%B"]
        if first_parent:
            args.append("--first-parent")
        if limit is not None:
            args.append(f"--max-count={limit}")
        args.append(tip if base is None else f"{base}..{tip}")
        out: list[Commit] = []
        for rec in self.run(*args).text.split("\0"):
            rec = rec.lstrip("\n")
            if not rec:
                continue
            parts = rec.split("\x1f", 5)
            if len(parts) != 6 or not _SHA.fullmatch(parts[0]):
                continue
            try:
                at = int(parts[4])
            except ValueError:
                at = 0
            out.append(Commit(parts[0], tuple(parts[1].split()), parts[2], parts[3], at, parts[5]))
        return out

    def diffs(self, pairs: Sequence[tuple[str, str | None]]) -> dict[str, list[Changed]]:
        """For each (commit, parent) pair, the paths that differ from parent to commit (parent None: from nothing)."""
        if not pairs:
            return {}
        lines = "".join(f"{c} {p}\n" if p else f"{c}\n" for c, p in pairs)
        data = self.run("diff-tree", "--stdin", "-r", "-z", "--no-renames", "--root", input=lines.encode()).out
        out: dict[str, list[Changed]] = {}
        current: list[Changed] | None = None
        tokens = data.split(b"\0")
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            i += 1
            if not tok:
                continue
            s = tok.decode("utf-8", "surrogateescape")
            if s.startswith(":"):
                parts = s[1:].split()
                path = tokens[i].decode("utf-8", "surrogateescape") if i < len(tokens) else ""
                i += 1
                if current is not None and len(parts) >= 5:
                    status = parts[4][:1]
                    oid = None if status == "D" else parts[3]
                    current.append(Changed(path, status, oid))
            elif _SHA.fullmatch(s.strip()):
                current = out.setdefault(s.strip(), [])
        return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:   # a zombie is not alive (Linux: its state letter)
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _is_git(pid: int) -> bool:
    """Whether *pid* still is a git process (a pid can be reused: only then is it ours to end)."""
    if not _alive(pid):
        return False
    for _ in range(20):   # an empty command line: a process between fork and exec, looked at again shortly
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv0 = f.read().split(b"\0")[0]
        except OSError:
            return os.name != "nt" and not Path("/proc").is_dir()
        if argv0:
            return b"git" in argv0
        time.sleep(0.01)
    return False


def _kill_group(pid: int) -> None:
    if os.name != "posix":   # pragma: no cover - Windows
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass


def blob_id(data: bytes) -> str:
    """The id git gives a blob of *data* (SHA-1 of ``blob <size>\\0`` and the bytes)."""
    import hashlib

    h = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    h.update(data)
    return h.hexdigest()


__all__ = ["Changed", "Commit", "Done", "Git", "GitMissing", "MIN_VERSION", "Rejected", "SyncError", "Unreachable",
           "blob_id", "check_git", "reason", "shown_url"]
