"""The ``botmemory sync`` commands (docs/RULES.md "Sync"): setup, add, now, status, resolve, remove.

``cli.build_parser`` calls :func:`add_commands`; every command calls ``ops.sync`` and prints its result
(``--json`` or plain text). ``watch`` starts the schedule with :func:`start_in_watch`.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from ..base.errors import BadInput, Refused
from ..base.wording import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..ops import Memory

MAX_STDIN = 16 * 1024 * 1024   # the largest memory file botmemory reads or writes (safeio.MAX_STDIN)

Add = Callable[..., argparse.ArgumentParser]


def _out(args: argparse.Namespace, value: Any, plain: str) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n" if args.json else plain.rstrip("\n") + "\n")
    sys.stdout.flush()


def _read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_STDIN + 1)
    if len(data) > MAX_STDIN:
        raise BadInput(f"the text on stdin is larger than {MAX_STDIN // (1024 * 1024)} MB; nothing was saved")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"the text on stdin is not valid UTF-8 (byte {e.start}); nothing was saved") from None


def add_commands(add: Add, sub: Any) -> None:
    """Add ``sync`` and its commands to the parser (*add* is ``build_parser``'s helper, *sub* its subparsers)."""
    sp = sub.add_parser("sync", help="the same memory on every computer, through a git remote you own",
                        description="sync memory folders through a git remote you own: one repository per person, "
                                    "each folder under a key that is the same on every computer")
    sp.set_defaults(handler=cmd_sync)
    syncs = sp.add_subparsers(dest="sync_command", metavar="setup|add|now|status|resolve|remove",
                              parser_class=type(sp))
    p = add("setup", cmd_sync_setup, "choose the remote for this computer (any git URL, file:// included); "
            "a new local path becomes a bare repository", syncs)
    p.add_argument("remote", metavar="REMOTE")
    p.add_argument("--host", metavar="NAME", help="this computer's name in commits and rows "
                   "(default: $BOTMEMORY_HOST, else the computer's host name)")
    p = add("add", cmd_sync_add, "sync a bot or tracked folder (or a team, with --team); its first sync merges "
            "what the remote holds", syncs)
    p.add_argument("id", nargs="?", metavar="ID")
    p.add_argument("--name", metavar="KEY", help="the key it is synced under, the same on every computer "
                   "(default: a Claude Code project's normalized git remote URL, else the id)")
    p.add_argument("--team", metavar="TEAM", help="sync a team instead: its key (t-…, the same on every computer; "
                   "the first sync brings the team to a computer that does not have it yet) or, here, its name")
    p = add("now", cmd_sync_now, "pull, merge and push now (exit 1 with one line when the remote cannot be "
            "reached: nothing is lost, sync tries again later)", syncs)
    p.add_argument("id", nargs="?", metavar="ID", help="only this folder")
    add("status", cmd_sync_status, "per folder: key, last sync, rows not pushed yet, remote commits not taken "
        "yet, conflicts", syncs)
    p = add("resolve", cmd_sync_resolve, "take stdin as the resolved text of a conflicted file", syncs)
    p.add_argument("id", metavar="ID")
    p.add_argument("path", metavar="PATH")
    p = add("remove", cmd_sync_remove, "stop syncing a folder (the remote keeps its history)", syncs)
    p.add_argument("id", metavar="ID")


def cmd_sync(mem: Memory, args: argparse.Namespace) -> None:
    raise BadInput("sync needs a command: setup, add, now, status, resolve or remove (see `botmemory sync --help`)")


def cmd_sync_setup(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops.sync import setup

    r = setup(mem, args.remote, host=args.host)
    _out(args, r.as_dict(), f"syncing through {r.remote} (branch {r.branch}) as {r.host}; "
                            "`botmemory sync add ID` adds a folder")


def _folder_line(d: dict[str, Any]) -> str:
    line = f"{d['id']} ({d['key']}): {d['in']} in, {d['out']} out"
    if d.get("conflicts"):
        line += f", {counted(int(d['conflicts']), 'conflict')} to resolve (`botmemory sync status` lists them)"
    if d.get("pushed_out"):
        line += f"; the merge pushed {counted(int(d['pushed_out']), 'line')} past what loads (see `gauge`)"
    if d.get("note"):
        line += f" — {d['note']}"
    return line


def cmd_sync_add(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops.sync import add, add_team

    if args.team is not None:
        if args.id is not None or args.name is not None:
            raise BadInput("sync add --team TEAM takes no ID and no --name: a team syncs under its own key, "
                           "team/<key>, on every computer")
        r = add_team(mem, args.team)
    elif args.id is None:
        raise BadInput("sync add needs the ID of a bot or tracked folder, or --team TEAM")
    else:
        r = add(mem, args.id, name=args.name)
    d = r.as_dict()
    plain = f"{r.id} syncs under {r.key}"
    if r.synced is not None and r.synced.folders:
        plain += "\n" + _folder_line(r.synced.folders[0].as_dict())
    _out(args, d, plain)
    if r.waits:
        sys.stderr.write(f"botmemory: {r.id} is added; its first sync waits: {r.waits}\n")
    if r.synced is not None and r.synced.refused:
        raise Refused("; ".join(r.synced.refused))


def cmd_sync_now(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops.sync import now

    r = now(mem, [args.id] if args.id else None)
    lines = [_folder_line(f.as_dict()) for f in r.folders] or ["no folder is synced: `botmemory sync add ID` adds one"]
    _out(args, r.as_dict(), "\n".join(lines))
    if r.refused:
        raise Refused("; ".join(r.refused))


def cmd_sync_status(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops.sync import status

    r = status(mem)
    d = r.as_dict()
    lines = [f"remote: {d['remote'] or 'none (`botmemory sync setup REMOTE`)'} · this computer: {r.host}"
             + (f" · last round: {r.last_round}" if r.last_round else "")]
    if r.error:
        lines.append(f"the last round failed: {r.error}")
    for f in r.folders:
        line = (f"{f.id} ({f.key}): last sync {f.last_sync or 'never'}, {f.ahead} ahead, {f.behind} behind, "
                f"{counted(len(f.conflicts), 'conflict')}")
        if f.note:
            line += f" — {f.note}"
        lines.append(line)
        for c in f.conflicts:
            if f.kind == "team":
                team = f.id.removeprefix("team-")
                lines.append(f"  conflict card {c.get('card')} (the text of {c.get('host') or 'another computer'}, "
                             f"replacing {c.get('note') or 'a deleted note'}): accept or reject it in the Team tab, or "
                             f"`botmemory team accept|reject {team} {c.get('card')} --rev R` (`team show` prints R)")
                continue
            lines.append(f"  conflict in {c['path']} ({c.get('at', '')}): both versions are in the file, the newer "
                         f"first; `botmemory sync resolve {f.id} {c['path']} < RESOLVED` settles it")
    _out(args, d, "\n".join(lines))


def cmd_sync_resolve(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops.sync import resolve

    text = _read_stdin()
    r = resolve(mem, args.id, args.path, text)
    _out(args, {"id": args.id, "path": r.path, "hash": r.hash, "rows": [c.id for c in r.changes]},
         f"{args.id}/{r.path} resolved; the next sync sends it")


def cmd_sync_remove(mem: Memory, args: argparse.Namespace) -> None:
    from ..ops.sync import remove

    r = remove(mem, args.id)
    _out(args, r.as_dict(), f"{r.id} is no longer synced here (the remote keeps {r.key}'s history)")


def with_sync_note(mem: Memory, bot: str, d: dict[str, Any], plain: str) -> tuple[dict[str, Any], str]:
    """``gauge``'s answer with ``"sync"``: a line when the last sync's merge pushed lines out of what loads
    (a home without sync pays one look for a file)."""
    if not (mem.home.state_dir / "sync" / "state.json").is_file():
        return d, plain
    from ..ops.sync import merge_note

    note = merge_note(mem, bot)
    if note is None:
        return d, plain
    return {**d, "sync": note}, f"{plain}\n{note}"


def start_in_watch(mem: Memory) -> Any:
    """The sync schedule for ``watch``, started (its status lines go to stderr); None when sync is not set up."""
    from ..ops.sync import scheduler

    said: list[str] = []

    def show(status: Any) -> None:
        line = status.line()
        if not status.running and (not said or said[-1] != line):
            said.append(line)
            sys.stderr.write(f"botmemory: sync: {line}\n")

    s = scheduler(mem, show)
    if s is not None:
        s.start()
    return s


__all__ = ["add_commands", "start_in_watch", "with_sync_note"]
