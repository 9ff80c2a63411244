"""One home for the set-up timings.

``benchmarks/setup_timings.py`` times ``make demo`` and ``make test`` from a fresh clone and
writes ``benchmarks/setup_timings.json``; the README and the getting-started page quote the
table it renders, word for word. The Makefile's banner makes no timing claim of its own (it
points at the README), and the wheel instructions write to ``dist/``, which git ignores.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("setup_timings", ROOT / "benchmarks" / "setup_timings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


timings = load_script()


@pytest.mark.parametrize("page", timings.PAGES, ids=lambda p: p.name)
def test_the_pages_quote_the_measured_table(page: Path) -> None:
    data = json.loads(timings.RESULTS.read_text(encoding="utf-8"))
    assert timings.quoted(page.read_text(encoding="utf-8"), page) == timings.markdown_table(data)


def test_the_measurement_covers_both_targets_from_a_fresh_clone() -> None:
    data = json.loads(timings.RESULTS.read_text(encoding="utf-8"))
    runs = {run["target"]: run for run in data["runs"]}
    assert set(runs) == {"demo", "test"}
    assert all(run["exit"] == 0 for run in runs.values())
    assert any("passed" in line for line in runs["test"]["tests"])
    names = [p["name"] for p in runs["demo"]["phases"]]
    assert any("compiling" in n for n in names) and any("study" in n for n in names)
    # every run states the machine's load
    assert all({"min", "mean", "max"} <= set(run["load"]) for run in runs.values())


def test_the_table_renders_phases_tests_and_load() -> None:
    data = {
        "date": "2026-12-04 22:00 UTC",
        "commit": "abc1234",
        "machine": {"cpus": 2, "python": "3.11.7"},
        "load_before": [3.0, 3.0, 3.0],
        "runs": [
            {
                "target": "test",
                "exit": 0,
                "seconds": 1330.4,
                "cpu_seconds": 2100.0,
                "phases": [
                    {"name": "ruff", "seconds": 12.0},
                    {"name": "the tests on 2 workers", "seconds": 900},
                ],
                "tests": ["3204 passed, 1 skipped in 900.00s (0:15:00)"],
                "load": {"min": 8.0, "mean": 14.2, "max": 22.5},
            }
        ],
        "quick_start": {"cold": 80.0, "warm": 2.9},
    }
    table = timings.markdown_table(data)
    assert (
        "| `make test` | 22 min 10 s (2,100 s of CPU) | ruff 12 s, the tests on 2 workers 15 min 0 s" in table
    )
    assert "(3204 passed, 1 skipped in 900.00s (0:15:00)) | load average 8-22 (mean 14) |" in table
    assert "| the quick start, warm | 2.9 s | | |" in table
    assert "above 2 the machine was busy" in table


def test_the_makefile_banner_makes_no_timing_claim() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    banner = [line for line in makefile.splitlines() if line.strip().startswith("@echo")]
    assert banner
    claims = [line for line in banner if re.search(r"\d+\s*(s|sec|seconds|min|minutes)\b", line)]
    assert claims == [], "the banner's timings live in the README's Timings table"
    assert any("README.md, Timings" in line for line in banner)


def test_wheels_go_to_an_ignored_dist_folder() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip wheel --no-deps --wheel-dir dist" in readme
    assert "pip wheel ." not in readme
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "dist/uno_env-0.1.0-cp311-cp311-linux_x86_64.whl"], cwd=ROOT
    )
    assert ignored.returncode == 0


def test_each_phase_starts_at_its_command_not_at_output_naming_it() -> None:
    """pip's warnings name packages (``.../simple/mypy/``, ``.../simple/ruff/``): only the
    commands ``make`` echoes start a phase, so the install's time is not booked to mypy."""

    def phase(line: str) -> str | None:
        return next((name for p, name in timings.PHASES["test"] if re.search(p, line)), None)

    assert phase("WARNING: Location 'file:///opt/pypi-more/simple/mypy/' is ignored") is None
    assert phase("WARNING: Location 'file:///opt/pypi-more/simple/ruff/' is ignored") is None
    assert phase(".venv/bin/mypy benchmarks examples") == "mypy"
    assert phase(".venv/bin/ruff check uno_env agents") == "ruff"
    assert phase("NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet") == "the docs build"
    assert phase("NUMBA_DISABLE_JIT=1 .venv/bin/pytest -q -n 2 tests/test_rules_uno.py") == (
        "the rule scenarios uncompiled"
    )
    assert phase(".venv/bin/pytest -q --nbmake notebooks") == "the notebooks"
    assert phase("python3 -m venv .venv") == "`.venv` with every extra"
