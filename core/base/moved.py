"""Old import paths, kept working for one release after core moved into wings (round 3).

Until round 3 every core module sat in one folder (``botmemory.core.update``); now each lives in
its wing (``botmemory.core.notes.update``). As beets did when it split its library, the old paths
still import, for one release, with a ``DeprecationWarning`` naming the new one:

- a module whose old name is free (``botmemory.core.update``) is the new module itself, found by
  :class:`MovedModules` on ``sys.meta_path`` (the same module object, so patching one patches both);
- a module whose old name is now its wing (``botmemory.core.store`` was the writer, now the
  ``store`` wing) forwards the old module's names from the wing's ``__getattr__`` (:func:`forward`).

Nothing inside core uses the old paths; ``tests/core/base/test_moved.py`` checks both kinds.
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from types import ModuleType

RELEASE = "0.3"   # the old paths go in this release

# old module under botmemory.core -> its new place (names that are now a wing are forwarded by the wing)
MOVED: dict[str, str] = {
    "log": "base.log", "record": "base.record", "errors": "base.errors", "wording": "base.wording",
    "words": "text.words", "frontmatter": "text.frontmatter", "entries": "text.entries", "diff": "text.diff",
    "budget": "text.budget",
    "paths": "disk.paths", "nofollow": "disk.nofollow", "safeio": "disk.safeio", "config": "disk.config",
    "tracked": "kinds.tracked",
    "journal": "store.journal", "shadows": "store.shadows", "memory": "store.memory", "files": "store.files",
    "loader": "notes.loader", "update": "notes.update", "profile": "notes.about_me",
    "passages": "recall.passages", "ranking": "recall.ranking", "index_build": "recall.build",
    "recall_index": "recall.index", "search": "recall.search",
    "reconcile": "outside.reconcile", "turns": "outside.turns", "watcher": "outside.watcher",
    "helper": "upkeep.helper", "tidy": "upkeep.tidy", "filing": "upkeep.topics", "organize": "upkeep.organize",
    "capture_queue": "upkeep.capture_queue", "capture_checks": "upkeep.capture_checks", "capture": "upkeep.capture",
    "agents": "ops.folders",
    "quick": "faces.entry", "cli": "faces.cli", "commands": "faces.commands", "routes": "faces.routes",
    "server": "faces.server", "mcp_tools": "faces.mcp_tools", "mcp_server": "faces.mcp_server",
    "hooks": "faces.hooks", "connect": "ops.connect",
}
# old module whose name is now a wing -> the module its names moved to
WING_WAS: dict[str, str] = {
    "store": "store.writer", "recall": "recall.query", "upkeep": "upkeep.schedule", "ops": "ops.operations",
}

WINGS = ("base", "redact", "text", "disk", "kinds", "store", "notes", "recall", "outside", "upkeep", "brief", "sync",
         "team", "ops", "faces")
"""Every wing of core (tests/core/base/test_moved.py checks it against the folders)."""

CORE = __name__.rsplit(".", 2)[0]   # botmemory.core

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.abc import Loader as _Loader  # 16 ms to import: only for the type checker
else:
    _Loader = object


def _warn(old: str, new: str) -> None:
    import warnings

    warnings.warn(f"{CORE}.{old} moved to {CORE}.{new}; the old path goes in release {RELEASE}",
                  DeprecationWarning, stacklevel=3)


class MovedModules(_Loader):
    """A finder and loader on ``sys.meta_path`` that answers an old module path with the moved module."""

    prefix = CORE + "."

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if fullname.startswith(self.prefix) and fullname[len(self.prefix):] in MOVED:
            return ModuleSpec(fullname, self)
        return None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        old = spec.name[len(self.prefix):]
        _warn(old, MOVED[old])
        return importlib.import_module(f"{CORE}.{MOVED[old]}")

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the moved module ran when it was imported under its new name."""


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (``botmemory.core`` does on import)."""
    if not any(isinstance(f, MovedModules) for f in sys.meta_path):
        sys.meta_path.append(MovedModules())


def _is_submodule(wing: str, name: str) -> bool:
    """Is *name* a module or package inside *wing* (``from ..ops import find`` asks the wing first)."""
    import os.path

    package = sys.modules.get(f"{CORE}.{wing}")
    return any(os.path.isfile(os.path.join(d, name + ".py")) or os.path.isdir(os.path.join(d, name))
               for d in getattr(package, "__path__", ()))


def forward(wing: str) -> Callable[[str], object]:
    """A wing's ``__getattr__``: a name of the module that used to be at the wing's path, from where it is now."""
    old_home = WING_WAS[wing]

    def __getattr__(name: str) -> object:
        if name.startswith("__") or _is_submodule(wing, name):   # a module of the wing: the import system's
            raise AttributeError(name)
        module = importlib.import_module(f"{CORE}.{old_home}")
        try:
            value = getattr(module, name)
        except AttributeError:
            raise AttributeError(f"module '{CORE}.{wing}' has no attribute {name!r}") from None
        _warn(f"{wing}.{name}", f"{old_home}.{name}")
        return value

    return __getattr__
