"""The ``botmemory`` command line: the CLI contract of DESIGN.md.

Exit codes: 0 done; 2 bad usage or bad input (nothing written); 3 conflict
(the expected hash no longer matches); 4 refused by a rule; 1 busy or anything unexpected.
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from . import budget, config
from .errors import BadInput, BotMemoryError, Conflict
from .paths import MEMORY_FILE, normalize_rel, parse_day
from .safeio import MAX_FILE_BYTES
from .memory import Memory
from .store import Actor
from .wording import counted

DEFAULT_PORT = 8721  # server.DEFAULT_PORT (tests/core/test_server.py checks); the server loads only for `serve`

logger = logging.getLogger(__name__)

_HASH = re.compile(r"[0-9a-f]{64}")

Handler = Callable[[Memory, argparse.Namespace], Any]

EPILOG = """\
exit codes: 0 done, 2 bad usage or input, such as an argument that is not
valid UTF-8 (nothing written), 3 conflict (the file changed since it was
opened), 4 refused by a rule, 1 busy (another botmemory is writing: try
again) or unexpected.

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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"botmemory: {message} (see `botmemory --help`)\n")


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


def _out(args: argparse.Namespace, value: Any, plain: str | None = None) -> None:
    if args.json:
        sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")
    elif plain is not None:
        sys.stdout.write(plain if plain.endswith("\n") or not plain else plain + "\n")
    sys.stdout.flush()


def _actor(args: argparse.Namespace) -> Actor:
    chat = getattr(args, "chat", None)
    return Actor.bot(chat) if chat is not None else Actor.person("cli")


def _read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"the text on stdin is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB; nothing was saved")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"the text on stdin is not valid UTF-8 (byte {e.start}); nothing was saved") from None


# ----- commands


def cmd_bots(mem: Memory, args: argparse.Namespace) -> None:
    bots = mem.home.bots()
    _out(args, bots, "\n".join(bots))


def cmd_init(mem: Memory, args: argparse.Namespace) -> None:
    created = mem.store.init(args.bot)
    ws = mem.home.workspace(args.bot)
    _out(args, {"bot": args.bot, "workspace": str(ws), "created": created}, str(ws))


def cmd_gauge(mem: Memory, args: argparse.Namespace) -> None:
    mem.home.require_bot(args.bot)
    if mem.home.is_tracked(args.bot):
        from . import agents

        ag = agents.gauge(mem, args.bot)
        d = ag.as_dict()
        found = agents.folder_secrets(mem, args.bot)
        if found:
            d["secrets"] = found
        _out(args, d, ag.plain() + "".join(f"\n{rel} holds a credential ({', '.join(k)}): "
                                           f"`botmemory redact {args.bot} {rel}` takes it out"
                                           for rel, k in found.items()))
        return
    g = budget.gauge(mem.store.text(args.bot, MEMORY_FILE))
    d = {"agent": "openmausbot", **g.as_dict()}
    heavy = _heavy_line(mem, args.bot)
    if heavy:
        d["heavy"] = heavy
    plain = (f"{g.lines}/{g.max_lines} lines · {g.bytes:,}/{g.max_bytes:,} bytes · {g.level.value}"
             + (f" · {counted(g.unloaded_lines, 'line does', 'lines do')} not load"
                if g.unloaded_lines else "")
             + f"\n{budget.ONLY_FIRST_LINES}" + (f"\n{heavy}" if heavy else ""))
    _out(args, d, plain)


def _refuse_for_agent(mem: Memory, bot: str, command: str) -> None:
    from .agents import refuse

    refuse(mem, bot, command)


def _heavy_line(mem: Memory, bot: str) -> str | None:
    try:
        from . import upkeep
    except ImportError:
        return None
    return upkeep.heavy_line(mem, bot)


def cmd_load(mem: Memory, args: argparse.Namespace) -> None:
    from .loader import load_block

    mem.home.require_bot(args.bot)
    if mem.home.is_tracked(args.bot):
        from . import agents

        text = agents.load(mem, args.bot)
        _out(args, {"text": text}, text)
        return
    text = load_block(mem, args.bot)
    _out(args, {"text": text}, text)


