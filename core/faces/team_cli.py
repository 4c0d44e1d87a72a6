"""``botmemory team …``: team memory on the command line (docs/TEAMS.md "Rules"), and
``search BOT --scope team``.

:func:`add_commands` is called once by ``cli.build_parser``: it adds the
``team`` command with its subcommands, and the ``--scope`` option to the
``search`` command that is already there (``--scope team`` searches the
accepted notes of the bot's teams, the ones that do not load included).
Every command calls the team operations (``ops.team_*``, the one door) and prints the result
(``--json`` or text). A change that needs a revision and has none exits 2; a
stale revision exits 3 with the current text on stdout (``--json``:
``{"conflict": true, "text", "hash"}``, ``hash`` being the current revision).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from .. import ops
from ..ops import Actor, BadInput, Memory, counted

SUBCOMMANDS = ("create", "list", "rename", "delete", "bots", "propose", "accept", "reject", "edit", "rm", "pin",
               "show", "history", "restore", "journal", "undo")

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from typing import Any

    Handler = Callable[[Memory, argparse.Namespace], Any]


def _out(args: argparse.Namespace, value: Any, plain: str) -> None:
    if args.json:
        sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")
    elif plain:
        sys.stdout.write(plain if plain.endswith("\n") else plain + "\n")
    sys.stdout.flush()


def _person() -> Actor:
    return Actor.person("cli")


def _bots(value: str | None) -> list[str]:
    return [b for b in (value or "").split(",") if b.strip()]


def _stdin() -> str:
    from .commands import _read_stdin

    return _read_stdin()


# ----- the commands


def cmd_team(mem: Memory, args: argparse.Namespace) -> None:
    raise BadInput(f"team needs a command: {', '.join(SUBCOMMANDS)} (see `botmemory team --help`)")


def cmd_create(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_create(mem, args.name, _bots(args.bots), _person())
    _out(args, {"team": r.team.team, "name": r.team.name, "bots": list(r.team.bots)}, r.team.team)


def cmd_list(mem: Memory, args: argparse.Namespace) -> None:
    teams = ops.team_list(mem, retired=args.all)
    lines = [f"{t.team}  {t.name}  bots: {', '.join(t.bots) or 'none'}"
             + (f"  (deleted {t.retired[:10]})" if t.retired else "") for t in teams]
    _out(args, [t.listed() for t in teams], "\n".join(lines) or "no teams yet (`botmemory team create NAME` makes one)")


def cmd_rename(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_rename(mem, args.team, args.name, _person())
    _out(args, r.as_dict(), f"{r.team.team} is now named {r.team.name}")


def cmd_delete(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_delete(mem, args.team, _person())
    _out(args, r.as_dict(), f"deleted team {r.team.name} ({r.team.team}): its key is retired; its records stay on "
                            f"disk under teams/{r.team.team}/ (`botmemory team undo` brings it back)")


def cmd_bots(mem: Memory, args: argparse.Namespace) -> None:
    if args.bots is None:
        t = ops.team_show(mem, args.team).team
        _out(args, t.listed(), ", ".join(t.bots) or "no member bots")
        return
    r = ops.team_set_bots(mem, args.team, _bots(args.bots), _person())
    _out(args, r.as_dict(), f"members of {r.team.name}: {', '.join(r.team.bots) or 'none'}")


def cmd_propose(mem: Memory, args: argparse.Namespace) -> None:
    text = _stdin() if args.text == "-" else args.text
    actor = Actor("bot", "cli", args.chat) if args.bot is not None else _person()
    if args.chat is not None and args.bot is None:
        raise BadInput("--chat goes with --bot: the bot's work in that chat")
    r = ops.team_propose(mem, args.team, text, actor, title=args.title, key=args.key, bot=args.bot)
    plain = (f"proposed card {r.card.card} (rev {r.card.rev})" if r.row else
             f"the same card is pending already: {r.card.card} (rev {r.card.rev})")
    if r.replaces is not None:
        plain += f"; accepting it replaces note {r.replaces.note}: {r.replaces.text}"
    _out(args, r.as_dict(), plain)


def cmd_accept(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_accept(mem, args.team, args.card, args.rev, _person())
    _out(args, r.as_dict(), f"accepted {args.card} into note {r.note.note} (rev {r.note.rev}): {r.note.text}")


def cmd_reject(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_reject(mem, args.team, args.card, args.rev, _person())
    _out(args, r.as_dict(), f"rejected {args.card}")


def cmd_edit(mem: Memory, args: argparse.Namespace) -> None:
    ops.team_need_rev(args.rev, "editing a note")          # before stdin is read
    r = ops.team_edit(mem, args.team, args.note, _stdin(), args.rev, _person(), title=args.title)
    _out(args, r.as_dict(), f"saved note {r.note.note} (rev {r.note.rev})" if r.row else
         f"note {r.note.note} unchanged (rev {r.note.rev})")


def cmd_rm(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_remove(mem, args.team, args.note, args.rev, _person())
    _out(args, r.as_dict(), f"deleted note {r.note.note}: it no longer loads or is found "
                            "(`botmemory team undo` brings it back)")


def cmd_pin(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_pin(mem, args.team, args.note, not args.off, _person())
    _out(args, r.as_dict(), f"{'pinned' if r.note.pinned else 'unpinned'} note {r.note.note}")


def cmd_show(mem: Memory, args: argparse.Namespace) -> None:
    s = ops.team_show(mem, args.team)
    d = s.as_dict()
    t, p = s.team, s.plan
    lines = [f"{t.name} ({t.team}) · bots: {', '.join(t.bots) or 'none'}"
             + (f" · deleted {t.retired[:10]}" if t.retired else "")]
    if p.notes:
        lines.append(f"{p.loaded} of {counted(len(p.notes), 'note')} load ({p.loaded_bytes:,} of {p.max_bytes:,} "
                     "bytes)" + (f"; {p.not_loaded} do not: session_search with scope team finds them"
                                 if p.not_loaded else ""))
    for n in d["notes"]:
        mark = ("pinned · " if n["pinned"] else "") + ("" if n["loads"] else "does not load · ")
        lines.append(f"  {n['note']} rev {n['rev']} · {mark}{n['key'] or 'no key'} · "
                     + (f"{n['title']}: " if n["title"] else "") + " ".join(n["text"].split()))
    if s.cards:
        lines.append(f"{counted(len(s.cards), 'card')} waiting:")
    for c in s.cards:
        by = c["bot"] or c["who"]
        line = f"  {c['card']} rev {c['rev']} from {by} · {c['key'] or 'no key'} · {' '.join(c['text'].split())}"
        if c["replaces"]:
            line += f"\n    replaces {c['replaces']}: {' '.join((c['replaces_text'] or '(gone)').split())}"
        if c["stale"]:
            line += "\n    the accepted note changed since this was proposed: it cannot be accepted"
        lines.append(line)
    if not p.notes and not s.cards:
        lines.append("no notes and no cards yet")
    _out(args, d, "\n".join(lines))


def cmd_history(mem: Memory, args: argparse.Namespace) -> None:
    versions = ops.team_history(mem, args.team, args.note)
    lines = [f"{v.rev}  {v.day}  {v.how} by {v.bot or v.who}" + (" (current)" if i == 0 else "") + "  "
             + (f"{v.title}: " if v.title else "") + " ".join(v.text.split()) for i, v in enumerate(versions)]
    _out(args, [v.as_dict() for v in versions], "\n".join(lines))


def cmd_restore(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_restore(mem, args.team, args.note, args.version, args.rev, _person())
    _out(args, r.as_dict(), f"restored version {args.version} of {r.note.note} as rev {r.note.rev}" if r.row else
         f"note {r.note.note} already says that (rev {r.note.rev})")


def cmd_journal(mem: Memory, args: argparse.Namespace) -> None:
    if args.limit < 0:
        raise BadInput("--limit must be 0 or more")
    rows = ops.team_journal(mem, args.team, args.limit)
    _out(args, [r.as_dict() for r in rows], "\n".join(r.summary() for r in rows) or "no changes recorded yet")


def cmd_undo(mem: Memory, args: argparse.Namespace) -> None:
    r = ops.team_undo(mem, args.team, args.row_id)
    _out(args, {"undone": args.row_id, **r.as_dict()},
         f"undid {args.row_id}: {r.file} reads as before (row {r.row})" if r.row else
         f"nothing to undo: {r.file} already reads as before {args.row_id}")


def search_with_scope(plain_search: Handler) -> Handler:
    """``search``, with ``--scope team`` answered from the bot's teams."""

    def cmd_search(mem: Memory, args: argparse.Namespace) -> Any:
        if getattr(args, "scope", "memory") != "team":
            return plain_search(mem, args)
        hits = ops.team_search(mem, args.bot, args.words, args.since, args.until).hits
        _out(args, [h.as_dict() for h in hits],
             "\n".join(f"team {h.team.name} · {h.day.isoformat()} · {h.text}" + ("" if h.loads else " (does not load)")
                       for h in hits))
        return None

    return cmd_search


