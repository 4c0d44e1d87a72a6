"""The ``botmemory`` command line: docs/RULES.md "The CLI contract".

Exit codes: 0 done; 2 bad usage or bad input (nothing written); 3 conflict
(the expected hash no longer matches); 4 refused by a rule; 5 disk full; 6 permission denied;
1 busy or anything unexpected.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from ..base import log
from ..ops import SWITCHES, BadInput, Conflict, Memory, exit_code_for
from . import team_cli, undo_cli
from .commands import (
    cmd_agents,
    cmd_bots,
    cmd_brief,
    cmd_capture,
    cmd_connect,
    cmd_forget,
    cmd_gauge,
    cmd_hook,
    cmd_init,
    cmd_learned,
    cmd_load,
    cmd_mcp,
    cmd_organize,
    cmd_prefer,
    cmd_recall,
    cmd_redact,
    cmd_remember,
    cmd_rm,
    cmd_save,
    cmd_search,
    cmd_serve,
    cmd_settings,
    cmd_show,
    cmd_tidy,
    cmd_track,
    cmd_turn_begin,
    cmd_turn_end,
    cmd_untrack,
    cmd_watch,
)
from .sync_cli import add_commands as add_sync_commands

DEFAULT_PORT = 8721  # server.DEFAULT_PORT (tests/core/test_server.py checks); the server loads only for `serve`

TYPE_CHECKING = False   # as typing's: typing itself (3 ms) is not imported at run time
if TYPE_CHECKING:
    from typing import Any, NoReturn

    Handler = Callable[[Memory, argparse.Namespace], Any]

logger = log.get_logger(__name__)

EPILOG = """\
exit codes: 0 done, 2 bad usage or input, such as an argument that is not
valid UTF-8 (nothing written), 3 conflict (the file changed since it was
opened), 4 refused by a rule, 5 disk full, 6 permission denied (the system
refused a read or a write, or a read-only file system), 1 busy (another
botmemory is writing: try again) or unexpected.

The home is --root, else $OPENMAUSBOT_HOME, else ~/.openmausbot when it exists,
else the platform's data folder for botmemory.
Paths are relative to the bot's workspace: MEMORY.md, memory/<topic>.md,
memory/archive.md, memory/log/YYYY-MM-DD.md. A tracked agent folder uses its
agent's layout: Claude Code MEMORY.md and <topic>.md beside it; OpenClaw
MEMORY.md and memory/<note>.md; Hermes MEMORY.md and USER.md.
A topic name is letters and digits of any script, spaces, dots and dashes
(not starting with a dot). Nothing is read or written through a symbolic link
below the home: such a command exits 4 naming the link.
"""


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` reads it ($COLUMNS, else standard output's
    terminal, else 80), without importing :mod:`shutil`: argparse imports it for every argument it adds,
    and it loads lzma and bz2 — 3 ms of every command."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Help(argparse.HelpFormatter):
    """argparse's help, its width read by :func:`_columns`."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None, **more: Any) -> None:   # more: what a later argparse passes (color)
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width,
                         **more)


class _RawHelp(_Help, argparse.RawDescriptionHelpFormatter):
    """The top level's help: its description and epilog as written."""


class _Parser(argparse.ArgumentParser):
    _intermixing = False
    commands: frozenset[str] = frozenset()   # the top level's: every command's name

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"botmemory: {message} (see `botmemory --help`)\n")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """A command's options may come between its words (``search BOT --scope team WORD``); a parser
        of commands (the top, ``turn``, ``team``) reads as argparse does."""
        if self._intermixing or any(isinstance(a, argparse._SubParsersAction) for a in self._actions):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


_NOT_DECODED = ("root", "handler", "command", "turn_command")
_OPTIONS = ("chat", "said", "tools", "transcript", "started_by", "remove",
            "grep", "until", "since", "expected_hash", "file", "who", "today")
"""Arguments not checked for UTF-8: the home is a path (any bytes the system allows), the rest are ours."""