def cmd_remember(mem: Memory, args: argparse.Namespace) -> None:
    until = parse_day(args.until, "--until") if args.until else None
    _refuse_for_agent(mem, args.bot, "remember")
    text = _read_stdin() if args.text == "-" else args.text
    from . import update

    r = update.remember(mem.store, args.bot, text, _actor(args), until=until)
    plain = f"remembered: {r.entry}"
    if r.moved_count:
        plain += f"\nmoved {counted(r.moved_count, 'older entry', 'older entries')} to memory/archive.md:"
        plain += "".join(f"\n  {line}" for line in r.moved)
        if r.moved_count > len(r.moved):
            plain += f"\n  … and {r.moved_count - len(r.moved)} more"
    if r.over_budget:
        plain += "\nMEMORY.md is over the budget with lines that never move: please trim it."
    if r.learnable_again:
        plain += "\n" + update.learnable_again_line(r.learnable_again)
    _out(args, r.as_dict(), plain)


def cmd_forget(mem: Memory, args: argparse.Namespace) -> None:
    from . import update

    verb = "would forget" if args.dry_run else "forgot"
    if args.all or mem.home.is_tracked(args.bot):
        from . import agents

        if args.all:
            results = agents.forget_everywhere(mem, [args.bot, *args.words], _actor(args), dry_run=args.dry_run)
        else:
            results = [agents.forget(mem, args.bot, args.words, _actor(args), dry_run=args.dry_run)]
        n = sum(len(r.removed) for r in results)
        plain = f"{verb} {counted(n, 'note')}" + "".join(
            f"\n  {r.bot}: {', '.join(r.files)}" for r in results if r.files)
        _out(args, [r.as_dict() for r in results] if args.all else results[0].as_dict(), plain)
        return

    r = update.forget(mem.store, args.bot, args.words, _actor(args), dry_run=args.dry_run)
    plain = (f"{verb} {counted(len(r.removed), 'note')}"
             + (f" in {', '.join(r.files)}" if r.files else ""))
    _out(args, r.as_dict(), plain)


def cmd_prefer(mem: Memory, args: argparse.Namespace) -> None:
    mem.home.require_bot(args.bot)
    _refuse_for_agent(mem, args.bot, "prefer")
    from . import update

    r = update.prefer(mem.home, args.bot, args.text, mem.today)
    plain = ("added to About me: " if r.added else "already in About me: ") + r.line
    if r.learnable_again:
        plain += "\n" + update.learnable_again_line(r.learnable_again)
    _out(args, r.as_dict(), plain)


def _expected_hash(value: str | None, *, absent_ok: bool) -> tuple[str | None, bool]:
    """``--expected-hash``: 64 hex digits (any case) or, where creating is allowed, ``absent``.

    Returns (hash, checked): ``(None, True)`` means "the file must not exist yet".
    """
    if value is None:
        return None, False
    v = value.strip().lower()
    if v == "absent":
        if not absent_ok:
            raise BadInput("--expected-hash absent makes no sense here: the file must exist to be deleted")
        return None, True
    if not _HASH.fullmatch(v):
        raise BadInput(f"bad --expected-hash {value!r}: give the 64 hex digits `show --json` prints, "
                       "or `absent` for a file that must not exist yet")
    return v, True


def cmd_show(mem: Memory, args: argparse.Namespace) -> None:
    mem.home.require_bot(args.bot)
    path = normalize_rel(args.path)
    ft = mem.store.read(args.bot, path)
    if ft is None:  # a missing file reads as empty, with no hash: `save --expected-hash absent` creates it
        if not args.json:
            sys.stderr.write(f"botmemory: {path} does not exist yet (it reads as empty)\n")
        _out(args, {"path": path, "text": "", "hash": None, "exists": False, "valid_utf8": True}, "")
        return
    if not ft.valid and not args.json:
        sys.stderr.write(f"botmemory: {path} is not valid UTF-8; shown with replacement characters\n")
    d: dict[str, Any] = {"path": path, "text": ft.text, "hash": ft.hash, "exists": True, "valid_utf8": ft.valid}
    if mem.home.is_tracked(args.bot) and ft.valid:
        from . import agents

        found = agents.secrets_in(ft.text)
        if found:
            d["secrets"] = found
            sys.stderr.write(f"botmemory: warning: {path} holds a credential ({', '.join(found)}); "
                             f"`botmemory redact {args.bot} {path}` takes it out (undoable)\n")
    _out(args, d, ft.text)


