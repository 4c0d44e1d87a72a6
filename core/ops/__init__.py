"""The ops wing: the one door. Every face (the CLI, the MCP tools, the routes, the hooks) and the desktop reads
and writes through these names, and nothing under them.

Each operation takes the opened :class:`Memory` first (``Memory.open(root)``) and returns a result — with its
``changes`` (one :class:`Change` per file written, its ``id`` the journal row) for a write — the way Anki's
collection methods return ``OpChanges``. The policy lives in the operations, once: who may write (the memory
switch, a kind's refusals), which budget a folder has, what a turn loads for each kind.

- writes: :func:`remember`, :func:`forget`, :func:`forget_everywhere`, :func:`prefer`, :func:`save`,
  :func:`rm`, :func:`undo`, :func:`redact`, :func:`move_overflow` / :func:`undo_overflow` (Make room),
  :func:`tidy`, :func:`capture`, :func:`organize`, :func:`remove_learned`, :func:`settings` (with a key);
- reads: :func:`gauge` (:class:`FolderGauge`, every kind), :func:`load`, :func:`show`, :func:`journal`,
  :func:`bots`, :func:`topics`, :func:`overview`, :func:`upkeep_status`, :func:`recall`, :func:`search`,
  :func:`learned`, :func:`overflow_preview`;
- agents' folders: :func:`discover`, :func:`track`, :func:`untrack`, :func:`connect_agent`;
- turns and watching: :func:`turn_begin`, :func:`turn_end`, :func:`scan`, :func:`watcher`, :func:`periodic`;
- the light path for a turn's recall (a :class:`Home`, no store): :func:`open_home`, :func:`recall_in`,
  :func:`search_in`; Claude Code's sessions: the :mod:`.claude` module.

Names load on first use (PEP 562), so ``from botmemory.core import ops`` costs nothing and a command pays only
for what it calls. The results' types, the errors and a few constants and helpers that faces format with
(:func:`counted`, :data:`MEMORY_FILE`, :class:`Level`) are here too, so a face needs no other import.
"""
from __future__ import annotations

import importlib

TYPE_CHECKING = False

# public name -> (module under botmemory.core, name in that module)
_NAMES: dict[str, tuple[str, str]] = {}


def _export(module: str, *names: str, **renamed: str) -> None:
    for n in names:
        _NAMES[n] = (module, n)
    for public, inner in renamed.items():
        _NAMES[public] = (module, inner)


# the operations and their results
_export("ops.operations", "SearchResult", "forget", "forget_everywhere", "move_overflow", "prefer", "recall",
        "redact", "remember", "rm", "save", "search", "tidy", "undo", "undo_overflow")
_export("ops.reads", "FileGauge", "FolderGauge", "InitResult", "JOURNAL_WHO", "LoadResult", "ShowResult", "TopicInfo",
        "Unloaded", "bots", "file_path", "gauge", "heavy_line", "init", "is_memory", "journal", "journal_row",
        "last_capture", "last_tidy", "load", "overview", "settings", "show", "text_gauge", "topics", "upkeep_status")
_export("ops.agents", "Found", "discover", "kind_label", "track", "untrack")
_export("ops.turns", "Periodic", "TurnEnd", "capture", "learned", "organize", "periodic", "remove_learned",
        "report_text", "scan", "turn_begin", "turn_end", "turn_open", "watcher")
_export("ops.recent_work", "Brief", "BriefSwitch", "Said", "brief", "brief_projects", "brief_switch", "claude_brief",
        "set_brief_switch")
_export("ops.serving", "ensure_token", "follow_today", "token_path")
_export("ops.find", "WHY_NO_TOPICS", "open_home", "recall_in", "search_in", "search_range")
_export("ops.folders", "Forgotten", "kind_of", "refuse", "topic_name_rule", "topic_path")
_export("ops.team", "CardResult", "NoteResult", "ProposeResult", "RevisionMissing", "TeamConflict", "TeamHit", "TeamHits",
        "TeamNotFound", "TeamResult", "TeamShow", "TeamUndo", "teams_of", team_accept="accept", team_create="create",
        team_delete="delete", team_edit="edit", team_history="history", team_journal="journal",
        team_keep_other_side="keep_other_side", team_list="list_teams", team_need_rev="need_rev", team_pin="pin",
        team_propose="propose", team_reject="reject", team_remove="remove", team_rename="rename",
        team_restore="restore", team_search="search", team_set_bots="set_bots", team_show="show", team_undo="undo")
_export("team.loading", "TEAM_MAX_BYTES")
_export("ops.undoing", "foresee_rm", "foresee_save", "undo_home", about_me_journal="home_journal",
        home_undo_preview="preview_home", undo_preview="preview")