def _check_decoded(args: argparse.Namespace) -> None:
    """Every text argument must be valid UTF-8: Python keeps undecodable argv bytes as lone
    surrogates, which would fail (or be stored) later; refuse them here, before anything is written."""
    for dest, value in vars(args).items():
        if dest in _NOT_DECODED:
            continue
        for v in value if isinstance(value, list) else [value]:
            if not isinstance(v, str):
                continue
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as e:
                c = ord(v[e.start])
                what = f"byte 0x{c - 0xDC00:02x}" if 0xDC80 <= c <= 0xDCFF else f"character U+{c:04X}"
                shown = v.encode("utf-8", "surrogateescape" if what[0] == "b" else "backslashreplace")
                name = f"--{dest.replace('_', '-')}" if dest in _OPTIONS else dest.upper().removesuffix("S")
                raise BadInput(f"{name} is not valid UTF-8 ({what} in \"{shown.decode('utf-8', 'backslashreplace')}\"); "
                               "nothing was written") from None


# ----- commands


# ----- the parser

COMMANDS: dict[str, Handler] = {}


class _Skipped:
    """The parser of a command this run does not name: every call on it does nothing (see :class:`_Only`)."""

    def __getattr__(self, name: str) -> Callable[..., _Skipped]:
        return lambda *args, **kwargs: self


class _Only:
    """The top level's subparsers, building only the parser of the command this run names.

    argparse spends about a third of a millisecond on each parser (its messages are looked up with gettext,
    a search for translation files every time): building the 60 of every command cost ``botmemory gauge``
    a fifth of its process. The other commands' names are still noted (:attr:`names`), so that a name that
    is none of them gets the full parser and its error."""

    def __init__(self, sub: Any, only: str | None) -> None:
        self._sub, self._only = sub, only
        self.names: set[str] = set()

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        self.names.add(name)
        if self._only is not None and name != self._only:
            return _Skipped()
        return self._sub.add_parser(name, **kwargs)

    @property
    def choices(self) -> Mapping[str, Any]:
        built = self._sub.choices
        return {n: built.get(n) or _Skipped() for n in self.names}


_GLOBAL_VALUES = ("--root", "--today")
_GLOBAL_FLAGS = ("--verbose", "-v", "--json")


