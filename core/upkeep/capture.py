"""Memory that grows by itself: noticing facts (capture), and the About me lines it learns.

docs/RULES.md "Capture and organizing" and "About me".

**Where turns come from.** ``botmemory turn end BOT ID --transcript FILE`` names
the turn's messages, JSON lines ``{"role": "person"|"bot"|"other-person"|
"other-bot", "text": …, "at": …}`` (Claude Code's own transcript lines are read
too: a ``user`` line that is a tool result or ``isMeta`` is not the person's
words). :func:`note_turn` keeps the turn as its id and the transcript's
location — path and byte range, never the text — in
``<home>/memory-capture-pending.json``, at most :data:`MAX_PENDING_CHATS` chats
(the oldest go first). Failed turns, turns started by another bot, the harness
or a routine are never noted; a room's turns only with
``features.roomMemoryCapture``. The next turn of a chat naming the same file
is read from where the previous one ended; only the last
:data:`MAX_TURN_BYTES` of one turn are ever read.

**When.** A chat's turns are one batch, captured when the chat has been quiet
for ``memory.captureQuietMs`` (two minutes) or holds six turns
(:func:`capture_due`, called by ``watch`` and the desktop app at each check),
or at once with ``botmemory capture BOT``.

**The step.** One helper call per batch, beside MEMORY.md (numbered) and the
topic list, asks for ``{"facts": [{"text", "target", "topic", "aliases",
"quote", "kind", "until", "replaces"}]}``. Every fact is checked in code
(:func:`check_fact`) and skipped, with its reason in the report, when: a fact
about the person or a preference has no quote really in the person's words
(whitespace and quote marks normalised); a number, path or URL of the entry is
not in its quotes (so a decision or outcome without a quote holds none); its
quote is a question, a task or a "suppose…"; it looks like a secret
(core/redact/, the detector); it mentions forgotten words; it was removed from
About me before; it is already noted. Then:

- ``memory``: a dated ``(noticed)`` entry in MEMORY.md through the budget rule
  remember uses (oldest entries to the archive, written first); a
  ``replaces`` line is struck only when its replacement passed;
- ``topic``: an entry in the topic named (reused by file name, title or alias,
  else created with ``title`` and ``aliases`` frontmatter);
- ``about-me``: ``- DATE · learned by BOT · …`` in ``<home>/about-me.md``,
  only from the person's own words, never from a batch holding another
  person's lines;
- ``team`` (a bot in a team): a pending card of its team (``key`` its stable
  key, ``team`` which one when it is in several), quoted like a fact about the
  person and checked the same way (docs/RULES.md "Capture and organizing");
  a person accepts it. An accepted note stays as it is when its
  replacement fails a check.

A fact that ends on a known day gets ``· until DATE``; a yearly date never does.
All workspace files of a batch are one :meth:`Store.apply` (one journal row
each, ``who: upkeep, how: capture``). A batch is marked tried before the model
call and removed after its writes; a crash in between retries it once, and
facts already written are then "already noted", so nothing is written twice.
"""
from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..base.errors import BadInput, BotMemoryError
from ..disk import config
from ..disk.paths import ARCHIVE_FILE, MEMORY_FILE, Home, check_bot_id
from ..disk.safeio import atomic_write, read_file
from ..notes.update import is_removed, make_room
from ..store.memory import Memory
from ..store.writer import Actor, Write
from ..team.files import State, teams_dir
from ..team.records import Team
from ..team.teams import Teams
from ..text import entries as E
from ..text.budget import Topic, loaded_text
from ..text.entries import append_text, archived_text
from ..text.frontmatter import Frontmatter, quick_frontmatter
from .capture_checks import SYSTEM, Batch, Fact, anchors, build_prompt, check_fact, quote_problem  # noqa: F401 - capture's public names (__all__)
from .capture_queue import (  # noqa: F401 - capture's public names (__all__), and what tests read
    ABOUT_ME,
    CLAIM_SECONDS,
    MAX_ATTEMPTS,
    MAX_FACTS,
    MAX_PENDING_CHATS,
    MAX_TURN_BYTES,
    PENDING_FILE,
    ROLES,
    TURNS_PER_BATCH,
    Message,
    _find,
    _pending_lock,
    _write_pending,
    actor,
    due_chats,
    note_turn,
    parse_line,
    pending_path,
    quiet_seconds,
    read_pending,
    read_turn,
    room_capture,
)
from .helper import HelperError, TextModel, log_once, parse_json_answer, resolve
from .topics import FilingReport, find_topic, list_topics, normalise, topic_cache_file, topic_header, topic_slug

