"""The old module paths (before core moved into wings) still import for one release, with a warning."""
from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from botmemory.core.base.moved import MOVED, WING_WAS


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_is_the_moved_module_itself(old):
    new = importlib.import_module(f"botmemory.core.{MOVED[old]}")
    sys.modules.pop(f"botmemory.core.{old}", None)
    with pytest.warns(DeprecationWarning, match=f"botmemory.core.{old} moved to botmemory.core.{MOVED[old]}"):
        got = importlib.import_module(f"botmemory.core.{old}")
    assert got is new


@pytest.mark.parametrize("wing", sorted(WING_WAS))
def test_a_wing_forwards_the_names_of_the_module_that_had_its_path(wing):
    inner = importlib.import_module(f"botmemory.core.{WING_WAS[wing]}")
    package = importlib.import_module(f"botmemory.core.{wing}")
    door = set(getattr(package, "_NAMES", ()))     # the ops wing's own names are not old ones
    public = next(n for n in dir(inner) if not n.startswith("_") and callable(getattr(inner, n)) and n not in door)
    with pytest.warns(DeprecationWarning, match=f"{wing}.{public} moved"):
        assert getattr(package, public) is getattr(inner, public)
    with pytest.raises(AttributeError):
        package.no_such_name_anywhere  # noqa: B018


def test_old_imports_work_in_a_fresh_interpreter():
    code = ("import warnings; warnings.simplefilter('error')\n"
            "from botmemory.core.store import journal\n"             # a module of the wing: no warning
            "warnings.simplefilter('ignore')\n"
            "from botmemory.core.update import remember\n"
            "from botmemory.core.store import Store\n"
            "import botmemory.core.recall_index as i, botmemory.core.recall.index as j\n"
            "assert i is j and Store.__module__ == 'botmemory.core.store.writer'\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_wings_names_every_folder_of_core():
    """The door's names never hide a wing (core/__init__.py leaves out those named as one): the list
    must name every wing there is."""
    from pathlib import Path

    from botmemory.core.base.moved import WINGS

    core = Path(importlib.import_module("botmemory.core").__file__).parent
    folders = {p.name for p in core.iterdir() if (p / "__init__.py").is_file()}
    assert set(WINGS) == folders


@pytest.mark.parametrize("old", sorted(importlib.import_module("botmemory.core")._REPLACED))
def test_an_old_surface_name_warns_naming_what_to_use_and_that_exists(old):
    """``botmemory.core.session_search`` still works for a release, and its warning names a replacement a
    caller can reach: a name of the surface, or the door's (``ops.search``: ``botmemory.core.search`` is the
    recall wing's old module path)."""
    import re
    import warnings

    core = importlib.import_module("botmemory.core")
    core.__dict__.pop(old, None)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        assert getattr(core, old) is not None
    said = [str(w.message) for w in got if issubclass(w.category, DeprecationWarning)]
    assert len(said) == 1 and f"botmemory.core.{old} is not part of the surface" in said[0]
    instead = re.search(r"; use (\S+)", said[0]).group(1)
    name = instead.removeprefix("ops.")
    if instead.startswith("ops."):
        assert name not in core.__all__ and callable(getattr(core.ops, name))
    elif not instead.endswith(")"):   # "gauge (FolderGauge.secrets)" names a field of what gauge returns
        assert name in core.__all__, f"the warning of {old} names {name}, which botmemory.core does not have"


def test_every_old_surface_name_still_resolves():
    """The names of the surface before round 3 resolve for one release — each to what its module has now
    (the modules moved into wings; a table entry left pointing at the old place would fail here)."""
    import warnings

    core = importlib.import_module("botmemory.core")
    broken = []
    for name in sorted(core._OLD):
        core.__dict__.pop(name, None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                getattr(core, name)
            except (ImportError, AttributeError) as e:
                broken.append(f"{name}: {e}")
    assert broken == []
