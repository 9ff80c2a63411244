"""The benchmark scripts a user runs by hand: without RLCard and OpenSpiel installed (the ``bench``
extra) each says which package is missing and how to install it, instead of a traceback; the
row modules run alone answer ``--help``.

The engines are hidden by a ``None`` entry in ``sys.modules`` (an import of it fails as if it were not
installed), so these run the same whether or not the extra is installed. Nothing is timed.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
INSTALL = "pip install -e '.[bench]'"


@pytest.fixture
def hidden_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    """RLCard and OpenSpiel unimportable, and the benchmark folder on ``sys.path``."""
    for name in ("rlcard", "rlcard.games", "rlcard.games.uno", "rlcard.games.uno.game", "pyspiel"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.syspath_prepend(str(BENCHMARKS))


@pytest.mark.usefixtures("hidden_engines")
@pytest.mark.parametrize(
    ("engine", "package"),
    [
        ("rlcard_engine", "rlcard==1.2.0"),
        ("rlcard_env", "rlcard==1.2.0"),
        ("openspiel_crazy_eights", "open-spiel"),
    ],
)
def test_a_missing_engine_names_its_package_and_the_install(engine: str, package: str) -> None:
    """bench_engine.py shows a reference row's ImportError as its skip reason: it must say what to install."""
    baselines = importlib.import_module("baselines")
    with pytest.raises(ImportError) as raised:
        getattr(baselines, engine)(2, 0.01, 0)
    message = str(raised.value)
    assert "is not installed" in message and INSTALL in message and package in message


@pytest.mark.usefixtures("hidden_engines")
def test_baselines_script_prints_the_missing_engines_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    baselines = importlib.import_module("baselines")
    assert baselines.main(["--seconds", "0.01", "--no-pin"]) == 1
    out = capsys.readouterr().out
    skipped = [line for line in out.splitlines() if "skipped:" in line]
    assert len(skipped) == 6  # three engines at 2 and 4 players
    assert all(INSTALL in line for line in skipped)
    assert "rlcard" in skipped[0] and "open-spiel" in skipped[-1]


@pytest.mark.usefixtures("hidden_engines")
def test_rlcard_differential_without_rlcard_says_so_before_playing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    differential = importlib.import_module("rlcard_differential")
    assert differential.main(["--games", "10"]) == 2
    err = capsys.readouterr().err
    assert "rlcard is not installed" in err and INSTALL in err and "rlcard==1.2.0" in err


@pytest.mark.parametrize("script", ["rows_agents.py", "rows_study.py"])
def test_benchmark_rows_run_alone_answer_help_without_timing(script: str) -> None:
    """``--help`` used to start the timing (rows_study.py: a million games), ignoring the option."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCHMARKS.parent), str(BENCHMARKS)])},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: ") and "decisions/s" not in done.stdout


def test_atlas_field_design_table_survives_an_interval_without_width(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rung that never won on the few deals of a small run has the interval [0, 0] in the "all"
    design: its ratio used to divide by zero (ZeroDivisionError after both runs had been played)."""
    pandas = pytest.importorskip("pandas")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    design = importlib.import_module("atlas_field_design")
    both = pandas.DataFrame(
        {
            "variant": ["uno", "uno"],
            "players": [2, 2],
            "measure": ["field:random_legal", "field:greedy"],
            "value_all": [0.0, 0.5],
            "lo_all": [0.0, 0.4],
            "hi_all": [0.0, 0.6],
            "half_all": [0.0, 10.0],
            "value_one": [0.02, 0.5],
            "lo_one": [0.0, 0.45],
            "hi_one": [0.1, 0.55],
            "half_one": [5.0, 5.0],
        }
    )
    design.print_table(both, [2])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].endswith("| ±0.00 | 2.0% [0.0, 10.0] | ±5.00 | n/a |")
    assert lines[3].endswith("| 0.50 |")
    assert lines[4] == "2 players, every rung against the field: median half-width ratio one/all 0.50"
