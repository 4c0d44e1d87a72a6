"""Qt models over core objects: the files of a workspace and the journal.

Lists are models, not widgets filled in loops. The journal model loads lazily
(``canFetchMore``/``fetchMore``), a page at a time, through a loader that runs
on the worker, so a 100,000-row journal opens as fast as a ten-row one and the
UI thread never reads the journal itself. New rows arrive at the top with
``beginInsertRows``.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Protocol

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont

from botmemory.core.ops import (
    MEMORY_FILE,
    BotMemoryError,
    FileKind,
    Memory,
    Row,
    counted,
    diff_lines,
    read_frontmatter,
    without_bullet,
)

from .corelink import JournalQuery
from .look import added_colour, removed_colour, secondary_colour

logger = logging.getLogger(__name__)

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()
"""The invalid index: the parent of every row (a shared default, never changed)."""
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
UNDOABLE_ROLE = Qt.ItemDataRole.UserRole + 2
UNDO_COLOR = "#6a4fb3"
"""An undo row's how and change, in italics: told apart from the change it undid."""


# ----- files


@dataclass(frozen=True)
class FileInfo:
    rel: str
    kind: FileKind
    size: int
    lines: int
    title: str | None = None
    description: str | None = None
    aliases: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        return self.kind is FileKind.LOG

    @property
    def deletable(self) -> bool:
        return self.kind is not FileKind.MEMORY

    @property
    def name(self) -> str:
        if self.kind is FileKind.LOG:
            return "log/" + self.rel.rsplit("/", 1)[-1]
        return self.rel.rsplit("/", 1)[-1]

    @property
    def about(self) -> str:
        if self.kind is FileKind.MEMORY:
            return "loads into every turn"
        if self.kind is FileKind.ARCHIVE:
            return "older notes moved out of MEMORY.md, and expired ones"
        if self.kind is FileKind.LOG:
            return "daily log (read-only)"
        parts = [p for p in (self.title, self.description) if p]
        text = ": ".join(parts) if parts else "topic"
        if self.aliases:
            text += f" (aliases: {', '.join(self.aliases)})"
        return text