# ----- the parser


def add_commands(add: Callable[..., argparse.ArgumentParser], sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``team`` and its subcommands, and ``search --scope`` (call after ``search`` is added); *common*:
    the options every command takes."""
    team = add("team", cmd_team, "team memory: notes a team of bots shares, accepted by a person")
    teams = team.add_subparsers(dest="team_command", metavar="COMMAND", parser_class=type(team))

    def one(name: str, handler: Handler, help_: str) -> argparse.ArgumentParser:
        sp: argparse.ArgumentParser = teams.add_parser(name, help=help_, description=help_, parents=[common])
        sp.set_defaults(handler=handler)
        return sp

    def rev(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--rev", metavar="R", help="the revision you saw (`team show`): stale exits 3 with the "
                        "current text, none exits 2")
    sp = one("create", cmd_create, "make a team; prints its key, which never changes")
    sp.add_argument("name")
    sp.add_argument("--bots", metavar="A,B", help="its member bots")
    one("list", cmd_list, "the teams (--all: deleted ones too)").add_argument(
        "--all", action="store_true", help="also the deleted (retired) teams")
    sp = one("rename", cmd_rename, "rename a team (its key, notes and pending cards stay)")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("name")
    one("delete", cmd_delete, "delete a team: its key is retired, its records stay on disk").add_argument(
        "team", metavar="TEAM")
    sp = one("bots", cmd_bots, "show a team's member bots, or set them (A,B)")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("bots", nargs="?", metavar="A,B")
    sp = one("propose", cmd_propose, "propose a note: a pending card a person accepts or rejects")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("text", help="the note (at most 1,000 characters and 20 lines; - reads stdin)")
    sp.add_argument("--title", metavar="T")
    sp.add_argument("--key", metavar="K", help="a stable key (like tapa/sequence-02/colour): accepting the card "
                    "replaces the accepted note with the same key, even under another title")
    sp.add_argument("--bot", metavar="B", help="the member bot proposing it (its work; refused while its memory is off)")
    sp.add_argument("--chat", metavar="T", help="with --bot: the chat it came from")
    for name, handler, help_ in (("accept", cmd_accept, "accept a pending card at the revision you saw"),
                                 ("reject", cmd_reject, "reject a pending card at the revision you saw")):
        sp = one(name, handler, help_)
        sp.add_argument("team", metavar="TEAM")
        sp.add_argument("card", metavar="CARD")
        rev(sp)
    sp = one("edit", cmd_edit, "replace a note's text with stdin, at the revision you saw")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("note", metavar="NOTE")
    rev(sp)
    sp.add_argument("--title", metavar="T", help="a new title too")
    sp = one("rm", cmd_rm, "delete a note at the revision you saw (undoable)")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("note", metavar="NOTE")
    rev(sp)
    sp = one("pin", cmd_pin, "pin a note: pinned notes load first")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("note", metavar="NOTE")
    sp.add_argument("--off", action="store_true", help="unpin it")
    one("show", cmd_show, "a team's notes (which load), its pending cards and their revisions").add_argument(
        "team", metavar="TEAM")
    sp = one("history", cmd_history, "a note's kept versions (up to 50), newest first")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("note", metavar="NOTE")
    sp = one("restore", cmd_restore, "bring back a version's text as a new revision")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("note", metavar="NOTE")
    sp.add_argument("version", metavar="VERSION")
    rev(sp)
    sp = one("journal", cmd_journal, "the team's changes, newest first")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("--limit", type=int, default=50, metavar="N")
    sp = one("undo", cmd_undo, "undo one change of the team's journal (itself a change)")
    sp.add_argument("team", metavar="TEAM")
    sp.add_argument("row_id", metavar="ROW_ID")

    search = sub.choices["search"]
    search.add_argument("--scope", choices=("memory", "team"), default="memory",
                        help="team: only the accepted notes of the bot's teams, those that do not load included "
                             "(without it: the bot's memory files and its teams' accepted notes)")
    search.set_defaults(handler=search_with_scope(search.get_default("handler")))
