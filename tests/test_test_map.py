"""Every module has its tests: its own test file in the mirrored folder, or a line in tests/test_map.txt.

Tests mirror the wings: core/<wing>/<module>.py is tested in tests/core/<wing>/test_<module>.py, and
desktop/<module>.py in tests/desktop/test_<module>.py. A module tested through others (a package's
``__init__``, a small helper, one stage of a pipeline) has a line in tests/test_map.txt naming the test files
that cover it and why. This test fails naming any module with neither, and any line of the map that points at
a module or a test file that no longer exists (or at a module that now has a test file of its own).
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "tests" / "test_map.txt"


def modules() -> list[str]:
    """Every module of core/ and desktop/, as a path from the repository's root."""
    return sorted(p.relative_to(ROOT).as_posix() for top in ("core", "desktop") for p in (ROOT / top).rglob("*.py")
                  if "__pycache__" not in p.parts)


def own_test(module: str) -> str:
    """The test file a module would have in the mirrored folder: core/x/y.py -> tests/core/x/test_y.py."""
    p = Path(module)
    return (Path("tests") / p.parent / f"test_{p.stem}.py").as_posix()


def read_map(text: str) -> tuple[dict[str, tuple[list[str], str]], list[str]]:
    """The map's lines as {module: ([test files], why)}, and the problems of its form."""
    entries: dict[str, tuple[list[str], str]] = {}
    problems: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        body, _, why = line.partition("#")
        module, colon, tests = body.partition(":")
        module, files = module.strip(), tests.split()
        if not colon or not files:
            problems.append(f"line {n}: not 'MODULE: TEST_FILE ...  # why': {raw!r}")
        elif not why.strip():
            problems.append(f"line {n}: {module} says no why")
        elif module in entries:
            problems.append(f"line {n}: {module} is in the map twice")
        else:
            entries[module] = (files, why.strip())
    return entries, problems


def check(root: Path, mods: list[str], text: str) -> list[str]:
    entries, problems = read_map(text)
    for m in mods:
        own = (root / own_test(m)).is_file()
        if not own and m not in entries:
            problems.append(f"{m}: no {own_test(m)} and no line in tests/test_map.txt")
        if own and m in entries:
            problems.append(f"{m}: has {own_test(m)}; its line in tests/test_map.txt goes")
    for m, (files, _why) in entries.items():
        if m not in mods:
            problems.append(f"tests/test_map.txt names {m}, which is no module (any more)")
        for f in files:
            if not (Path(f).name.startswith("test_") and f.endswith(".py") and (root / f).is_file()):
                problems.append(f"tests/test_map.txt: {m} -> {f}, which is no test file (any more)")
    return problems


def test_every_module_has_its_tests():
    problems = check(ROOT, modules(), MAP.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


def test_the_map_is_not_most_of_the_tree():
    """Sanity: the walk finds the modules, and most have a test file of their own or a short list."""
    mods = modules()
    entries, _ = read_map(MAP.read_text(encoding="utf-8"))
    assert len(mods) > 100 and "core/store/journal.py" in mods and "desktop/app.py" in mods
    assert all(len(files) <= 4 for files, _ in entries.values())


def test_the_check_names_what_is_missing_and_what_is_stale(tmp_path):
    (tmp_path / "core" / "w").mkdir(parents=True)
    (tmp_path / "tests" / "core" / "w").mkdir(parents=True)
    for f in ("core/w/a.py", "core/w/b.py", "core/w/c.py", "tests/core/w/test_a.py", "tests/core/w/test_other.py"):
        (tmp_path / f).write_text("")
    mods = ["core/w/a.py", "core/w/b.py", "core/w/c.py"]
    text = ("# a comment\n"
            "core/w/b.py: tests/core/w/test_other.py  # b is a helper of a\n"
            "core/w/a.py: tests/core/w/test_other.py  # stale: a has its own\n"
            "core/w/gone.py: tests/core/w/test_other.py  # removed module\n"
            "core/w/b.py: tests/core/w/test_gone.py  # twice\n")
    problems = check(tmp_path, mods, text)
    assert problems == [
        "line 5: core/w/b.py is in the map twice",
        "core/w/a.py: has tests/core/w/test_a.py; its line in tests/test_map.txt goes",
        "core/w/c.py: no tests/core/w/test_c.py and no line in tests/test_map.txt",
        "tests/test_map.txt names core/w/gone.py, which is no module (any more)",
    ]
    assert check(tmp_path, mods, "core/w/b.py: tests/core/w/test_gone.py  # why\n"
                                 "core/w/c.py: tests/core/w/test_other.py\n") == [
        "line 2: core/w/c.py says no why",
        "core/w/c.py: no tests/core/w/test_c.py and no line in tests/test_map.txt",
        "tests/test_map.txt: core/w/b.py -> tests/core/w/test_gone.py, which is no test file (any more)",
    ]
