"""The layout holds: core never loads Qt, core modules import only lower layers, the desktop uses the surface.

Imports are read with ``ast`` from the source, including those inside
functions and ``if TYPE_CHECKING:`` blocks: a lazy or type-only import is
still a dependency.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import botmemory.core as surface

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"
DESKTOP = ROOT / "desktop"

# Lowest first: a core module may import only modules before it. docs/ARCHITECTURE.md explains the order.
LAYERS = [
    "log",          # loggers that import logging only for a record that could be shown
    "record",       # record classes as dataclasses makes them, without importing dataclasses
    "errors",       # the error classes and their exit codes
    "wording",      # counted nouns in messages ("1 line", "2 lines")
    "redact",       # credential detection (pure text)
    "words",        # tokens, CJK bigrams, stems, the text's language (pure text)
    "frontmatter",  # topic frontmatter (pure text)
    "entries",      # MEMORY.md's blocks and entry lines (pure text)
    "diff",         # journal diffs: counts, the word filter past a cut (pure text)
    "paths",        # the home's layout and path rules
    "nofollow",     # reaching a file below the home without passing a symbolic link
    "safeio",       # safe reads, atomic writes, the workspace lock
    "kinds",        # the kinds of memory folder (a package): layout, budget, entries, finding them (link-free, by safeio)
    "tracked",      # the tracked agent folders (tracked.json) and finding them
    "config",       # config.json
    "store",        # the only writer of memory files
    "budget",       # the load budget and the loaded block
    "helper",       # the optional helper model
    "journal",      # the journal of changes
    "shadows",      # shadow copies of memory files
    "memory",       # the opened home: Memory (store + journal + shadows)
    "files",        # save / rm / undo, the memory switch for bots' writes
    "loader",       # what a new turn loads
    "update",       # remember / forget / prefer
    "passages",     # recall's words, results, a topic's passages, the topic folder
    "ranking",      # recall's ranking (pure: postings in, ranked passages out)
    "index_build",  # building recall's index: topics parsed, postings gathered and packed, the parse worker
    "recall_index", # recall's SQLite index (stems to passages), its refresh and background build
    "recall",       # recall search
    "search",       # session search over the files
    "agents",       # gauge, load, forget, recall, redact of a tracked folder by its kind
    "reconcile",    # differences -> journal rows
    "turns",        # turns, the day's log line, scan
    "watcher",      # the live watcher
    "tidy",         # the tidy-up
    "filing",       # topic names, the topic list, headers, model answers (capture and organizing)
    "organize",     # MEMORY.md detail filed into topics
    "capture_queue",  # capture's queue of turns to read, reading a turn's messages
    "capture_checks",  # capture's checks of a helper's facts, its prompt
    "capture",      # noticing facts from turns, About me lines (then organizing)
    "upkeep",       # scheduling the tidy-up, the heavy notice
    "ops",          # the operations: the one way in (Memory first, results with changes), the policy
    "profile",      # About me's learned lines
    "routes",       # the spec's routes, without HTTP
    "server",       # botmemory serve: the routes on loopback
    "mcp_tools",    # the agents' memory tools (through the surface)
    "mcp_server",   # botmemory mcp: the tools over MCP (the SDK loads only here)
    "connect",      # botmemory connect: entries in the agents' settings files
    "hooks",        # botmemory hook claude-code
    "commands",     # the command line's commands: one function each, calling the operations
    "cli",          # the command line: parsing, exit codes
    "quick",        # the entry point: recall and search without the full parser, else cli
]


def _core_imports(path: Path, level: int = 1) -> set[str]:
    """The botmemory.core modules *path* (a core module) imports, anywhere in the file.

    A public name taken from the surface (``from . import Memory``) counts as its module.
    *level*: the relative level that means botmemory.core (2 inside a package such as ``kinds``,
    whose own ``from .base import`` stays inside it).
    """
    return {surface._NAMES[n][0] if n in surface._NAMES else n for n in _raw_imports(path, level)}


def _raw_imports(path: Path, level: int = 1) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == level:                   # from . import x / from .x import y
                if node.module:
                    out.add(node.module.split(".")[0])
                else:
                    out.update(a.name for a in node.names)
            elif node.module and node.module.startswith("botmemory.core"):
                rest = node.module.split(".")[2:]
                out.update(rest[:1] or [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("botmemory.core."):
                    out.add(a.name.split(".")[2])
    return out


def _imports_of(name: str) -> set[str]:
    """A layer's imports: one module's, or every file's of a package."""
    package = CORE / name
    if package.is_dir():
        return set().union(*(_core_imports(p, level=2) for p in sorted(package.glob("*.py"))))
    return _core_imports(CORE / f"{name}.py")


