"""One sync round: fetch, check, merge, write what came in, commit what went out, push.

A round runs under the sync lock (one round at a time on a home) and never holds a workspace's lock while it
waits for the network: each folder's files are read once, and what came in is written with the hashes they
were read with (someone wrote meanwhile: that folder waits for the next round, nothing is lost).

For each synced folder the engine compares three trees of its files: the *base* (the folder as this computer
last synced it: a commit of ours and the remote's), *ours* (the files now) and *theirs* (the remote branch
now). A file only one side changed is taken from that side; one both changed is merged on entries
(:mod:`.merge`), never losing a line, a clash kept both ways and recorded as a conflict.

- **In**: every change that comes in is written through the folder (the store) as a journal row
  ``how: sync``, with ``who`` and ``host`` as the commit that made it says. A file this computer left alone
  follows the remote's history step by step (one row per commit on the branch's first-parent line that
  changed it; a merge step is named after the newest commit of its other side that changed the file); a
  file both changed gets one row with the merged text.
- **Out**: one commit per journal row since the folder's mark (author: who the row names, at the row's
  time; message: its summary, its changed lines, and ``Botmemory-*`` trailers), then, when the remote moved
  on meanwhile, a merge commit (the remote's tip first, so its first-parent line is the order commits landed).
  Commits are deterministic (the same rows give the same commits), so a round killed after its push and
  before it noted the push pushes nothing twice.
- **Never out**: a credential. The new lines of every text that would leave are checked (``redact``); a hit
  stops that folder's push with one line naming the file.
- **Refused**: a remote whose branch no longer holds the last commit this computer synced (force-pushed,
  rewritten, reset): nothing is merged or pushed, and the line says how to start over.

State is saved twice: after the writes (conflicts, what came in) and after the push (the new base, the mark).
A round stopped anywhere — killed, offline, the remote gone mid-push — leaves the files consistent and the
next round merges to the same result.
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..base.errors import BadInput, BotMemoryError, Conflict, Refused
from ..base.log import get_logger
from ..disk.safeio import text_hash
from ..store.writer import WHO, Actor
from ..text.diff import diff_counts, diff_lines
from .folder import LocalRow, MergesItself, MergeView, SyncFolder
from .git import Changed, Commit, Git, Rejected, SyncError, Unreachable, blob_id, check_git, shown_url
from .keys import key_dir
from .merge import Clash, merge3, units
from .state import Paths, Settings, State, read_settings, read_state, write_state

logger = get_logger(__name__)

RETRIES = 3
MAX_STEPS = 300
"""A file follows the remote's history step by step up to this many commits; past it, in one row."""
MAX_HISTORY = 2000
BUILD_REF = "refs/botmemory/build"
SYNCED_REF = "refs/botmemory/synced"
SUBJECT_MAX = 100
BODY_LINES = 12


def checkpoint(name: str) -> None:
    """A named step of a round: the log says where a round was (tests stop a round here)."""
    logger.debug("sync step: %s", name)


class Rewritten(Refused):
    """The remote's branch no longer holds the last commit this computer synced (exit 4)."""


def _now() -> datetime:
    return datetime.now(UTC)


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# ----- results


@dataclass
class FolderResult:
    """What a round did for one folder."""

    id: str
    key: str
    came_in: int = 0            # rows written here from the remote
    went_out: int = 0           # journal rows that went out as commits (or the files of one commit)
    conflicts: int = 0          # open conflicts after the round
    new_conflicts: int = 0
    pushed_out: int = 0         # lines the merge pushed past what the agent loads
    note: str | None = None     # why it did not sync this round
    refused: str | None = None  # a credential stopped its push (the command exits 4)

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"id": self.id, "key": self.key, "in": self.came_in, "out": self.went_out,
                                "conflicts": self.conflicts}
        if self.new_conflicts:
            d["new_conflicts"] = self.new_conflicts
        if self.pushed_out:
            d["pushed_out"] = self.pushed_out
        if self.note:
            d["note"] = self.note
        if self.refused:
            d["refused"] = self.refused
        return d


@dataclass
class RoundResult:
    folders: list[FolderResult] = field(default_factory=list)
    pushed: bool = False
    tip: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"folders": [f.as_dict() for f in self.folders]}

    @property
    def refused(self) -> list[str]:
        return [f.refused for f in self.folders if f.refused]


# ----- the remote's history, as far as a round needs it


