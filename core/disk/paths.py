"""Where things live: the home, a bot's workspace, and the names of memory files.

Home: ``--root DIR``, else ``$OPENMAUSBOT_HOME``, else ``~/.openmausbot`` when it
exists, else the platform's data folder for botmemory (``platformdirs``), so a
person who only runs Claude Code, OpenClaw or Hermes needs no OpenMausBot.
Inside it, ``workspaces/<bot>/`` holds the memory files; everything the app keeps
about them (journal, shadow copies, locks, settings) lives beside the workspaces,
never inside one, so a bot's file tools cannot reach it.
"""
from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Mapping
from datetime import date
from enum import Enum
from pathlib import Path

from ..base.errors import BadInput, LinkRefused, Refused
from ..base.record import field, record

TYPE_CHECKING = False   # typing is not imported at run time: a recall process never needs it
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object       # the structural types below are checked by mypy only

MEMORY_FILE = "MEMORY.md"
ARCHIVE_FILE = "memory/archive.md"
LOG_DIR = "memory/log"

_BOT_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")
TOPIC_NAME_RULE = (
    "a topic is memory/<name>.md where <name> is letters and digits of any script "
    "(e.g. формулы, 東京), spaces, dots and dashes, at most 250 bytes, not starting with a dot "
    "or a space and not only dots"
)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


class FileKind(Enum):
    MEMORY = "memory"
    TOPIC = "topic"
    ARCHIVE = "archive"
    LOG = "log"


def check_bot_id(bot: str) -> str:
    """Return *bot* if it is a valid bot id, else raise BadInput."""
    if not _BOT_ID.fullmatch(bot) or bot.startswith("."):
        raise BadInput(
            f"bad bot id {bot!r}: use 1-64 letters, digits, '.', '_' or '-', not starting with '.'"
        )
    return bot


def parse_day(text: str, what: str = "date") -> date:
    """Parse YYYY-MM-DD strictly, or raise BadInput naming *what*."""
    if not _DAY.fullmatch(text):
        raise BadInput(f"bad {what} {text!r}: expected YYYY-MM-DD")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise BadInput(f"bad {what} {text!r}: no such day") from None


def today(override: str | None = None) -> date:
    """The local date, or ``--today`` / ``$BOTMEMORY_TODAY`` when set."""
    text = override or os.environ.get("BOTMEMORY_TODAY") or ""
    if text:
        return parse_day(text, "--today")
    return date.today()


def classify(rel: str) -> FileKind:
    """Check a workspace-relative memory path and say what kind of file it is.

    Accepted: ``MEMORY.md``, ``memory/<topic>.md``, ``memory/archive.md``,
    ``memory/log/YYYY-MM-DD.md``. A topic name is one file name of letters and
    digits of any script, spaces, dots and dashes ending in ``.md``
    (:data:`TOPIC_NAME_RULE`); nothing nested, nothing starting with a dot.
    """
    if rel == MEMORY_FILE:
        return FileKind.MEMORY
    if rel == ARCHIVE_FILE:
        return FileKind.ARCHIVE
    parts = rel.split("/")
    if len(parts) == 3 and parts[:2] == ["memory", "log"]:
        name = parts[2]
        if name.endswith(".md") and _DAY.fullmatch(name[:-3]):
            parse_day(name[:-3], "log date")
            return FileKind.LOG
        raise BadInput(f"bad log path {rel!r}: daily logs are memory/log/YYYY-MM-DD.md")
    if len(parts) == 2 and parts[0] == "memory":
        name = parts[1]
        if not topic_name_ok(name):
            raise BadInput(f"bad topic name {name!r}: {TOPIC_NAME_RULE}")
        return FileKind.TOPIC
    raise BadInput(
        f"bad path {rel!r}: expected MEMORY.md, memory/<topic>.md, memory/archive.md "
        "or memory/log/YYYY-MM-DD.md"
    )


_ASCII_TOPIC = re.compile(r"[A-Za-z0-9-][A-Za-z0-9 .-]*\.md")
"""The same rule for an ASCII name, in one match (a listing of thousands of topics checks each name)."""


def topic_name_ok(name: str) -> bool:
    """True for a topic file name: ``<stem>.md``, the stem Unicode letters, digits (with their
    combining marks), spaces, dots and dashes; not starting with a dot or a space, not only dots."""
    if name.isascii():
        return len(name) <= 250 and _ASCII_TOPIC.fullmatch(name) is not None
    return _topic_name_any_script(name)


