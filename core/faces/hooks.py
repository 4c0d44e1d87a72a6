"""``botmemory hook claude-code``: Claude Code's hook events, answered within the hook's rules.

One event JSON arrives on stdin; the answer (if any) goes to stdout as
``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}``, at most
10,000 characters, written as facts. A hook never blocks the person: it always
exits 0, answers without recall rather than late, and logs its errors (to
stderr, which Claude Code shows in its debug log, and to
``<home>/botmemory/logs/hooks.log``).

- ``SessionStart``: when the project's auto memory (``MEMORY.md``) does not
  all load, one line saying how many of its lines do not load; then, when the
  project's brief is switched on (``connect claude-code --brief``), the
  recent-work brief: what Claude said last in each of the project's other
  sessions today and yesterday. Nothing when all loads and there is no brief.
- ``UserPromptSubmit``: opens a turn for the project's memory folder when
  botmemory tracks it, and answers with recall for the prompt over the
  folder's topic files and over the bound workspace (``--bot``).
- ``Stop``: ends the session's open turn (``last_assistant_message`` as what
  was said): what changed in the folder meanwhile is Claude's work in that
  session; the turn waits for capture by the bound bot (``--bot``; else the
  tracked folder's bot, when botmemory may write it) as its part of
  ``transcript_path``. ``SessionEnd`` closes whatever the session left open.

This module reads the event and writes the answer; what it decides is :mod:`botmemory.core.ops.claude`'s.
``botmemory hook claude-code`` is answered without the full command line (:func:`main`, from
:mod:`botmemory.core.faces.entry`): a prompt over a folder botmemory does not track loads no journal.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping

from ..base.log import get_logger
from ..ops import claude as ops_claude
from ..ops.claude import HookContext

TYPE_CHECKING = False   # as typing's: typing itself is not imported before every prompt
if TYPE_CHECKING:   # annotations only: the opened Memory loads only when an event records a turn
    from typing import Any

    from ..ops import Home, Memory

logger = get_logger(__name__)

MAX_CONTEXT = ops_claude.MAX_CONTEXT
RECALL_BUDGET_S = ops_claude.RECALL_BUDGET_S
"""Recall that takes longer than this is left out of the answer (the person is waiting)."""

log_error = ops_claude.log_error


def _context(event: str, text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": event,
                                              "additionalContext": ops_claude.cut(text, MAX_CONTEXT)}},
                      ensure_ascii=False)


def session_start(ctx: HookContext | None, event: Mapping[str, Any]) -> str:
    cwd = str(event.get("cwd") or "")
    parts = [ops_claude.session_start_note(cwd)]
    if ctx is not None:
        try:
            parts.append(ops_claude.session_start_brief(ctx, cwd, str(event.get("session_id") or "")))
        except Exception as e:  # noqa: BLE001 - the brief is left out, the note still goes
            log_error(ctx.home, f"hook claude-code: no brief: {type(e).__name__}: {e}")
    text = "\n\n".join(p for p in parts if p)
    return _context("SessionStart", text) if text else ""


def with_deadline(fn: Callable[[], str], seconds: float) -> str:
    """*fn*'s answer, or "" when it takes longer than *seconds* (it goes on in a daemon thread)."""
    box: list[str] = []

    def run() -> None:
        try:
            box.append(fn())
        except Exception:
            logger.exception("recall failed")

    t = threading.Thread(target=run, name="botmemory-hook-recall", daemon=True)
    t.start()
    t.join(max(seconds, 0.0))
    if not box:
        logger.warning("recall took longer than %.1f s: answered without it", seconds)
    return box[0] if box else ""


def user_prompt(ctx: HookContext, event: Mapping[str, Any], bot: str | None, budget: float) -> str:
    session = str(event.get("session_id") or "")
    prompt = str(event.get("prompt") or "")
    transcript = event.get("transcript_path")
    folder, tracked = ops_claude.open_prompt_turn(ctx, session, str(event.get("cwd") or ""), bot,
                                                  transcript if isinstance(transcript, str) else None)
    text = with_deadline(lambda: ops_claude.prompt_recall(ctx, folder, tracked, bot, prompt), budget)
    return _context("UserPromptSubmit", text) if text else ""


def handle(mem: Memory | HookContext | None, raw: str, bot: str | None = None, budget: float | None = None) -> str:
    """The answer to one Claude Code hook event (raw JSON); "" for none. Never raises. *mem*: the opened home,
    or a :class:`HookContext` that opens it only when the event records a turn."""
    started = time.monotonic()
    ctx = mem if isinstance(mem, HookContext) or mem is None else HookContext.of(mem)
    home: Home | None = ctx.home if ctx else None
    try:
        if not raw.strip():
            log_error(home, "hook claude-code: no event on stdin (it was empty)")
            return ""
        try:
            event = json.loads(raw)
        except json.JSONDecodeError as e:
            log_error(home, f"hook claude-code: the event on stdin is not JSON ({e.msg}: line {e.lineno} "
                            f"column {e.colno})")
            return ""
        if not isinstance(event, dict):
            log_error(home, "hook claude-code: the event on stdin is not a JSON object")
            return ""
        name = event.get("hook_event_name")
        if name == "SessionStart":
            return session_start(ctx, event)
        if ctx is None:
            return ""
        if name == "UserPromptSubmit":
            left = (RECALL_BUDGET_S if budget is None else budget) - (time.monotonic() - started)
            return user_prompt(ctx, event, bot, left)
        if name in ("Stop", "SubagentStop", "SessionEnd") and event.get("session_id"):
            said = event.get("last_assistant_message") if name != "SessionEnd" else None
            transcript = event.get("transcript_path") if name == "Stop" else None   # the person's turn, for capture
            ops_claude.end_session_turn(ctx, str(event["session_id"]), said if isinstance(said, str) else None,
                                        transcript if isinstance(transcript, str) and transcript else None)
        return ""
    except Exception as e:  # noqa: BLE001 - a hook never fails the person: it logs and answers nothing
        log_error(home, f"hook claude-code: {type(e).__name__}: {e}")
        return ""


def main(root: str | None, today: str | None, bot: str | None, stdin: bytes) -> str:
    """``botmemory [--root R] [--today D] hook claude-code [--bot B]``: the answer to the event on *stdin*
    (the home opened only as far as the event needs). Never raises."""
    try:
        ctx: HookContext | None = HookContext.at(root, today)
    except Exception as e:  # noqa: BLE001 - a hook answers nothing rather than fail the person
        log_error(None, f"hook claude-code: {type(e).__name__}: {e}")
        ctx = None
    return handle(ctx, stdin.decode("utf-8", errors="replace"), bot)
