"""Benchmark row: a study cell with a learned seat, compiled, through ``run_study``.

* ``study cell with a learned seat x 2 workers``: the requirement "a study cell with a learned
  seat at >= 20,000 games/s on 2 cores". One study cell: the ``uno`` preset at 2 players,
  the shipped policy ``distilled_uno_2p`` (an exported network: plain weights, forward pass
  compiled inside the batch simulator, batched across the games) against ``blocker`` in
  both seatings, 200,000 deals per seating (400,000 games), batches of at most 50,000 games
  on a pool of 2 worker processes, then the results and report. The row times all of it
  (wall clock) and plays exactly that many games whatever ``--seconds`` says; a step is one
  player decision.

Like the study-runner row, it widens the process's CPU affinity to every allowed core while it
runs and restores it afterwards. Run it alone, on a quiet machine::

    python benchmarks/bench_engine.py --rows learned --players 2 --runs 1 --warmup 0
    python benchmarks/rows_learned.py        # the same, printing games/s and the load average
    python benchmarks/rows_learned.py --policy expert_uno_2p    # another exported policy seated
    UNO_ENV_CPU=host python benchmarks/rows_learned.py --policy expert_uno_2p   # host code (AVX2)

The printed line names the code target the engine was compiled for (``x86-64-v2`` by
default, or ``host``): the network's forward pass is float arithmetic, which the host's
wider vector instructions speed up where the engine's integer code gains nothing
(docs/engine.md, the code target).
"""

from __future__ import annotations

import os

from registry import Row
from rows_study import WORKERS, time_study

from training import study
from uno_env.compiler.cache import CODE_TARGET

LEARNED_ROW = "study_cell_learned_seat"
POLICY = "distilled_uno_2p"
GAMES = 400_000
BATCH_GAMES = 50_000
TARGET_GAMES_PER_SECOND = 20_000


def learned_cell_spec(games: int = GAMES, seed: int = 0, policy: str = POLICY) -> study.StudySpec:
    """The benchmark's study: one cell, official Uno at 2 players, the policy against blocker."""
    return study.parse_spec(
        {
            "name": "bench_learned",
            "seed": seed,
            "bases": ["uno"],
            "players": [2],
            "styles": [policy, "blocker"],
            "games": games,
            "batch_games": BATCH_GAMES,
            "variations": {},
            "replicate": False,  # one deal set and no reference seatings: exactly the cell's games
            "reference": "",
        }
    )


def timed_cell(num_players: int, min_seconds: float, seed: int, policy: str = POLICY) -> dict[str, float]:
    """Run the learned-seat study cell on ``WORKERS`` processes and time it end to end.

    Args:
        num_players: Must be 2 (the cell's player count).
        min_seconds: Ignored: the row always plays the whole cell.
        seed: Seed of deal 0.
        policy: The exported policy seated (a shipped name or an ``.npz`` path).

    Returns:
        ``steps`` (decisions), ``games``, ``seconds`` (wall), ``cpu_seconds`` (this process
        and its finished children) and ``workers``.
    """
    if num_players != 2:
        raise ValueError("the learned-seat row plays 2 players only")
    return time_study(learned_cell_spec(seed=seed, policy=policy))


ROWS = [
    Row(
        "study cell with a learned seat x 2 workers",
        "learned",
        (2,),
        timed_cell,
        key=LEARNED_ROW,
        preset="uno",
        note=f"study cell with a learned seat: official Uno at 2 players, `{POLICY}` (compiled forward "
        f"pass) against `blocker` in both seatings, {GAMES:,} games on 2 worker processes, results "
        f"included (wall time; requirement >= {TARGET_GAMES_PER_SECOND:,} games/s).",
    )
]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", default=POLICY, help=f"the exported policy seated (default: {POLICY})")
    args = parser.parse_args()
    load = os.getloadavg()
    result = timed_cell(2, 0.0, 0, args.policy)
    rate = result["games"] / result["seconds"]
    per_cpu = result["games"] / result["cpu_seconds"]  # what the row's CPU time gives on 2 free cores
    verdict = "meets" if rate >= TARGET_GAMES_PER_SECOND else "misses"
    print(
        f"{result['games']:,} games ({result['steps']:,} decisions) in {result['seconds']:.1f} s wall, "
        f"{rate:,.0f} games/s, {result['cpu_seconds']:.1f} s CPU ({per_cpu:,.0f} games per CPU second, "
        f"{WORKERS * per_cpu:,.0f} games/s on {WORKERS} free cores), {WORKERS} workers, code target "
        f"{CODE_TARGET}; load average before "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"wall clock: {verdict} the {TARGET_GAMES_PER_SECOND:,} games/s requirement"
    )