logger = logging.getLogger(__name__)


# ----- the report


@dataclass
class CaptureReport(FilingReport):
    bot: str
    chats: list[str] = field(default_factory=list)
    filed: list[dict[str, str]] = field(default_factory=list)
    organized: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"bot": self.bot, "chats": self.chats, "filed": self.filed, "skipped": self.skipped,
                "rows": self.rows, "helper": self.helper, "organized": self.organized}


# ----- one batch


def _about_lines(home: Home) -> list[str]:
    try:
        ft = read_file(home.about_me)
    except BotMemoryError:
        return []
    return ft.text.split("\n") if ft is not None and ft.valid else []


def _fact_of(line: str) -> str:
    """The fact of an About me line, normalised (the date and ``learned by`` taken off)."""
    head = E.parse_block_head(line)
    body = head.text if head.kind is E.BlockKind.ENTRY else line.lstrip("-* ").strip()
    if head.kind is E.BlockKind.ENTRY and body.startswith("learned by ") and E.DOT in body:
        body = body.split(E.DOT, 1)[1]
    return normalise(body).rstrip(".")


def _batch_messages(mem: Memory, chat: dict[str, Any], report: CaptureReport) -> list[Message]:
    messages: list[Message] = []
    for t in chat["turns"]:
        got, note = read_turn(t["transcript"], t["start"], t["end"])
        if note:
            report.skip(f"turn {t['id']}", note)
        messages.extend(got)
    return messages


def memory_lines_of(text: str) -> list[str]:
    """MEMORY.md's lines that load, as numbered to the model."""
    loaded = loaded_text(text)[0].rstrip("\n")
    return loaded.split("\n") if loaded else []


def _where(chat: dict[str, Any]) -> str:
    return f'{"room" if chat["room"] else "chat"} "{chat["chat"]}"'


def _source(chat: dict[str, Any]) -> str:
    return f'from {"room" if chat["room"] else "chat"} "{E.clean_title(chat["chat"])}"'


def capture_batch(mem: Memory, chat: dict[str, Any], model: TextModel, report: CaptureReport) -> bool:
    """Capture one chat's pending turns. True when the batch is done (written, or nothing to write)."""
    bot = chat["bot"]
    messages = _batch_messages(mem, chat, report)
    where = _where(chat)
    if not any(m.role == "person" for m in messages):
        report.skip(where, "no words of the person in these turns; nothing read")
        return True
    memory_text = mem.store.text(bot, MEMORY_FILE)
    memory_lines = tuple(memory_lines_of(memory_text))
    topics = list_topics(mem, bot)
    teams = _teams_of(mem, bot)
    prompt = build_prompt(mem.today, where, memory_lines, topics, messages,
                          [(st.team.name, [n.key for n in st.accepted() if n.key]) for st in teams])
    try:
        answer = model.complete(SYSTEM, prompt, max_tokens=2048)
    except HelperError as e:
        log_once(str(e))
        report.skip(where, f"{e}; nothing captured")
        return False
    data = parse_json_answer(answer, "facts")
    if data is None or not isinstance(data.get("facts"), list):
        report.skip(where, "the helper's answer was not the JSON asked for; nothing captured")
        return True
    by_role: dict[str, list[str]] = {r: [] for r in ROLES}
    for m in messages:
        if m.role in by_role:
            by_role[m.role].append(normalise(m.text))
    batch = Batch(person="\n".join(by_role["person"]), other_person="\n".join(by_role["other-person"]),
                  everyone="\n".join(normalise(m.text) for m in messages if m.role in ROLES),
                  has_other_person=bool(by_role["other-person"]), room=chat["room"],
                  memory_lines=memory_lines)
    facts: list[Fact] = []
    items = data["facts"]
    for item in items[:MAX_FACTS]:
        got = check_fact(item, batch, mem.home, mem.today)
        label = item.get("text") if isinstance(item, dict) and isinstance(item.get("text"), str) else repr(item)[:80]
        if isinstance(got, str):
            report.skip(" ".join(str(label).split())[:200], got)
        else:
            facts.append(got)
    if len(items) > MAX_FACTS:
        report.skip(where, f"{len(items) - MAX_FACTS} more facts than {MAX_FACTS} in one answer; left out")
    shared = [f for f in facts if f.target == "team"]
    facts = [f for f in facts if f.target != "team"]
    if facts:
        _write(mem, chat, facts, topics, memory_lines, report)
    if shared:
        _propose(mem, chat, shared, [st.team for st in teams], report)
    return True