class History:
    """The commits of ``base..tip``: who made each change, and the first-parent line a file follows."""

    def __init__(self, git: Git, base: str | None, tip: str) -> None:
        self.base = base
        self.tip = tip
        self.commits = git.log(base, tip, limit=MAX_HISTORY + 1)
        self.complete = len(self.commits) <= MAX_HISTORY
        self.by_sha = {c.sha: c for c in self.commits}
        pairs = [(c.sha, c.parents[0] if c.parents else None) for c in self.commits]
        self.diffs: dict[str, list[Changed]] = git.diffs(pairs) if self.complete else {}
        self._reach: dict[str, set[str]] = {}

    def chain(self) -> list[Commit] | None:
        """The first-parent line from the base to the tip, oldest first; None when it does not pass the base."""
        if not self.complete or self.base is None:
            return None
        out: list[Commit] = []
        sha = self.tip
        while sha != self.base:
            c = self.by_sha.get(sha)
            if c is None or not c.parents:
                return None
            out.append(c)
            sha = c.parents[0]
        return out[::-1]

    def changed(self, commit: Commit, prefix: str) -> list[Changed]:
        return [ch for ch in self.diffs.get(commit.sha, []) if ch.path.startswith(prefix)]

    def _reachable(self, sha: str) -> set[str]:
        got = self._reach.get(sha)
        if got is None:
            got, stack = set(), [sha]
            while stack:
                s = stack.pop()
                if s in got or s not in self.by_sha:
                    continue
                got.add(s)
                stack.extend(self.by_sha[s].parents)
            self._reach[sha] = got
        return got

    def maker(self, path: str, step: Commit | None = None) -> Commit | None:
        """The newest commit (not a merge) that changed *path*: within *step* (itself, or for a merge the
        commits its other parents brought), or in the whole range."""
        if step is not None and len(step.parents) < 2:
            return step
        within: set[str] | None = None
        if step is not None:
            within = self._reachable(step.sha) - self._reachable(step.parents[0])
        for c in self.commits:   # newest first
            if len(c.parents) > 1 or (within is not None and c.sha not in within):
                continue
            if any(ch.path == path for ch in self.diffs.get(c.sha, [])):
                return c
        return step


def actor_of(commit: Commit | None) -> Actor:
    """Who made a change that came in, as the commit's trailers say (``how: sync``, ``host``: that computer)."""
    if commit is None:
        return Actor("unknown", "sync", None, "another computer")
    t = commit.trailers()
    who = t.get("who", "")
    if who not in WHO:
        who = "unknown"
    host = t.get("host") or commit.email.rpartition("@")[2] or "another computer"
    chat = t.get("chat") or None
    from ..text.entries import clean_title

    return Actor(who, "sync", clean_title(chat) if chat else None, host)


# ----- building commits


def _quote_path(path: str) -> bytes:
    raw = path.encode("utf-8", "surrogateescape")
    if b"\n" in raw or raw.startswith(b'"'):
        return b'"' + raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n") + b'"'
    return raw


def _slug(host: str) -> str:
    return "".join(c if c.isalnum() or c in "-._" else "-" for c in host).strip("-").lower() or "computer"


def _epoch(at: str) -> int:
    try:
        return int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return int(time.time())


@dataclass
class _Commit:
    message: str
    author: str            # "name <email>"
    at: int
    ops: dict[str, str | None]      # repo path -> text (None: deleted)
    parents: list[str]               # ":mark" or a sha
    committer: str


class _Stream:
    """A ``git fast-import`` stream of the commits a round makes."""

    def __init__(self) -> None:
        self.commits: list[_Commit] = []

    def add(self, c: _Commit) -> str:
        self.commits.append(c)
        return f":{len(self.commits)}"

    def data(self) -> bytes:
        out: list[bytes] = []
        for n, c in enumerate(self.commits, 1):
            msg = c.message.encode("utf-8")
            out += [f"commit {BUILD_REF}\nmark :{n}\n".encode(),
                    f"author {c.author} {c.at} +0000\ncommitter {c.committer} {c.at} +0000\n".encode("utf-8"),
                    b"data %d\n" % len(msg), msg, b"\n"]
            if c.parents:
                out.append(f"from {c.parents[0]}\n".encode())
                for p in c.parents[1:]:
                    out.append(f"merge {p}\n".encode())
            for path, text in sorted(c.ops.items()):
                if text is None:
                    out.append(b"D " + _quote_path(path) + b"\n")
                else:
                    body = text.encode("utf-8")
                    out += [b"M 100644 inline " + _quote_path(path) + b"\n", b"data %d\n" % len(body), body, b"\n"]
            out.append(b"\n")
        return b"".join(out)


def _first_added(diff: str) -> str:
    """The first added line of a diff, as a person reads it: an entry's fact without its date and source."""
    from ..text.entries import BlockKind, parse_block_head

    for tag, line in diff_lines(diff):
        if tag == "+" and line.strip():
            head = parse_block_head(line)
            text = head.text if head.kind is BlockKind.ENTRY and head.text else line
            return " ".join(text.split())
    return ""


