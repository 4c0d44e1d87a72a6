"""botmemory core: every rule of the memory spec, no Qt.

This package is the public surface: the desktop (and the MCP server, hooks and
routes) import from ``botmemory.core`` only, never from its modules. Names load
lazily, on first use, so ``import botmemory.core`` costs nothing and
``botmemory gauge`` never pays for the journal, recall or the watcher.

    from botmemory.core import Memory, Actor, remember, BotMemoryError

docs/ARCHITECTURE.md maps the modules behind these names.
"""
from __future__ import annotations

import importlib

from .base import moved as _moved

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)

# public name -> (module, name in that module)
_NAMES: dict[str, tuple[str, str]] = {}


def _export(module: str, *names: str, **renamed: str) -> None:
    for n in names:
        _NAMES[n] = (module, n)
    for public, inner in renamed.items():
        _NAMES[public] = (module, inner)


_export("base.errors", "BotMemoryError", "BadInput", "Conflict", "Refused", "LinkRefused", "Busy")
_export("disk.paths", "Home", "FileKind", "MEMORY_FILE", "ARCHIVE_FILE", "LOG_DIR", "TOPIC_NAME_RULE", "check_bot_id",
        "classify",
        "log_path", "parse_day", local_today="today")
_export("disk.safeio", "FileText", "MAX_FILE_BYTES", "RACY_NS", "atomic_write", "read_file", "text_hash")
_export("store.writer", "Actor", "Change", "Store", "Write", "delete_refusal")
_export("store.memory", "Memory", "RowListener")
_export("store.files", "FileResult", "UndoResult", "check_bot_writes", save_file="save", rm_file="rm", undo_row="undo")
_export("text.entries", "Block", "BlockKind", "Document", "chat_source", "check_entry_text", "clean_title", "format_entry",
        "without_bullet",
        parse_blocks="parse")
_export("text.frontmatter", "Frontmatter", read_frontmatter="read")
_export("text.budget", "AMBER_AT", "Gauge", "Level", "MEMORY_MAX_BYTES", "MEMORY_MAX_LINES", "ONLY_FIRST_LINES",
        "Topic", "compose_block", "gauge")
_export("disk.config", "BotSettings", "ConfigValues", "DEFAULT_TIDY_HOUR", "apply_config", "auto_recall", "bot_settings",
        "check_helper_instance", "check_helper_model", "check_tidy_hour", "config_values", "read_config",
        "read_config_strict", "set_bot_setting", "tidy_hour", "write_config")
_export("notes.loader", "load_block", list_topics="topics")
_export("notes.update", "ForgetResult", "OverflowPreview", "PreferResult", "RememberResult", "RoomResult", "learning_check",
        "make_room", "overflow_preview", "unforget")
_export("recall.query", "Hit", "MIN_MESSAGE_CHARS", "Note", "RecallResult", "content_words", "fold", "refresh_index",
        RECALL_HEADER="HEADER")
_export("recall.index", recall_index_current="index_current", recall_index_builder="builder_command")
_export("recall.search", "parse_when")
_export("kinds", "AgentGauge", "AgentKind", "Limits", "Loaded", KIND_NAMES="NAMES", AGENT_KIND_NAMES="AGENT_NAMES",
        get_kind="get")
_export("kinds.tracked", "Candidate", "Tracked", "track", "untrack", discover_agents="discover")
_export("ops.folders", "folder_secrets", "kind_of", "redact_file", "secrets_in", "topic_name_rule", "topic_path",
        agent_gauge="gauge", agent_limits="limits", agent_load="load", agent_recall="recall",
        forget_in_folder="forget")
_export("text.diff", "diff_counts", "diff_lines")
_export("base.wording", "counted")
_export("store.journal", "Journal", "Row", "RowFilter", "UNDO_ACTOR", "make_row")
_export("store.shadows", "Shadow", "Shadows")
_export("outside.reconcile", "OUTSIDE", "reconcile_bot")
_export("outside.turns", "TURN_TIMEOUT_S", "Turn", "expire_turns", "log_line", "open_turns", "scan", "turn_begin",
        "turn_end", "turn_open")
_export("outside.watcher", "Watcher")
_export("upkeep.tidy", "TidyReport", tidy_bot="tidy")  # not "tidy": the module
_export("upkeep.capture_queue", "note_turn")
_export("upkeep.capture", "CaptureReport", "capture_due", "last_capture",
        capture_now="capture")  # not "capture": the module
