"""Benchmark rows for the compiled play styles in the batch simulator.

* ``uno_env batch, scripted styles``: whole calls of ``uno_env.simulate`` with a scripted
  style at every seat, the seven scripted styles of :data:`uno_env.styles.registry.STYLES`
  (everything but ``random`` and ``monte_carlo``) taking the seats in turn (seat ``s`` plays
  style ``(s + call) % 7``, so over the calls every style sits everywhere). A step is one
  player decision. Target: at least 1,000,000 decisions/s on one core.
* ``uno_env batch, monte_carlo``: one Monte-Carlo sampler (default parameters) against
  greedy players; its decisions are costly rollouts, reported for reference.

Like :mod:`rows_engine`, each call's game count is sized from a probe to last the requested
time; a warm-up call (compilation or cache load) is not timed.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence

from registry import Row, Target, preset_rows

import uno_env
from uno_env.styles.registry import STYLES

SCRIPTED = "uno_env_batch_scripted"
MONTE_CARLO = "uno_env_batch_monte_carlo"
SCRIPTED_STYLES = [
    name
    for name in STYLES
    if name not in ("random_legal", "random_playable", "monte_carlo", "search", "oracle")
]

_PROBE_SECONDS = 0.05
_SAFETY = 1.05


def _scripted_table(num_players: int, call: int) -> list[str]:
    """Styles per seat for call number ``call``: the scripted styles in turn."""
    return [SCRIPTED_STYLES[(seat + call) % len(SCRIPTED_STYLES)] for seat in range(num_players)]


def _monte_carlo_table(num_players: int, call: int) -> list[str]:
    """One Monte-Carlo seat (rotating with the call), greedy players elsewhere."""
    table = ["greedy"] * num_players
    table[call % num_players] = "monte_carlo"
    return table


def timed_batch(table: str, preset: str, num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """Time whole ``uno_env.simulate`` calls of the policies that ``table`` names.

    Args:
        table: ``"scripted"`` or ``"monte_carlo"`` (see the module docstring).
        preset: Rule preset name.
        num_players: Number of players.
        min_seconds: Least total time of the timed calls.
        seed: Seed of the first game; game ``i`` overall has seed ``seed + i``.

    Returns:
        ``steps`` (decisions), ``games``, ``seconds`` (timed calls only) and ``calls``.
    """
    seats = _scripted_table if table == "scripted" else _monte_carlo_table
    uno_env.simulate(preset, num_players, 2, seed, policies=seats(num_players, 0))  # compile / load
    games = 2
    while True:  # probe: double until a call lasts long enough to size the timed calls
        start = time.perf_counter()
        uno_env.simulate(preset, num_players, games, seed, policies=seats(num_players, 0))
        elapsed = time.perf_counter() - start
        if elapsed >= _PROBE_SECONDS:
            break
        games *= 2
    rate = games / elapsed
    steps = played = calls = 0
    seconds = 0.0
    while seconds < min_seconds:
        count = max(1, math.ceil((min_seconds - seconds) * rate * _SAFETY))
        policies = seats(num_players, calls)
        start = time.perf_counter()
        result = uno_env.simulate(preset, num_players, count, seed + played, policies=policies)
        elapsed = time.perf_counter() - start
        seconds += elapsed
        steps += int(result.length.sum())
        played += count
        calls += 1
        rate = count / elapsed
    return {"steps": steps, "games": played, "seconds": seconds, "calls": calls}


def rows(presets: Sequence[str]) -> list[Row]:
    """The scripted-styles and Monte-Carlo rows for each rule preset.

    Args:
        presets: Preset names of :data:`uno_env.PRESETS`.

    Returns:
        Rows in display order: all scripted rows, then all Monte-Carlo rows.
    """
    out: list[Row] = []
    for table, name, key, group, note in (
        (
            "scripted",
            "uno_env batch, scripted styles",
            SCRIPTED,
            "agents",
            f"compiled `simulate` with the scripted styles at every seat ({', '.join(SCRIPTED_STYLES)}).",
        ),
        (
            "monte_carlo",
            "uno_env batch, monte_carlo",
            MONTE_CARLO,
            "agents_mc",
            "one `monte_carlo` seat (default parameters) against `greedy` players.",
        ),
    ):
        out += preset_rows(
            name, group, key, f"{name}: {note}", presets, functools.partial(timed_batch, table)
        )
    return out


TARGETS = [Target("batch play of scripted styles >= 1,000,000 decisions/s", SCRIPTED, 1_000_000.0)]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="least seconds per row (2)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="player counts (2 4)")
    args = parser.parse_args()
    for n in args.players:
        for kind in ("scripted", "monte_carlo"):
            r = timed_batch(kind, "uno", n, args.seconds, 0)
            print(f"{kind:>12} {n}p: {r['steps'] / r['seconds']:>12,.0f} decisions/s ({r['games']:,} games)")