def line_count(text: str) -> int:
    """Lines as the gauge counts them: a last line without a newline is a line too."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


_ORDER = {FileKind.MEMORY: 0, FileKind.TOPIC: 1, FileKind.ARCHIVE: 2, FileKind.LOG: 3}


def list_files(mem: Memory, bot: str) -> list[FileInfo]:
    """Every memory file of a bot with what the files list shows (runs on the worker)."""
    out: list[FileInfo] = []
    for rel in mem.home.memory_files(bot):
        kind = mem.home.classify(bot, rel)
        try:
            ft = mem.store.read(bot, rel)
        except BotMemoryError as e:
            logger.info("%s/%s unreadable: %s", bot, rel, e)
            continue
        if ft is None:
            continue
        fm = read_frontmatter(ft.text) if kind is FileKind.TOPIC else None
        out.append(FileInfo(rel, kind, len(ft.text.encode("utf-8")), line_count(ft.text),
                            fm.title if fm else None, fm.description if fm else None,
                            fm.aliases if fm else ()))
    if not any(f.rel == MEMORY_FILE for f in out):
        out.insert(0, FileInfo(MEMORY_FILE, FileKind.MEMORY, 0, 0))
    logs = sorted((f for f in out if f.kind is FileKind.LOG), key=lambda f: f.rel, reverse=True)
    rest = sorted((f for f in out if f.kind is not FileKind.LOG), key=lambda f: (_ORDER[f.kind], f.rel))
    return rest + logs


class _Table(QAbstractTableModel):
    """A flat table with fixed column titles: what both models share."""

    COLUMNS: tuple[str, ...] = ()

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < len(self.COLUMNS):
            return self.COLUMNS[section]
        return None


class FilesModel(_Table):
    """MEMORY.md, the topics (with title and aliases), the archive, then daily logs, newest first."""

    COLUMNS = ("File", "About", "Lines")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._files: list[FileInfo] = []

    def set_files(self, files: Sequence[FileInfo]) -> None:
        self.beginResetModel()
        self._files = list(files)
        self.endResetModel()

    def files(self) -> list[FileInfo]:
        return list(self._files)

    def file_at(self, row: int) -> FileInfo | None:
        return self._files[row] if 0 <= row < len(self._files) else None

    def row_of(self, rel: str) -> int:
        for i, f in enumerate(self._files):
            if f.rel == rel:
                return i
        return -1

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._files)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._files):
            return None
        f = self._files[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return f.name
            if col == 1:
                return f.about
            if col == 2:
                return f.lines
        elif role == Qt.ItemDataRole.ToolTipRole:
            return f"{f.rel}\n{f.about}\n{counted(f.size, 'byte')}"
        elif role == Qt.ItemDataRole.FontRole and col == 0 and f.kind is FileKind.MEMORY:
            font = QFont()
            font.setBold(True)
            return font
        elif role == Qt.ItemDataRole.ForegroundRole and f.kind in (FileKind.LOG, FileKind.ARCHIVE) and col == 1:
            return secondary_colour()
        elif role == ROW_ROLE:
            return f.rel
        return None


# ----- the journal


class JournalRow(Protocol):
    id: str
    bot: str
    who: str
    how: str
    chat: str | None
    file: str
    before_hash: str | None
    after_hash: str | None
    diff: str
    undoable: bool
    reason: str | None


OpenCursor = Callable[[JournalQuery], Any]
"""Make a cursor (no I/O) whose ``page(n)`` reads the next n rows of a query — ``page`` runs on the worker."""
Submit = Callable[[Callable[[], Any], Callable[[Any], None], Callable[[BaseException], None]], Any]


WHO_WORDS = {"person": "You", "upkeep": "Memory upkeep", "import": "Import", "unknown": "Someone"}
HOW_WORDS = {
    "panel": "in the app",
    "cli": "from the command line",
    "outside": "changed outside the app",
    "undo": "undo of a change",
    "redact": "credentials redacted",
    "tidy-up": "tidy-up",
    "import": "import",
    "filed": "filed into topics",
    "filed into topics": "filed into topics",
}


def who_text(row: Any) -> str:
    if row.who == "bot":
        return str(getattr(row, "from_bot", None) or row.bot)   # About me's rows name the bot that acted
    return WHO_WORDS.get(row.who, str(row.who))


def id_time(row_id: str) -> datetime | None:
    """When a row was recorded, read from its id (milliseconds since the epoch, in hex, before the dash)."""
    try:
        return datetime.fromtimestamp(int(row_id.split("-", 1)[0], 16) / 1000, UTC).astimezone()
    except (ValueError, OverflowError, OSError):
        return None


def undone_text(row: Any) -> str | None:
    """For an undo row, which change it undid (``undo of the change at 14:03``): an undo is told apart from the
    change it undid. None for any other row."""
    undoes = getattr(row, "undoes", None)
    if row.how != "undo" or not undoes:
        return None
    t = id_time(undoes)
    return f"undo of the change at {t:%H:%M:%S}" if t else f"undo of {undoes}"


def how_text(row: Any) -> str:
    if row.how == "task":
        return f"during a task · chat “{row.chat}”" if row.chat else "during a task"
    text = undone_text(row) or HOW_WORDS.get(row.how, str(row.how))
    if row.chat and row.how != "task":
        text += f" · chat “{row.chat}”"
    return text


def row_time(row: Any) -> datetime | None:
    at = row.at
    if isinstance(at, datetime):
        value = at
    else:
        try:
            value = datetime.fromisoformat(str(at))
        except ValueError:
            return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone()


def when_text(row: Any, today: date | None = None) -> str:
    t = row_time(row)
    if t is None:
        return str(row.at)
    today = today or datetime.now().astimezone().date()
    d = t.date()
    if d == today:
        return f"today {t:%H:%M}"
    if (today - d).days == 1:
        return f"yesterday {t:%H:%M}"
    if d.year == today.year:
        return f"{d.day} {t:%b} {t:%H:%M}"
    return f"{d.day} {t:%b %Y}"


def diff_counts(row: Row) -> tuple[int, int]:
    """The lines a row added and removed: the row's own counts (true also when the diff was cut)."""
    return row.counts()


