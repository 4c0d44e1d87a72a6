"""The memory routes (docs/RULES.md "Routes"): what each one does, without HTTP.

:func:`dispatch` takes a method, a path, the query and the decoded JSON body
and returns a :class:`Response`; the HTTP side (``server``) only checks who is
asking and moves bytes. Every route calls the same core operations as the CLI,
so the journal (``who: person, how: api``), redaction, the file rules and the
hash checks are the same:

=======  ===============================================  ==========================================
GET      /api/bots/:id/memory                             overview: gauge, topics, logs, folder
PUT      /api/bots/:id/memory                             deprecated: MEMORY.md whole, no hash check
GET      /api/bots/:id/memory/file?path=                  one file's text and hash
PUT      /api/bots/:id/memory/file                        {path, text, expectedHash?}; 409 + current
DELETE   /api/bots/:id/memory/file?path=                  a topic or a log; MEMORY.md refused
GET      /api/bots/:id/memory/journal?limit=&full=        recent rows, newest first
POST     /api/bots/:id/memory/journal/:entryId/revert     undo that row
POST     /api/bots/:id/memory/open                        {target: obsidian | folder}
GET      /api/bots/:id/memory/upkeep                      switches, model steps, last tidy-up and capture
POST     /api/bots/:id/memory/tidy                        tidy-up now (409 when upkeep is off)
GET      /api/profile/learned                             About me's learned lines, newest first
POST     /api/profile/learned/:id/remove                  take one out; never added again
*        /api/teams/…                                     team memory (``team_routes``; 409 stale, 428 no rev)
=======  ===============================================  ==========================================

Status codes: 200 done; 400 bad input; 403 refused by a rule (deleting
MEMORY.md, a symbolic link); 404 no such bot, file, row or route; 405 a known
path with another method; 409 a stale hash (with ``text`` and ``hash``, the
file as it is now) or a tidy-up with upkeep off; 412 a stale ``If-Match``
(the same body as 409); 503 the workspace is busy; 500 anything unexpected
(never bad input). Every error body is ``{"error": message}``. A file's read
answers with its hash as ``ETag``; writes and deletes take it back in
``If-Match`` beside ``expectedHash``.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import unquote

from .. import ops
from ..base.log import get_logger
from ..ops import MEMORY_FILE, Actor, BadInput, BotMemoryError, Busy, Conflict, Memory, Refused, check_bot_id

logger = get_logger(__name__)

HOW = "api"
JOURNAL_DEFAULT = 50
JOURNAL_MAX = 1000
OPEN_TARGETS = ("obsidian", "folder")
# The old whole-file PUT: kept for one release (docs/RULES.md "Routes"). RFC 9745 / RFC 8594 headers.
DEPRECATION = "@1796083200"             # 2026-12-01T00:00:00Z
SUNSET = "Tue, 01 Jun 2027 00:00:00 GMT"

Opener = Callable[[str, Path], None]
"""Opens a bot's folder on this computer: (target, folder). Raises OSError when nothing can."""

Query = Mapping[str, list[str]]


@dataclass
class Response:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


class HttpError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}
        self.extra = extra or {}

    def response(self) -> Response:
        return Response(self.status, {"error": str(self), **self.extra}, self.headers)


def actor() -> Actor:
    return Actor.person(HOW)


# ----- helpers


def _bot(mem: Memory, raw: str) -> str:
    """A bot of this home or a tracked agent folder (a tracked folder that is gone: 400, naming untrack)."""
    bot = check_bot_id(raw)
    if not mem.home.is_tracked(bot) and not mem.home.workspace(bot).is_dir():
        raise HttpError(404, f"unknown bot {bot!r}")
    mem.home.require_bot(bot)
    return bot


def _one(query: Query, name: str, *, required: bool = True) -> str | None:
    values = query.get(name, [])
    if len(values) > 1:
        raise BadInput(f"give ?{name}= once")
    if not values:
        if required:
            raise BadInput(f"?{name}= is missing")
        return None
    return values[0]


