"""The embedded demo home: three bots with realistic notes, topics, logs and a real journal, and their team.

``botmemory-tray --demo`` builds it into ``--root`` when that folder is empty
(or missing), else into a fresh folder. The notes are package files under
``demo_home/``, with dates written as ``@D-12@`` (twelve days before today) so the
demo is always current. Everything is written through the core — the files by
an import, then the bots' work in their chats, a person's edit in the panel,
a change made outside the app, an undo and a tidy-up — so the journal holds
real rows that Undo can act on.
"""
from __future__ import annotations

import logging
import re
import shutil
import tempfile
from datetime import date, timedelta
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from botmemory.core.ops import Actor, Memory, atomic_write, remember

from . import demo_team

logger = logging.getLogger(__name__)

BOTS = ("scout", "ledger", "quill")
IMPORT = Actor("import", "import")
_DAY = re.compile(r"@D([+-]?\d+)@")


def expand(text: str, today: date) -> str:
    """Replace every ``@D±N@`` with the date N days from *today*."""
    return _DAY.sub(lambda m: (today + timedelta(days=int(m.group(1)))).isoformat(), text)


def _source() -> Traversable:
    return resources.files("botmemory.desktop") / "demo_home"


def _walk(folder: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    out: list[tuple[str, Traversable]] = []
    for item in sorted(folder.iterdir(), key=lambda t: t.name):
        rel = f"{prefix}{item.name}"
        if item.is_dir():
            out.extend(_walk(item, rel + "/"))
        elif item.name.endswith(".md"):
            out.append((rel, item))
    return out


def is_empty(root: Path) -> bool:
    return not root.exists() or (root.is_dir() and not any(root.iterdir()))


def choose_root(root: Path | None) -> Path:
    """*root* when it is empty or missing, else a fresh folder."""
    if root is not None and is_empty(root):
        return root
    if root is not None:
        logger.info("%s is not empty; the demo goes into a fresh folder", root)
    return Path(tempfile.mkdtemp(prefix="botmemory-demo-"))


def prepare(root: Path | None, today: date | None = None) -> Path:
    """Build the demo home and return its folder."""
    target = choose_root(root)
    build(target, today or date.today())
    return target


def remove(root: Path) -> None:
    """Delete a demo home this app made in the temporary folder (on quit). Anything else is left alone."""
    tmp = Path(tempfile.gettempdir()).resolve()
    if root.is_symlink() or not root.name.startswith("botmemory-demo-") or root.parent.resolve() != tmp:
        logger.info("not removing %s: not a temporary demo home", root)
        return
    shutil.rmtree(root, ignore_errors=True)   # never follows a symbolic link inside
    logger.info("removed the demo home %s", root)


def build(root: Path, today: date) -> Memory:
    """Write the demo into *root* through the core. Returns the opened home."""
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    mem = Memory.open(str(root), today.isoformat())
    files = _walk(_source())
    for rel, item in files:
        if rel == "about-me.md":
            atomic_write(mem.home.about_me, expand(item.read_text(encoding="utf-8"), today).encode("utf-8"))
    for bot in BOTS:
        mem.store.init(bot)
        writes = [(rel[len(bot) + 1:], expand(item.read_text(encoding="utf-8"), today))
                  for rel, item in files if rel.startswith(bot + "/")]
        for rel, text in writes:
            rel = expand(rel, today)
            if rel.startswith("memory/log/"):
                mem.store.write(bot, rel, text, Actor.bot(_log_chat(text)), allow_log=True)
            else:
                mem.store.write(bot, rel, text, IMPORT)
    _history(mem, today)
    demo_team.build(mem)
    return mem


def _log_chat(text: str) -> str | None:
    m = re.search(r'chat "([^"]+)"', text)
    return m.group(1) if m else None


def _history(mem: Memory, today: date) -> None:
    """The journal a few weeks of use would leave: bots' work, a person's edits, an outside edit, undo."""
    s = mem.store
    # the bots at work in their chats
    remember(mem, "scout", "Monsoon Books intro call is Wednesday 11:00 IST with their publisher, Anil",
             Actor.bot("Pipeline"))
    remember(mem, "scout", "Orbit wants the parent onboarding path in Marathi and English",
             Actor.bot("Orbit"))
    remember(mem, "ledger", "HL-2026-052 (Orbit, first half) is due on the 28th", Actor.bot("Invoice reconciliation"))
    # a regretted note, undone from the journal
    remember(mem, "scout", "Priya wants all meetings moved to Fridays", Actor.bot("Calendar"))
    _undo_newest(mem, "scout")
    # the person edits a topic in the panel
    topic = "memory/travel.md"
    ft = s.read("scout", topic)
    if ft is not None:
        s.write("scout", topic, ft.text + f"- {today.isoformat()} · from panel · Rotterdam hotel: "
                "Mainport, river-side room booked for the Kestrel workshop\n",
                Actor.person("panel"), expected_hash=ft.hash)
    # an edit made in another editor (Obsidian, say), recorded as changed outside the app
    path = mem.home.file("scout", "memory/kestrel-foods.md")
    text = path.read_text(encoding="utf-8")
    atomic_write(path, (text + f"- {today.isoformat()} · Ilse asked for the Dutch store listing by Friday\n")
                 .encode("utf-8"))
    _scan(mem)
    # last night's tidy-up: expired entries to the archive, exact duplicates out
    for bot in BOTS:
        _tidy(mem, bot)
    remember(mem, "scout", "Sanjay prefers review calls after 15:00 IST", Actor.bot("Northwind"))
    remember(mem, "scout", "Priya wants the Monday digest to include overdue invoices from Ledger",
             Actor.bot("Plans"))


def _undo_newest(mem: Memory, bot: str) -> None:
    rows = mem.journal.list(bot, limit=1)
    if rows:
        mem.undo(bot, rows[0].id)


def _scan(mem: Memory) -> None:
    from botmemory.core.ops import scan

    scan(mem)


def _tidy(mem: Memory, bot: str) -> None:
    from botmemory.core.ops import tidy

    tidy(mem, bot, model=False)