_export("upkeep.organize", "OrganizeReport", organize_memory="organize")
_export("faces.connect", AGENT_NAMES="AGENTS", connect_agent="connect", connection_status="status")
_export("ops.operations", "SearchResult", "forget", "forget_everywhere", "move_overflow", "prefer", "remember", "undo_overflow",
        recall_notes="recall", session_search="search", tidy_up="tidy")  # the operations (not "recall", "tidy": modules)
_export("upkeep.schedule", "UpkeepState", "heavy_line", "read_state", "run_due", "tidy_now")
_export("notes.about_me", "LearnedLine", "learned_lines", "remove_learned")
_export("faces.server", "ApiServer", "ensure_token", "token_path", SERVE_PORT="DEFAULT_PORT")

__all__ = [  # the same names as _NAMES (tests/test_layering.py checks)
    "AGENT_KIND_NAMES", "AGENT_NAMES", "AMBER_AT", "ARCHIVE_FILE", "Actor", "AgentGauge", "AgentKind", "ApiServer",
    "BadInput", "Block", "BlockKind", "BotMemoryError", "BotSettings", "Busy", "Candidate", "CaptureReport", "Change",
    "ConfigValues", "Conflict", "DEFAULT_TIDY_HOUR", "Document", "FileKind", "FileResult", "FileText", "ForgetResult",
    "Frontmatter", "Gauge", "Hit", "Home", "Journal", "KIND_NAMES", "LOG_DIR", "LearnedLine", "Level", "Limits",
    "LinkRefused", "Loaded", "MAX_FILE_BYTES", "MEMORY_FILE", "MEMORY_MAX_BYTES", "MEMORY_MAX_LINES",
    "MIN_MESSAGE_CHARS", "Memory", "Note", "ONLY_FIRST_LINES", "OUTSIDE", "OrganizeReport", "OverflowPreview",
    "PreferResult", "RACY_NS", "RECALL_HEADER", "RecallResult", "Refused", "RememberResult", "RoomResult", "Row",
    "RowFilter", "RowListener", "SERVE_PORT", "SearchResult", "Shadow", "Shadows", "Store", "TOPIC_NAME_RULE",
    "TURN_TIMEOUT_S", "TidyReport", "Topic", "Tracked", "Turn", "UNDO_ACTOR", "UndoResult", "UpkeepState", "Watcher",
    "Write", "agent_gauge", "agent_limits", "agent_load", "agent_recall", "apply_config", "atomic_write",
    "auto_recall", "bot_settings", "capture_due", "capture_now", "chat_source", "check_bot_id", "check_bot_writes",
    "check_entry_text", "check_helper_instance", "check_helper_model", "check_tidy_hour", "classify", "clean_title",
    "compose_block", "config_values", "connect_agent", "connection_status", "content_words", "counted",
    "delete_refusal", "diff_counts", "diff_lines", "discover_agents", "ensure_token", "expire_turns", "fold",
    "folder_secrets", "forget", "forget_everywhere", "forget_in_folder", "format_entry", "gauge", "get_kind",
    "heavy_line", "kind_of", "last_capture", "learned_lines", "learning_check", "list_topics", "load_block",
    "local_today", "log_line", "log_path", "make_room", "make_row", "move_overflow", "note_turn", "open_turns",
    "organize_memory", "overflow_preview", "parse_blocks", "parse_day", "parse_when", "prefer", "read_config",
    "read_config_strict", "read_file", "read_frontmatter", "read_state", "recall_index_builder",
    "recall_index_current", "recall_notes", "reconcile_bot",
    "redact_file", "refresh_index", "remember", "remove_learned", "rm_file", "run_due", "save_file", "scan",
    "secrets_in", "session_search", "set_bot_setting", "text_hash", "tidy_bot", "tidy_hour", "tidy_now", "tidy_up",
    "token_path", "topic_name_rule", "topic_path", "track", "turn_begin", "turn_end", "turn_open", "undo_overflow",
    "undo_row", "unforget", "untrack", "without_bullet", "write_config",
]


_moved.install()   # the old module paths (botmemory.core.notes.update, …) import for one more release