def _telling(line: str) -> bool:
    """A changed line worth showing: not blank, not a fence or separator (``---``, Hermes' ``§``)."""
    return any(c.isalnum() for c in line)


def is_undo(row: Any) -> bool:
    return bool(row.how == "undo")


def change_text(row: Any) -> str:
    """The short diff of a row: what happened and the line it is about — the first new line (an edit's summary is
    its new text), else the first one taken out; an undo says so first."""
    if row.before_hash is None and row.after_hash is not None:
        head = "created"
    elif row.after_hash is None and row.before_hash is not None:
        head = "deleted"
    else:
        plus, minus = diff_counts(row)
        if plus == minus == 0:     # no text the journal keeps changed: only a credential (never kept)
            head = "credentials redacted" if row.how == "redact" else "changed (a credential, never kept)"
        else:
            head = f"+{plus} −{minus}"
    added = [line for tag, line in diff_lines(row.diff or "") if tag == "+" and _telling(line)]
    removed = [line for tag, line in diff_lines(row.diff or "") if tag == "-" and _telling(line)]
    first = without_bullet((added or removed or [""])[0]).strip()
    if len(first) > 90:
        first = first[:89] + "…"
    if is_undo(row):
        head = f"↶ undo: {head}"
    return f"{head}  {first}" if first else head


def undo_text(row: Any) -> str:
    """The Undo column's text: none for an undoable row (the button is painted there, nothing beside it)."""
    if row.undoable:
        return ""
    return f"Can't undo: {row.reason}" if row.reason else "Can't undo"


def diff_text(row: Any) -> str:
    """What the diff pane shows: the row's diff, or why there is none (a diff of headers only changes nothing)."""
    if row.diff and any(True for _ in diff_lines(row.diff)):
        return str(row.diff)
    if row.how == "redact":
        return ("Each credential in this file was replaced by «redacted N chars».\n"
                "botmemory never keeps a credential, so the journal holds no text of it:\n"
                "nothing to show, and nothing to put back.")
    if row.before_hash != row.after_hash:
        return ("Only a credential changed in this file.\n"
                "botmemory never keeps a credential, so the journal holds no text of the change.")
    return "(no textual difference)"