def _teams_of(mem: Memory, bot: str) -> list[State]:
    """The teams *bot* is a member of, as read now ([] when it is in none, or they cannot be read)."""
    if not teams_dir(mem.home).is_dir():
        return []
    try:
        t = Teams(mem)
        return [t.state(team.team) for team in t.of_bot(bot)]
    except BotMemoryError as e:
        logger.warning("the teams of %s could not be read; capture proposes nothing to them: %s", bot, e)
        return []


def _propose(mem: Memory, chat: dict[str, Any], facts: Sequence[Fact], teams: Sequence[Team],
             report: CaptureReport) -> None:
    """Team notes that passed the checks become pending cards of the bot's team, for a person to accept."""
    bot = chat["bot"]
    for f in facts:
        if not teams:
            report.skip(f.text, f"{bot} is in no team")
            continue
        named = [t for t in teams if f.team and f.team.casefold() in (t.team, t.name.casefold())]
        team = named[0] if named else teams[0] if len(teams) == 1 else None
        if team is None:
            report.skip(f.text, f"{bot} is in {len(teams)} teams and the answer named none of them")
            continue
        try:
            card, _replaces, row = Teams(mem).propose(team.team, f.text, actor(chat["chat"]), key=f.key, bot=bot,
                                                      quotes=f.quotes, chat=chat["chat"])
        except BotMemoryError as e:
            report.skip(f.text, str(e))
            continue
        if row is None:
            report.skip(f.text, f"already proposed to team {team.name} ({card.card})")
            continue
        report.filed.append({"fact": f.text, "file": f"team {team.name}: card {card.card}, waiting for a person"})


