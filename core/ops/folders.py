"""The operations that depend on a folder's kind: gauge, load, forget, secrets and redact.

Each takes the opened :class:`~botmemory.core.store.memory.Memory` and a bot id (a
workspace or a tracked folder) and goes through the same store, so every
change is hash-checked, journaled and undoable.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..base.errors import BadInput, BotMemoryError, LinkRefused
from ..disk import config
from ..disk.paths import FileKind, Home
from ..kinds import AgentGauge, AgentKind, Limits
from ..store.memory import Memory
from ..store.writer import Actor, Change, Write
from ..text.entries import whole_word


def kind_of(mem: Memory, bot: str) -> AgentKind:
    """The kind of *bot*'s folder (``openmausbot`` for a workspace of the home)."""
    from .. import kinds

    return kinds.get(mem.home.kind_name(bot))


def settings_for(mem: Memory, kind: AgentKind) -> Mapping[str, object]:
    """botmemory's settings for a kind: ``agents.<kind>`` in the home's config.json."""
    agents = config.read_config(mem.home).get("agents")
    value = agents.get(kind.name) if isinstance(agents, dict) else None
    return value if isinstance(value, dict) else {}


def limits(mem: Memory, bot: str) -> Limits:
    from datetime import date

    kind = kind_of(mem, bot)
    given = None if mem.today == date.today() else mem.today     # --today / BOTMEMORY_TODAY: that day everywhere
    return kind.measure(mem.home.workspace(bot), Path.home(), os.environ, settings_for(mem, kind), given)


def _texts(mem: Memory, bot: str, kind: AgentKind) -> dict[str, str]:
    out: dict[str, str] = {}
    for rel in kind.budgeted:
        ft = mem.store.read(bot, rel)
        if ft is not None and not ft.valid and not kind.reads_bad_bytes:
            raise BadInput(f"{rel} of {bot} is not valid UTF-8: fix its encoding in another editor first")
        out[rel] = ft.text if ft else ""
    return out


def gauge(mem: Memory, bot: str) -> AgentGauge:
    """The gauge of a folder by its kind's budget."""
    mem.home.require_bot(bot)
    kind = kind_of(mem, bot)
    return kind.gauge(_texts(mem, bot, kind), limits(mem, bot))


def load(mem: Memory, bot: str) -> str:
    """Exactly what the folder's agent loads of its memory."""
    mem.home.require_bot(bot)
    kind = kind_of(mem, bot)
    return kind.load(_texts(mem, bot, kind), limits(mem, bot))


def secrets_in(text: str) -> list[str]:
    """The kinds of credential *text* holds (empty when none)."""
    from ..redact import find_secrets

    return sorted({s.kind for s in find_secrets(text)})


def folder_secrets(mem: Memory, bot: str) -> dict[str, list[str]]:
    """Every memory file of *bot* that holds a credential, with its kinds."""
    out: dict[str, list[str]] = {}
    for rel in mem.home.memory_files(bot):
        try:
            ft = mem.store.read(bot, rel)
        except BotMemoryError:
            continue
        if ft is not None and ft.valid:
            found = secrets_in(ft.text)
            if found:
                out[rel] = found
    return out


def redact_file(mem: Memory, bot: str, rel: str, actor: Actor, expected_hash: str | None = None) -> Change | None:
    """Replace every credential in one file by its marker: a journaled change.

    It cannot be undone: the journal never keeps a credential, so there is nothing to put back.
    """
    from ..redact import redact_count

    mem.home.require_bot(bot)
    ft = mem.store.read(bot, rel)
    if ft is None:
        raise BadInput(f"{rel} does not exist in {bot}")
    if not ft.valid:
        raise BadInput(f"{rel} is not valid UTF-8; botmemory will not rewrite it")
    new, n = redact_count(ft.text)
    if n == 0:
        return None
    changes = mem.store.apply(bot, [Write(rel, new, expected_hash or ft.hash, checked=True)], actor)
    return changes[0] if changes else None


@dataclass
class Forgotten:
    bot: str
    removed: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)   # what the rows of this forget could not bring back

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"bot": self.bot, "removed": self.removed, "files": self.files,
                                "rows": [c.id for c in self.changes]}
        if self.warnings:
            d["warnings"] = self.warnings
        return d


def _mentions_all(text: str, patterns: Sequence[re.Pattern[str]]) -> bool:
    return all(p.search(text) for p in patterns)


def _plan_forget(mem: Memory, bot: str, patterns: Sequence[re.Pattern[str]]) -> tuple[Forgotten, list[Write]]:
    """Read and judge every memory file of *bot*, writing nothing: what forget would remove, and the writes.

    A file forget cannot look at (not UTF-8, a symbolic link) is BadInput naming
    it — :mod:`update`'s own checks, the rule the workspaces' forget follows.
    """
    from ..notes.update import check_no_links, read_to_forget

    mem.home.require_bot(bot)
    kind = kind_of(mem, bot)
    out = Forgotten(bot)
    check_no_links(mem.home, bot)
    writes: list[Write] = []
    gone_topics: list[str] = []
    texts: dict[str, tuple[str, str]] = {}
    for rel in mem.home.memory_files(bot):
        ft = read_to_forget(mem.store, bot, rel)
        if ft is None:
            continue
        texts[rel] = (ft.text, ft.hash)
        if kind.whole_file_entry(rel) and _mentions_all(ft.text, patterns):
            gone_topics.append(rel)
            out.removed.append(f"{rel} (the whole topic)")
            writes.append(Write(rel, None, ft.hash, checked=True))
    for rel, (text, h) in texts.items():
        if kind.whole_file_entry(rel):
            continue
        gone = [p for p in kind.pieces(rel, text)
                if _mentions_all(p.text, patterns) or any(f"({t})" in p.text for t in gone_topics)]
        if gone:
            out.removed.extend(p.text.strip() for p in gone)
            writes.insert(0, Write(rel, kind.without(rel, text, gone), h, checked=True))
    out.files = [w.file for w in writes]
    from ..store.undo import foresee

    for w in writes:   # said before anything is written: what the rows could not bring back
        out.warnings += foresee(mem.home, bot, w.file, mem.store.read(bot, w.file), w.text)
    return out, writes