def row_message(key: str, row: LocalRow, host: str, folded: Sequence[LocalRow] = (),
                described: str | None = None) -> str:
    """A row's commit message: its summary (*described*: the folder's words for it), its changed lines, and the
    trailers another computer reads back."""
    from ..redact import contains_secret, redact

    plus, minus = diff_counts(row.diff)
    what = ("created" if row.before_hash is None else "deleted" if row.after_hash is None else f"+{plus} -{minus}")
    subject = f"{key}: {row.file} {what}"
    first = " ".join(described.split()) if described else _first_added(row.diff)
    if first:
        subject = f"{subject}: {first}"
    if len(subject) > SUBJECT_MAX:
        subject = subject[:SUBJECT_MAX - 1] + "…"
    body = [f"{tag}{line}" for tag, line in diff_lines(row.diff)][:BODY_LINES]
    lines = [subject, ""]
    if body:
        lines += body + [""]
    if folded:
        lines += ["With these changes, whose texts were not kept apart:"]
        lines += [f"  {r.at} {r.who}/{r.how} {r.file}" for r in folded] + [""]
    trailers = [f"Botmemory-Folder: {key}", f"Botmemory-File: {row.file}", f"Botmemory-Who: {row.who}",
                f"Botmemory-How: {row.how}"]
    if row.chat:
        trailers.append(f"Botmemory-Chat: {' '.join(row.chat.split())}")
    trailers += [f"Botmemory-Host: {host}", f"Botmemory-Row: {row.id}"]
    if row.how == "resolve":
        trailers.append(f"Botmemory-Resolved: {key_dir(key)}/{row.file}")
    text = "\n".join(lines + trailers) + "\n"
    return redact(text) if contains_secret(text) else text


def _new_lines(after: str | None, before: str | None) -> str:
    """The units of *after* that *before* does not have (what a change would send)."""
    if not after:
        return ""
    extra = Counter(units(after)) - Counter(units(before or ""))
    return "\n".join(u for u in units(after) if extra[u] > 0)


# ----- a folder's plan for one round


@dataclass
class _Plan:
    folder: SyncFolder
    result: FolderResult
    dir: str
    rows: list[LocalRow]
    newest: str | None
    found: bool
    theirs_tree: str | None
    base_files: dict[str, str] = field(default_factory=dict)     # rel -> blob id
    theirs_files: dict[str, str] = field(default_factory=dict)
    ours: dict[str, str] = field(default_factory=dict)           # rel -> text
    desired: dict[str, str | None] = field(default_factory=dict)  # rel -> the merged text (None: absent)
    clashes: dict[str, list[Clash]] = field(default_factory=dict)
    resolved: list[str] = field(default_factory=list)             # conflicts resolved here, said in this round
    base: str | None = None                                       # the folder's base when the round began
    tree: str | None = None
    ff: set[str] = field(default_factory=set)                     # files only the remote changed
    merged: set[str] = field(default_factory=set)                 # files both changed
    actors: dict[str, Actor] = field(default_factory=dict)        # who a file the folder merged itself is written as
    failed: bool = False

    @property
    def exported(self) -> list[LocalRow]:
        return [r for r in self.rows if r.how != "sync" and self.folder.accepts(r.file)]