def test_every_core_module_has_a_layer():
    modules = ({p.stem for p in CORE.glob("*.py")} - {"__init__"}) | {
        p.name for p in CORE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert modules == set(LAYERS), "add the new module to LAYERS (and docs/ARCHITECTURE.md)"


def test_core_modules_import_only_lower_layers():
    bad = []
    for i, name in enumerate(LAYERS):
        for dep in sorted(_imports_of(name)):
            if dep not in LAYERS[:i]:
                bad.append(f"{name} imports {dep}")
    assert bad == []


# Inside the redact package, lowest first: a module imports only the modules before it (the package's
# __init__, the public API and the scan, all of them). docs/ARCHITECTURE.md lists what each holds.
REDACT_MODULES = ["base", "rules", "runs", "placeholders", "credentials", "assign", "entropy", "provider", "__init__"]


def test_the_redact_modules_import_only_those_before_them():
    package = CORE / "redact"
    assert {p.stem for p in package.glob("*.py")} == set(REDACT_MODULES), "add the new module to REDACT_MODULES"
    bad = []
    for i, name in enumerate(REDACT_MODULES):
        for dep in sorted(_raw_imports(package / f"{name}.py", level=1)):
            if dep not in REDACT_MODULES[:i]:
                bad.append(f"redact.{name} imports {dep}")
    assert bad == []


def test_core_loads_no_qt():
    code = (
        "import sys, importlib\n"
        "import botmemory.core as c\n"
        f"for m in {LAYERS!r}: importlib.import_module('botmemory.core.' + m)\n"
        "for n in c.__all__: getattr(c, n)\n"
        "qt = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'PyQt5', 'PyQt6'))\n"
        "print(qt)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_desktop_imports_core_only_through_the_surface():
    bad = []
    for path in sorted(DESKTOP.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            rel = path.relative_to(ROOT)
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith("botmemory.core."):
                    bad.append(f"{rel}: from {node.module} import ...")
                elif node.module == "botmemory.core":
                    bad += [f"{rel}: from botmemory.core import {a.name} (a module)" for a in node.names
                            if a.name in LAYERS]
            elif isinstance(node, ast.Import):
                bad += [f"{rel}: import {a.name}" for a in node.names if a.name.startswith("botmemory.core.")]
    assert bad == []


def test_the_surface_lists_what_it_exports():
    assert sorted(surface.__all__) == sorted(surface._NAMES)
    assert len(set(surface.__all__)) == len(surface.__all__)
    assert not set(surface.__all__) & set(LAYERS), "a public name may not hide a module of the same name"
    for name in surface.__all__:
        assert getattr(surface, name) is not None


def test_the_surface_loads_lazily():
    code = "import sys, botmemory.core\nprint(sorted(m for m in sys.modules if m.startswith('botmemory.core.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# The callers at the top (the CLI's commands, the MCP tools, the routes, the hooks, the desktop) write and
# read through the operations (core/ops.py), never the mechanisms under them. The demo builder seeds a home
# (a daily log, an import) and is left out.
_MECHANISMS = ("store.apply(", "store.write(", "store.delete(", "mem.undo(", "update.remember(", "update.forget(",
               "update.prefer(", "update.move_overflow(", "recall.recall(", "recall.search(", "tidy_now(")


def test_the_callers_go_through_the_operations():
    callers = [CORE / f"{m}.py" for m in ("commands", "mcp_tools", "routes", "hooks")]
    callers += [p for p in sorted(DESKTOP.rglob("*.py")) if p.name != "demo.py"]
    bad = []
    for path in callers:
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            bad += [f"{path.relative_to(ROOT)}:{no}: {m}" for m in _MECHANISMS
                    if m in code and f"def {m}" not in code and f".{m}" not in code.replace(f"mem.{m}", "")]
    assert bad == []