class JournalModel(_Table):
    """The journal of one bot, newest first, loaded a page at a time on the worker."""

    COLUMNS = ("When", "Who", "How", "File", "Change", "")
    UNDO_COLUMN = 5
    PAGE = 200

    loading_changed = Signal(bool)
    load_failed = Signal(str)

    def __init__(self, open_cursor: OpenCursor, submit: Submit, parent: QObject | None = None,
                 page: int = PAGE) -> None:
        super().__init__(parent)
        self._open_cursor = open_cursor
        self._cursor: Any = None
        self._submit = submit
        self._page = page
        self._rows: list[Any] = []
        self._ids: set[str] = set()
        self._query: JournalQuery | None = None
        self._generation = 0
        self._loading = False
        self._exhausted = True

    # ----- state

    @property
    def query(self) -> JournalQuery | None:
        return self._query

    @property
    def loading(self) -> bool:
        return self._loading

    @property
    def exhausted(self) -> bool:
        return self._exhausted

    def set_query(self, query: JournalQuery | None) -> None:
        """Show another bot or filter: drop what is loaded and load the first page."""
        self.beginResetModel()
        self._query = query
        self._rows = []
        self._ids = set()
        self._generation += 1
        self._loading = False
        self._exhausted = query is None
        self._cursor = self._open_cursor(query) if query is not None else None
        self.endResetModel()
        if query is not None:
            self._request()

    def reload(self) -> None:
        self.set_query(self._query)

    def row_at(self, row: int) -> Any | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, row_id: str) -> int:
        for i, r in enumerate(self._rows):
            if r.id == row_id:
                return i
        return -1

    def add_new(self, rows: Sequence[Any]) -> int:
        """Rows recorded since the view loaded (newest first): those matching the query go on top."""
        if self._query is None:
            return 0
        flt = self._query.filter()
        seen: set[str] = set()
        top = []
        for r in rows:
            if r.id not in self._ids and r.id not in seen and r.bot == self._query.bot and flt.matches(r):
                seen.add(r.id)
                top.append(r)
        if not top:
            return 0
        self.beginInsertRows(QModelIndex(), 0, len(top) - 1)
        self._rows[0:0] = top
        self._ids.update(seen)
        self.endInsertRows()
        return len(top)

    # ----- lazy loading

    def canFetchMore(self, parent: Index = ROOT) -> bool:
        if parent.isValid():
            return False
        return not self._exhausted and not self._loading

    def fetchMore(self, parent: Index = ROOT) -> None:
        if parent.isValid() or not self.canFetchMore():
            return
        self._request()

    def _request(self) -> None:
        cursor = self._cursor
        if cursor is None:
            return
        generation = self._generation
        self._loading = True
        self.loading_changed.emit(True)
        page = self._page
        self._submit(lambda: cursor.page(page),
                     lambda rows: self._on_page(generation, rows),
                     lambda e: self._on_error(generation, e))

    def _on_page(self, generation: int, rows: list[Any]) -> None:
        if generation != self._generation:
            return
        self._loading = False
        fresh = [r for r in rows if r.id not in self._ids]
        if len(rows) < self._page:
            self._exhausted = True
        if fresh:
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
            self._rows.extend(fresh)
            self._ids.update(r.id for r in fresh)
            self.endInsertRows()
        self.loading_changed.emit(False)

    def _on_error(self, generation: int, e: BaseException) -> None:
        if generation != self._generation:
            return
        self._loading = False
        self._exhausted = True
        logger.warning("journal page failed: %s", e)
        self.load_failed.emit(str(e))
        self.loading_changed.emit(False)

    # ----- the table

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: C901
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return when_text(row)
            if col == 1:
                return who_text(row)
            if col == 2:
                return how_text(row)
            if col == 3:
                return row.file
            if col == 4:
                return change_text(row)
            if col == 5:
                return undo_text(row)
        elif role == Qt.ItemDataRole.ToolTipRole:
            if col == self.UNDO_COLUMN:
                return ("Take this change's own lines back out and bring back what it replaced, whatever else "
                        "changed since (the undo is itself a row)" if row.undoable else undo_text(row))
            if col == 2 and getattr(row, "undoes", None):
                return f"This row undid row {row.undoes}."
            t = row_time(row)
            return f"{t:%Y-%m-%d %H:%M:%S}" if t and col == 0 else None
        elif role == Qt.ItemDataRole.ForegroundRole and is_undo(row) and col in (2, 4):
            return QColor(UNDO_COLOR)
        elif role == Qt.ItemDataRole.FontRole and is_undo(row) and col in (2, 4):
            font = QFont()
            font.setItalic(True)
            return font
        elif role == Qt.ItemDataRole.ForegroundRole and col == 4 and not is_undo(row):
            plus, minus = diff_counts(row)
            if plus and not minus:
                return added_colour()
            if minus and not plus:
                return removed_colour()
        elif role == ROW_ROLE:
            return row.id
        elif role == UNDOABLE_ROLE:
            return bool(row.undoable)
        return None