_export("store.undo", "UndoConflict", "UndoPlan", "withheld_message")
_export("store.journal", HOME_JOURNAL="HOME")
_export("ops.connect", CONNECT_AGENTS="AGENTS", connect_agent="connect", connection_status="status")
_export("store.files", "FileResult", "UndoResult")
_export("notes.update", "ForgetResult", "OverflowPreview", "PreferResult", "RememberResult", "RoomResult",
        "learnable_again_line", "overflow_preview")
_export("upkeep.tidy", "TidyReport")
_export("upkeep.capture", "CaptureReport")
_export("upkeep.organize", "OrganizeReport")
_export("upkeep.schedule", "UpkeepState")
_export("notes.about_me", "LearnedLine")
_export("recall.passages", "Hit", "Note", "RecallResult", RECALL_HEADER="HEADER")
_export("kinds.tracked", "Candidate", "Tracked")
_export("kinds", AGENT_KINDS="AGENT_NAMES")
# the opened home, who writes, what a write returns, the journal's rows
_export("store.memory", "Memory")
_export("store.writer", "Actor", "Change", "Write", "delete_refusal")
_export("store.journal", "Journal", "Row", "RowFilter")
_export("outside.watcher", "Watcher")
_export("disk.paths", "ARCHIVE_FILE", "MEMORY_FILE", "TOPIC_NAME_RULE", "FileKind", "Home", "check_bot_id",
        "parse_day", local_today="today")
_export("text.budget", "AMBER_AT", "MEMORY_MAX_BYTES", "MEMORY_MAX_LINES", "ONLY_FIRST_LINES", "Gauge", "Level")
# the errors (each carries its exit code)
_export("base.errors", "BadInput", "BotMemoryError", "Busy", "Conflict", "DiskFull", "HardLinkRefused", "LinkRefused",
        "PermissionDenied", "Refused", "exit_code_for")
# what faces format and save with
_export("base.wording", "counted")
_export("text.diff", "diff_lines")
_export("text.entries", "without_bullet")
_export("text.frontmatter", "Frontmatter", read_frontmatter="read")
_export("disk.safeio", "atomic_write")
# config.json, as Settings edits it
_export("disk.config", "SWITCHES", "BotSettings", "ConfigValues", "DEFAULT_TIDY_HOUR", "apply_config", "check_helper_instance",
        "check_helper_model", "check_tidy_hour", "config_values", "read_config_strict", "write_config")
# recall's index, kept current by the tray app in a process of its own
_export("recall.index", recall_index_builder="builder_command", recall_index_current="index_current")
_export("recall.query", "refresh_index")
# sync: the tray's status line and schedule (the CLI's `sync` commands call ops.sync directly)
_export("ops.sync", sync_resolve="resolve", sync_scheduler="scheduler", sync_status="status", sync_add_team="add_team")
_export("ops.team_sync", "TeamSync", team_sync_state="state")
_export("sync.schedule", SyncStatus="Status")
# following a home while it changes, as the desktop app does (issue 29)
_export("ops.follow", "Catchup", "JournalMark", "bot_names", "catch_up", "display_name", "folders_present")
_export("ops.homes", "HomeInfo", "describe_home")
_export("ops.room", "FolderActions", "INDEX_TOPIC", "RoomPreview", "folder_actions", "make_room", "room_preview")