def _body(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BadInput("the body must be a JSON object")
    return body


def _text_field(body: dict[str, Any], name: str, *aliases: str) -> str:
    for key in (name, *aliases):
        if key in body:
            value = body[key]
            if not isinstance(value, str):
                raise BadInput(f"{key!r} must be a string")
            return value
    raise BadInput(f"{name!r} is missing from the body")


def _saved(mem: Memory, bot: str, rel: str, change: Any) -> dict[str, Any]:
    return {"path": rel, "hash": ops.show(mem, bot, rel).hash, "changed": change is not None,
            "row": change.id if change is not None else None}


def _etag(hash_: str | None) -> dict[str, str]:
    return {"ETag": f'"{hash_}"'} if hash_ else {}


def _hash_arg(value: Any, name: str) -> str | None:
    """``expectedHash``: None, or the 64 hex digits a read answered with (any case); anything else is 400."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) != 64 or not all(c in "0123456789abcdefABCDEF" for c in value):
        raise BadInput(f"{name!r} must be the file's hash as a read answered it (64 hex digits), not {value!r}"[:200])
    return value.lower()


def _condition(mem: Memory, bot: str, rel: str, expected: str | None, if_match: str | None,
               *, must_exist: bool) -> str | None:
    """The hash a write must find: ``expectedHash`` or ``If-Match`` (``*``: whatever the file holds now)."""
    if if_match is None:
        return expected
    if if_match == "*":
        now = ops.show(mem, bot, rel)
        if not now.exists:
            if must_exist:
                raise HttpError(412, f"{rel} does not exist (If-Match: *): nothing written",
                                extra={"path": rel, "text": "", "hash": None})
            return expected
        if expected is not None and expected != now.hash:
            raise HttpError(412, f"{rel} changed since it was opened (expectedHash): nothing written",
                            _etag(now.hash), {"path": rel, "text": now.text, "hash": now.hash})
        return now.hash
    if expected is not None and expected != if_match:
        raise BadInput("If-Match and expectedHash name different hashes: give one of them")
    return if_match


def _precondition_failed(e: Conflict) -> HttpError:
    return HttpError(412, f"{e} (If-Match): nothing written", _etag(e.hash),
                     {"path": e.path, "text": e.text, "hash": e.hash or None})


# ----- the routes


def overview(mem: Memory, bot: str) -> dict[str, Any]:
    return ops.overview(mem, bot)


def read_one(mem: Memory, bot: str, query: Query) -> Response:
    r = ops.show(mem, bot, _one(query, "path") or "")
    if not r.exists:
        raise HttpError(404, f"{r.path} does not exist in {bot}'s workspace")
    return Response(200, {"path": r.path, "text": r.text, "hash": r.hash, "valid_utf8": r.valid_utf8}, _etag(r.hash))


def save_one(mem: Memory, bot: str, body: Any, if_match: str | None = None) -> Response:
    b = _body(body)
    rel = ops.file_path(mem, bot, _text_field(b, "path"))  # the path rules first
    text = _text_field(b, "text")
    expected = _condition(mem, bot, rel, _hash_arg(b.get("expectedHash"), "expectedHash"), if_match,
                          must_exist=True)
    try:
        r = ops.save(mem, bot, rel, text, actor(), expected_hash=expected)
    except Conflict as e:
        if if_match is None:
            raise
        raise _precondition_failed(e) from None
    out = _saved(mem, bot, rel, r.changes[0] if r.changes else None)
    return Response(200, out, _etag(out["hash"]))


def save_whole(mem: Memory, bot: str, body: Any) -> Response:
    """The old ``PUT /api/bots/:id/memory``: MEMORY.md whole, no hash check (one release more)."""
    text = _text_field(_body(body), "text", "content")
    r = ops.save(mem, bot, MEMORY_FILE, text, actor(), create=False)
    change = r.changes[0] if r.changes else None
    headers = {"Deprecation": DEPRECATION, "Sunset": SUNSET,
               "Link": f'</api/bots/{bot}/memory/file>; rel="successor-version"'}
    return Response(200, {**_saved(mem, bot, MEMORY_FILE, change),
                          "deprecated": "no hash check: use PUT /api/bots/:id/memory/file with expectedHash"}, headers)


def delete_one(mem: Memory, bot: str, query: Query, if_match: str | None = None) -> dict[str, Any]:
    rel = _one(query, "path") or ""
    expected = _hash_arg(_one(query, "expectedHash", required=False), "expectedHash")
    if not ops.is_memory(mem, bot, rel) and not ops.show(mem, bot, rel).exists:
        raise HttpError(404, f"{rel} does not exist in {bot}'s workspace")
    expected = _condition(mem, bot, rel, expected, if_match, must_exist=False)
    try:
        ops.rm(mem, bot, rel, actor(), expected_hash=expected)
    except Conflict as e:
        if if_match is None:
            raise
        raise _precondition_failed(e) from None
    return {"path": rel, "deleted": True}


def journal(mem: Memory, bot: str, query: Query) -> list[dict[str, Any]]:
    raw = _one(query, "limit", required=False)
    limit = JOURNAL_DEFAULT
    if raw is not None:
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 6 or not 0 <= int(raw) <= JOURNAL_MAX:
            raise BadInput(f"?limit= must be a number from 0 to {JOURNAL_MAX}")
        limit = int(raw)
    full = _one(query, "full", required=False)
    if full not in (None, "0", "1"):
        raise BadInput("?full= must be 0 or 1")
    out = []
    for r in ops.journal(mem, bot, limit=limit):
        d = r.as_dict()
        if full != "1":  # a row's texts (up to the journal's limit): only on request (revert does not need them)
            d.pop("earlier_text", None)
            d.pop("edits", None)
        out.append(d)
    return out


def revert(mem: Memory, bot: str, row_id: str) -> dict[str, Any]:
    try:
        ops.journal_row(mem, bot, row_id)
    except BadInput as e:
        raise HttpError(404, str(e)) from None
    r = ops.undo(mem, bot, row_id)
    change = r.changes[0] if r.changes else None
    if change is None:
        return {"undone": row_id, "changed": False, "row": None}
    out: dict[str, Any] = {"undone": row_id, "changed": True, "row": change.id, "file": change.file,
                           "hash": change.after_hash}
    if r.withheld:   # lines that held a credential: every other line came back, these never do
        out["withheld"] = r.withheld
    return out


def open_folder(mem: Memory, bot: str, body: Any, opener: Opener) -> dict[str, Any]:
    target = _text_field(_body(body), "target")
    if target not in OPEN_TARGETS:
        raise BadInput(f"target must be one of {', '.join(OPEN_TARGETS)}")
    folder = mem.home.workspace(bot)
    try:
        opener(target, folder)
    except OSError as e:
        raise HttpError(502, f"could not open {folder} in {target}: {e}", extra={"path": str(folder)}) from None
    return {"opened": target, "path": str(folder)}


def upkeep_state(mem: Memory, bot: str) -> dict[str, Any]:
    return ops.upkeep_status(mem, bot)


def tidy(mem: Memory, bot: str, body: Any) -> dict[str, Any]:
    b = _body(body) if body is not None else {}
    model = b.get("model", True)
    if not isinstance(model, bool):
        raise BadInput("'model' must be true or false")
    try:
        report = ops.tidy(mem, bot, model=model)   # a folder whose agent keeps its own memory is refused there
    except Refused as e:
        raise HttpError(409, str(e)) from None
    return report.as_dict()


def learned(mem: Memory) -> list[dict[str, Any]]:
    return [ll.as_dict() for ll in ops.learned(mem)]


def remove_learned(mem: Memory, line_id: str) -> dict[str, Any]:
    if not any(ll.id == line_id for ll in ops.learned(mem)):
        raise HttpError(404, f"no learned line {line_id!r} in About me")
    gone = ops.remove_learned(mem, line_id, ops.Actor.person("api"))
    return {"removed": gone.id, "line": gone.line}


# ----- dispatch


def _allowed(methods: dict[str, Callable[[], Any]]) -> NoReturn:
    raise HttpError(405, "method not allowed here", {"Allow": ", ".join(sorted(methods))})


def route(mem: Memory, method: str, parts: list[str], query: Query, body: Any, opener: Opener,
          if_match: str | None = None) -> Any:
    """The handler for a path (split on ``/``, each part decoded), or HttpError 404/405."""
    methods: dict[str, Callable[[], Any]] = {}
    if parts[:2] == ["api", "bots"] and len(parts) >= 4 and parts[3] == "memory":
        rest = parts[4:]
        raw = parts[2]

        def bot() -> str:
            return _bot(mem, raw)

        if rest == []:
            methods = {"GET": lambda: overview(mem, bot()), "PUT": lambda: save_whole(mem, bot(), body)}
        elif rest == ["file"]:
            methods = {"GET": lambda: read_one(mem, bot(), query), "PUT": lambda: save_one(mem, bot(), body, if_match),
                       "DELETE": lambda: delete_one(mem, bot(), query, if_match)}
        elif rest == ["journal"]:
            methods = {"GET": lambda: journal(mem, bot(), query)}
        elif len(rest) == 3 and rest[0] == "journal" and rest[2] == "revert":
            methods = {"POST": lambda: revert(mem, bot(), rest[1])}
        elif rest == ["open"]:
            methods = {"POST": lambda: open_folder(mem, bot(), body, opener)}
        elif rest == ["upkeep"]:
            methods = {"GET": lambda: upkeep_state(mem, bot())}
        elif rest == ["tidy"]:
            methods = {"POST": lambda: tidy(mem, bot(), body)}
    elif parts[:2] == ["api", "teams"]:    # team memory: core/faces/team_routes.py
        from .team_routes import methods as team_methods

        methods = team_methods(mem, parts[2:], query, body)
    elif parts == ["api", "profile", "learned"]:
        methods = {"GET": lambda: learned(mem)}
    elif len(parts) == 5 and parts[:3] == ["api", "profile", "learned"] and parts[4] == "remove":
        methods = {"POST": lambda: remove_learned(mem, parts[3])}
    if not methods:
        raise HttpError(404, "no such route")
    if method not in methods:
        _allowed(methods)
    return methods[method]()


def split_path(path: str) -> list[str]:
    """``/api/bots/a%20b/memory`` -> ``["api", "bots", "a b", "memory"]``; a trailing slash is ignored."""
    raw = path.split("/")
    if raw[:1] != [""]:
        raise HttpError(404, "no such route")
    raw = raw[1:]
    if len(raw) > 1 and raw[-1] == "":
        raw = raw[:-1]
    return [unquote(p, errors="strict") for p in raw]


def dispatch(mem: Memory, method: str, path: str, query: Query, body: Any, opener: Opener,
             *, if_match: str | None = None) -> Response:
    """Run one request; never raises. *if_match*: ``If-Match`` as the server read it (``*`` or one hash)."""
    try:
        result = route(mem, method, split_path(path), query, body, opener, if_match)
        return result if isinstance(result, Response) else Response(200, result)
    except HttpError as e:
        return e.response()
    except UnicodeDecodeError:
        return Response(400, {"error": "the path is not valid UTF-8"})
    except Conflict as e:
        return Response(409, {"error": str(e), "path": e.path, "text": e.text, "hash": e.hash or None, **e.extra()})
    except BadInput as e:
        return Response(400, {"error": str(e)})
    except Refused as e:
        return Response(403, {"error": str(e)})
    except Busy as e:
        return Response(503, {"error": str(e)}, {"Retry-After": "5"})
    except BotMemoryError as e:
        return Response(500, {"error": str(e)})
    except Exception as e:  # the one place that catches everything: a plain 500, the details in the log
        logger.exception("unexpected error in %s %s", method, path)
        return Response(500, {"error": f"unexpected error: {type(e).__name__}"})


def default_opener(target: str, folder: Path) -> None:
    """Open *folder* in Obsidian (``obsidian://open?path=``) or the file manager, with the system's opener."""
    import os
    import subprocess
    from urllib.parse import quote

    what = f"obsidian://open?path={quote(str(folder), safe='')}" if target == "obsidian" else str(folder)
    if sys.platform == "win32":
        os.startfile(what)  # type: ignore[attr-defined]  # noqa: S606 - the owner's own folder, no shell
        return
    cmd = ["open", what] if sys.platform == "darwin" else ["xdg-open", what]
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=10, check=False)  # noqa: S603 - fixed program
    except (OSError, subprocess.TimeoutExpired) as e:
        raise OSError(f"{cmd[0]} failed: {e}") from None
    if proc.returncode != 0:
        raise OSError(f"{cmd[0]} exited {proc.returncode}")