def forget(mem: Memory, bot: str, words: Sequence[str], actor: Actor, *, dry_run: bool = False) -> Forgotten:
    """Take out every entry of a tracked folder that mentions all *words*: one change per file.

    The kind splits the entries: lines of MEMORY.md and whole topic files for
    Claude Code (an index line pointing at a removed topic goes with it),
    ``§`` entries for Hermes, lines for OpenClaw. Frontmatter is never touched.
    Every file is read and judged before any is written: a file forget cannot
    look at is BadInput naming it, with nothing written.
    *dry_run*: what would go, and from which files; nothing is written.
    """
    from ..notes.update import check_words

    clean = check_words(words)
    patterns = [whole_word(w) for w in clean]
    mem.home.require_bot(bot)
    with mem.store.locked(bot):
        out, writes = _plan_forget(mem, bot, patterns)
        if writes and not dry_run:
            out.changes = mem.store.apply(bot, writes, actor)
    return out


def forget_everywhere(mem: Memory, words: Sequence[str], actor: Actor, *, dry_run: bool = False,
                      workspaces: bool = False) -> list[Forgotten]:
    """Forget in every tracked folder at once (and, with *workspaces*, in every bot of the home: its
    MEMORY.md, topics and archive — About me is left to ``forget BOT``, as its change cannot be undone);
    one journal row per file changed. *dry_run*: what would go.

    Every file of every folder is read and judged before any is written, under
    every folder's lock: a folder or file forget cannot look at (gone, not UTF-8,
    a symbolic link) is BadInput naming the folder and the file, with nothing
    written anywhere.
    """
    from contextlib import ExitStack

    from ..notes import update

    clean = update.check_words(words)
    patterns = [whole_word(w) for w in clean]
    plans: list[tuple[Forgotten, list[Write]]] = []
    homes = mem.home.workspace_names() if workspaces else []
    with ExitStack() as stack:
        for bot in sorted(mem.home.folders()):
            try:
                mem.home.require_bot(bot)
                stack.enter_context(mem.store.locked(bot))
                plans.append(_plan_forget(mem, bot, patterns))
            except (BadInput, LinkRefused) as e:   # the same error (exit 2, or 4 for a link), naming the folder
                raise type(e)(f"{bot}: {e}") from e
        for bot in homes:       # checked (a dry run) before anything is written anywhere
            try:
                stack.enter_context(mem.store.locked(bot))
                update.forget(mem.store, bot, words, actor, about_me=False, dry_run=True)
            except (BadInput, LinkRefused) as e:   # the same error (exit 2, or 4 for a link), naming the folder
                raise type(e)(f"{bot}: {e}") from e
        out = []
        for r, writes in plans:
            if writes:
                if not dry_run:
                    r.changes = mem.store.apply(r.bot, writes, actor)
                out.append(r)
        for bot in homes:
            w = update.forget(mem.store, bot, words, actor, about_me=False, dry_run=dry_run)
            if w.files:
                out.append(Forgotten(bot, list(w.removed), list(w.files), list(w.changes), list(w.warnings)))
    return out


def refuse(mem: Memory, bot: str, command: str) -> None:
    """Exit 4 for a command that does not apply to a folder whose agent writes its own memory."""
    from ..store.writer import refuse_for_agent

    refuse_for_agent(mem.home, bot, command)


_NOT_A_TOPIC = {FileKind.MEMORY: "the memory file itself", FileKind.ARCHIVE: "the archive"}


def topic_path(home: Home, bot: str, name: str) -> str:
    """The path a new topic called *name* gets in *bot*'s folder, by its kind's rule (``.md`` added when
    missing), or BadInput saying why there cannot be one: the one check of the CLI, the MCP tools and the app."""
    from .. import kinds

    kind = kinds.get(home.kind_name(bot))
    name = name.strip()
    if kind.topic_dir is None:
        raise BadInput(f"{kind.label} keeps no topic files: its memory is {', '.join(kind.budgeted)}")
    if "/" in name or "\\" in name:
        where = f"under {kind.topic_dir}" if kind.topic_dir else "beside MEMORY.md"
        raise BadInput(f"A topic name is one file name {where}, nothing nested: {kind.topic_name_rule}.")
    rel = kind.topic_dir + (name if name.endswith(".md") else name + ".md")
    what = home.classify(bot, rel)
    if what is not FileKind.TOPIC:
        raise BadInput(f"{rel} is {_NOT_A_TOPIC.get(what, 'not a topic')}, not a topic.")
    return rel


def topic_name_rule(home: Home, bot: str) -> str:
    """What a new topic's name may be in *bot*'s folder, by its kind (one message: the panel's prompt says it)."""
    from .. import kinds

    kind = kinds.get(home.kind_name(bot))
    if kind.topic_dir is None:
        return f"{kind.label} keeps no topic files: its memory is {', '.join(kind.budgeted)}"
    return kind.topic_name_rule


def is_topic(mem: Memory, bot: str, rel: str) -> bool:
    return mem.home.classify(bot, rel) is FileKind.TOPIC