def cmd_save(mem: Memory, args: argparse.Namespace) -> None:
    path = normalize_rel(args.path)
    mem.home.file(args.bot, path)  # checks the path before reading stdin
    expected, checked = _expected_hash(args.expected_hash, absent_ok=True)
    text = _read_stdin()
    mem.store.ensure(args.bot)
    change = mem.store.write(args.bot, path, text, _actor(args), expected_hash=expected, checked=checked)
    ft = mem.store.read(args.bot, path)
    h = ft.hash if ft else None
    _out(args, {"path": path, "hash": h, "changed": change is not None},
         f"saved {path}" if change else f"{path} unchanged")


def cmd_rm(mem: Memory, args: argparse.Namespace) -> None:
    mem.home.require_bot(args.bot)
    path = normalize_rel(args.path)
    mem.home.classify(args.bot, path)    # a bad path is exit 2 before anything else
    expected, _ = _expected_hash(args.expected_hash, absent_ok=False)
    change = mem.store.delete(args.bot, path, _actor(args), expected_hash=expected)
    why = change.unkept if change is not None else None
    if why is None and change is not None and not change.before_valid:
        why = "it was not valid UTF-8"
    if why:
        sys.stderr.write(f"botmemory: deleted {path}, but this cannot be undone: {why}\n")
    _out(args, {"path": path, "deleted": True, "undoable": why is None, "reason": why},
         f"deleted {path}")


def cmd_redact(mem: Memory, args: argparse.Namespace) -> None:
    from . import agents

    change = agents.redact_file(mem, args.bot, args.path, _actor(args), args.expected_hash)
    if change is None:
        _out(args, {"path": args.path, "changed": False, "row": None}, f"{args.path} holds no credential")
        return
    _out(args, {"path": args.path, "changed": True, "row": change.id, "hash": change.after_hash},
         f"redacted {args.path} (journal row {change.id}; botmemory keeps no copy of a credential, "
         "so this change cannot be undone)")


def cmd_agents(mem: Memory, args: argparse.Namespace) -> None:
    from . import tracked

    found, unread = tracked.discover(mem.home)
    for u in unread:
        sys.stderr.write(f"botmemory: {u} (the defaults were used)\n")
    lines = [f"{c.id}  {c.agent}  {c.name}  {'tracked' if c.tracked else 'not tracked'}  {c.path}" for c in found]
    _out(args, [c.as_dict() for c in found],
         "\n".join(lines) or "no Claude Code, OpenClaw or Hermes memory folders found")


def cmd_track(mem: Memory, args: argparse.Namespace) -> None:
    from . import tracked

    if args.path is None and args.agent is not None:
        raise BadInput("--agent goes with --path DIR")
    t = tracked.track(mem.home, args.id, path=args.path, agent=args.agent)
    _out(args, t.as_dict(), f"tracking {t.id}: {t.name} ({t.agent}) at {t.path}")


def cmd_untrack(mem: Memory, args: argparse.Namespace) -> None:
    from . import tracked

    t = tracked.untrack(mem.home, args.id)
    _out(args, t.as_dict(), f"no longer tracking {t.id} ({t.path}); its journal stays in the home")


def cmd_recall(mem: Memory, args: argparse.Namespace) -> None:
    from . import recall

    if mem.home.is_tracked(args.bot):
        from . import agents

        r = agents.recall(mem, args.bot, args.message)
        _out(args, r.as_dict(), r.text)
        return
    r = recall.recall(mem.home, args.bot, args.message, mem.today)
    _out(args, r.as_dict(), r.text)


def cmd_search(mem: Memory, args: argparse.Namespace) -> None:
    from . import recall

    mem.home.require_bot(args.bot)
    since = recall.parse_when(args.since, mem.today, "--since") if args.since else None
    until = recall.parse_when(args.until, mem.today, "--until") if args.until else None
    if not args.words and since is None and until is None:
        raise BadInput("search needs words, --since or --until")
    on = config.bot_settings(mem.home, args.bot).memory
    hits = recall.search(mem.home, args.bot, args.words, since, until, include_memory=on)
    _out(args, [h.as_dict() for h in hits],
         "\n".join(f"{h.file} · {h.date.isoformat()} · {h.text}" for h in hits))


