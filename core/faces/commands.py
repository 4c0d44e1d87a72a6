"""The ``botmemory`` commands: one function per command, each calling the operations (``ops``, the one door)
and printing its result (``--json`` or plain text). ``cli`` parses the arguments and maps errors to exit codes.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

from .. import ops
from ..base.log import get_logger
from ..ops import Actor, BadInput, Memory, counted

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from typing import Any

logger = get_logger(__name__)

_HASH = re.compile(r"[0-9a-f]{64}")
MAX_STDIN = 16 * 1024 * 1024   # the largest memory file botmemory reads or writes (safeio.MAX_FILE_BYTES)


def _out(args: argparse.Namespace, value: Any, plain: str | None = None) -> None:
    if args.json:
        sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")
    elif plain is not None:
        sys.stdout.write(plain if plain.endswith("\n") or not plain else plain + "\n")
    sys.stdout.flush()


def _warn(warnings: list[str]) -> None:
    """Lines on stderr saying what a change's row cannot bring back (forget, save, rm): the person is told."""
    for w in warnings:
        sys.stderr.write(f"botmemory: warning: {w}\n")


def _actor(args: argparse.Namespace) -> Actor:
    chat = getattr(args, "chat", None)
    return Actor.bot(chat) if chat is not None else Actor.person("cli")


def _read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_STDIN + 1)
    if len(data) > MAX_STDIN:
        raise BadInput(f"the text on stdin is larger than {MAX_STDIN // (1024 * 1024)} MB; nothing was saved")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"the text on stdin is not valid UTF-8 (byte {e.start}); nothing was saved") from None


def cmd_bots(mem: Memory, args: argparse.Namespace) -> None:
    bots = ops.bots(mem)
    _out(args, bots, "\n".join(bots))