def _write(mem: Memory, chat: dict[str, Any], facts: Sequence[Fact], topics: list[Topic], shown: Sequence[str],  # noqa: C901
           report: CaptureReport) -> None:
    """Write the checked facts: the workspace files in one :meth:`Store.apply` under the lock, then About me.

    *shown* is MEMORY.md as numbered to the model: a ``replaces`` strikes the
    entry whose line is the one shown, wherever it is now (never by position).
    """
    bot, today = chat["bot"], mem.today
    source = _source(chat)
    about: list[Fact] = []
    with mem.store.locked(bot):
        mem_ft = mem.store.read(bot, MEMORY_FILE)
        if mem_ft is not None and not mem_ft.valid:
            raise BadInput("MEMORY.md is not valid UTF-8; botmemory will not rewrite it")
        memory_text = mem_ft.text if mem_ft else ""
        doc = E.parse(memory_text)
        moved: list[E.Block] = []
        topic_texts: dict[str, tuple[str, str | None, bool]] = {}   # rel -> (text, hash, existed)
        strikes: set[str] = set()
        for f in facts:
            if f.target == "about-me":
                about.append(f)
                continue
            line = E.format_entry(today, source, f.text, until=f.until, noticed=True)
            key = E.fact_key(E.parse_block_head(line))
            if f.target == "memory":
                if any(b.kind is E.BlockKind.ENTRY and E.fact_key(b) == key for b in doc.blocks):
                    report.skip(f.text, "already noted in MEMORY.md")
                    continue
                if f.replaces is not None and f.replaces <= len(shown):
                    old = shown[f.replaces - 1]
                    for i, b in enumerate(doc.blocks):
                        if b.kind is E.BlockKind.ENTRY and b.first_line == old and old not in strikes:
                            struck = E.strike(b, today)
                            doc.blocks[i] = E.Block(E.BlockKind.STRUCK, (struck, *b.lines[1:]),
                                                    date=today, text=b.text, source=b.source)
                            strikes.add(old)
                            break
                doc = E.parse(append_text(doc.render(), line))
                new_block = next(b for b in reversed(doc.blocks) if b.kind is E.BlockKind.ENTRY)
                out, _fits = make_room(doc, today, new_block)
                moved.extend(out)
                report.filed.append({"fact": f.text, "file": MEMORY_FILE})
                continue
            rel = find_topic(topics, f.topic) or topic_slug(f.topic)
            if rel is None:
                report.skip(f.text, f"no usable topic name in {f.topic!r}")
                continue
            if rel not in topic_texts:
                ft = mem.store.read(bot, rel)
                if ft is not None and not ft.valid:
                    report.skip(f.text, f"{rel} is not valid UTF-8; botmemory will not rewrite it")
                    continue
                if ft is None:
                    title = f.topic.strip().removeprefix("memory/").removesuffix(".md")
                    topic_texts[rel] = (topic_header(title, f.aliases), None, False)
                    topics = [*topics, Topic(rel, Frontmatter(title, None, tuple(f.aliases)))]
                else:
                    topic_texts[rel] = (ft.text, ft.hash, True)
            text, h, existed = topic_texts[rel]
            if any(b.kind is E.BlockKind.ENTRY and E.fact_key(b) == key for b in E.parse(text).blocks):
                report.skip(f.text, f"already noted in {rel}")
                continue
            topic_texts[rel] = (append_text(text, line), h, existed)
            report.filed.append({"fact": f.text, "file": rel})
        writes: list[Write] = []
        if moved:
            arch = mem.store.read(bot, ARCHIVE_FILE)
            writes.append(Write(ARCHIVE_FILE, append_text(arch.text if arch else "", archived_text(moved, today)),
                                arch.hash if arch else None, checked=True))
        new_memory = doc.render()
        if new_memory != memory_text:
            writes.append(Write(MEMORY_FILE, new_memory, mem_ft.hash if mem_ft else None, checked=True))
        for rel, (text, h, existed) in topic_texts.items():
            if not existed or (mem_text := mem.store.read(bot, rel)) is None or text != mem_text.text:
                writes.append(Write(rel, text, h, checked=True))
        if writes:
            report.changes += mem.store.apply(bot, writes, actor(chat["chat"]))
    if about:
        _add_about_me(mem, bot, about, report, chat["chat"])


def _add_about_me(mem: Memory, bot: str, facts: Sequence[Fact], report: CaptureReport,
                  chat: str | None = None) -> None:
    from ..notes.update import _home_lock

    home = mem.home
    with _home_lock(home).held():
        ft = read_file(home.about_me)
        if ft is not None and not ft.valid:
            for f in facts:
                report.skip(f.text, "about-me.md is not valid UTF-8; botmemory will not rewrite it")
            return
        current = ft.text if ft else ""
        have = {_fact_of(line) for line in current.split("\n") if line.strip()}
        added = current
        for f in facts:
            key = normalise(f.text).rstrip(".")
            if key in have:
                report.skip(f.text, "already in About me")
                continue
            if is_removed(home, f.text):
                report.skip(f.text, "removed from About me before; never added again")
                continue
            have.add(key)
            added = append_text(added, f"- {mem.today.isoformat()}{E.DOT}learned by {bot}{E.DOT}{f.text}")
            report.filed.append({"fact": f.text, "file": ABOUT_ME})
        if added != current:
            atomic_write(home.about_me, added.encode("utf-8"))
            from ..store.home_journal import record

            record(home, Actor("upkeep", "capture", chat), ft, added, from_bot=bot)   # a row of About me's journal