def _topic_name_any_script(name: str) -> bool:
    """:func:`topic_name_ok` character by character, for any script (ASCII names take one match instead)."""
    if not name.endswith(".md") or len(name.encode("utf-8")) > 250:
        return False
    stem = unicodedata.normalize("NFC", name[:-3])
    if not stem or stem[0] in ". " or not stem.strip(" ."):
        return False
    for ch in stem:
        if ch in " .-":
            continue
        cat = unicodedata.category(ch)
        if cat[0] not in "LNM":
            return False
    return unicodedata.category(stem[0])[0] != "M"


def normalize_rel(rel: str) -> str:
    """A workspace-relative path as botmemory names it: NFC-normalised (what a person typed may be NFD)."""
    return unicodedata.normalize("NFC", rel)


def log_path(day: date) -> str:
    return f"{LOG_DIR}/{day.isoformat()}.md"


def data_home() -> Path:
    """The home of a person without OpenMausBot: the platform's data folder for botmemory."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("botmemory", appauthor=False)).absolute()


class Layout(Protocol):
    """What a tracked folder's kind says about its files (:mod:`botmemory.core.kinds` implements it)."""

    @property
    def name(self) -> str: ...
    @property
    def writes_own_memory(self) -> bool: ...
    @property
    def reports_turns(self) -> bool: ...
    @property
    def refusal(self) -> str: ...
    @property
    def temp_dirs(self) -> tuple[str, ...]: ...
    def classify(self, rel: str) -> FileKind: ...
    def memory_files(self, folder: Path) -> list[str]: ...
    def watched_dirs(self, folder: Path) -> list[Path]: ...


@record(frozen=True)
class Folder:
    """A tracked agent folder as the home serves it: its id, where it is, its name and its kind's layout."""

    id: str
    path: Path
    name: str
    layout: Layout


class FolderSource(Protocol):
    """Where a home learns its tracked folders (:mod:`botmemory.core.kinds.tracked`: ``<home>/botmemory/tracked.json``)."""

    def folders(self) -> Mapping[str, Folder]: ...