def cmd_settings(mem: Memory, args: argparse.Namespace) -> None:
    mem.home.require_bot(args.bot)
    if args.key is None:
        s = config.bot_settings(mem.home, args.bot)
    else:
        if args.value is None:
            raise BadInput(f"settings {args.key} needs a value: on or off")
        s = config.set_bot_setting(mem.home, args.bot, args.key, config.parse_switch(args.value))
    d = s.as_dict()
    _out(args, d, "\n".join(f"{k}: {'on' if v else 'off'}" for k, v in d.items()))


def cmd_journal(mem: Memory, args: argparse.Namespace) -> None:
    mem.home.require_bot(args.bot)
    if args.limit is not None and args.limit < 0:
        raise BadInput("--limit must be 0 or more")
    if args.file is not None:
        mem.home.classify(args.bot, args.file)
    words = (args.grep or "").split()
    rows = mem.journal.list(args.bot, limit=args.limit, file=args.file, grep=words, who=args.who)
    if args.limit == 0:  # asked for no rows: an empty list, not "no changes yet"
        _out(args, [], "")
        return
    empty = "no rows match" if args.file or words or args.who else f"no changes recorded for {args.bot} yet"
    _out(args, [r.as_dict() for r in rows], "\n".join(r.summary() for r in rows) or empty)


def cmd_undo(mem: Memory, args: argparse.Namespace) -> None:
    change = mem.undo(args.bot, args.row_id)
    if change is None:
        _out(args, {"undone": args.row_id, "changed": False, "row": None},
             "nothing to undo: the file already holds that row's earlier text")
        return
    _out(args, {"undone": args.row_id, "changed": True, "row": change.id, "file": change.file,
                "hash": change.after_hash}, f"undid {args.row_id}: {change.file} put back (row {change.id})")


def cmd_tidy(mem: Memory, args: argparse.Namespace) -> None:
    from . import upkeep
    from .tidy import summary

    _refuse_for_agent(mem, args.bot, "tidy")
    report = upkeep.tidy_now(mem, args.bot, model=not args.no_model)
    _out(args, report.as_dict(), summary(report))


def cmd_watch(mem: Memory, args: argparse.Namespace) -> None:
    import signal
    import threading
    from datetime import datetime

    from .turns import scan, turn_open
    from .watcher import Watcher
    from .upkeep import run_due

    if args.once:
        rows = scan(mem)
        _out(args, [r.as_dict() for r in rows],
             "\n".join(r.summary() for r in rows) if rows else "no changes made outside the app")
        return

    def show(rows: list[Any]) -> None:
        for r in rows:
            _out(args, r.as_dict(), r.summary())

    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    watcher = Watcher(mem, show)
    watcher.start()
    sys.stderr.write(f"botmemory: watching {mem.home.workspaces} (Ctrl-C stops)\n")
    try:
        while True:  # the nightly tidy-up, checked once a minute (the watcher itself is event-driven)
            try:
                for bot, report in run_due(mem, datetime.now().astimezone(), lambda b: turn_open(mem, b)).items():
                    sys.stderr.write(f"botmemory: nightly tidy-up of {bot}: {json.dumps(report)}\n")
            except Exception:
                logger.exception("the nightly tidy-up check failed")
            try:  # each bot's recall index kept current, so that a turn's recall finds it ready
                from .recall import refresh_index

                for bot in mem.home.bots():
                    refresh_index(mem.home, bot)
            except Exception:
                logger.exception("keeping the recall index current failed")
            try:  # chats quiet for memory.captureQuietMs, or with six turns waiting
                from .capture import capture_due

                for bot, report in capture_due(mem).items():
                    sys.stderr.write(f"botmemory: capture of {bot}: {json.dumps(report, ensure_ascii=False)}\n")
            except Exception:
                logger.exception("the capture check failed")
            if stop.wait(60.0):
                break
    finally:
        watcher.stop()


def cmd_serve(mem: Memory, args: argparse.Namespace) -> None:
    import os
    import signal
    import threading

    from .server import ApiServer

    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    follow = not (args.today or os.environ.get("BOTMEMORY_TODAY"))
    api = ApiServer(mem, args.port, follow_date=follow).start()
    try:
        _out(args, {"url": api.url, "port": api.port, "addresses": api.addresses, "token": api.token,
                    "token_file": str(api.token_file)},
             f"botmemory: serving {mem.home.root} on {', '.join(api.addresses)} (loopback only)\n"
             f"token: {api.token}\n(kept in {api.token_file}; send it as 'Authorization: Bearer <token>')")
        sys.stderr.write("botmemory: Ctrl-C stops\n")
        stop.wait()
    finally:
        api.stop()