class Engine:
    """Sync rounds for the folders of one home (``ops.sync`` builds it with the home's folders)."""

    def __init__(self, paths: Paths, folders: Mapping[str, SyncFolder], host: str, *,
                 now: Callable[[], datetime] = _now, prepare: bool = True) -> None:
        self.paths = paths
        self.folders = folders
        self.host = host
        self.now = now
        self.prepare = prepare

    def git(self) -> Git:
        return Git(self.paths.repo, pid_file=self.paths.pid)

    # ----- the round

    def run(self, only: Iterable[str] | None = None, *, lock_timeout: float = 60.0) -> RoundResult:
        """One round for every synced folder (or *only* these ids). :class:`Unreachable` (exit 1) when the
        remote cannot be reached; :class:`Rewritten` (exit 4) when it was rewritten; nothing is lost either way."""
        check_git()
        settings = read_settings(self.paths)
        if not settings.remote:
            raise BadInput("sync is not set up on this computer: `botmemory sync setup REMOTE` chooses the remote")
        ids = [f.id for f in settings.folders if only is None or f.id in set(only)]
        if only is not None:
            unknown = sorted(set(only) - {f.id for f in settings.folders})
            if unknown:
                raise BadInput(f"{', '.join(unknown)} is not synced (synced: "
                               f"{', '.join(f.id for f in settings.folders) or 'none'}); `botmemory sync add ID` adds it")
        with self.paths.lock().held(lock_timeout):
            git = self.git()
            git.clear_leftovers()
            if not (self.paths.repo / "HEAD").is_file():
                git.init(settings.branch)
            git.set_remote(settings.remote)
            state = read_state(self.paths)
            try:
                for _ in range(RETRIES):
                    try:
                        result = self._round(git, settings, state, ids)
                    except Rejected:
                        logger.info("the remote moved on while this computer pushed: fetching again")
                        state = read_state(self.paths)
                        continue
                    state.error = None
                    state.last_ok = state.last_round = iso(self.now())
                    write_state(self.paths, state)
                    return result
                raise Unreachable("the remote kept moving while this computer pushed (3 tries)")
            except Unreachable as e:
                line = f"cannot sync with {shown_url(settings.remote)}: {e}; nothing was lost: sync tries again later"
                state.error, state.last_round = line, iso(self.now())
                write_state(self.paths, state)
                raise Unreachable(line) from None
            except Rewritten as e:
                state.error, state.last_round = str(e), iso(self.now())
                write_state(self.paths, state)
                raise

    def _round(self, git: Git, settings: Settings, state: State, ids: Sequence[str]) -> RoundResult:  # noqa: C901
        out = RoundResult()
        plans: list[_Plan] = []
        checkpoint("prepare")
        for fid in ids:
            spec = settings.folder(fid)
            assert spec is not None
            fs = state.folder(fid)
            res = FolderResult(fid, spec.key, conflicts=len(fs.conflicts))
            out.folders.append(res)
            folder = self.folders.get(fid)
            try:
                if folder is None:
                    raise BadInput(f"{fid} is not a bot or tracked folder of this home any more "
                                   f"(`botmemory sync remove {fid}` stops syncing it)")
                why = folder.prepare() if self.prepare else None
                rows, newest, found = folder.rows_since(fs.mark)
            except BotMemoryError as e:
                why = str(e)
            if why:
                res.note = fs.note = why
                continue
            assert folder is not None
            plans.append(_Plan(folder, res, key_dir(spec.key), rows, newest, found, None, base=fs.base, tree=fs.tree,
                               resolved=list(fs.resolved)))

        checkpoint("fetch")
        tip = git.fetch(settings.branch)
        synced = state.synced
        if synced is not None and not git.has(synced):
            logger.warning("botmemory's repository lost commit %s: every folder merges again with the remote", synced)
            synced = state.synced = None
            for fs in state.folders.values():
                fs.base = fs.tree = None
        if synced is not None and (tip is None or (tip != synced and git.is_ancestor(synced, tip) is not True)):
            raise Rewritten(
                f"the remote's {settings.branch} was rewritten (force-pushed or reset): the last commit this computer "
                f"synced ({synced[:12]}) is no longer in its history. Nothing was merged or pushed; if the rewrite "
                f"was meant, `botmemory sync setup {shown_url(settings.remote or '')}` again merges this "
                "computer's memory with what the remote holds now")
        theirs_top = git.top(tip) if tip else {}
        synced_top = theirs_top if synced == tip else (git.top(synced) if synced else {})

        checkpoint("plan")
        active: list[_Plan] = []
        for p in plans:
            fs = state.folder(p.folder.id)
            p.theirs_tree = theirs_top.get(p.dir)
            if fs.mark is None:            # the first round since `sync add`: what is here now is the start
                p.rows = []
            lost_mark = fs.mark is not None and not p.found
            if (p.folder.journaled and fs.base is not None and not p.exported and not lost_mark
                    and p.theirs_tree == fs.tree and not fs.resolved):
                continue                   # nothing here, nothing there
            active.append(p)
        histories: dict[str | None, History] = {}
        if active:
            self._read_trees(git, state, active)
            for p in active:
                if p.theirs_tree != p.tree and tip is not None and p.base not in histories:
                    histories[p.base] = History(git, p.base if synced is not None else None, tip)
        blobs = self._blobs(git, active)
        for p in active:
            self._merge(p, blobs, histories.get(p.base))
            self._check_secrets(p, blobs)

        # in: conflicts other computers recorded or resolved, then what came, written through each folder
        if synced is not None and tip is not None and tip != synced:
            said = git.log(synced, tip, limit=MAX_HISTORY)
            self._trailers_in(said, [p for p in plans if not p.failed and not p.result.refused], state)
        for p in active:
            if p.result.refused:
                continue
            checkpoint(f"write {p.folder.id}")
            self._write_in(git, p, state, histories.get(p.base), blobs)
            if not p.failed and tip is not None:
                # what is here now holds the remote's text: a round stopped before its push merges against it
                fs = state.folder(p.folder.id)
                fs.base, fs.tree = tip, p.theirs_tree
                write_state(self.paths, state)
        write_state(self.paths, state)     # conflicts and what came in are kept even if the push fails
        checkpoint("written")

        # out: one commit per journal row, then the merge
        done = [p for p in active if not p.failed and not p.result.refused]
        new_tip = self._commit(git, settings, state, done, synced, tip, synced_top)
        if new_tip is not None and new_tip != tip:
            checkpoint("push")
            git.push(new_tip, settings.branch)
            out.pushed = True
            checkpoint("pushed")
        final = new_tip or tip
        out.tip = final
        final_top = theirs_top if final == tip else (git.top(final) if final else {})
        now = iso(self.now())
        for p in plans:
            fs = state.folder(p.folder.id)
            if p in active and (p.failed or p.result.refused):
                fs.note = p.result.note
                continue
            if p not in active and final_top.get(p.dir) != fs.tree:
                continue
            fs.base, fs.tree, fs.note = final, final_top.get(p.dir), None
            fs.last_sync = now
            fs.mark = self._mark_after(p)
            if p in active:
                fs.last_in, fs.last_out, fs.pushed_out = p.result.came_in, p.result.went_out, p.result.pushed_out
                fs.resolved = [r for r in fs.resolved if r not in p.resolved]
        state.synced = final
        if final is not None:
            git.update_ref(SYNCED_REF, final)
        for p in plans:
            p.result.conflicts = len(state.folder(p.folder.id).conflicts)
            if isinstance(p.folder, MergesItself):
                try:
                    p.result.conflicts = len(p.folder.open_conflicts())
                except BotMemoryError as e:
                    logger.info("could not count the conflicts of %s: %s", p.folder.id, e)
        checkpoint("saved")
        return out

    # ----- reading

    def _read_trees(self, git: Git, state: State, active: list[_Plan]) -> None:
        for p in active:
            fs = state.folder(p.folder.id)
            try:
                p.ours = {rel: t for rel, t in p.folder.read().items() if p.folder.accepts(rel)}
            except BotMemoryError as e:
                p.failed, p.result.note = True, str(e)
                continue
            if fs.base is not None and fs.tree:
                p.base_files = {r: o for r, o in git.files(fs.tree).items() if p.folder.accepts(r)}
            if p.theirs_tree:
                p.theirs_files = {r: o for r, o in git.files(p.theirs_tree).items() if p.folder.accepts(r)}

    def _blobs(self, git: Git, active: list[_Plan]) -> dict[str, str]:
        """The texts of the remote's and the base's blobs a merge needs (not those of files that agree)."""
        want: set[str] = set()
        for p in active:
            for rel in set(p.ours) | set(p.base_files) | set(p.theirs_files):
                o = p.ours.get(rel)
                o_id = blob_id(o.encode("utf-8")) if o is not None else None
                b_id, t_id = p.base_files.get(rel), p.theirs_files.get(rel)
                if o_id == t_id:
                    continue
                if t_id is not None:
                    want.add(t_id)
                if b_id is not None and o_id != b_id and t_id != b_id:
                    want.add(b_id)
        out: dict[str, str] = {}
        for oid, data in git.blobs(want).items():
            try:
                out[oid] = data.decode("utf-8")
            except UnicodeDecodeError:
                logger.warning("blob %s of the remote is not UTF-8: left as it is", oid)
        return out

    # ----- merging

    def _merge(self, p: _Plan, blobs: Mapping[str, str], hist: History | None) -> None:
        if p.failed:
            return
        own = p.folder if isinstance(p.folder, MergesItself) else None
        both: dict[str, tuple[str | None, str | None, str | None]] = {}
        newest_row: dict[str, str] = {}
        for r in p.exported:
            newest_row[r.file] = r.at
        for rel in sorted(set(p.ours) | set(p.base_files) | set(p.theirs_files)):
            o = p.ours.get(rel)
            b_id, t_id = p.base_files.get(rel), p.theirs_files.get(rel)
            o_id = blob_id(o.encode("utf-8")) if o is not None else None
            merging = o_id not in (b_id, t_id) and t_id != b_id
            if o_id != t_id and ((t_id is not None and t_id not in blobs)
                                 or (merging and b_id is not None and b_id not in blobs)):
                continue                    # a blob that is not text: the file is left as it is on both sides
            if o_id == t_id:
                p.desired[rel] = o
            elif o_id == b_id:
                p.desired[rel] = blobs[t_id] if t_id is not None else None
                p.ff.add(rel)
            elif t_id == b_id:
                p.desired[rel] = o
            elif own is not None:           # records, not lines: the folder decides (below)
                both[rel] = (blobs[b_id] if b_id else None, o, blobs[t_id] if t_id else None)
                p.desired[rel] = o
                p.merged.add(rel)
            else:
                ours_newer = True
                if hist is not None and rel in newest_row:
                    maker = hist.maker(f"{p.dir}/{rel}")
                    ours_newer = maker is None or _epoch(newest_row[rel]) >= maker.at
                m = merge3(blobs[b_id] if b_id else None, o, blobs[t_id] if t_id else None, ours_newer=ours_newer)
                p.desired[rel] = m.text
                p.merged.add(rel)
                if m.clashes:
                    p.clashes[rel] = m.clashes
        if own is not None:
            self._merge_own(own, p, both, hist)

    def _merge_own(self, own: MergesItself, p: _Plan, both: dict[str, tuple[str | None, str | None, str | None]],
                   hist: History | None) -> None:
        """A folder of records decides what its files become (and may add files: a team's conflict cards)."""
        def there(rel: str) -> Actor:
            return actor_of(hist.maker(f"{p.dir}/{rel}") if hist is not None else None)

        try:
            out = own.merge(MergeView(p.ours, dict(p.desired), both, self.host, there))
        except BotMemoryError as e:
            p.failed = True
            p.result.note = f"nothing of {p.folder.id} was synced: {e}"
            logger.warning("%s", p.result.note)
            return
        for rel, text in out.texts.items():
            p.desired[rel] = text
            p.ff.discard(rel)             # written once, as the folder says, not step by step
        p.actors.update(out.actors)
        p.result.new_conflicts += out.conflicts
        for line in out.notes:
            logger.info("%s: %s", p.folder.id, line)

    def _check_secrets(self, p: _Plan, blobs: Mapping[str, str]) -> None:
        """Stop this folder's push when a text that would leave holds a credential (one line naming the file)."""
        from ..redact import find_secrets

        if p.failed:
            return
        for rel, text in sorted(p.desired.items()):
            t_id = p.theirs_files.get(rel)
            theirs = blobs.get(t_id) if t_id else None
            if text is None or text == theirs:
                continue
            new = _new_lines(text, theirs)
            found = find_secrets(new) if new else []
            if found:
                kinds = ", ".join(sorted({s.kind for s in found}))
                p.result.refused = (f"{p.folder.id}/{rel} holds a credential ({kinds}): nothing of {p.folder.id} "
                                    f"was pushed; `botmemory redact {p.folder.id} {rel}` takes it out")
                p.result.note = p.result.refused
                return

    # ----- in

    def _write_in(self, git: Git, p: _Plan, state: State, hist: History | None, blobs: dict[str, str]) -> None:  # noqa: C901
        from ..redact import redact

        incoming = {rel for rel, text in p.desired.items() if text != p.ours.get(rel)}
        if p.failed or not incoming:
            return
        expected: dict[str, str | None] = {rel: text_hash(p.ours[rel]) if rel in p.ours else None for rel in incoming}
        batches: list[tuple[Actor, list[tuple[str, str | None]]]] = []
        stepped: set[str] = set()
        chain = hist.chain() if hist is not None and p.base is not None else None
        if chain is not None and len(chain) <= MAX_STEPS and hist is not None:
            follow = {rel for rel in incoming if rel in p.ff}
            steps: list[tuple[Commit, list[tuple[str, str | None]]]] = []
            need: set[str] = set()
            for c in chain:
                got = []
                for ch in hist.changed(c, p.dir + "/"):
                    rel = ch.path[len(p.dir) + 1:]
                    if rel in follow:
                        got.append((rel, ch.oid))
                        if ch.oid:
                            need.add(ch.oid)
                if got:
                    steps.append((c, [(rel, oid) for rel, oid in got]))
            missing = need - set(blobs)
            for got_id, data in git.blobs(missing).items():
                try:
                    blobs[got_id] = data.decode("utf-8")
                except UnicodeDecodeError:
                    pass
            if all(oid in blobs for oid in need):
                for c, changes in steps:
                    by_actor: dict[Actor, list[tuple[str, str | None]]] = {}
                    for rel, oid in changes:
                        by_actor.setdefault(actor_of(hist.maker(f"{p.dir}/{rel}", c)), []).append(
                            (rel, blobs[oid] if oid else None))
                    batches += list(by_actor.items())
                stepped = follow
        for rel in sorted(incoming - stepped):
            maker = hist.maker(f"{p.dir}/{rel}") if hist is not None else None
            batches.append((p.actors.get(rel) or actor_of(maker), [(rel, p.desired[rel])]))
        final = [(rel, p.desired[rel]) for rel in sorted(stepped)]   # where the steps must have ended
        before = p.folder.unloaded()
        written: dict[str, str | None] = {}
        try:
            for actor, changes in [*batches, (None, final)]:
                writes = []
                for rel, text in changes:
                    new = redact(text) if text is not None else None
                    if actor is None and written.get(rel, p.ours.get(rel)) == new:
                        continue              # the steps ended where the merge says: nothing more to write
                    writes.append((rel, new, expected[rel]))
                if not writes:
                    continue
                who = actor if actor is not None else actor_of(hist.maker(f"{p.dir}/{writes[0][0]}") if hist else None)
                p.result.came_in += p.folder.write(writes, who)
                for rel, new, _ in writes:
                    expected[rel] = text_hash(new) if new is not None else None
                    written[rel] = new
        except Conflict as e:
            p.failed = True
            p.result.note = f"{e.path} changed while it synced: it syncs in the next round (nothing was lost)"
            logger.info("%s: %s", p.folder.id, p.result.note)
        except BotMemoryError as e:
            p.failed = True
            p.result.note = f"could not write what came in: {e}"
            logger.warning("%s: %s", p.folder.id, p.result.note)
        if p.result.came_in and before is not None:
            after = p.folder.unloaded()
            if after is not None and after > before:
                p.result.pushed_out = after - before
        # conflicts found merging are recorded whether or not every write went through
        fs = state.folder(p.folder.id)
        for rel, clashes in p.clashes.items():
            if rel not in written:
                continue
            fs.conflicts = [c for c in fs.conflicts if c.get("path") != rel]
            fs.conflicts.append({"path": rel, "at": iso(self.now()), "hosts": [self.host],
                                 "clashes": [c.as_dict() for c in clashes]})
            p.result.new_conflicts += 1

    def _trailers_in(self, commits: list[Commit], plans: list[_Plan], state: State) -> None:
        """Conflicts another computer recorded, and their resolutions, as the remote's commits (newest first) say."""
        by_dir = {p.dir: p for p in plans}
        for c in reversed(commits):
            for name, add in (("conflict", True), ("resolved", False)):
                for value in c.all_trailers(name):
                    d, _, rel = value.partition("/")
                    p = by_dir.get(d)
                    if p is None or not rel:
                        continue
                    fs = state.folder(p.folder.id)
                    fs.conflicts = [x for x in fs.conflicts if x.get("path") != rel]
                    if add:
                        fs.conflicts.append({"path": rel, "at": iso(datetime.fromtimestamp(c.at, UTC)),
                                             "hosts": [actor_of(c).host or "another computer"], "clashes": []})

    # ----- out

    def _commit(self, git: Git, settings: Settings, state: State, done: list[_Plan], synced: str | None,  # noqa: C901
                tip: str | None, synced_top: Mapping[str, str]) -> str | None:
        """Build this round's commits: one per journal row on top of the last synced commit, then the commit
        that ends the round (a merge when the remote moved on). Returns the commit to push, or the tip."""
        committer = f"botmemory <botmemory@{_slug(self.host)}>"
        stream = _Stream()
        parent: str | None = synced
        chain_files: dict[str, str] = {}     # repo path -> blob id, in the chain's newest commit
        chained: set[str] = set()            # folders whose rows went out as commits of their own
        chain_rows: list[LocalRow] = []
        for p in done:
            if synced is None or p.base is None or synced_top.get(p.dir) != p.tree or not p.found:
                continue                      # its base is not the synced commit's: its rows go in one commit
            chained.add(p.dir)
            chain_files.update({f"{p.dir}/{r}": o for r, o in p.base_files.items()})
            afters = _afters(p.rows, p.ours)
            folded: list[LocalRow] = []
            for row in p.exported:
                after = afters.get(row.id, _UNKNOWN)
                path = f"{p.dir}/{row.file}"
                if isinstance(after, _Unknown):
                    folded.append(row)        # its text was not kept apart: it goes with the next commit
                    continue
                new_id = blob_id(after.encode("utf-8")) if after is not None else None
                if new_id == chain_files.get(path):
                    continue
                parent = stream.add(_Commit(row_message(p.folder.key, row, self.host, folded, _described(p.folder, row)),
                                            f"{row.who} <{row.who}@{_slug(self.host)}>", _epoch(row.at),
                                            {path: after}, [parent] if parent else [], committer))
                chain_rows.append(row)
                p.result.went_out += 1 + len(folded)
                folded = []
                if new_id is None:
                    chain_files.pop(path, None)
                else:
                    chain_files[path] = new_id
            p.result.went_out += len(folded)
        chain_tip: str | None = None
        if stream.commits:
            checkpoint("commit")
            assert parent is not None
            chain_tip = self._import(git, stream)[parent]
        moved = tip != synced
        if moved and chain_tip is not None and tip is not None and git.is_ancestor(chain_tip, tip) is True:
            chain_tip = None                  # already on the remote: a round stopped after its push
            for p in done:
                if p.dir in chained:
                    p.result.went_out = 0
            chained = set()
        final_ops: dict[str, str | None] = {}
        for p in done:
            if not moved and p.dir in chained:
                before = {path[len(p.dir) + 1:]: oid for path, oid in chain_files.items()
                          if path.startswith(p.dir + "/")}
            else:
                before = p.theirs_files
            changed = False
            for rel, text in p.desired.items():
                new = blob_id(text.encode("utf-8")) if text is not None else None
                if new != before.get(rel):
                    final_ops[f"{p.dir}/{rel}"] = text
                    changed = True
            if changed and p.dir not in chained and not moved:
                p.result.went_out = max(p.result.went_out, len(p.exported), 1)
            elif changed and p.dir not in chained:
                p.result.went_out = max(p.result.went_out, len(p.exported))
        clashes = sorted(f"{p.dir}/{rel}" for p in done for rel in p.clashes)
        resolved = sorted(f"{p.dir}/{rel}" for p in done for rel in p.resolved)
        now = int(self.now().timestamp())
        if moved and chain_tip is not None:
            assert tip is not None
            last = _Commit(self._round_message(done, f"merge with {settings.branch}", clashes, chain_rows),
                           self._merge_author(chain_rows), now, final_ops, [tip, chain_tip], committer)
        elif final_ops or resolved:
            on = (chain_tip or synced) if not moved else tip
            first = any(p.base is None for p in done)
            what = "first sync" if first else "changes not in the journal" if final_ops else "conflicts resolved"
            last = _Commit(self._round_message(done, what, clashes),
                           f"import <import@{_slug(self.host)}>", now, final_ops, [on] if on else [], committer)
        else:
            return chain_tip or tip
        if resolved:
            last.message += "".join(f"Botmemory-Resolved: {r}\n" for r in resolved)
        final = _Stream()
        mark = final.add(last)
        checkpoint("commit")
        return self._import(git, final)[mark]

    def _import(self, git: Git, stream: _Stream) -> dict[str, str]:
        git.update_ref(BUILD_REF, None)
        try:
            return git.fast_import(stream.data(), self.paths.marks)
        finally:
            git.update_ref(BUILD_REF, None)

    def _merge_author(self, rows: Sequence[LocalRow]) -> str:
        who = rows[-1].who if rows else "import"
        return f"{who} <{who}@{_slug(self.host)}>"

    def _round_message(self, done: Sequence[_Plan], what: str, clashes: Sequence[str],
                       rows: Sequence[LocalRow] = ()) -> str:
        keys = ", ".join(sorted({p.folder.key for p in done})) or "memory"
        lines = [f"{keys}: {what} on {self.host}"[:SUBJECT_MAX], ""]
        if rows:
            lines += [f"{len(rows)} change(s) made on {self.host} meanwhile.", ""]
        if clashes:
            lines += ["Changed on both computers (both versions kept, the newer first):"]
            lines += [f"  {c}" for c in clashes] + [""]
        who = rows[-1].who if rows else "import"
        lines += [f"Botmemory-Who: {who}", "Botmemory-How: sync", f"Botmemory-Host: {self.host}"]
        lines += [f"Botmemory-Conflict: {c}" for c in clashes]
        return "\n".join(lines) + "\n"

    def _mark_after(self, p: _Plan) -> str | None:
        """The folder's mark after a round: its newest row then, and past the rows this round wrote (``how: sync``)."""
        mark = p.newest
        if mark is None:
            return None
        try:
            later, _, found = p.folder.rows_since(mark)
        except BotMemoryError:
            return mark
        for r in later if found else []:
            if r.how != "sync":
                break
            mark = r.id
        return mark


