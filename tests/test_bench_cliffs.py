"""The cliff table of ``make bench`` (benchmarks/rows_cliffs.py, bench_engine.py): it covers
every rule switch and preset, and its multiples and checks come out right.

Nothing here times anything (speed is measured by the benchmarks, never in tests): the
table and the target checks are computed from made-up runs.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import uno_env
from uno_env.engine import options as O

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> Iterator[tuple[ModuleType, ModuleType, ModuleType]]:
    """The benchmark modules (their folder on ``sys.path`` while the tests run)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        load = importlib.import_module
        yield load("bench_engine"), load("registry"), load("rows_cliffs")
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_every_switch_and_preset_has_a_case(bench: tuple[ModuleType, ModuleType, ModuleType]) -> None:
    _, _, rows_cliffs = bench
    cases = rows_cliffs.cases()
    assert cases[0].label == rows_cliffs.BASE_LABEL and cases[0].overrides == {}
    set_fields = {name for case in cases for name in case.overrides}
    base = uno_env.preset("uno")
    for f in dataclasses.fields(base):
        switch = isinstance(f.default, bool) or f.metadata["choices"] is not None
        featured = any(feature != O.UNO_DECK_ONLY for feature in f.metadata["features"])
        if (switch or featured) and f.name not in rows_cliffs.SKIPPED_FIELDS:
            assert f.name in set_fields, f"rule field {f.name} has no case in the cliff table"
    for f in dataclasses.fields(base):
        if f.metadata["choices"] is not None and f.name not in rows_cliffs.SKIPPED_FIELDS:
            for value in f.metadata["choices"]:
                if value != getattr(base, f.name):
                    assert any(c.overrides.get(f.name) == value for c in cases), (f.name, value)
    labels = [c.label for c in cases]
    assert len(labels) == len(set(labels))
    for name in uno_env.PRESETS:
        assert f"preset {name}" in labels
    for case in cases:
        case.rules()  # every case is a valid rule set


def _cell(
    bench_engine: ModuleType, registry: ModuleType, policy: str, case: str, kind: str, ns: list[float]
) -> object:
    row = registry.Row(
        f"cliff {policy}: {case}",
        bench_engine.CLIFF_GROUP,
        (2,),
        lambda n, s, seed: {},
        meta=(("policy", policy), ("case", case), ("kind", kind)),
    )
    cell = bench_engine.Cell(row, 2, "cpu")
    # one decision per run, taking ``ns`` nanoseconds of CPU
    cell.runs = [{"steps": 1.0, "games": 1.0, "seconds": x * 1e-9, "cpu_seconds": x * 1e-9} for x in ns]
    return cell


def test_the_cliff_table_divides_by_official_uno_of_the_same_player(
    bench: tuple[ModuleType, ModuleType, ModuleType],
) -> None:
    bench_engine, registry, _ = bench
    cells = [
        _cell(bench_engine, registry, "random_playable", "preset uno", "base", [100.0, 110.0, 90.0]),
        _cell(bench_engine, registry, "random_playable", "runs=true", "switch", [140.0, 150.0, 145.0]),
        _cell(bench_engine, registry, "random_playable", "preset macao", "preset", [300.0, 300.0, 300.0]),
        _cell(bench_engine, registry, "random_legal", "preset uno", "base", [50.0, 50.0, 50.0]),
        _cell(bench_engine, registry, "random_legal", "runs=true", "switch", [80.0, 80.0, 80.0]),
    ]
    lines, checks = bench_engine.render_cliffs(cells)
    text = "\n".join(lines)
    assert "| runs=true | switch | 145.0 | 6.9% | 1.45x | 80.0 | 0.0% | 1.60x |" in text
    assert "| preset macao | preset | 300.0 | 0.0% | 3.00x |  |  |  |" in text
    by_policy = {c.policy: c for c in checks}
    assert by_policy["random_playable"].passed and by_policy["random_playable"].worst == pytest.approx(1.45)
    assert not by_policy["random_legal"].passed  # 1.6x: above the limit
    assert by_policy["random_legal"].worst_case == "runs=true"
    assert "FAIL" in by_policy["random_legal"].line() and "1.60x" in by_policy["random_legal"].line()


def test_a_games_target_compares_games_per_second(bench: tuple[ModuleType, ModuleType, ModuleType]) -> None:
    bench_engine, registry, _ = bench
    ours = bench_engine.Cell(registry.Row("ours", "batch", (2,), lambda n, s, seed: {}, key="ours"), 2, "cpu")
    theirs = bench_engine.Cell(
        registry.Row("theirs", "rlcard", (2,), lambda n, s, seed: {}, key="theirs", ours=False), 2, "cpu"
    )
    # ours: 10 steps a game, 1,000 and 1,200 games per CPU second; theirs: 50 steps a game, 30 and 40
    ours.runs = [{"steps": 10_000.0, "games": 1_000.0, "seconds": 1.0, "cpu_seconds": 1.0},
                 {"steps": 12_000.0, "games": 1_200.0, "seconds": 1.0, "cpu_seconds": 1.0}]  # fmt: skip
    theirs.runs = [{"steps": 1_500.0, "games": 30.0, "seconds": 1.0, "cpu_seconds": 1.0},
                   {"steps": 2_000.0, "games": 40.0, "seconds": 1.0, "cpu_seconds": 1.0}]  # fmt: skip
    target = registry.Target("games >= 30x", "ours", 30.0, "theirs", unit="games")
    checks, unchecked = bench_engine.check_targets([target], [ours, theirs])
    assert not unchecked and len(checks) == 1
    assert checks[0].value == pytest.approx(1_100 / 35)  # medians of the games per second
    assert checks[0].spread == pytest.approx((1_000 / 40, 1_200 / 30))
    assert checks[0].passed
    assert "31.4x in games/s (runs 25.0x-40.0x)" in checks[0].line()