# ----- the runs


def _client(mem: Memory, bot: str, helper: TextModel | None) -> TextModel | str:
    s = config.bot_settings(mem.home, bot)
    if not s.helper:
        return f"the helper is switched off for {bot}"
    return helper if helper is not None else resolve(mem.home, bot)


def capture(mem: Memory, bot: str, *, helper: TextModel | None = None, due_only: bool = False,  # noqa: C901
            now: float | None = None, organize: bool = True) -> CaptureReport:
    """Capture *bot*'s pending chats now (or only the due ones), then organize MEMORY.md."""
    mem.home.require_bot(bot)
    report = CaptureReport(bot)
    layout = mem.home.layout(bot)
    if layout is not None and layout.writes_own_memory:       # its agent writes its own memory
        report.skip(bot, f"capture does not apply: {layout.refusal}")
        _finish(mem, [c for c in read_pending(mem.home) if c["bot"] == bot])
        return report
    s = config.bot_settings(mem.home, bot)
    now = time.time() if now is None else now
    with _pending_lock(mem.home):
        chats = read_pending(mem.home)
        mine = [c for c in chats if c["bot"] == bot]
        if due_only:
            mine = due_chats(mine, now, quiet_seconds(mem.home))
        if not mine:
            return report
        if not (s.memory and s.upkeep):
            report.skip(bot, "memory or its upkeep is switched off; the pending turns were dropped")
            _write_pending(mem.home, [c for c in chats if c not in mine])
            return report
        dropped = []
        mine = [c for c in mine if not _claimed_elsewhere(c, now)]
        for c in mine:
            c["claim"] = [os.getpid(), now]   # another process (the app and `watch` on one home) leaves it alone
            if c["room"] and not room_capture(mem.home):
                report.skip(_where(c), "Learn from group chats is switched off; the room's turns were dropped")
                dropped.append(c)
            elif c["attempts"] >= MAX_ATTEMPTS:
                report.skip(_where(c), f"tried {c['attempts']} times without finishing; dropped")
                dropped.append(c)
            else:
                c["attempts"] += 1          # marked before the model call: a crash retries it once
        _write_pending(mem.home, [c for c in chats if c not in dropped])
        mine = [c for c in mine if c not in dropped]
    if not mine:
        _save_last(mem, report)
        return report
    client = _client(mem, bot, helper)
    if isinstance(client, str):
        log_once(client, level=logging.INFO)
        for c in mine:
            report.skip(_where(c), f"{client}; nothing captured")
        _finish(mem, mine)
        _save_last(mem, report)
        return report
    report.helper = client.name
    done = []
    for c in mine:
        report.chats.append(_where(c))
        try:
            if capture_batch(mem, c, client, report):
                done.append(c)
        except BotMemoryError as e:
            logger.warning("capture of %s in %s failed: %s", bot, _where(c), e)
            report.skip(_where(c), f"{e}; will be tried again" if c["attempts"] < MAX_ATTEMPTS else str(e))
    _finish(mem, done)
    if organize and report.helper is not None:
        from .organize import organize as run_organize

        try:
            report.organized = run_organize(mem, bot, helper=client).as_dict()
        except BotMemoryError as e:
            logger.warning("organizing %s after capture failed: %s", bot, e)
            report.organized = {"error": str(e)}
    _save_last(mem, report)
    return report


