"""botmemory core: every rule of docs/RULES.md, no Qt.

This package is the public surface, and it is the ops wing's door (:mod:`botmemory.core.ops`): the
operations, their results, the errors and the few constants and helpers faces format with — plus the
routes' server (:class:`ApiServer`), which the tray app runs. The desktop imports from ``botmemory.core``
only; core's own faces import from ``ops``. Names load lazily, on first use, so ``import botmemory.core``
costs nothing and ``botmemory gauge`` never pays for the journal, recall or the watcher.

    from botmemory.core import Memory, Actor, remember, BotMemoryError

The names this surface had before round 3 (``agent_gauge``, ``save_file``, …) still resolve for one release,
with a ``DeprecationWarning`` naming what replaced them (``base.moved``). docs/ARCHITECTURE.md maps the wings.
"""
from __future__ import annotations

import importlib

from . import ops as _ops
from .base import moved as _moved

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)

# The door's names that would hide a wing or an old module path of the same name here
# (``botmemory.core.recall`` is the recall wing once it is imported): reach them as ``ops.recall``, ``ops.tidy``.
_WINGS_NAMED = frozenset(n for n in _ops.__all__ if n in _moved.WINGS or n in _moved.MOVED)

# public name -> (module, name in that module): the door's, and the server the tray app runs
_NAMES: dict[str, tuple[str, str]] = {
    **{k: v for k, v in _ops._NAMES.items() if k not in _WINGS_NAMED},
    "ApiServer": ("faces.server", "ApiServer"),
    "SERVE_PORT": ("faces.server", "DEFAULT_PORT"),
}

__all__ = [*(n for n in _ops.__all__ if n not in _WINGS_NAMED), "ApiServer", "SERVE_PORT"]  # = _NAMES

# ----- the surface before round 3: every name, for one release (those still public above win)

_OLD: dict[str, tuple[str, str]] = {}


def _export(module: str, *names: str, **renamed: str) -> None:
    for n in names:
        _OLD[n] = (module, n)
    for public, inner in renamed.items():
        _OLD[public] = (module, inner)


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
        agent_gauge="gauge", agent_limits="limits", agent_load="load", forget_in_folder="forget")
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
_export("ops.connect", AGENT_NAMES="AGENTS", connect_agent="connect", connection_status="status")
_export("ops.operations", "SearchResult", "forget", "forget_everywhere", "move_overflow", "prefer", "remember", "undo_overflow",
        recall_notes="recall", agent_recall="recall", session_search="search",
        tidy_up="tidy")  # the operations (not "recall", "tidy": modules)
_export("upkeep.schedule", "UpkeepState", "heavy_line", "read_state", "run_due", "tidy_now")
_export("notes.about_me", "LearnedLine", "learned_lines", "remove_learned")
_export("faces.server", "ApiServer", "ensure_token", "token_path", SERVE_PORT="DEFAULT_PORT")


_REPLACED = {   # an old name -> what to use now, for the warning
    "agent_gauge": "gauge", "agent_load": "load", "agent_recall": "recall", "agent_limits": "gauge",
    "save_file": "save", "rm_file": "rm", "undo_row": "undo", "recall_notes": "recall", "session_search": "search",
    "tidy_up": "tidy", "tidy_bot": "tidy", "tidy_now": "tidy", "load_block": "load", "list_topics": "topics",
    "discover_agents": "discover", "learned_lines": "learned", "set_bot_setting": "settings",
    "bot_settings": "settings", "folder_secrets": "gauge (FolderGauge.secrets)", "redact_file": "redact",
    "capture_now": "capture", "organize_memory": "organize", "capture_due": "periodic", "run_due": "periodic",
    "AGENT_NAMES": "CONNECT_AGENTS", "AGENT_KIND_NAMES": "AGENT_KINDS",
}

_moved.install()   # the old module paths (botmemory.core.update, …) import for one more release

if not TYPE_CHECKING:  # hidden from mypy, so a name missing below is an error, not "Any"
    def __getattr__(name: str) -> object:
        """Load the module behind a public name on first use (PEP 562); an old name with a warning."""
        if name in _NAMES:
            module, inner = _NAMES[name]
        elif name in _OLD:
            import warnings

            module, inner = _OLD[name]
            instead = _REPLACED.get(name)
            if instead in _WINGS_NAMED:   # here it would name a wing: the door's own name
                instead = f"ops.{instead}"
            warnings.warn(f"botmemory.core.{name} is not part of the surface since round 3"
                          + (f"; use {instead}" if instead else "") + " (it goes in release " + _moved.RELEASE + ")",
                          DeprecationWarning, stacklevel=2)
        else:
            raise AttributeError(f"module 'botmemory.core' has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f"{__name__}.{module}"), inner)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # for type checkers: the same names, eagerly
    from .faces.server import DEFAULT_PORT as SERVE_PORT
    from .faces.server import ApiServer
    from .ops import *  # noqa: F403 - the door's names, as listed in ops.__all__