def cmd_init(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.init(mem, args.bot)
    _out(args, r.as_dict(), r.workspace)


def cmd_gauge(mem: Memory, args: argparse.Namespace) -> None:
    from .sync_cli import with_sync_note  # when the last sync's merge pushed lines out of what loads

    g = ops.gauge(mem, args.bot)
    _out(args, *with_sync_note(mem, args.bot, g.as_dict(), g.plain()))


def cmd_load(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.load(mem, args.bot)
    _out(args, r.as_dict(), r.text)


def cmd_remember(mem: Memory, args: argparse.Namespace) -> None:
    ops.refuse(mem, args.bot, "remember")   # before stdin is read (ops.remember checks again)
    text = _read_stdin() if args.text == "-" else args.text
    r = ops.remember(mem, args.bot, text, _actor(args), until=args.until)
    plain = f"remembered: {r.entry}"
    if r.moved_count:
        plain += f"\nmoved {counted(r.moved_count, 'older entry', 'older entries')} to memory/archive.md:"
        plain += "".join(f"\n  {line}" for line in r.moved)
        if r.moved_count > len(r.moved):
            plain += f"\n  … and {r.moved_count - len(r.moved)} more"
    if r.over_budget:
        plain += "\nMEMORY.md is over the budget with lines that never move: please trim it."
    if r.learnable_again:
        plain += "\n" + ops.learnable_again_line(r.learnable_again)
    _out(args, r.as_dict(), plain)


def cmd_forget(mem: Memory, args: argparse.Namespace) -> None:
    verb = "would forget" if args.dry_run else "forgot"
    if args.all:
        results = ops.forget_everywhere(mem, [args.bot, *args.words], _actor(args), dry_run=args.dry_run)
        n = sum(len(r.removed) for r in results)
        _warn([w for r in results for w in r.warnings])   # what the rows could not bring back: told first
        _out(args, [r.as_dict() for r in results], f"{verb} {counted(n, 'note')}" + "".join(
            f"\n  {r.bot}: {', '.join(r.files)}" for r in results if r.files))
        return
    r = ops.forget(mem, args.bot, args.words, _actor(args), dry_run=args.dry_run)
    _warn(r.warnings)
    if isinstance(r, ops.Forgotten):
        plain = f"{verb} {counted(len(r.removed), 'note')}" + (f"\n  {r.bot}: {', '.join(r.files)}" if r.files else "")
    else:
        plain = f"{verb} {counted(len(r.removed), 'note')}" + (f" in {', '.join(r.files)}" if r.files else "")
    _out(args, r.as_dict(), plain)


def cmd_prefer(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.prefer(mem, args.bot, args.text, _actor(args))
    plain = ("added to About me: " if r.added else "already in About me: ") + r.line
    if r.learnable_again:
        plain += "\n" + ops.learnable_again_line(r.learnable_again)
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
    r = ops.show(mem, args.bot, args.path)
    if not r.exists:  # a missing file reads as empty, with no hash: `save --expected-hash absent` creates it
        if not args.json:
            sys.stderr.write(f"botmemory: {r.path} does not exist yet (it reads as empty)\n")
    elif not r.valid_utf8 and not args.json:
        sys.stderr.write(f"botmemory: {r.path} is not valid UTF-8; shown with replacement characters\n")
    if r.secrets:
        sys.stderr.write(f"botmemory: warning: {r.path} holds a credential ({', '.join(r.secrets)}); "
                         f"`botmemory redact {args.bot} {r.path}` takes it out (undoable)\n")
    _out(args, r.as_dict(), r.text)


def cmd_save(mem: Memory, args: argparse.Namespace) -> None:
    path = ops.file_path(mem, args.bot, args.path)  # checks the path before reading stdin
    expected, checked = _expected_hash(args.expected_hash, absent_ok=True)
    text = _read_stdin()
    r = ops.save(mem, args.bot, path, text, _actor(args), expected_hash=expected, checked=checked)
    _warn(r.warnings)
    _out(args, {"path": path, "hash": r.hash, "changed": r.changed},
         f"saved {path}" if r.changed else f"{path} unchanged")


def cmd_rm(mem: Memory, args: argparse.Namespace) -> None:
    path = ops.file_path(mem, args.bot, args.path, kind=True)    # a bad path is exit 2 before anything else
    expected, _ = _expected_hash(args.expected_hash, absent_ok=False)
    r = ops.rm(mem, args.bot, path, _actor(args), expected_hash=expected)
    why = r.unkept_reason()
    _warn(r.warnings)
    if why:
        sys.stderr.write(f"botmemory: deleted {path}, but this cannot be undone: {why}\n")
    _out(args, {"path": path, "deleted": True, "undoable": why is None, "reason": why},
         f"deleted {path}")


def cmd_redact(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.redact(mem, args.bot, args.path, _actor(args), args.expected_hash)
    change = r.changes[0] if r.changes else None
    if change is None:
        _out(args, {"path": args.path, "changed": False, "row": None}, f"{args.path} holds no credential")
        return
    _out(args, {"path": args.path, "changed": True, "row": change.id, "hash": change.after_hash},
         f"redacted {args.path} (journal row {change.id}; botmemory keeps no copy of a credential, "
         "so this change cannot be undone)")


def cmd_agents(mem: Memory, args: argparse.Namespace) -> None:
    found = ops.discover(mem)
    for u in found.unread:
        sys.stderr.write(f"botmemory: {u} (the defaults were used)\n")
    lines = [f"{c.id}  {c.agent}  {c.name}  {'tracked' if c.tracked else 'not tracked'}  {c.path}"
             for c in found.folders]
    _out(args, found.as_list(), "\n".join(lines) or "no Claude Code, OpenClaw or Hermes memory folders found")


def cmd_track(mem: Memory, args: argparse.Namespace) -> None:
    t = ops.track(mem, args.id, path=args.path, agent=args.agent)
    _out(args, t.as_dict(), f"tracking {t.id}: {t.name} ({t.agent}) at {t.path}")


def cmd_untrack(mem: Memory, args: argparse.Namespace) -> None:
    t = ops.untrack(mem, args.id)
    _out(args, t.as_dict(), f"no longer tracking {t.id} ({t.path}); its journal stays in the home")


def cmd_brief(mem: Memory, args: argparse.Namespace) -> None:
    b = ops.brief(mem, args.bot, args.chat, room=True if args.room else None)
    _out(args, b.as_dict(), b.text or "nothing from other conversations in the last two days")


def cmd_recall(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.recall(mem, args.bot, args.message)
    _out(args, r.as_dict(), r.text)


def cmd_search(mem: Memory, args: argparse.Namespace) -> None:
    hits = ops.search(mem, args.bot, args.words, args.since, args.until).hits
    _out(args, [h.as_dict() for h in hits],
         "\n".join(h.plain() for h in hits))


def cmd_settings(mem: Memory, args: argparse.Namespace) -> None:
    d = ops.settings(mem, args.bot, args.key, args.value).as_dict()
    _out(args, d, "\n".join(f"{k}: {'on' if v else 'off'}" for k, v in d.items()))


def cmd_tidy(mem: Memory, args: argparse.Namespace) -> None:
    report = ops.tidy(mem, args.bot, model=not args.no_model)
    _out(args, report.as_dict(), ops.report_text(report))


def cmd_watch(mem: Memory, args: argparse.Namespace) -> None:
    import signal
    import threading

    if args.once:
        rows = ops.scan(mem)
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
    watcher = ops.watcher(mem, show)
    watcher.start()
    from .sync_cli import start_in_watch

    syncing = start_in_watch(mem)   # None when sync is not set up here
    sys.stderr.write(f"botmemory: watching {mem.home.workspaces} (Ctrl-C stops)\n")
    try:
        while True:  # the nightly tidy-up, recall's index and capture, once a minute (the watcher is event-driven)
            done = ops.periodic(mem)
            for bot, report in done.tidied.items():
                sys.stderr.write(f"botmemory: nightly tidy-up of {bot}: {json.dumps(report)}\n")
            for bot, report in done.captured.items():
                sys.stderr.write(f"botmemory: capture of {bot}: {json.dumps(report, ensure_ascii=False)}\n")
            if stop.wait(60.0):
                break
    finally:
        watcher.stop()
        if syncing is not None:
            syncing.stop()


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
    turn_id = ops.turn_begin(mem, args.bot, args.chat)
    _out(args, {"turn": turn_id}, turn_id)


def cmd_turn_end(mem: Memory, args: argparse.Namespace) -> None:
    tools = [t for t in (args.tools or "").split(",") if t.strip()]
    r = ops.turn_end(mem, args.bot, args.turn_id, args.said, tools=tools, failed=args.failed,
                     transcript=args.transcript, started_by=args.started_by, room=args.room)
    plain = "\n".join(row.summary() for row in r.rows) if r.rows else "nothing changed in this turn"
    if r.capture is not None:
        plain += "\ncapture: the turn waits to be read" if r.capture == "pending" else f"\ncapture: {r.capture}"
    _out(args, r.as_dict(), plain)


def cmd_capture(mem: Memory, args: argparse.Namespace) -> None:
    report = ops.capture(mem, args.bot, organize=not args.no_organize)
    _out(args, report.as_dict(), ops.report_text(report))


def cmd_organize(mem: Memory, args: argparse.Namespace) -> None:
    report = ops.organize(mem, args.bot)
    _out(args, report.as_dict(), ops.report_text(report))


def cmd_learned(mem: Memory, args: argparse.Namespace) -> None:
    if args.remove is not None:
        gone = ops.remove_learned(mem, args.remove, ops.Actor.person("cli"))
        _out(args, gone.as_dict(), f"removed: {gone.line}")
        return
    lines = ops.learned(mem)
    _out(args, [ll.as_dict() for ll in lines],
         "\n".join(f"{ll.id}  {ll.line}" for ll in lines) if lines else "no lines added by your bots")


def cmd_mcp(mem: Memory, args: argparse.Namespace) -> None:
    bot = args.bot
    if bot is None or args.project:
        if bot is not None or not args.project:
            raise BadInput("mcp needs a BOT, or --project (the Claude Code project in this folder), not both")
        import os

        from ..ops import claude as ops_claude

        bot = ops_claude.project_bot(mem, os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())
    from .mcp_wire import serve  # answers initialize, then loads the SDK: no other command pays for it

    serve(mem, bot)


def cmd_hook(mem: Memory, args: argparse.Namespace) -> None:
    """Never fails the agent: whatever happens, exit 0 (errors are logged)."""
    from .hooks import handle, log_error

    try:
        raw = sys.stdin.buffer.read(MAX_STDIN).decode("utf-8", errors="replace")
        answer = handle(mem, raw, args.bot)
    except Exception as e:  # noqa: BLE001 - a hook answers nothing rather than fail the person
        log_error(mem.home, f"hook {args.agent}: {type(e).__name__}: {e}")
        answer = ""
    if answer:
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


def cmd_connect(mem: Memory, args: argparse.Namespace) -> None:
    if args.agent is None:
        if args.remove or args.bot:
            raise BadInput("connect --remove and --bot need an agent: " + ", ".join(ops.CONNECT_AGENTS))
        rows = ops.connection_status(args.project)
        plain = "\n".join(
            f"{r['agent']}: " + ("connected" if r["connected"] else "not connected")
            + (" (hooks)" if r["hooks"] else "") + (f" (MCP: {r['mcp_bot']})" if r["mcp_bot"] else "")
            + ("" if r["found"] else " · not found on this computer")
            + (f" · {r['error']}" if r.get("error") else "") for r in rows)
        _out(args, rows, plain)
        return
    brief, across = getattr(args, "brief", None), getattr(args, "across_projects", None)
    switching = brief is not None or across is not None
    if switching:
        if args.agent != "claude-code":
            raise BadInput("--brief and --across-projects are Claude Code's: botmemory connect claude-code --brief")
        if args.remove:
            raise BadInput("--remove takes the hooks out and goes without --brief; to stop the brief: botmemory connect "
                           "claude-code --no-brief")
        ops.brief_switch(mem.home, args.project or os.getcwd())     # auto memory off there: said before writing
    out = ops.connect_agent(mem.home, args.agent, project=args.project, bot=args.bot, remove=args.remove)
    verb = "disconnected" if args.remove else "connected"
    plain = (f"{args.agent} {verb}: " + ", ".join(out.changed)) if out.changed else \
        f"{args.agent}: nothing to change (already {verb})"
    if out.changed and args.agent == "claude-desktop":
        plain += "\nrestart Claude Desktop to load it"
    value = out.as_dict()
    if switching:
        sw = ops.set_brief_switch(mem.home, args.project or os.getcwd(), brief=brief, across=across)
        value["brief"] = sw.as_dict()
        state = ("off" if not sw.brief else "on, with other projects' sessions too" if sw.across
                 else "on (this project's other sessions)")
        plain += f"\nthe recent-work brief at the start of each session in {sw.project}: {state}"
    _out(args, value, plain)
