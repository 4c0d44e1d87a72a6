"""Every benchmark script runs, at its tiny size, so that none can rot.

A benchmark measures; the suite never asserts a time. But a script that no longer runs (an import moved, an
operation renamed, an assert of its own that no longer holds) is found here: each ``benchmarks/bench_*.py`` runs
as a whole process with ``--tiny`` (benchmarks/_common.py: the same code paths at the smallest size, one run, a
tiny run's missed targets never an exit status of 1), in a home and temporary folder of the test's own, and must
exit 0 having printed its table — the line of it named in ``TABLE``, which the script prints only once it has
measured everything. The long ones are marked slow.
"""
from __future__ import annotations

import os
import py_compile
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REAL_HOME

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("bench_*.py"))

TABLE = {
    "bench_agents.py": r"^watch --once, 10 % changed, per file +[\d.]+ µs",
    "bench_agents_io.py": r"^hook UserPromptSubmit, 20 topics +[\d.]+ ",
    "bench_brief.py": r"^bytes one SessionStart hook with the brief reads: ",
    "bench_capture.py": r"^capture a batch, 3 filed \+ 3 skipped \(writes\) +[\d.]+",
    "bench_claude_code.py": r"^mcp: start to initialize answered +[\d.]+ ",
    "bench_core.py": r"^`botmemory gauge` as a process .* +[\d.]+ms +[\d.]+ms",
    "bench_crash.py": r"^ +3 +\d+ +0 +[\d.]+$",
    "bench_desktop.py": r"^panel open on a 500-row journal \(median of 1\) +\d+ ms",
    "bench_diff.py": r"^\| \d+ writes, after an outside edit each: with the check vs without \| ",
    "bench_journal.py": r"^\| `botmemory watch --once` as a command .* \| \d+ ms \| ",
    "bench_parse.py": r"^stem counting: [\d.]+ x as fast",
    "bench_paths.py": r"^remember into a 2 MB archive vs 100 KB +[\d.]+ +[\d.]+ +[\d.]+$",
    "bench_recall.py": r"^recall after one file changed +\d+ ms",
    "bench_recall_quality.py": r"^man-en-tiny +\d+ +3 +\d/3|^man-en-tiny: skipped",
    "bench_redact.py": r"^contains_secret on 5 ordinary topics .* ns a byte",
    "bench_redact_coverage.py": r"^false redactions on real prose: \d+ in [\d,]+ bytes",
    "bench_serve.py": r"^serve, until its first answer +\d+ ms",
    "bench_soak.py": r"^verdict: OK$",
    "bench_sync.py": r"^ +2 folders / 0 folders: ",
    "bench_team.py": r"^ +10 +[\d.]+ +[\d.]+ ",
    "bench_team_sync.py": r"^ +10 +\d+ +\d+ +\d+ +[\d.]+ +\d+ +\d+$",
    "bench_tidy.py": r"^tidy-up, moving and removing \(first night\) +[\d.]+",
}
"""A line of each script's table, as its tiny run prints it (a regular expression, one line)."""

SLOW = {"bench_agents.py", "bench_agents_io.py", "bench_claude_code.py", "bench_desktop.py",
        "bench_redact_coverage.py", "bench_soak.py", "bench_sync.py", "bench_team_sync.py"}
"""The tiny runs that take more than a few seconds here (each well under 20 s)."""

SAMPLE_RULES = ROOT / "tests" / "test_bench_redact_coverage.py"


def gitleaks_rules(tmp: Path) -> Path:
    """gitleaks' rules for bench_redact_coverage.py: the person's cached copy when there is one (the script's own
    default place, under the real home), else the rules written as gitleaks writes them that
    tests/test_bench_redact_coverage.py keeps — never a download."""
    cached = Path(REAL_HOME) / ".cache" / "botmemory" / "gitleaks.toml"
    if REAL_HOME and cached.is_file():
        return cached
    from tests.test_bench_redact_coverage import RULES

    (tmp / "gitleaks.toml").write_text(RULES, encoding="utf-8")
    return tmp / "gitleaks.toml"


def run_tiny(script: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    home = tmp / "home"
    temp = tmp / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BOTMEMORY_BENCH_TINY") and not k.startswith("XDG_")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_STATE_HOME=str(home / ".local/state"), XDG_CACHE_HOME=str(home / ".cache"), TMPDIR=str(temp),
               QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    home.mkdir()
    return subprocess.run([sys.executable, str(script), "--tiny", *args], cwd=tmp, env=env, capture_output=True,
                          text=True, timeout=180, check=False)


def test_there_are_benchmarks():
    assert len(SCRIPTS) >= 7


def test_every_benchmark_has_its_table_line():
    """A new benchmark comes with the line of its table that its tiny run must print."""
    names = {p.name for p in SCRIPTS}
    assert names == set(TABLE), f"missing: {sorted(names - set(TABLE))}; gone: {sorted(set(TABLE) - names)}"
    assert names >= SLOW


def test_tiny_mode_takes_the_flag_out_of_argv_and_passes_it_on(tmp_path):
    """``--tiny`` never reaches a script's own argument parser, and the script's children are tiny too."""
    probe = ("import os, sys; sys.path.insert(0, sys.argv[1]); import _common;"
             "print(_common.TINY, sys.argv[2:], os.environ.get('BOTMEMORY_BENCH_TINY'))")
    env = {k: v for k, v in os.environ.items() if k != "BOTMEMORY_BENCH_TINY"}
    out = [subprocess.run([sys.executable, "-c", probe, str(ROOT / "benchmarks"), *argv], capture_output=True,
                          text=True, check=True, env=env).stdout.strip() for argv in (["--tiny", "x"], ["x"])]
    assert out == ["True ['x'] 1", "False ['x'] None"]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_compiles(script, tmp_path):
    py_compile.compile(str(script), cfile=str(tmp_path / "out.pyc"), doraise=True)


def _params() -> list[object]:
    return [pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in SLOW else []) for p in SCRIPTS]


@pytest.mark.parametrize("script", _params())
def test_benchmark_runs_tiny(script, tmp_path):
    args: tuple[str, ...] = ()
    if script.name == "bench_redact_coverage.py":
        args = ("--rules", str(gitleaks_rules(tmp_path)))
    r = run_tiny(script, tmp_path, *args)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert re.search(TABLE[script.name], r.stdout, re.MULTILINE), f"its table's line is missing:\n{r.stdout[-3000:]}"
    assert not list((tmp_path / "home").iterdir()), \
        f"it wrote into the home: {sorted(p.name for p in (tmp_path / 'home').iterdir())}"
