"""The ``botmemory`` commands: one function per command, each calling the operations (``ops``)
and printing its result (``--json`` or plain text). ``cli`` parses the arguments and maps errors to exit codes.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from ..base.log import get_logger
from ..text import budget
from ..disk import config
from ..base.errors import BadInput
from ..disk.paths import MEMORY_FILE, normalize_rel, parse_day
from ..disk.safeio import MAX_FILE_BYTES
from ..store.memory import Memory
from ..store.writer import Actor
from ..base.wording import counted

logger = get_logger(__name__)

_HASH = re.compile(r"[0-9a-f]{64}")


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
        from ..ops import folders as agents

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
    from ..ops.folders import refuse

    refuse(mem, bot, command)


def _heavy_line(mem: Memory, bot: str) -> str | None:
    try:
        from ..upkeep import schedule as upkeep
    except ImportError:
        return None
    return upkeep.heavy_line(mem, bot)


def cmd_load(mem: Memory, args: argparse.Namespace) -> None:
    from ..notes.loader import load_block

    mem.home.require_bot(args.bot)
    if mem.home.is_tracked(args.bot):
        from ..ops import folders as agents

        text = agents.load(mem, args.bot)
        _out(args, {"text": text}, text)
        return
    text = load_block(mem, args.bot)
    _out(args, {"text": text}, text)


def cmd_remember(mem: Memory, args: argparse.Namespace) -> None:
    until = parse_day(args.until, "--until") if args.until else None
    from ..ops import operations as ops

    _refuse_for_agent(mem, args.bot, "remember")   # before stdin is read (ops.remember checks again)
    text = _read_stdin() if args.text == "-" else args.text
    r = ops.remember(mem, args.bot, text, _actor(args), until=until)
    plain = f"remembered: {r.entry}"
    if r.moved_count:
        plain += f"\nmoved {counted(r.moved_count, 'older entry', 'older entries')} to memory/archive.md:"
        plain += "".join(f"\n  {line}" for line in r.moved)
        if r.moved_count > len(r.moved):
            plain += f"\n  … and {r.moved_count - len(r.moved)} more"
    if r.over_budget:
        plain += "\nMEMORY.md is over the budget with lines that never move: please trim it."
    if r.learnable_again:
        from ..notes.update import learnable_again_line

        plain += "\n" + learnable_again_line(r.learnable_again)
    _out(args, r.as_dict(), plain)


def cmd_forget(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops import folders as agents
    from ..ops import operations as ops

    verb = "would forget" if args.dry_run else "forgot"
    if args.all or mem.home.is_tracked(args.bot):
        if args.all:
            results = ops.forget_everywhere(mem, [args.bot, *args.words], _actor(args), dry_run=args.dry_run)
        else:
            one = ops.forget(mem, args.bot, args.words, _actor(args), dry_run=args.dry_run)
            assert isinstance(one, agents.Forgotten)
            results = [one]
        n = sum(len(r.removed) for r in results)
        plain = f"{verb} {counted(n, 'note')}" + "".join(
            f"\n  {r.bot}: {', '.join(r.files)}" for r in results if r.files)
        _out(args, [r.as_dict() for r in results] if args.all else results[0].as_dict(), plain)
        return

    r = ops.forget(mem, args.bot, args.words, _actor(args), dry_run=args.dry_run)
    plain = (f"{verb} {counted(len(r.removed), 'note')}"
             + (f" in {', '.join(r.files)}" if r.files else ""))
    _out(args, r.as_dict(), plain)


def cmd_prefer(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops import operations as ops

    r = ops.prefer(mem, args.bot, args.text, _actor(args))
    plain = ("added to About me: " if r.added else "already in About me: ") + r.line
    if r.learnable_again:
        from ..notes.update import learnable_again_line

        plain += "\n" + learnable_again_line(r.learnable_again)
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
        from ..ops import folders as agents

        found = agents.secrets_in(ft.text)
        if found:
            d["secrets"] = found
            sys.stderr.write(f"botmemory: warning: {path} holds a credential ({', '.join(found)}); "
                             f"`botmemory redact {args.bot} {path}` takes it out (undoable)\n")
    _out(args, d, ft.text)


def cmd_save(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops import operations as ops

    path = normalize_rel(args.path)
    mem.home.file(args.bot, path)  # checks the path before reading stdin
    expected, checked = _expected_hash(args.expected_hash, absent_ok=True)
    text = _read_stdin()
    r = ops.save(mem, args.bot, path, text, _actor(args), expected_hash=expected, checked=checked)
    _out(args, {"path": path, "hash": r.hash, "changed": r.changed},
         f"saved {path}" if r.changed else f"{path} unchanged")


def cmd_rm(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops import operations as ops

    mem.home.require_bot(args.bot)
    path = normalize_rel(args.path)
    mem.home.classify(args.bot, path)    # a bad path is exit 2 before anything else
    expected, _ = _expected_hash(args.expected_hash, absent_ok=False)
    r = ops.rm(mem, args.bot, path, _actor(args), expected_hash=expected)
    change = r.changes[0] if r.changes else None
    why = change.unkept if change is not None else None
    if why is None and change is not None and not change.before_valid:
        why = "it was not valid UTF-8"
    if why:
        sys.stderr.write(f"botmemory: deleted {path}, but this cannot be undone: {why}\n")
    _out(args, {"path": path, "deleted": True, "undoable": why is None, "reason": why},
         f"deleted {path}")


def cmd_redact(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops import operations as ops

    r = ops.redact(mem, args.bot, args.path, _actor(args), args.expected_hash)
    change = r.changes[0] if r.changes else None
    if change is None:
        _out(args, {"path": args.path, "changed": False, "row": None}, f"{args.path} holds no credential")
        return
    _out(args, {"path": args.path, "changed": True, "row": change.id, "hash": change.after_hash},
         f"redacted {args.path} (journal row {change.id}; botmemory keeps no copy of a credential, "
         "so this change cannot be undone)")


def cmd_agents(mem: Memory, args: argparse.Namespace) -> None:
    from ..kinds import tracked

    found, unread = tracked.discover(mem.home)
    for u in unread:
        sys.stderr.write(f"botmemory: {u} (the defaults were used)\n")
    lines = [f"{c.id}  {c.agent}  {c.name}  {'tracked' if c.tracked else 'not tracked'}  {c.path}" for c in found]
    _out(args, [c.as_dict() for c in found],
         "\n".join(lines) or "no Claude Code, OpenClaw or Hermes memory folders found")


def cmd_track(mem: Memory, args: argparse.Namespace) -> None:
    from ..kinds import tracked

    if args.path is None and args.agent is not None:
        raise BadInput("--agent goes with --path DIR")
    t = tracked.track(mem.home, args.id, path=args.path, agent=args.agent)
    _out(args, t.as_dict(), f"tracking {t.id}: {t.name} ({t.agent}) at {t.path}")


def cmd_untrack(mem: Memory, args: argparse.Namespace) -> None:
    from ..kinds import tracked

    t = tracked.untrack(mem.home, args.id)
    _out(args, t.as_dict(), f"no longer tracking {t.id} ({t.path}); its journal stays in the home")


def cmd_recall(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops import operations as ops

    r = ops.recall(mem, args.bot, args.message)
    _out(args, r.as_dict(), r.text)


def cmd_search(mem: Memory, args: argparse.Namespace) -> None:
    from ..recall.search import parse_when

    mem.home.require_bot(args.bot)
    since = parse_when(args.since, mem.today, "--since") if args.since else None
    until = parse_when(args.until, mem.today, "--until") if args.until else None
    if not args.words and since is None and until is None:
        raise BadInput("search needs words, --since or --until")
    from ..ops import operations as ops

    hits = ops.search(mem, args.bot, args.words, since, until).hits
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
    from ..ops import operations as ops

    r = ops.undo(mem, args.bot, args.row_id)
    change = r.changes[0] if r.changes else None
    if change is None:
        _out(args, {"undone": args.row_id, "changed": False, "row": None},
             "nothing to undo: the file already holds that row's earlier text")
        return
    _out(args, {"undone": args.row_id, "changed": True, "row": change.id, "file": change.file,
                "hash": change.after_hash}, f"undid {args.row_id}: {change.file} put back (row {change.id})")


def cmd_tidy(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops import operations as ops
    from ..upkeep.tidy import summary

    report = ops.tidy(mem, args.bot, model=not args.no_model)
    _out(args, report.as_dict(), summary(report))


def cmd_watch(mem: Memory, args: argparse.Namespace) -> None:
    import signal
    import threading
    from datetime import datetime

    from ..outside.turns import scan, turn_open
    from ..outside.watcher import Watcher
    from ..upkeep.schedule import run_due

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
                from ..recall.query import refresh_index

                for bot in mem.home.bots():
                    refresh_index(mem.home, bot)
            except Exception:
                logger.exception("keeping the recall index current failed")
            try:  # chats quiet for memory.captureQuietMs, or with six turns waiting
                from ..upkeep.capture import capture_due

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
    from ..outside.turns import turn_begin

    turn_id = turn_begin(mem, args.bot, args.chat)
    _out(args, {"turn": turn_id}, turn_id)


def cmd_turn_end(mem: Memory, args: argparse.Namespace) -> None:
    from ..outside.turns import open_turns, turn_end

    tools = [t for t in (args.tools or "").split(",") if t.strip()]
    chat = None
    if args.transcript is not None:
        from ..upkeep.capture_queue import STARTERS
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
        from ..upkeep.capture_queue import note_turn

        why = note_turn(mem, args.bot, args.turn_id, chat, args.transcript, failed=args.failed,
                        started_by=args.started_by, room=args.room)
        out["capture"] = why or "pending"
        plain += f"\ncapture: {why}" if why else "\ncapture: the turn waits to be read"
    _out(args, out, plain)


def cmd_capture(mem: Memory, args: argparse.Namespace) -> None:
    from ..upkeep.capture import capture, summary
    from ..upkeep.tidy import check_allowed

    _refuse_for_agent(mem, args.bot, "capture")
    check_allowed(mem, args.bot)     # memory or its upkeep off: refused (exit 4), like tidy
    report = capture(mem, args.bot, organize=not args.no_organize)
    _out(args, report.as_dict(), summary(report))


def cmd_organize(mem: Memory, args: argparse.Namespace) -> None:
    from ..upkeep.organize import organize, summary
    from ..upkeep.tidy import check_allowed

    _refuse_for_agent(mem, args.bot, "organize")
    check_allowed(mem, args.bot)
    report = organize(mem, args.bot)
    _out(args, report.as_dict(), summary(report))


def cmd_learned(mem: Memory, args: argparse.Namespace) -> None:
    from ..notes.about_me import learned_lines, remove_learned

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
