"""Fuzzed positions: refused with a PositionError, or accepted and safe to play.

Mutations of positions from seeded random games of every preset (and house-rule variants),
and every integer field at extreme values (see :mod:`tests.position_fuzz`): each case is
refused, or prints back to the same state and plays :data:`~tests.position_fuzz.STEPS`
random decisions with the invariants checked after each. A small in-process subset runs
in the normal suite; ``make fuzz`` (``pytest -m fuzz``) runs thousands of cases, each in a
child process with a timeout, so a crash or a hang is a reported failure.
"""

from __future__ import annotations

import itertools

import pytest

from tests.position_fuzz import (
    VARIANTS,
    Result,
    Worker,
    extreme_cases,
    mutation_cases,
    run_case,
    sampled_positions,
)


def _failures(cases: list[tuple[str, str]], results: list[Result]) -> list[str]:
    return [
        f"{r.outcome} [{variant}] {text}\n  {r.detail}"
        for (variant, text), r in zip(cases, results, strict=True)
        if r.failed
    ]


def test_sampled_positions_cover_every_variant_and_are_accepted() -> None:
    for variant in VARIANTS:
        positions = sampled_positions(variant)
        assert len(positions) >= 10, variant
        for text in positions[:: max(1, len(positions) // 5)]:
            result = run_case(variant, text)
            assert result.outcome == "accepted", f"[{variant}] {text}: {result.outcome} {result.detail}"


def test_mutated_positions_in_process() -> None:
    cases = list(mutation_cases(400, seed=7))
    results = [run_case(variant, text, 7) for variant, text in cases]
    assert not _failures(cases, results), "\n".join(_failures(cases, results)[:5])
    outcomes = {r.outcome for r in results}
    assert outcomes == {"accepted", "refused"}  # the sample exercises both sides


def test_extreme_fields_in_process() -> None:
    cases = list(extreme_cases(300, seed=7))
    results = [run_case(variant, text, 7) for variant, text in cases]
    assert not _failures(cases, results), "\n".join(_failures(cases, results)[:5])


def test_the_worker_reports_crashes_and_hangs() -> None:
    """The harness itself: a child that dies or stops answering is a failure, not a lost run."""
    worker = Worker(timeout=5.0)
    try:
        assert worker.run("uno", "not a position").outcome == "refused"
        crashed = worker.run("__crash__", "")
        assert crashed.outcome == "crash" and crashed.failed
        hung = worker.run("__hang__", "")
        assert hung.outcome == "hang" and hung.failed
        assert worker.run("uno", sampled_positions("uno")[0]).outcome == "accepted"  # a new child
    finally:
        worker.close()


@pytest.mark.fuzz
def test_fuzzed_positions_in_child_processes() -> None:
    """5,000 mutated and 2,000 extreme-field positions, each in a child process with a timeout."""
    cases = list(itertools.chain(mutation_cases(5_000, seed=11), extreme_cases(2_000, seed=11)))
    worker = Worker(timeout=20.0)
    try:
        results = [worker.run(variant, text, 11) for variant, text in cases]
    finally:
        worker.close()
    failures = _failures(cases, results)
    assert not failures, f"{len(failures)} failures, e.g.\n" + "\n".join(failures[:5])