def _command_named(argv: Sequence[str]) -> str | None:
    """The command *argv* names after the global options, or None (``--help``, an unknown option, none)."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in _GLOBAL_VALUES:
            i += 2
            continue
        if a in _GLOBAL_FLAGS or a.partition("=")[0] in _GLOBAL_VALUES and "=" in a:
            i += 1
            continue
        return None if a.startswith("-") else a
    return None


def parser_for(argv: Sequence[str]) -> _Parser:
    """The parser of *argv*: only its command's when it names one, else every command's."""
    only = _command_named(argv)
    if only is not None:
        parser = build_parser(only)
        if only in parser.commands:
            return parser
    return build_parser()


def build_parser(only: str | None = None) -> _Parser:
    """The command line's parser; *only*: with just that command's parser built (the others' names noted)."""
    common = _Parser(add_help=False)   # what every command takes
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print one JSON value on stdout")
    p = _Parser(prog="botmemory", description="botmemory: an AI bot's long-term memory, kept as plain markdown.",
                epilog=EPILOG, formatter_class=_RawHelp, parents=[common])
    p.add_argument("--root", metavar="DIR", help="the home (default: $OPENMAUSBOT_HOME, else ~/.openmausbot when it exists, "
                   "else botmemory's data folder)")
    p.add_argument("--today", metavar="DATE", help="treat DATE (YYYY-MM-DD) as today (also $BOTMEMORY_TODAY)")
    p.add_argument("--verbose", "-v", action="store_true", help="log what happens on stderr")
    top = _Only(p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser), only)
    sub: Any = top

    def add(name: str, handler: Handler, help_: str, into: Any = sub) -> argparse.ArgumentParser:
        sp: argparse.ArgumentParser = into.add_parser(name, help=help_, description=help_, parents=[common])
        sp.set_defaults(handler=handler)
        COMMANDS[name] = handler
        return sp

    add("bots", cmd_bots, "list bot ids: the home's workspaces and the tracked agent folders")
    add("agents", cmd_agents, "find the memory folders of Claude Code, OpenClaw and Hermes on this computer")
    sp = add("track", cmd_track, "serve an agent's memory folder: by its id from `agents`, or --path DIR --agent KIND")
    sp.add_argument("id", nargs="?", metavar="ID")
    sp.add_argument("--path", metavar="DIR", help="a memory folder to track")
    sp.add_argument("--agent", metavar="KIND", help="its kind: claude-code, openclaw or hermes")
    add("untrack", cmd_untrack, "stop serving a tracked folder (nothing in it is touched)").add_argument(
        "id", metavar="ID")
    add("init", cmd_init, "create a bot's workspace (idempotent; an id that looks like a credential is "
        "refused)").add_argument("bot")
    add("gauge", cmd_gauge, "how much of MEMORY.md loads: lines and bytes against the budget (a tracked "
        "folder: its agent's budget, characters for Hermes and OpenClaw)").add_argument("bot")
    add("load", cmd_load, "print exactly the memory block a new turn loads "
        "(a tracked folder: what its agent loads)").add_argument("bot")
    sp = add("remember", cmd_remember, "add a dated entry to MEMORY.md (memory_update add)")
    sp.add_argument("bot")
    sp.add_argument("text", help="the note (at most 1,000 characters and 20 lines; - reads stdin)")
    sp.add_argument("--chat", metavar="T", help="the bot's work in chat T (without it: the person's); "
                    "the title is kept on one line, redacted")
    sp.add_argument("--until", metavar="DATE", help="the last day the note is true (YYYY-MM-DD, today or later)")
    sp = add("forget", cmd_forget, "remove every note whose fact mentions all the words, everywhere")
    sp.add_argument("bot", help="the bot (with --all: the first word)")
    sp.add_argument("words", nargs="*", metavar="WORD",
                    help="whole words of the fact (never its date or the chat it came from); "
                         "stop words and words under 3 letters are refused")
    sp.add_argument("--all", action="store_true",
                    help="forget in every tracked agent folder at once (one undoable row per file); "
                         "a folder or file it cannot read is exit 2 with nothing written")
    sp.add_argument("--dry-run", action="store_true", help="say what would go and from which files; change nothing")
    sp.add_argument("--chat", metavar="T", help="the bot's work in chat T")
    sp = add("prefer", cmd_prefer, "add a standing preference to About me (once, at most 300 characters)")
    sp.add_argument("bot")
    sp.add_argument("text")
    sp = add("show", cmd_show, "print a memory file (--json adds its hash); a missing file prints nothing "
             "and exits 0 (--json: \"hash\": null, \"exists\": false)")
    sp.add_argument("bot")
    sp.add_argument("path")
    sp = add("save", cmd_save, "replace a memory file with stdin")
    sp.add_argument("bot")
    sp.add_argument("path")
    sp.add_argument("--expected-hash", metavar="H",
                    help="refuse (exit 3) unless the file still has this hash (64 hex digits, any case); "
                         "`absent`: create it only if it still does not exist")
    sp.add_argument("--chat", metavar="T", help="the bot's work in chat T")
    sp = add("redact", cmd_redact, "replace the credentials in a memory file by markers (a journaled change)")
    sp.add_argument("bot")
    sp.add_argument("path")
    sp.add_argument("--expected-hash", metavar="H", help="refuse (exit 3) unless the file still has this hash")
    sp = add("rm", cmd_rm, "delete a topic or a daily log (never MEMORY.md, never the archive: exit 4); "
             "a file too large or not UTF-8 is deleted with a row that says it cannot be undone")
    sp.add_argument("bot")
    sp.add_argument("path")
    sp.add_argument("--expected-hash", metavar="H",
                    help="refuse (exit 3) unless the file still has this hash (64 hex digits, any case)")
    undo_cli.add_commands(add, sub)   # journal and undo (also About me's: --home)
    sp = add("tidy", cmd_tidy,
             "tidy-up now: expired entries to the archive, exact duplicates out, contradictions struck")
    sp.add_argument("bot")
    sp.add_argument("--no-model", action="store_true",
                    help="only the expiry and exact-duplicate steps, even with a helper model set")
    sp = add("recall", cmd_recall, "the notes recall puts in front of a message: best first (rarer shared "
             "words weigh more, a topic named like the message first; word forms and Chinese/Japanese match)")
    sp.add_argument("bot")
    sp.add_argument("message")
    sp = add("brief", cmd_brief, "the recent-work brief: the newest thing the bot said in each of its other "
             "conversations today and yesterday (at most 10 lines, about 350 tokens; from the daily logs)")
    sp.add_argument("bot")
    sp.add_argument("--chat", metavar="CURRENT", help="the conversation the brief is for (left out of it)")
    sp.add_argument("--room", action="store_true",
                    help="CURRENT is a room: the private 1:1 chats the brief names are listed as chips")
    sp = add("search", cmd_search, "session_search over memory, topics, the archive and daily logs")
    sp.add_argument("bot")
    sp.add_argument("words", nargs="*", metavar="WORD",
                    help="whole words of a note's fact or of the chat it came from (never its date)")
    sp.add_argument("--since", metavar="S", help="24h, 3d, yesterday or YYYY-MM-DD (inclusive)")
    sp.add_argument("--until", metavar="U", help="24h, 3d, yesterday or YYYY-MM-DD (inclusive)")
    turn = sub.add_parser("turn", help="the harness's turn boundary: turn begin / turn end",
                          description="a bot's turn: changes in between are its work in that chat")
    turns = turn.add_subparsers(dest="turn_command", metavar="begin|end", parser_class=_Parser)
    sp = add("begin", cmd_turn_begin, "a turn begins: prints its id", turns)
    sp.add_argument("bot")
    sp.add_argument("--chat", required=True, metavar="T", help="the chat the turn belongs to")
    sp = add("end", cmd_turn_end, "the turn ends: record its changes, add the log line", turns)
    sp.add_argument("bot")
    sp.add_argument("turn_id", metavar="ID")
    sp.add_argument("--said", metavar="TEXT", help="what the bot said last (redacted, one line, at most 300 characters)")
    sp.add_argument("--tools", metavar="A,B", help="the tools the bot used, comma-separated (redacted)")
    sp.add_argument("--failed", action="store_true", help="the turn failed")
    sp.add_argument("--transcript", metavar="FILE",
                    help="the turn's messages for capture, JSON lines {\"role\": \"person\"|\"bot\"|"
                    "\"other-person\"|\"other-bot\", \"text\", \"at\"} (or a Claude Code transcript); "
                    "kept as its location, never its text, until the chat is captured")
    sp.add_argument("--started-by", default="person", metavar="WHO",
                    help="who started the turn: person (default), bot, harness, routine, webhook; "
                    "only a person's turns are captured")
    sp.add_argument("--room", action="store_true",
                    help="a room turn: its log line is sourced to the room; captured only with "
                    "features.roomMemoryCapture")
    sp = add("capture", cmd_capture,
             "notice facts in the bot's pending turns now (one helper call per chat), then organize")
    sp.add_argument("bot")
    sp.add_argument("--no-organize", action="store_true", help="do not organize MEMORY.md afterwards")
    sp = add("organize", cmd_organize, "file detail in MEMORY.md into topics now (with a helper model)")
    sp.add_argument("bot")
    sp = add("learned", cmd_learned, "About me lines your bots added (id, line); --remove ID takes one out for good")
    sp.add_argument("--remove", metavar="ID", help="the id `learned` shows; the fact is never added again")
    sp = add("watch", cmd_watch,
             "record changes made to memory files outside the app as 'changed outside the app' rows")
    sp.add_argument("--once", action="store_true", help="scan every workspace once and exit")
    sp = add("serve", cmd_serve,
             "serve the memory routes (GET/PUT /api/bots/BOT/memory/…) on 127.0.0.1 for the owner only: "
             "a bearer token from <home>/botmemory/api-token, loopback Host only, no web pages")
    sp.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="N",
                    help=f"the port (default {DEFAULT_PORT}; 0 picks a free one)")
    sp = add("mcp", cmd_mcp, "serve BOT's memory tools over MCP on stdin/stdout (for Claude Code, Claude Desktop, "
             "Cursor): memory_update, session_search, memory_recall, memory_load, memory_read, memory_write, "
             "memory_journal")
    sp.add_argument("bot", nargs="?", help="the bot or tracked folder (with --project: the Claude Code project's)")
    sp.add_argument("--project", action="store_true",
                    help="the tracked memory folder of the Claude Code project in this folder ($CLAUDE_PROJECT_DIR, "
                         "else the current one): what the Claude Code plugin starts")
    sp = add("hook", cmd_hook, "answer one agent hook event read on stdin (what `connect` installs); always exits 0")
    sp.add_argument("agent", choices=("claude-code",))
    sp.add_argument("--bot", metavar="BOT", help="also recall from this bot's workspace")
    sp = add("connect", cmd_connect,
             "add botmemory to an agent's settings: claude-code (hooks; with --bot also the MCP server), "
             "claude-desktop and cursor (the MCP server); without an agent, say what is connected")
    sp.add_argument("agent", nargs="?", choices=("claude-code", "claude-desktop", "cursor"))
    sp.add_argument("--project", metavar="DIR", help="that project's settings instead of the user's")
    sp.add_argument("--bot", metavar="BOT", help="the workspace the MCP server serves (and the hook recalls from)")
    sp.add_argument("--remove", action="store_true", help="take out exactly what connect added")
    sp.add_argument("--brief", action=argparse.BooleanOptionalAction, default=None,
                    help="claude-code: tell each new session of the project in DIR (--project, else this folder) "
                         "what its other sessions did today and yesterday (--no-brief: stop)")
    sp.add_argument("--across-projects", action=argparse.BooleanOptionalAction, default=None,
                    help="claude-code: with --brief, other projects' sessions too, named by project")
    sp = add("settings", cmd_settings, "show or set a bot's switches: memory, upkeep, helper (on/off)")
    sp.add_argument("bot")
    sp.add_argument("key", nargs="?", choices=SWITCHES)
    sp.add_argument("value", nargs="?", metavar="on|off")
    team_cli.add_commands(add, sub, common)     # `team …` and `search --scope team`
    add_sync_commands(add, sub)
    p.commands = frozenset(top.names)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = parser_for(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, or a usage error argparse already explained
        return e.code if isinstance(e.code, int) else 2
    args.json = getattr(args, "json", False)
    log.setup(args.verbose)
    if not getattr(args, "handler", None):
        if args.command == "turn":
            sys.stderr.write("botmemory: turn needs begin or end (see `botmemory turn --help`)\n")
        else:
            parser.print_help(sys.stderr)
        return 2
    try:
        _check_decoded(args)
        mem = Memory.open(args.root, args.today)
        args.handler(mem, args)
    except Conflict as c:
        if args.json:
            sys.stdout.write(json.dumps({"conflict": True, "text": c.text, "hash": c.hash, **c.extra()},
                                        ensure_ascii=False) + "\n")
        else:
            sys.stdout.write(c.shown())
        sys.stderr.write(f"botmemory: conflict: {c} (nothing saved; the current text is on stdout)\n")
        return c.exit_code
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - the one place that catches everything; exit_code_for says it plainly
        return exit_code_for(e, args.verbose, logger)
    return 0


if __name__ == "__main__":
    sys.exit(main())