if not TYPE_CHECKING:  # hidden from mypy, so a name missing below is an error, not "Any"
    def __getattr__(name: str) -> object:
        """Load the module behind a public name on first use (PEP 562)."""
        try:
            module, inner = _NAMES[name]
        except KeyError:
            raise AttributeError(f"module 'botmemory.core' has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f"{__name__}.{module}"), inner)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # for type checkers: the same names, eagerly
    from .text.budget import (AMBER_AT, MEMORY_MAX_BYTES, MEMORY_MAX_LINES, ONLY_FIRST_LINES, Gauge, Level, Topic,
                         compose_block, gauge)
    from .faces.connect import AGENTS as AGENT_NAMES
    from .faces.connect import connect as connect_agent
    from .faces.connect import status as connection_status
    from .disk.config import (DEFAULT_TIDY_HOUR, BotSettings, ConfigValues, apply_config, auto_recall, bot_settings,
                         check_helper_instance, check_helper_model, check_tidy_hour, config_values, read_config,
                         read_config_strict, set_bot_setting, tidy_hour, write_config)
    from .text.diff import diff_counts, diff_lines
    from .text.entries import (Block, BlockKind, Document, chat_source, check_entry_text, clean_title, format_entry,
                          without_bullet)
    from .text.entries import parse as parse_blocks
    from .base.errors import BadInput, BotMemoryError, Busy, Conflict, LinkRefused, Refused
    from .store.files import FileResult, UndoResult, check_bot_writes
    from .store.files import rm as rm_file
    from .store.files import save as save_file
    from .store.files import undo as undo_row
    from .text.frontmatter import Frontmatter
    from .text.frontmatter import read as read_frontmatter
    from .ops.folders import folder_secrets, kind_of, redact_file, secrets_in, topic_name_rule, topic_path
    from .ops.folders import forget as forget_in_folder
    from .ops.folders import gauge as agent_gauge
    from .ops.folders import limits as agent_limits
    from .ops.folders import load as agent_load
    from .ops.folders import recall as agent_recall
    from .store.journal import UNDO_ACTOR, Journal, Row, RowFilter, make_row
    from .kinds import AGENT_NAMES as AGENT_KIND_NAMES
    from .kinds import NAMES as KIND_NAMES
    from .kinds import AgentGauge, AgentKind, Limits, Loaded
    from .kinds import get as get_kind
    from .kinds.tracked import Candidate, Tracked, track, untrack
    from .kinds.tracked import discover as discover_agents
    from .notes.loader import load_block
    from .notes.loader import topics as list_topics
    from .store.memory import Memory, RowListener
    from .disk.paths import (ARCHIVE_FILE, LOG_DIR, MEMORY_FILE, TOPIC_NAME_RULE, FileKind, Home, check_bot_id, classify,
                        log_path, parse_day)
    from .disk.paths import today as local_today
    from .outside.reconcile import OUTSIDE, reconcile_bot
    from .recall.query import HEADER as RECALL_HEADER
    from .recall.query import MIN_MESSAGE_CHARS, Hit, Note, RecallResult, content_words, fold, refresh_index
    from .recall.index import builder_command as recall_index_builder
    from .recall.index import index_current as recall_index_current
    from .recall.search import parse_when
    from .ops.operations import SearchResult, forget, forget_everywhere, move_overflow, prefer, remember, undo_overflow
    from .ops.operations import recall as recall_notes
    from .ops.operations import search as session_search
    from .ops.operations import tidy as tidy_up
    from .disk.safeio import RACY_NS, MAX_FILE_BYTES, FileText, atomic_write, read_file, text_hash
    from .store.shadows import Shadow, Shadows
    from .store.writer import Actor, Change, Store, Write, delete_refusal
    from .upkeep.capture import CaptureReport, capture_due, last_capture
    from .upkeep.capture_queue import note_turn
    from .upkeep.capture import capture as capture_now
    from .upkeep.organize import OrganizeReport
    from .upkeep.organize import organize as organize_memory
    from .upkeep.tidy import TidyReport
    from .upkeep.tidy import tidy as tidy_bot
    from .outside.turns import (TURN_TIMEOUT_S, Turn, expire_turns, log_line, open_turns, scan, turn_begin, turn_end,
                        turn_open)
    from .notes.update import (ForgetResult, OverflowPreview, PreferResult, RememberResult, RoomResult, learning_check,
                         make_room, overflow_preview, unforget)
    from .upkeep.schedule import UpkeepState, heavy_line, read_state, run_due, tidy_now
    from .notes.about_me import LearnedLine, learned_lines, remove_learned
    from .faces.server import DEFAULT_PORT as SERVE_PORT
    from .faces.server import ApiServer, ensure_token, token_path
    from .outside.watcher import Watcher
    from .base.wording import counted