def _described(folder: SyncFolder, row: LocalRow) -> str | None:
    if not isinstance(folder, MergesItself):
        return None
    try:
        return folder.describe(row)
    except BotMemoryError:
        return None


class _Unknown:
    pass


_UNKNOWN = _Unknown()


def _afters(rows: Sequence[LocalRow], ours: Mapping[str, str]) -> dict[str, str | None | _Unknown]:
    """Each row's text after its change, where it can be known: the next row's earlier text (of the same file),
    or, for the newest row of a file, the file as it was read."""
    out: dict[str, str | None | _Unknown] = {}
    by_file: dict[str, list[LocalRow]] = {}
    for r in rows:
        by_file.setdefault(r.file, []).append(r)
    for file, rs in by_file.items():
        for i, r in enumerate(rs):
            if r.after_hash is None:
                out[r.id] = None
                continue
            nxt = rs[i + 1] if i + 1 < len(rs) else None
            if nxt is not None:
                ok = (nxt.before_hash == r.after_hash and nxt.earlier_text is not None
                      and text_hash(nxt.earlier_text) == r.after_hash)
                out[r.id] = nxt.earlier_text if ok and nxt.earlier_text is not None else _UNKNOWN
            else:
                now = ours.get(file)
                out[r.id] = now if now is not None and text_hash(now) == r.after_hash else _UNKNOWN
    return out


__all__ = ["Engine", "FolderResult", "History", "RETRIES", "Rewritten", "RoundResult", "SyncError", "Unreachable",
           "actor_of", "checkpoint", "iso", "row_message"]
