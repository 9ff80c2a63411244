"""Benchmark rows for uno_env's own engine: the compiled batch simulator and the Game facade.

Both rows play the given rule preset with random legal play; a step is one player decision
(choosing a colour, playing or keeping a drawn card and challenging are decisions of their
own, as in the engine).  This module is also the pattern for other ``rows_*.py`` modules:
a ``rows(presets)`` function returning :class:`registry.Row` values and a ``TARGETS`` list.

* ``uno_env batch``: whole calls of ``uno_env.simulate(rules, n, games, seed,
  policies="random")``; the game count is sized so that the calls last at least
  ``min_seconds``.  A small warm-up call (compilation or cache load) is not timed.
* ``uno_env Game facade``: the plain Python loop over ``uno_env.Game`` with a seeded
  ``random.Random``; creating each game is inside the timed region, one warm-up game
  before it is not.
* ``uno_env batch, RLCard rules, random_legal``: the same work as the RLCard raw-engine
  row: whole games of official Uno set to RLCard 1.2.0's rules as far as the switches
  reach (``baselines.RLCARD_RULES``: the Wild Draw Four bluff refused, drawing
  only with nothing to play, a playable drawn card played, no UNO call, ...), a uniformly
  random legal action at every seat on both sides (``random_legal`` here), compared in
  whole games per second (target: at least 30x RLCard's at 2 and 4 players).
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Sequence

from baselines import RLCARD_RULES
from registry import OPENSPIEL_CRAZY_EIGHTS, RLCARD_ENGINE, Row, Target, preset_rows

import uno_env

BATCH = "uno_env_batch"
FACADE = "uno_env_facade"
RLCARD_RULES_BATCH = "uno_env_batch_rlcard_rules"

_PROBE_SECONDS = 0.05
_SAFETY = 1.05
_WARM_STEPS = 50
_batch_rate: dict[tuple[str, int, str], float] = {}
"""Games per second of the batch simulator per (rules, players, policy), measured by the probe."""


def _batch_games_per_second(
    preset: str | uno_env.RuleSet, num_players: int, seed: int, policy: str = "random"
) -> float:
    """Estimate the batch simulator's games/s, doubling a probe call until it lasts long enough.

    Args:
        preset: Rule preset name.
        num_players: Number of players.
        seed: Seed of the probe games.

    Returns:
        Games per second (cached per preset and player count for the process).
    """
    key = (str(preset), num_players, policy)
    if key not in _batch_rate:
        games = 4
        while True:
            start = time.perf_counter()
            uno_env.simulate(preset, num_players, games, seed, policies=policy)
            elapsed = time.perf_counter() - start
            if elapsed >= _PROBE_SECONDS:
                _batch_rate[key] = games / elapsed
                break
            games *= 2
    return _batch_rate[key]


def batch(
    preset: str | uno_env.RuleSet, num_players: int, min_seconds: float, seed: int, policy: str = "random"
) -> dict[str, float]:
    """Time whole ``uno_env.simulate`` calls of random legal play.

    The first call's game count is sized from a probe to last ``min_seconds`` (plus 5%);
    if it falls short, further calls play the next games until the summed time of the
    calls reaches ``min_seconds``.  Game ``i`` overall has seed ``seed + i``.

    Args:
        preset: Rule preset name, or a rule set.
        num_players: Number of players.
        min_seconds: Least total time of the timed calls.
        seed: Seed of the first game.
        policy: The compiled policy of every seat.

    Returns:
        ``steps`` (decisions, the sum of the games' lengths), ``games``, ``seconds`` and
        ``cpu_seconds`` (wall and process CPU time of the timed calls only) and ``calls``.
    """
    uno_env.simulate(preset, num_players, 2, seed, policies=policy)  # compile / load the cache
    rate = _batch_games_per_second(preset, num_players, seed, policy)
    steps = games = calls = 0
    seconds = cpu_seconds = 0.0
    while seconds < min_seconds:
        count = max(1, math.ceil((min_seconds - seconds) * rate * _SAFETY))
        start, cpu_start = time.perf_counter(), time.process_time()
        result = uno_env.simulate(preset, num_players, count, seed + games, policies=policy)
        elapsed = time.perf_counter() - start
        cpu_seconds += time.process_time() - cpu_start
        seconds += elapsed
        steps += int(result.length.sum())
        games += count
        calls += 1
        rate = count / elapsed
    return {"steps": steps, "games": games, "seconds": seconds, "cpu_seconds": cpu_seconds, "calls": calls}


def facade(preset: str, num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """Time the natural per-decision Python loop over :class:`uno_env.Game`.

    Game ``i`` is ``Game(preset, num_players, seed=seed + i)``; actions come from
    ``random.Random(seed)``.  Whole games are played until ``min_seconds`` have passed.

    Args:
        preset: Rule preset name.
        num_players: Number of players.
        min_seconds: Keep playing whole games until this much time has passed.
        seed: Seed of the first game and of the action generator.

    Returns:
        ``steps`` (decisions), ``games``, ``seconds`` and ``cpu_seconds`` (process CPU time).
    """
    warm = uno_env.Game(preset, num_players, seed=seed)  # compile / load the cache
    for _ in range(_WARM_STEPS):
        if warm.is_over():
            break
        warm.step(warm.legal_actions()[0])
    rnd = random.Random(seed)
    steps = games = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        g = uno_env.Game(preset, num_players, seed=seed + games)
        while not g.is_over():
            acts = g.legal_actions()
            g.step(acts[rnd.randrange(len(acts))])
            steps += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            cpu_seconds = time.process_time() - cpu_start
            return {"steps": steps, "games": games, "seconds": elapsed, "cpu_seconds": cpu_seconds}


def rows(presets: Sequence[str]) -> list[Row]:
    """The batch and facade rows for each rule preset.

    Args:
        presets: Preset names of :data:`uno_env.PRESETS`.

    Returns:
        Rows in display order: all batch rows, then all facade rows.
    """
    out: list[Row] = []
    for make, name, key, group, note in (
        (batch, "uno_env batch", BATCH, "batch", 'compiled `uno_env.simulate(..., policies="random")`.'),
        (
            facade,
            "uno_env Game facade",
            FACADE,
            "facade",
            "Python loop: `legal_actions()`, `random.Random.randrange`, `step(id)`.",
        ),
    ):
        out += preset_rows(name, group, key, f"{name}: {note}", presets, make)
    out.append(
        Row(
            "uno_env batch, RLCard rules, random_legal",
            "batch",
            tuple(range(2, 11)),
            functools.partial(batch, rlcard_rules(), policy="random_legal"),
            key=RLCARD_RULES_BATCH,
            note=(
                "uno_env batch, RLCard rules: official Uno set to RLCard 1.2.0's rules as far as the "
                "switches reach (`baselines.RLCARD_RULES`), `random_legal` at every seat: the "
                "same work as the RLCard raw-engine row, compared in whole games per second."
            ),
        )
    )
    return out


def rlcard_rules() -> uno_env.RuleSet:
    """Official Uno set to RLCard 1.2.0's Uno rules as far as the switches reach."""
    return uno_env.load_rules("uno", **RLCARD_RULES)


TARGETS = [
    Target("batch engine >= 20x RLCard raw engine", BATCH, 20.0, RLCARD_ENGINE),
    Target("batch engine >= 3x OpenSpiel crazy_eights", BATCH, 3.0, OPENSPIEL_CRAZY_EIGHTS),
    Target("facade per-step loop >= 2x RLCard raw engine", FACADE, 2.0, RLCARD_ENGINE),
    Target(
        "whole random games on RLCard's rules >= 30x RLCard raw engine",
        RLCARD_RULES_BATCH,
        30.0,
        RLCARD_ENGINE,
        unit="games",
    ),
]