def cmd_turn_begin(mem: Memory, args: argparse.Namespace) -> None:
    from .turns import turn_begin

    turn_id = turn_begin(mem, args.bot, args.chat)
    _out(args, {"turn": turn_id}, turn_id)


def cmd_turn_end(mem: Memory, args: argparse.Namespace) -> None:
    from .turns import open_turns, turn_end

    tools = [t for t in (args.tools or "").split(",") if t.strip()]
    chat = None
    if args.transcript is not None:
        from .capture import STARTERS
        from pathlib import Path

        if args.started_by not in STARTERS:
            raise BadInput(f"bad --started-by {args.started_by!r}: one of {', '.join(STARTERS)}")
        path = Path(args.transcript).expanduser()
        if not path.is_file() or path.is_symlink():
            raise BadInput(f"the transcript {args.transcript!r} is not a readable file; nothing was recorded")
        chat = next((t.chat for t in open_turns(mem, args.bot) if t.id == args.turn_id), None)
    rows = turn_end(mem, args.bot, args.turn_id, args.said, tools=tools, failed=args.failed)
    out: dict[str, Any] = {"turn": args.turn_id, "rows": [r.id for r in rows]}
    plain = "\n".join(r.summary() for r in rows) if rows else "nothing changed in this turn"
    if args.transcript is not None and chat is not None:
        from .capture import note_turn

        why = note_turn(mem, args.bot, args.turn_id, chat, args.transcript, failed=args.failed,
                        started_by=args.started_by, room=args.room)
        out["capture"] = why or "pending"
        plain += f"\ncapture: {why}" if why else "\ncapture: the turn waits to be read"
    _out(args, out, plain)


def cmd_capture(mem: Memory, args: argparse.Namespace) -> None:
    from .capture import capture, summary
    from .tidy import check_allowed

    _refuse_for_agent(mem, args.bot, "capture")
    check_allowed(mem, args.bot)     # memory or its upkeep off: refused (exit 4), like tidy
    report = capture(mem, args.bot, organize=not args.no_organize)
    _out(args, report.as_dict(), summary(report))


def cmd_organize(mem: Memory, args: argparse.Namespace) -> None:
    from .organize import organize, summary
    from .tidy import check_allowed

    _refuse_for_agent(mem, args.bot, "organize")
    check_allowed(mem, args.bot)
    report = organize(mem, args.bot)
    _out(args, report.as_dict(), summary(report))


def cmd_learned(mem: Memory, args: argparse.Namespace) -> None:
    from .profile import learned_lines, remove_learned

    if args.remove is not None:
        gone = remove_learned(mem.home, args.remove, mem.today)
        _out(args, gone.as_dict(), f"removed: {gone.line}")
        return
    lines = learned_lines(mem.home)
    _out(args, [ll.as_dict() for ll in lines],
         "\n".join(f"{ll.id}  {ll.line}" for ll in lines) if lines else "no lines added by your bots")


def cmd_mcp(mem: Memory, args: argparse.Namespace) -> None:
    from .mcp_server import serve  # the SDK loads only here: no other command pays for it

    serve(mem, args.bot)


def cmd_hook(mem: Memory, args: argparse.Namespace) -> None:
    """Never fails the agent: whatever happens, exit 0 (errors are logged)."""
    from .hooks import handle, log_error

    try:
        raw = sys.stdin.buffer.read(MAX_FILE_BYTES).decode("utf-8", errors="replace")
        answer = handle(mem, raw, args.bot)
    except Exception as e:  # noqa: BLE001 - a hook answers nothing rather than fail the person
        log_error(mem.home, f"hook {args.agent}: {type(e).__name__}: {e}")
        answer = ""
    if answer:
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