def _claimed_elsewhere(chat: dict[str, Any], now: float) -> bool:
    """Is another live process capturing this chat right now?"""
    claim = chat.get("claim")
    if not (isinstance(claim, list) and len(claim) == 2 and isinstance(claim[0], int)
            and isinstance(claim[1], (int, float))):
        return False
    pid, at = claim
    if pid == os.getpid() or now - at > CLAIM_SECONDS:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False                     # it died: the batch is retried
    except OSError:
        return True                      # alive, another user's
    return True


def _finish(mem: Memory, done: Sequence[dict[str, Any]]) -> None:
    """Take finished batches out of the pending file (a turn noted meanwhile stays)."""
    if not done:
        return
    with _pending_lock(mem.home):
        chats = read_pending(mem.home)
        for d in done:
            ids = {t["id"] for t in d["turns"]}
            c = _find(chats, d["bot"], d["chat"], d["room"])
            if c is None:
                continue
            c["turns"] = [t for t in c["turns"] if t["id"] not in ids]
            if not c["turns"]:
                chats.remove(c)
            else:
                c["attempts"] = 0
        _write_pending(mem.home, chats)


def capture_due(mem: Memory, now: float | None = None, *,
                helper: TextModel | None = None) -> dict[str, dict[str, Any]]:
    """Capture every bot's chats that are due (quiet long enough, or six turns): the reports by bot.

    Never while a turn of the bot is open: its chats wait for the next check.
    """
    now = time.time() if now is None else now
    quiet = quiet_seconds(mem.home)
    bots = sorted({c["bot"] for c in due_chats(read_pending(mem.home), now, quiet)})
    out: dict[str, dict[str, Any]] = {}
    from ..outside.turns import turn_open

    for bot in bots:
        if turn_open(mem, bot):      # the bot is working: its chats wait for the next check
            continue
        try:
            out[bot] = capture(mem, bot, helper=helper, due_only=True, now=now).as_dict()
        except BotMemoryError as e:
            logger.warning("capture of %s failed: %s", bot, e)
            out[bot] = {"error": str(e)}
    return out


# ----- the last capture, for the Upkeep tab


def last_file(home: Home, bot: str) -> Path:
    return home.state_dir / "upkeep" / f"{check_bot_id(bot)}.capture.json"


def _save_last(mem: Memory, report: CaptureReport) -> None:
    data = {"at": datetime.now().astimezone().isoformat(), "report": report.as_dict()}
    try:
        atomic_write(last_file(mem.home, report.bot), (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8"))
    except BotMemoryError as e:
        logger.warning("could not keep the last capture of %s: %s", report.bot, e)


def last_capture(home: Home, bot: str) -> dict[str, Any] | None:
    """The last capture of *bot* as kept: ``{"at": ISO time, "report": {...}}``, or None."""
    try:
        ft = read_file(last_file(home, bot))
        data = json.loads(ft.text) if ft is not None else None
    except (BotMemoryError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("report"), dict) else None


def summary(report: CaptureReport) -> str:
    lines = []
    if not report.chats and not report.filed and not report.skipped:
        return "nothing waiting to be captured"
    for f in report.filed:
        lines.append(f"filed into {f['file']}: {f['fact']}")
    if not report.filed:
        lines.append("nothing new filed")
    for s in report.skipped:
        lines.append(f"skipped: {s['what']}: {s['reason']}")
    org = report.organized
    if org and org.get("moved"):
        lines.append(f"organized: {len(org['moved'])} line(s) filed into topics")
    if report.rows:
        lines.append(f"journal rows: {', '.join(report.rows)}")
    return "\n".join(lines)


__all__ = [
    "CaptureReport", "MAX_PENDING_CHATS", "Message", "PENDING_FILE", "TURNS_PER_BATCH", "anchors", "build_prompt",
    "capture", "capture_due", "check_fact", "due_chats", "last_capture", "normalise",
    "note_turn", "parse_line", "quick_frontmatter", "quote_problem", "read_pending", "read_turn",
    "summary", "topic_cache_file",
]
