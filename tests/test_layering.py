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

import pytest

import botmemory.core as surface
from botmemory.core.base.moved import MOVED

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"
DESKTOP = ROOT / "desktop"

# The wings, lowest first, and the wings each may import (docs/ARCHITECTURE.md draws the same plan). Inside a
# wing modules import each other freely; between wings only these edges exist. ``base`` is below everything.
WINGS: dict[str, set[str]] = {
    "base": set(),
    "redact": {"base"},
    "text": {"base", "redact"},
    "disk": {"base"},
    "kinds": {"base", "text", "disk"},
    "store": {"base", "redact", "text", "disk", "kinds"},
    "team": {"base", "redact", "text", "disk", "store"},
    "notes": {"base", "redact", "text", "disk", "store", "team"},
    "recall": {"base", "redact", "text", "disk", "kinds", "store", "team"},
    "outside": {"base", "redact", "text", "disk", "store"},
    "upkeep": {"base", "redact", "text", "disk", "store", "team", "notes", "outside"},
    "brief": {"base", "redact", "text", "disk", "kinds", "store"},
    "sync": {"base", "redact", "text", "disk", "kinds", "store", "outside"},
    "ops": {"base", "redact", "text", "disk", "kinds", "store", "team", "notes", "recall", "outside", "upkeep",
            "brief", "sync"},
    "faces": {"base", "ops"},   # the one door: a face reads and writes through ops (and logs, with base)
}


def _module_of(path: Path) -> list[str]:
    """*path*'s dotted place under botmemory.core (``store/journal.py`` -> ["store", "journal"])."""
    parts = list(path.relative_to(CORE).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path) -> set[tuple[str, int]]:
    """The botmemory.core modules *path* imports anywhere in the file (dotted, under core), with the line.

    A public name taken from the surface (``from .. import remember``) counts as the module behind it.
    """
    here = _module_of(path)
    package = here if path.name == "__init__.py" else here[:-1]
    out: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
            elif node.module and node.module.startswith("botmemory.core"):
                base = []
                node = ast.ImportFrom(module=node.module.removeprefix("botmemory.core").lstrip(".") or None,
                                      names=node.names, level=1, lineno=node.lineno)
            else:
                continue
            if node.module:
                out.add((".".join([*base, node.module]), node.lineno))
            elif base:
                out.update((".".join([*base, a.name]), node.lineno) for a in node.names)
            else:   # from .. import x: a wing or module of core, else a public name of the surface
                out.update((a.name if _is_module(a.name) else surface._NAMES[a.name][0], node.lineno)
                           for a in node.names)
        elif isinstance(node, ast.Import):
            out.update((a.name.removeprefix("botmemory.core."), node.lineno) for a in node.names
                       if a.name.startswith("botmemory.core."))
    return out


def _is_module(name: str) -> bool:
    return (CORE / name).is_dir() or (CORE / f"{name}.py").is_file()


def _core_files() -> list[Path]:
    return [p for p in sorted(CORE.rglob("*.py")) if p.parent != CORE]


def test_every_core_module_is_in_a_wing():
    loose = sorted(p.name for p in CORE.glob("*.py") if p.name != "__init__.py")
    assert loose == [], "a core module lives in a wing (a folder of core/ listed in WINGS)"
    folders = {p.name for p in CORE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders == set(WINGS), "add the new wing to WINGS (and docs/ARCHITECTURE.md)"


def test_wings_import_only_the_wings_below_them():
    bad = []
    for path in _core_files():
        wing = _module_of(path)[0]
        for target, line in sorted(_imports(path)):
            other = target.split(".")[0]
            if other != wing and other not in WINGS[wing]:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {wing} imports {target}")
    assert bad == []


def test_the_wing_plan_has_no_circle():
    order = list(WINGS)
    for wing, below in WINGS.items():
        assert all(order.index(b) < order.index(wing) for b in below), f"{wing} imports a wing above it"


def test_the_guard_catches_an_upward_import(tmp_path, monkeypatch):
    """The wing check is not vacuous: a store module importing ops is reported."""
    fake = CORE / "store" / "__upward_probe__.py"
    monkeypatch.setattr(sys.modules[__name__], "_core_files", lambda: [fake])
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: "from ..ops import operations\n")
    with pytest.raises(AssertionError, match="store imports ops"):
        test_wings_import_only_the_wings_below_them()


# every module and wing name under core, and the old flat names (botmemory.core.update, kept for one release)
_MODULE_NAMES = {p.stem for p in CORE.rglob("*.py") if p.stem != "__init__"} | set(WINGS) | set(MOVED)