def cmd_connect(mem: Memory, args: argparse.Namespace) -> None:
    from . import connect

    if args.agent is None:
        if args.remove or args.bot:
            raise BadInput("connect --remove and --bot need an agent: " + ", ".join(connect.AGENTS))
        rows = connect.status(args.project)
        plain = "\n".join(
            f"{r['agent']}: " + ("connected" if r["connected"] else "not connected")
            + (" (hooks)" if r["hooks"] else "") + (f" (MCP: {r['mcp_bot']})" if r["mcp_bot"] else "")
            + ("" if r["found"] else " · not found on this computer")
            + (f" · {r['error']}" if r.get("error") else "") for r in rows)
        _out(args, rows, plain)
        return
    out = connect.connect(mem.home, args.agent, project=args.project, bot=args.bot, remove=args.remove)
    verb = "disconnected" if args.remove else "connected"
    plain = (f"{args.agent} {verb}: " + ", ".join(out.changed)) if out.changed else \
        f"{args.agent}: nothing to change (already {verb})"
    if out.changed and args.agent == "claude-desktop":
        plain += "\nrestart Claude Desktop to load it"
    _out(args, out.as_dict(), plain)


# ----- the parser

COMMANDS: dict[str, Handler] = {}


def build_parser() -> _Parser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print one JSON value on stdout")
    p = _Parser(prog="botmemory", description="botmemory: an AI bot's long-term memory, kept as plain markdown.",
                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter, parents=[common])
    p.add_argument("--root", metavar="DIR", help="the home (default: $OPENMAUSBOT_HOME, else ~/.openmausbot when it exists, "
                   "else botmemory's data folder)")
    p.add_argument("--today", metavar="DATE", help="treat DATE (YYYY-MM-DD) as today (also $BOTMEMORY_TODAY)")
    p.add_argument("--verbose", "-v", action="store_true", help="log what happens on stderr")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

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
    sp.add_argument("--until", metavar="DATE", help="the last day the note is true (YYYY-MM-DD)")
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
    sp = add("journal", cmd_journal, "changes to a bot's memory files, newest first")
    sp.add_argument("bot")
    sp.add_argument("--limit", type=int, default=50, metavar="N", help="at most N rows (default 50; 0 prints none)")
    sp.add_argument("--file", metavar="PATH", help="only rows of this file (MEMORY.md, memory/<topic>.md, …)")
    sp.add_argument("--grep", metavar="WORDS",
                    help="only rows whose diff adds or removes a line with every one of these words")
    sp.add_argument("--who", choices=("bot", "person", "upkeep", "import", "unknown"), help="only rows by this author")
    sp = add("undo", cmd_undo, "put a file back to a journal row's earlier text (itself a row)")
    sp.add_argument("bot")
    sp.add_argument("row_id", metavar="ROW_ID")
    sp = add("tidy", cmd_tidy,
             "tidy-up now: expired entries to the archive, exact duplicates out, contradictions struck")
    sp.add_argument("bot")
    sp.add_argument("--no-model", action="store_true",
                    help="only the expiry and exact-duplicate steps, even with a helper model set")
    sp = add("recall", cmd_recall, "the notes recall puts in front of a message: best first (rarer shared "
             "words weigh more, a topic named like the message first; word forms and Chinese/Japanese match)")
    sp.add_argument("bot")
    sp.add_argument("message")
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
                    help="a room turn: captured only with features.roomMemoryCapture")
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
    sp.add_argument("bot")
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
    sp = add("settings", cmd_settings, "show or set a bot's switches: memory, upkeep, helper (on/off)")
    sp.add_argument("bot")
    sp.add_argument("key", nargs="?", choices=config.SWITCHES)
    sp.add_argument("value", nargs="?", metavar="on|off")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, or a usage error argparse already explained
        return e.code if isinstance(e.code, int) else 2
    args.json = getattr(args, "json", False)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="botmemory: %(levelname)s %(name)s: %(message)s")
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
            sys.stdout.write(json.dumps({"conflict": True, "text": c.text, "hash": c.hash}, ensure_ascii=False) + "\n")
        else:
            sys.stdout.write(c.text)
        sys.stderr.write(f"botmemory: conflict: {c} (nothing saved; the current text is on stdout)\n")
        return c.exit_code
    except BotMemoryError as e:
        sys.stderr.write(f"botmemory: {e}\n")
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # the one place that catches everything: say it plainly, exit 1
        if args.verbose:
            logger.exception("unexpected error")
        sys.stderr.write(f"botmemory: unexpected error: {type(e).__name__}: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
