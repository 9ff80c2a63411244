"""Fuzzed exported-policy files: refused in one line naming the file, or accepted and playable.

Hostile sidecars and arrays, wrong counts, huge headers, zip bombs and special files made
from valid base policies (see :mod:`tests.policy_fuzz`): ``load_exported`` and
``agents.make`` agree on each, a refusal is one :class:`~uno_env.sim.learned.PolicyFileError`
line naming the file, an accepted policy plays in the compiled simulator with the invariants
checked, and no load allocates more than :func:`~tests.policy_fuzz.memory_bound`. A small
in-process subset runs in the normal suite; ``make fuzz`` (``pytest -m fuzz``) runs 5,000
cases, each in a child process with a timeout, so a crash or a hang is a reported failure.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.policy_fuzz import Result, Worker, cases, make_bases, memory_bound, run_case


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_bases(tmp_path_factory.mktemp("bases"), seed=5)


@pytest.fixture
def traced() -> Iterator[None]:
    tracemalloc.start()
    yield
    tracemalloc.stop()


def test_the_base_policies_are_accepted_and_play(bases: dict[str, Path], traced: None) -> None:
    bound = memory_bound(bases)
    for path in bases.values():
        result = run_case(path, bound)
        assert result.outcome == "accepted", (path.name, result.detail)


def test_hostile_policy_files_in_process(bases: dict[str, Path], tmp_path: Path, traced: None) -> None:
    bound = memory_bound(bases)
    results: list[tuple[str, Result]] = []
    for _, path, edits in cases(tmp_path, bases, 160, seed=5):
        results.append((edits, run_case(path, bound)))
    failures = [f"{r.outcome} [{edits}] {r.detail}" for edits, r in results if r.failed]
    assert not failures, "\n".join(failures[:5])
    assert {r.outcome for _, r in results} == {"accepted", "refused"}  # both sides are exercised
    assert max(r.peak for _, r in results) <= bound


def test_the_worker_reports_crashes_and_hangs(bases: dict[str, Path]) -> None:
    """The harness itself: a child that dies or stops answering is a failure, not a lost run."""
    worker = Worker(memory_bound(bases), timeout=5.0)
    try:
        assert worker.run(bases["uno_2p"]).outcome == "accepted"
        crashed = worker.run("__crash__")
        assert crashed.outcome == "crash" and crashed.failed
        hung = worker.run("__hang__")
        assert hung.outcome == "hang" and hung.failed
        assert worker.run(bases["macao_4p"]).outcome == "accepted"  # a new child took over
    finally:
        worker.close()


@pytest.mark.fuzz
def test_fuzzed_policy_files_in_child_processes(bases: dict[str, Path], tmp_path: Path) -> None:
    """5,000 hostile policy files, each in a child process with a timeout."""
    worker = Worker(memory_bound(bases), timeout=20.0)
    failures: list[str] = []
    try:
        for _, path, edits in cases(tmp_path, bases, 5_000, seed=11):
            result = worker.run(path)
            if result.failed:
                failures.append(f"{result.outcome} [{edits}] {result.detail}")
    finally:
        worker.close()
    assert not failures, f"{len(failures)} failures, e.g.\n" + "\n".join(failures[:5])