def test_core_loads_no_qt():
    code = (
        "import sys, importlib\n"
        "import botmemory.core as c\n"
        "import pkgutil\n"
        "for m in pkgutil.walk_packages(c.__path__, 'botmemory.core.'): importlib.import_module(m.name)\n"
        "for n in c.__all__: getattr(c, n)\n"
        "qt = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'PyQt5', 'PyQt6'))\n"
        "print(qt)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_desktop_imports_core_only_through_the_door():
    """The desktop imports the door's names (``botmemory.core.ops``) and the routes' server, nothing else of core
    — not a module, not a name the surface keeps only for old callers."""
    from botmemory.core import ops

    bad = []
    for path in sorted(DESKTOP.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            rel = path.relative_to(ROOT)
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == "botmemory.core.ops":
                    bad += [f"{rel}: from botmemory.core.ops import {a.name}" for a in node.names
                            if a.name not in ops.__all__]
                elif node.module == "botmemory.core":
                    bad += [f"{rel}: from botmemory.core import {a.name}" for a in node.names
                            if a.name != "ops" and (a.name not in surface.__all__ or a.name in _MODULE_NAMES)]
                elif node.module.startswith("botmemory.core."):
                    bad.append(f"{rel}: from {node.module} import ...")
            elif isinstance(node, ast.Import):
                bad += [f"{rel}: import {a.name}" for a in node.names if a.name.startswith("botmemory.core.")]
    assert bad == []


def test_the_desktop_guard_catches_a_reach_below_the_door(monkeypatch):
    """The desktop check is not vacuous: ``agents_view`` calling ``redact_file`` (below ``ops``) is caught."""
    real = Path.read_text
    probe = DESKTOP / "agents_view.py"

    def read(self: Path, encoding: str | None = None) -> str:
        if self == probe:
            return "from botmemory.core import redact_file\nfrom botmemory.core.ops.folders import refuse\n"
        return real(self, encoding=encoding)

    monkeypatch.setattr(Path, "read_text", read)
    with pytest.raises(AssertionError, match="redact_file"):
        test_the_desktop_imports_core_only_through_the_door()


def test_the_surface_lists_what_it_exports():
    assert sorted(surface.__all__) == sorted(surface._NAMES)
    assert len(set(surface.__all__)) == len(surface.__all__)
    top = {p.stem for p in CORE.glob("*.py")} | set(WINGS) | set(MOVED)
    assert not set(surface.__all__) & top, "a public name may not hide a wing or module of the same name"
    for name in surface.__all__:
        assert getattr(surface, name) is not None


def test_the_door_lists_what_it_exports():
    from botmemory.core import ops

    assert sorted(ops.__all__) == sorted(ops._NAMES)
    assert len(set(ops.__all__)) == len(ops.__all__)
    assert not set(ops.__all__) & {p.stem for p in (CORE / "ops").glob("*.py")}, \
        "a name of the door may not hide a module of the ops wing"
    for name in ops.__all__:
        assert getattr(ops, name) is not None


def test_the_surface_loads_lazily():
    """Importing the package loads only the door's name table (ops) and the finder of the old module paths
    (base.moved), nothing of the rules."""
    code = "import sys, botmemory.core\nprint(sorted(m for m in sys.modules if m.startswith('botmemory.core.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(["botmemory.core.base", "botmemory.core.base.moved", "botmemory.core.ops"])


# The callers at the top (the CLI's commands, the MCP tools, the routes, the hooks, the desktop) write and
# read through the operations (core/ops.py), never the mechanisms under them. The demo builder seeds a home
# (a daily log, an import) and is left out.
_MECHANISMS = ("store.apply(", "store.write(", "store.delete(", "mem.undo(", "update.remember(", "update.forget(",
               "update.prefer(", "update.move_overflow(", "recall.recall(", "recall.search(", "tidy_now(")


def test_the_callers_go_through_the_operations():
    callers = [CORE / "faces" / f"{m}.py" for m in ("commands", "mcp_tools", "routes", "hooks")]
    callers += [p for p in sorted(DESKTOP.rglob("*.py")) if p.name != "demo.py"]
    bad = []
    for path in callers:
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            bad += [f"{path.relative_to(ROOT)}:{no}: {m}" for m in _MECHANISMS
                    if m in code and f"def {m}" not in code and f".{m}" not in code.replace(f"mem.{m}", "")]
    assert bad == []


def _desktop_imports() -> dict[str, set[str]]:
    """Each desktop module -> the desktop modules it imports anywhere in the file (lazy imports too)."""
    names = {p.stem for p in DESKTOP.glob("*.py")}
    out: dict[str, set[str]] = {}
    for path in DESKTOP.glob("*.py"):
        mods: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                mods |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        out[path.stem] = (mods & names) - {path.stem}
    return out


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    found = []
    for start in sorted(graph):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    found.append([*path, nxt])
                elif nxt not in path and nxt > start:   # each circle once, from its smallest module
                    stack.append((nxt, [*path, nxt]))
    return found


def test_the_desktop_modules_import_no_circle():
    """The panel imports its parts, the parts never the panel (once, welcome imported panel for pretty_path)."""
    assert [" -> ".join(c) for c in _circles(_desktop_imports())] == []


def test_the_circle_guard_finds_a_circle():
    assert _circles({"panel": {"welcome"}, "welcome": {"panel", "wording"}, "wording": set()}) == [
        ["panel", "welcome", "panel"]]