__all__ = [  # the same names as _NAMES (tests/test_layering.py checks)
    "AGENT_KINDS", "AMBER_AT", "ARCHIVE_FILE", "Actor", "BadInput", "BotMemoryError", "BotSettings", "Brief",
    "BriefSwitch", "Busy", "CONNECT_AGENTS", "Candidate", "CaptureReport", "CardResult", "Change", "ConfigValues",
    "Conflict", "DEFAULT_TIDY_HOUR", "DiskFull", "FileGauge", "FileKind", "FileResult", "FolderGauge",
    "ForgetResult", "Forgotten", "Found", "Frontmatter", "Gauge", "HardLinkRefused", "Hit", "Home", "InitResult",
    "JOURNAL_WHO", "Journal", "LearnedLine", "Level",
    "LinkRefused", "LoadResult", "MEMORY_FILE", "MEMORY_MAX_BYTES", "MEMORY_MAX_LINES", "Memory", "Note",
    "NoteResult", "ONLY_FIRST_LINES", "OrganizeReport", "OverflowPreview", "PermissionDenied", "Periodic",
    "PreferResult",
    "ProposeResult", "RECALL_HEADER", "RecallResult", "Refused", "RememberResult", "RevisionMissing", "RoomResult",
    "Row", "RowFilter", "SWITCHES", "Said", "SearchResult", "ShowResult", "SyncStatus", "TEAM_MAX_BYTES",
    "TOPIC_NAME_RULE",
    "TeamConflict", "TeamHit", "TeamHits", "TeamNotFound", "TeamResult", "TeamShow", "TeamUndo", "TidyReport",
    "TopicInfo", "Tracked", "TurnEnd", "UndoResult", "Unloaded", "UpkeepState", "WHY_NO_TOPICS", "Watcher", "Write",
    "apply_config", "atomic_write", "bots", "brief", "brief_projects", "brief_switch", "capture", "claude_brief",
    "check_bot_id", "check_helper_instance",
    "check_helper_model", "check_tidy_hour", "config_values", "connect_agent", "connection_status", "counted",
    "delete_refusal", "diff_lines", "discover", "ensure_token", "exit_code_for", "file_path", "follow_today",
    "forget", "forget_everywhere", "gauge", "heavy_line", "init", "is_memory", "journal", "journal_row",
    "kind_label", "kind_of", "last_capture", "last_tidy", "learnable_again_line", "learned", "load", "local_today",
    "move_overflow", "open_home", "organize", "overflow_preview", "overview", "parse_day", "periodic", "prefer",
    "read_config_strict", "read_frontmatter", "recall", "recall_in", "recall_index_builder", "recall_index_current",
    "redact", "refresh_index", "refuse", "remember", "remove_learned", "report_text", "rm", "save", "scan",
    "TeamSync", "search", "search_in", "search_range", "set_brief_switch", "settings", "show", "sync_add_team",
    "sync_resolve", "sync_scheduler", "sync_status", "team_accept", "team_create", "team_delete", "team_sync_state",
    "team_edit", "team_history", "team_journal", "team_keep_other_side", "team_list", "team_need_rev", "team_pin",
    "team_propose", "team_reject", "team_remove", "team_rename", "team_restore", "team_search", "team_set_bots",
    "team_show", "team_undo", "teams_of", "text_gauge", "tidy", "token_path", "topic_name_rule", "topic_path",
    "topics", "track", "turn_begin", "turn_end", "turn_open", "undo", "undo_overflow", "untrack", "upkeep_status",
    "watcher", "without_bullet", "write_config",
    "HOME_JOURNAL", "UndoConflict", "UndoPlan", "about_me_journal", "foresee_rm", "foresee_save",
    "home_undo_preview", "undo_home", "undo_preview", "withheld_message",   # undo, About me's journal
]
__all__ += [  # following a home while it changes (the desktop app)
    "Catchup", "JournalMark", "bot_names", "catch_up", "display_name", "folders_present",
    "HomeInfo", "describe_home",
    "FolderActions", "INDEX_TOPIC", "RoomPreview", "folder_actions", "make_room", "room_preview",
]

_CORE = __name__.rsplit(".", 1)[0]


def _load(name: str) -> object:
    module, inner = _NAMES[name]
    return getattr(importlib.import_module(f"{_CORE}.{module}"), inner)