@record(frozen=True)
class Home:
    """An OpenMausBot home folder and the places botmemory uses inside it.

    A bot is a workspace of the home, or a tracked agent folder when *source*
    is set (``Memory.open`` sets it): then its id resolves to that folder and
    its kind's layout decides which paths are memory files.
    """

    root: Path
    source: FolderSource | None = field(default=None, compare=False, repr=False)

    @classmethod
    def locate(cls, root: str | os.PathLike[str] | None = None) -> Home:
        if root:
            return cls(Path(root).expanduser().absolute())
        env = os.environ.get("OPENMAUSBOT_HOME")
        if env:
            return cls(Path(env).expanduser().absolute())
        omb = Path.home() / ".openmausbot"
        if omb.exists():
            return cls(omb)
        return cls(data_home())

    @property
    def workspaces(self) -> Path:
        return self.root / "workspaces"

    @property
    def journal_dir(self) -> Path:
        return self.root / "memory-journal"

    @property
    def state_dir(self) -> Path:
        """botmemory's own bookkeeping: locks, shadows, open turns. Outside every workspace."""
        return self.root / "botmemory"

    @property
    def config_file(self) -> Path:
        return self.root / "config.json"

    @property
    def about_me(self) -> Path:
        return self.root / "about-me.md"

    @property
    def profile_learned(self) -> Path:
        return self.root / "profile-learned.json"

    def settings_file(self, bot: str) -> Path:
        return self.root / "settings" / f"{check_bot_id(bot)}.json"

    def folders(self) -> Mapping[str, Folder]:
        """The agent folders this home tracks, by id."""
        return self.source.folders() if self.source is not None else {}

    def folder(self, bot: str) -> Folder | None:
        return self.folders().get(bot) if self.source is not None else None

    def layout(self, bot: str) -> Layout | None:
        """The layout of a tracked folder's kind; None for a workspace of the home."""
        f = self.folder(bot)
        return f.layout if f is not None else None

    def kind_name(self, bot: str) -> str:
        f = self.folder(bot)
        return f.layout.name if f is not None else "openmausbot"

    def is_tracked(self, bot: str) -> bool:
        return self.folder(bot) is not None

    def workspace(self, bot: str) -> Path:
        """The folder of *bot*: a workspace of this home, or a tracked agent folder."""
        f = self.folder(bot)
        if f is not None:
            return f.path
        return self.workspaces / check_bot_id(bot)

    def classify(self, bot: str, rel: str) -> FileKind:
        """:func:`classify` by the rules of *bot*'s kind."""
        f = self.folder(bot)
        return classify(rel) if f is None else f.layout.classify(rel)

    def lock_file(self, bot: str) -> Path:
        return self.state_dir / "locks" / f"{check_bot_id(bot)}.lock"

    def file(self, bot: str, rel: str) -> Path:
        """The absolute path of a checked workspace-relative memory path."""
        self.classify(bot, rel)
        return self.workspace(bot) / rel

    def bots(self) -> list[str]:
        """The bot ids that have a workspace, and the tracked folders' ids, sorted."""
        return sorted(set(self.workspace_names()) | set(self.folders()))

    def workspace_names(self) -> list[str]:
        """The bot ids that have a workspace in this home, sorted."""
        if not self.workspaces.is_dir() or self.workspaces.is_symlink():  # never listed through a link
            return []
        out = []
        for p in self.workspaces.iterdir():
            if p.is_dir() and not p.is_symlink() and _BOT_ID.fullmatch(p.name) and not p.name.startswith("."):
                out.append(p.name)
        return sorted(out)

    def trust_root(self, bot: str) -> Path:
        """Where the link-free walk to *bot*'s files starts: the home, or a tracked folder itself
        (it lives outside the home; nothing below it may be a link, nor may the folder itself: then
        :class:`LinkRefused` naming it — the folders above it may be links, ``~/.claude`` kept elsewhere)."""
        if not self.is_tracked(bot):
            return self.root
        ws = self.workspace(bot)
        if ws.is_symlink():
            raise LinkRefused(str(ws))
        return ws

    def require_bot(self, bot: str) -> Path:
        """The workspace of an existing bot, or BadInput naming the bots there are."""
        ws = self.workspace(bot)
        if self.is_tracked(bot):
            if ws.is_symlink():   # the folder itself is where the link-free walk starts: never a link
                raise LinkRefused(str(ws))
            if not ws.is_dir():
                raise BadInput(f"the folder of {bot} ({ws}) is gone or not readable; "
                               f"`botmemory untrack {bot}` stops tracking it")
            return ws
        if self.workspaces.is_symlink():
            raise LinkRefused("workspaces")
        if not ws.is_dir():
            known = ", ".join(self.bots()) or "none"
            raise BadInput(f"unknown bot {bot!r} in {self.root} (bots: {known}); `botmemory init {bot}` creates it")
        return ws

    def memory_files(self, bot: str) -> list[str]:
        """Every memory file of a workspace, as relative paths: MEMORY.md, topics, archive, logs."""
        ws = self.workspace(bot)
        f = self.folder(bot)
        if f is not None:
            return f.layout.memory_files(ws)
        out: list[str] = []
        if ws.is_symlink() or self.workspaces.is_symlink():  # never listed through a link
            return out
        if _one_name(ws / MEMORY_FILE):
            out.append(MEMORY_FILE)
        mem = ws / "memory"
        if mem.is_dir() and not mem.is_symlink():
            for p in sorted(mem.iterdir()):
                if p.suffix == ".md" and _one_name(p):
                    rel = f"memory/{p.name}"
                    if _is_valid(rel):
                        out.append(rel)
            log = mem / "log"
            if log.is_dir() and not log.is_symlink():
                for p in sorted(log.iterdir()):
                    rel = f"{LOG_DIR}/{p.name}"
                    if _is_valid(rel) and _one_name(p):
                        out.append(rel)
        return out

    def topics(self, bot: str) -> list[str]:
        return [r for r in self.memory_files(bot) if self.classify(bot, r) is FileKind.TOPIC]


def check_owner(path: Path, what: str = "the home") -> None:
    """Running as root on a folder another user owns is refused (:class:`Refused`, one line): every file
    botmemory wrote there would be root's, which that user could not read. The folder's own owner (or, for
    one not made yet, its nearest existing parent's) decides; root on root's own folders is fine."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    p = path
    while True:
        try:
            uid = os.stat(p).st_uid
            break
        except FileNotFoundError:
            if p.parent == p:
                return
            p = p.parent
        except OSError:
            return
    if uid == 0:
        return
    try:
        import pwd

        name = pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        name = str(uid)
    raise Refused(f"botmemory is running as root on {what} {path}, which belongs to {name} (uid {uid}): every "
                  f"file it wrote there would be root's, which {name} could not read; run it as that user "
                  f"(sudo -u {name} botmemory …)")


def _one_name(p: Path) -> bool:
    """A regular file that is not a symbolic link and has no other name (a hard link is left out like a link)."""
    try:
        st = p.lstat()
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1


def _is_valid(rel: str) -> bool:
    try:
        classify(rel)
    except BadInput:
        return False
    return True
