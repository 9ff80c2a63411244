"""Benchmark row for the house-rules study runner: a million games through ``run_study``.

* ``study runner, 1M games x 2 workers``: the requirement "1,000,000 official-Uno games at 4
  players with scripted styles in <= 60 s on the 2-core machine, through the study runner".
  One study cell: the ``uno`` preset at 4 players, the seven scripted styles in their 140
  seatings (every combination of four styles in every cyclic seating), 7,143 deals per
  seating (1,000,020 games), batches of at most 50,000 games on a pool of 2 worker processes,
  then the tidy results, plots and report. The row times all of it (wall clock) and plays
  exactly that many games whatever ``--seconds`` says; a step is one player decision.

The benchmark script pins itself to one CPU; this row widens the process's CPU affinity to
every allowed core while it runs (the workers inherit it) and restores it afterwards. Run it
alone, once, on a quiet machine::

    python benchmarks/bench_engine.py --rows study --players 4 --runs 1 --warmup 0
    python benchmarks/rows_study.py          # the same, printing the load average as well
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from registry import Row

from training import study

STUDY_ROW = "study_runner_1m"
GAMES = 1_000_000
WORKERS = 2
BATCH_GAMES = 50_000


def million_game_spec(games: int = GAMES, seed: int = 0) -> study.StudySpec:
    """The benchmark's study: one cell, official Uno at 4 players, every scripted style."""
    return study.parse_spec(
        {
            "name": "bench",
            "seed": seed,
            "bases": ["uno"],
            "players": [4],
            "games": games,
            "batch_games": BATCH_GAMES,
            "variations": {},
            "replicate": False,  # one deal set, the field seatings only: exactly the million games
            "reference": "",
        }
    )


def timed_study(num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """Run the million-game study on ``WORKERS`` processes and time it end to end.

    Args:
        num_players: Must be 4 (the requirement's player count).
        min_seconds: Ignored: the row always plays the million games.
        seed: Seed of deal 0.

    Returns:
        ``steps`` (decisions), ``games``, ``seconds`` (wall), ``cpu_seconds`` (this process
        and its finished children) and ``workers``.
    """
    if num_players != 4:
        raise ValueError("the study-runner row plays 4 players only")
    return time_study(million_game_spec(seed=seed))


def time_study(spec: study.StudySpec) -> dict[str, float]:
    """Run a one-cell study on ``WORKERS`` processes (every allowed core) and time it end to end.

    Returns ``steps`` (decisions), ``games``, ``seconds`` (wall), ``cpu_seconds`` (this process
    and its finished children) and ``workers``.
    """
    pinned = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        if pinned is not None:
            os.sched_setaffinity(0, range(os.cpu_count() or 1))
        with tempfile.TemporaryDirectory(prefix="bench_study_") as folder:
            out = Path(folder) / "run"
            cpu0 = os.times()
            start = time.perf_counter()
            study.run_study(spec, out, executor="process", workers=WORKERS, progress=False)
            seconds = time.perf_counter() - start
            cpu1 = os.times()
            frame = study.results_frame(out)
    finally:
        if pinned is not None:
            os.sched_setaffinity(0, pinned)
    games = int(frame["games"].iloc[0])
    steps = round(float(frame["length_mean"].iloc[0]) * games)
    cpu = (cpu1.user + cpu1.system + cpu1.children_user + cpu1.children_system) - (
        cpu0.user + cpu0.system + cpu0.children_user + cpu0.children_system
    )
    return {"steps": steps, "games": games, "seconds": seconds, "cpu_seconds": cpu, "workers": WORKERS}


ROWS = [
    Row(
        "study runner, 1M games x 2 workers",
        "study",
        (4,),
        timed_study,
        key=STUDY_ROW,
        preset="uno",
        note="study runner: one 4-player official-Uno cell of the seven scripted styles, 1,000,020 games "
        "on 2 worker processes, results and report included (wall time; requirement <= 60 s).",
    )
]


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()  # no options but --help
    load = os.getloadavg()
    result = timed_study(4, 0.0, 0)
    verdict = "meets" if result["seconds"] <= 60 else "misses"
    print(
        f"{result['games']:,} games ({result['steps']:,} decisions) in {result['seconds']:.1f} s wall, "
        f"{result['games'] / result['seconds']:,.0f} games/s, {result['cpu_seconds']:.1f} s CPU, "
        f"{WORKERS} workers; load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {verdict} the 60 s requirement"
    )