if not TYPE_CHECKING:  # hidden from mypy, so a name missing below is an error, not "Any"
    def __getattr__(name: str) -> object:
        """Load the module behind a public name on first use (PEP 562); the old ``ops`` module's other names
        for one more release (``base.moved``)."""
        if name in _NAMES:
            value = _load(name)
            globals()[name] = value
            return value
        if name.startswith("__"):
            raise AttributeError(name)
        from ..base.moved import forward

        return forward("ops")(name)

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # for type checkers: the same names, eagerly
    from ..base.errors import (
        BadInput,
        BotMemoryError,
        Busy,
        Conflict,
        DiskFull,
        HardLinkRefused,
        LinkRefused,
        PermissionDenied,
        Refused,
        exit_code_for,
    )
    from ..base.wording import counted
    from ..disk.config import (
        DEFAULT_TIDY_HOUR,
        SWITCHES,
        BotSettings,
        ConfigValues,
        apply_config,
        check_helper_instance,
        check_helper_model,
        check_tidy_hour,
        config_values,
        read_config_strict,
        write_config,
    )
    from ..disk.paths import ARCHIVE_FILE, MEMORY_FILE, TOPIC_NAME_RULE, FileKind, Home, check_bot_id, parse_day
    from ..disk.paths import today as local_today
    from ..disk.safeio import atomic_write
    from ..kinds import AGENT_NAMES as AGENT_KINDS
    from ..kinds.tracked import Candidate, Tracked
    from ..notes.about_me import LearnedLine
    from ..notes.update import (
        ForgetResult,
        OverflowPreview,
        PreferResult,
        RememberResult,
        RoomResult,
        learnable_again_line,
        overflow_preview,
    )
    from ..outside.watcher import Watcher
    from ..recall.index import builder_command as recall_index_builder
    from ..recall.index import index_current as recall_index_current
    from ..recall.passages import HEADER as RECALL_HEADER
    from ..recall.passages import Hit, Note, RecallResult
    from ..recall.query import refresh_index
    from ..store.files import FileResult, UndoResult
    from ..store.journal import HOME as HOME_JOURNAL
    from ..store.journal import Journal, Row, RowFilter
    from ..store.memory import Memory
    from ..store.undo import UndoConflict, UndoPlan, withheld_message
    from ..store.writer import Actor, Change, Write, delete_refusal
    from ..sync.schedule import Status as SyncStatus
    from ..team.loading import TEAM_MAX_BYTES
    from ..text.budget import AMBER_AT, MEMORY_MAX_BYTES, MEMORY_MAX_LINES, ONLY_FIRST_LINES, Gauge, Level
    from ..text.diff import diff_lines
    from ..text.entries import without_bullet
    from ..text.frontmatter import Frontmatter
    from ..text.frontmatter import read as read_frontmatter
    from ..upkeep.capture import CaptureReport
    from ..upkeep.organize import OrganizeReport
    from ..upkeep.schedule import UpkeepState
    from ..upkeep.tidy import TidyReport
    from .agents import Found, discover, kind_label, track, untrack
    from .connect import AGENTS as CONNECT_AGENTS
    from .connect import connect as connect_agent
    from .connect import status as connection_status
    from .find import WHY_NO_TOPICS, open_home, recall_in, search_in, search_range
    from .folders import Forgotten, kind_of, refuse, topic_name_rule, topic_path
    from .follow import Catchup, JournalMark, bot_names, catch_up, display_name, folders_present
    from .homes import HomeInfo, describe_home
    from .operations import (
        SearchResult,
        forget,
        forget_everywhere,
        move_overflow,
        prefer,
        recall,
        redact,
        remember,
        rm,
        save,
        search,
        tidy,
        undo,
        undo_overflow,
    )
    from .reads import (
        JOURNAL_WHO,
        FileGauge,
        FolderGauge,
        InitResult,
        LoadResult,
        ShowResult,
        TopicInfo,
        Unloaded,
        bots,
        file_path,
        gauge,
        heavy_line,
        init,
        is_memory,
        journal,
        journal_row,
        last_capture,
        last_tidy,
        load,
        overview,
        settings,
        show,
        text_gauge,
        topics,
        upkeep_status,
    )
    from .recent_work import Brief, BriefSwitch, Said, brief, brief_projects, brief_switch, claude_brief, set_brief_switch
    from .room import INDEX_TOPIC, FolderActions, RoomPreview, folder_actions, make_room, room_preview
    from .serving import ensure_token, follow_today, token_path
    from .sync import add_team as sync_add_team
    from .sync import resolve as sync_resolve
    from .sync import scheduler as sync_scheduler
    from .sync import status as sync_status
    from .team import (
        CardResult,
        NoteResult,
        ProposeResult,
        RevisionMissing,
        TeamConflict,
        TeamHit,
        TeamHits,
        TeamNotFound,
        TeamResult,
        TeamShow,
        TeamUndo,
        teams_of,
    )
    from .team import accept as team_accept
    from .team import create as team_create
    from .team import delete as team_delete
    from .team import edit as team_edit
    from .team import history as team_history
    from .team import journal as team_journal
    from .team import keep_other_side as team_keep_other_side
    from .team import list_teams as team_list
    from .team import need_rev as team_need_rev
    from .team import pin as team_pin
    from .team import propose as team_propose
    from .team import reject as team_reject
    from .team import remove as team_remove
    from .team import rename as team_rename
    from .team import restore as team_restore
    from .team import search as team_search
    from .team import set_bots as team_set_bots
    from .team import show as team_show
    from .team import undo as team_undo
    from .team_sync import TeamSync
    from .team_sync import state as team_sync_state
    from .turns import (
        Periodic,
        TurnEnd,
        capture,
        learned,
        organize,
        periodic,
        remove_learned,
        report_text,
        scan,
        turn_begin,
        turn_end,
        turn_open,
        watcher,
    )
    from .undoing import foresee_rm, foresee_save, undo_home
    from .undoing import home_journal as about_me_journal
    from .undoing import preview as undo_preview
    from .undoing import preview_home as home_undo_preview
