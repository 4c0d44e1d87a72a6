"""The ``botmemory`` entry point: ``recall`` and ``search`` without the full command line.

A bot harness runs ``botmemory recall BOT MESSAGE`` before every turn, so its
whole process should cost little more than starting Python. This module reads
the plain forms of ``recall`` and ``search`` itself (importing only what recall
and search need: no argparse parser of every command, no store, no journal)
and hands everything else — ``--help``, any other command, any option it does
not know — to :func:`botmemory.core.faces.cli.main`, which answers exactly as before.
``hook claude-code`` (run before every prompt of a Claude Code session) is read
here too and answered by :func:`botmemory.core.faces.hooks.main`.

What the modules on this path import is kept to what a call uses: loggers
that load :mod:`logging` only for a record that could be shown (:mod:`..base.log`),
value classes without :mod:`dataclasses` (:mod:`..base.record`), no :mod:`typing` at
run time, :mod:`json` only when a settings file is read, and :mod:`hashlib`
only when a file is hashed (a recalled note's file is checked; a warm recall
that recalls nothing and a search hash nothing). ``tests/core/test_recall_words.py``
fails when one of them comes back.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence


class _Args:
    """A plain ``recall``, ``search`` or ``hook claude-code`` command line."""

    def __init__(self) -> None:
        self.command = ""
        self.bot: str | None = None
        self.root: str | None = None
        self.today: str | None = None
        self.since: str | None = None
        self.until: str | None = None
        self.verbose = False
        self.json = False
        self.rest: list[str] = []


def _read(argv: Sequence[str]) -> _Args | None:
    """The arguments of a plain ``recall`` or ``search``, or None for anything else."""
    args = _Args()
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, value = a.partition("=")
        if a in ("--verbose", "-v"):
            args.verbose = True
        elif a == "--json":
            args.json = True
        elif (name in ("--root", "--today") and not args.command
              or name in ("--since", "--until") and args.command == "search"):
            if not eq:
                if i + 1 >= len(argv):
                    return None
                i += 1
                value = argv[i]
            setattr(args, name[2:], value)
        elif a.startswith("-"):
            return None                     # --help, --, a negative number, an unknown option
        elif not args.command:
            if a not in ("recall", "search"):
                return None
            args.command = a
        else:
            args.rest.append(a)
        i += 1
    if args.command == "recall" and len(args.rest) == 2 or args.command == "search" and args.rest:
        return args
    return None                             # the full parser explains what is missing


def _hook(argv: Sequence[str]) -> _Args | None:
    """The arguments of ``[--root R] [--today D] [--verbose] hook claude-code [--bot B]``, or None."""
    args = _Args()
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, value = a.partition("=")
        if a in ("--verbose", "-v"):
            args.verbose = True
        elif name in ("--root", "--today") and not args.command or name == "--bot" and args.rest == ["claude-code"]:
            if not eq:
                if i + 1 >= len(argv):
                    return None
                i += 1
                value = argv[i]
            if name == "--bot":
                args.bot = value
            else:
                setattr(args, name[2:], value)
        elif a.startswith("-"):
            return None
        elif not args.command:
            if a != "hook":
                return None
            args.command = a
        elif not args.rest and a == "claude-code":
            args.rest.append(a)
        else:
            return None
        i += 1
    return args if args.rest == ["claude-code"] else None


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    opts = _read(args)
    if opts is None:
        hook = _hook(args)
        if hook is not None:            # a Claude Code hook: the home opened only as far as its event needs
            from ..base import log
            from .hooks import main as answer

            log.setup(hook.verbose)
            got = answer(hook.root, hook.today, hook.bot, sys.stdin.buffer.read(16 * 1024 * 1024))
            if got:
                sys.stdout.write(got + "\n")
                sys.stdout.flush()
            return 0
        from .cli import main as full

        return full(args)
    from ..base import log
    from ..base.errors import exit_code_for
    from ..ops import find  # the light door: recall's and search's own modules, no store or journal

    log.setup(opts.verbose)     # as the full parser's basicConfig; logging itself loads only if a record needs it
    try:
        bot, words = opts.rest[0], opts.rest[1:]
        home, day = find.open_home(opts.root, opts.today, bot)
        value: object
        if opts.command == "recall":
            r = find.recall_in(home, bot, words[0], day)
            value, plain = r.as_dict(), r.text
        else:
            hits = find.search_in(home, bot, words, opts.since, opts.until, day)
            if opts.json:   # one form only: a search may print a hundred thousand hits
                value, plain = [h.as_dict() for h in hits], ""
            else:
                value, plain = None, "\n".join(h.plain() for h in hits)
        if opts.json:
            import json

            sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")
        elif plain:
            sys.stdout.write(plain if plain.endswith("\n") else plain + "\n")
        sys.stdout.flush()
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - as cli.main; exit_code_for says it plainly
        return exit_code_for(e, opts.verbose, log.get_logger(__name__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
