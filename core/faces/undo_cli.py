"""The ``journal`` and ``undo`` commands (docs/RULES.md "Undo", "About me").

``undo BOT ROW_ID`` reverses that row's own lines against the file as it is
now: exit 3 with both texts on a real conflict (stdout: the file now, then the
file with the row's lines put back, which ``--force`` writes; ``--json`` adds
``undone`` and ``clashes``), exit 4 only when lines to bring back held a
credential, naming them (every other line of the row comes back). ``--whole``
keeps the whole-file restore, for a file still as the row left it.
``--dry-run`` says what the undo would do. ``journal --home`` and
``undo --home ROW_ID`` are About me's own journal.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable

from .. import ops
from ..ops import BadInput, Memory, Refused, counted
from .commands import _expected_hash, _out

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from typing import Any

WHO = ("bot", "person", "upkeep", "import", "unknown")


def add_commands(add: Callable[..., argparse.ArgumentParser], sub: Any) -> None:
    """Add ``journal`` and ``undo`` to the parser (``cli.build_parser`` calls this)."""
    sp = add("journal", cmd_journal, "changes to a bot's memory files, newest first (--home: About me's)")
    sp.add_argument("bot", nargs="?", help="the bot (none with --home)")
    sp.add_argument("--home", action="store_true",
                    help="About me's own journal: prefer, learned lines, forget in About me, Remove in the panel")
    sp.add_argument("--limit", type=int, default=50, metavar="N", help="at most N rows (default 50; 0 prints none)")
    sp.add_argument("--file", metavar="PATH", help="only rows of this file (MEMORY.md, memory/<topic>.md, …)")
    sp.add_argument("--grep", metavar="WORDS",
                    help="only rows whose diff adds or removes a line with every one of these words")
    sp.add_argument("--who", choices=WHO, help="only rows by this author")
    sp = add("undo", cmd_undo, "undo a journal row: its own lines reversed against the file as it is now "
             "(itself a row); exit 3 with both texts when those lines changed since, exit 4 when the lines "
             "to bring back held a credential")
    sp.add_argument("ids", nargs="*", metavar="BOT ROW_ID", help="the bot and the row (with --home: the row)")
    sp.add_argument("--home", action="store_true", help="a row of About me's journal (`journal --home`)")
    sp.add_argument("--whole", action="store_true",
                    help="put the whole earlier text back: only while the file is as the row left it (else exit 3)")
    sp.add_argument("--force", action="store_true",
                    help="where the row's lines changed since, put the row's lines in their place "
                         "(the second text exit 3 printed)")
    sp.add_argument("--expected-hash", metavar="H",
                    help="with --force: refuse (exit 3) unless the file still has this hash (the text you saw)")
    sp.add_argument("--dry-run", action="store_true", help="say what the undo would do; write nothing")


def _ids(args: argparse.Namespace) -> tuple[str | None, str]:
    want = 1 if args.home else 2
    if len(args.ids) != want:
        raise BadInput("undo takes ROW_ID with --home (a row of `journal --home`)" if args.home
                       else "undo takes BOT ROW_ID (or --home ROW_ID)")
    return (None, args.ids[0]) if args.home else (args.ids[0], args.ids[1])


def cmd_journal(mem: Memory, args: argparse.Namespace) -> None:
    if args.limit is not None and args.limit < 0:
        raise BadInput("--limit must be 0 or more")
    if args.home:
        if args.bot is not None:
            raise BadInput("journal --home takes no bot: About me's journal is the home's")
        if args.file or args.grep or args.who:
            raise BadInput("journal --home lists every row of About me's journal (no --file, --grep or --who)")
        rows = ops.about_me_journal(mem, limit=args.limit)
        _out(args, [r.as_dict() for r in rows],
             "\n".join(r.summary() for r in rows) or "no changes recorded for About me yet")
        return
    if args.bot is None:
        raise BadInput("journal takes BOT (or --home for About me's journal)")
    words = (args.grep or "").split()
    rows = ops.journal(mem, args.bot, limit=args.limit, file=args.file, grep=words, who=args.who)
    if args.limit == 0:  # asked for no rows: an empty list, not "no changes yet"
        _out(args, [], "")
        return
    empty = "no rows match" if args.file or words or args.who else f"no changes recorded for {args.bot} yet"
    _out(args, [r.as_dict() for r in rows], "\n".join(r.summary() for r in rows) or empty)


def cmd_undo(mem: Memory, args: argparse.Namespace) -> None:
    bot, row_id = _ids(args)
    expected, _ = _expected_hash(args.expected_hash, absent_ok=False)
    if args.dry_run:
        p = (ops.undo_preview(mem, bot, row_id, whole=args.whole) if bot is not None
             else ops.home_undo_preview(mem, row_id))
        if p is None:
            _out(args, {"row": row_id, "describe": "Undo reverses this row's entries of profile-learned.json."},
                 "Undo reverses this row's entries of profile-learned.json.")
            return
        _out(args, p.as_dict(), p.describe())
        return
    if bot is None:
        r = ops.undo_home(mem, row_id, whole=args.whole, force=args.force, expected_hash=expected)
    else:
        r = ops.undo(mem, bot, row_id, whole=args.whole, force=args.force, expected_hash=expected)
    d = r.as_dict()
    if not r.changed:
        _out(args, d, "nothing to undo: the file already holds what that row replaced")
    else:
        what = ("removed" if r.removed else "put back" if r.whole
                else ", ".join(x for x in (f"brought back {counted(len(r.back), 'line')}" if r.back else "",
                                           f"took out {counted(len(r.gone), 'line')}" if r.gone else "") if x)
                or "put back")
        _out(args, d, f"undid {row_id}: {r.file} {what} (row {d['row']})")
    if r.withheld:   # every other line came back; these could not: named, exit 4
        raise Refused(ops.withheld_message(row_id, r.withheld, r.changed))
