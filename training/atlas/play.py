"""One batch of the atlas: its games played and reduced to what the statistics need.

:func:`run_task` plays an :class:`~training.atlas.planning.AtlasTask`:

- a ``fit`` batch plays traced games on the fitting deals and fits a win-chance model to
  them (:func:`uno_env.sim.winprob.fit_win_model`);
- a ``baseline`` or ``field`` batch plays every deal at every table and keeps each game's
  winner (``winners[table][deal]``); a field batch with one rotation per deal
  (:attr:`~training.atlas.planning.AtlasTask.block`) plays each deal at its block of tables
  and keeps ``winners[slot][deal]``, the winner at the deal's table of each place in the block;
- a ``strong`` or ``scripted`` batch plays one traced game per deal, turns each decision into
  every seat's win chance with the batch's fitted model (fitted on other deals: the chances
  are held out), and keeps per game the winner, the length, the first mover, the trajectory
  measures and the Brier scores, plus the reliability table's sums; the trajectory measures
  again (``shared_*``) with the base rules' model, the one yardstick the changes against the
  base are read with.

Compiled agents (styles, the search, exported policies, guided searches) play in the compiled
engine; any other agent (a Python, out-of-process or chat-model agent, a checkpoint) through
:func:`agents.match.play_deals` at :class:`uno_env.Game` tables, with the same seeds. A coin-flip
variant replaces every winner by :func:`coin_winners` of the deal: play cannot matter.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import uno_env
from agents.match import play_deals
from agents.spec import parse_agent
from uno_env.engine.rules import RuleSet
from uno_env.sim import winprob
from uno_env.sim.results import GameResults

from .planning import SHARED, TRACED, AtlasTask
from .spec import ATLAS_FORMAT, AtlasSpec

GAME_COLUMNS = (
    "winner", "turns", "decisions", "first_mover", "positions", *winprob.GAME_MEASURES,
    *(SHARED + m for m in winprob.GAME_MEASURES), "brier", "brier_hand", "brier_fair",
)  # fmt: skip
"""What a traced batch keeps per game (lists over its deals): see :func:`traced_batch`."""


def coin_winners(seeds: Sequence[int] | np.ndarray, players: int) -> np.ndarray:
    """A winner drawn from each deal seed alone (splitmix64 of the seed, modulo the players):
    the coin-flip control's outcome, independent of the play."""
    z = np.asarray(seeds, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(players)).astype(np.int64)


def _compiled(table: Sequence[str]) -> bool:
    return all(parse_agent(a).compiled for a in table)


def play_table(rules: RuleSet, table: Sequence[str], seeds: Sequence[int]) -> dict[str, np.ndarray]:
    """Play one game per deal seed at one table; per-game arrays as :func:`uno_env.simulate`
    gives them (one compiled call per run of consecutive seeds)."""
    n = len(table)
    if not _compiled(table):
        return play_deals(rules, list(table), [int(s) for s in seeds], trust=True)
    policies = [parse_agent(a).policy for a in table]
    values = np.asarray(seeds, dtype=np.int64)
    breaks = np.flatnonzero(np.diff(values) != 1) + 1
    parts = []
    for run in np.split(values, breaks) if values.size else []:
        sim = uno_env.simulate(
            rules, n, len(run), seed=int(run[0]), policies=policies, full_engine=True,
            allow_rules_mismatch=True,  # an atlas seats networks on every cell's rules, a transfer
        )  # fmt: skip
        parts.append((sim.winner, sim.turns, sim.length, sim.first_mover))
    names = ("winner", "turns", "length", "first_mover")
    if not parts:
        return {name: np.zeros(0, dtype=np.int64) for name in names}
    return {name: np.concatenate([p[k] for p in parts]) for k, name in enumerate(names)}


def trace_table(rules: RuleSet, table: Sequence[str], seeds: Sequence[int]) -> winprob.Trace:
    """Play one traced game per deal seed at one table (:func:`uno_env.sim.winprob.trace`, or
    the Python loop for agents outside the compiled engine)."""
    n = len(table)
    if _compiled(table):
        policies = [parse_agent(a).policy for a in table]
        # an atlas seats networks on every cell's rules, a transfer (checked in its spec)
        return winprob.trace(rules, n, seeds, policies, allow_rules_mismatch=True)

    rows: list[np.ndarray] = []
    games: list[int] = []

    def record(i: int, game: uno_env.Game) -> None:
        features = winprob.position_features(game.state, game.compiled.spec)
        if features is not None:
            rows.append(features.astype(np.float32))
            games.append(i)

    result = play_deals(rules, list(table), [int(s) for s in seeds], trust=True, before_decision=record)

    count = len(seeds)
    results = GameResults.allocate(count, n)
    results.winner[:] = result["winner"]
    results.turns[:] = result["turns"]
    results.length[:] = result["length"]
    results.first_mover[:] = result["first_mover"]
    features = np.stack(rows) if rows else np.zeros((0, n, winprob.NUM_FEATURES), dtype=np.float32)
    return winprob.Trace(
        np.asarray(seeds, dtype=np.int64), results, features, np.asarray(games, dtype=np.int64)
    )


def _traced(
    task: AtlasTask, deal_index: Sequence[int], seeds: Sequence[int]
) -> list[tuple[np.ndarray, winprob.Trace]]:
    """The traced games of a batch, grouped by table: (positions in the batch, trace)."""
    index = np.asarray(deal_index, dtype=np.int64)
    out = []
    for t, table in enumerate(task.tables):
        rows = np.flatnonzero(index % len(task.tables) == t)
        if rows.size:
            out.append((rows, trace_table(task.rules, table, [seeds[int(r)] for r in rows])))
    return out


def _winners(trace: winprob.Trace, task: AtlasTask) -> np.ndarray:
    if task.coin_flip:
        return coin_winners(trace.seeds, task.players)
    return np.asarray(trace.winner, dtype=np.int64)


def fit_batch(task: AtlasTask) -> dict[str, Any]:
    """Fit the win-chance model of one traced kind of a cell on its fitting games."""
    seeds = task.deal_seeds()
    features, winners = [], []
    games = 0
    for _, trace in _traced(task, range(task.first, task.first + task.count), seeds):
        won = _winners(trace, task)
        keep = won[trace.position_game] >= 0
        features.append(trace.features[keep])
        winners.append(won[trace.position_game][keep])
        games += int((won >= 0).sum())
    x = np.concatenate(features)
    y = np.concatenate(winners)
    if games == 0:  # a model of who wins is fitted on games that end with a winner
        players = ", ".join(dict.fromkeys(a for table in task.tables for a in table))
        raise ValueError(
            f"atlas cell {task.variant} at {task.players} players: none of the {task.count} games of "
            f"{task.kind} play ({players}) used to fit its win-chance model ended with a winner (each was "
            "cut at the decision limit, E-END-1): the model is fitted on games that players finish"
        )
    model = winprob.fit_win_model(x, y)
    p = model.probabilities(x)
    log_loss = float(-np.log(np.maximum(p[np.arange(len(y)), y], 1e-12)).mean())
    return {
        **_header(task),
        "weights": list(model.weights),
        "games": games,
        "positions": len(y),
        "log_loss": log_loss,
    }


def traced_batch(task: AtlasTask) -> dict[str, Any]:
    """One traced game per deal, measured with the batch's model (see the module docstring)."""
    seeds = task.deal_seeds()
    count = task.count
    model = winprob.WinModel(task.model)
    shared = winprob.WinModel(task.shared or task.model)
    columns = {name: np.full(count, math.nan) for name in GAME_COLUMNS}
    reliability = np.zeros((winprob.RELIABILITY_BINS, 3))
    n = task.players
    for rows, trace in _traced(task, range(task.first, task.first + count), seeds):
        won = _winners(trace, task)
        games = len(rows)
        probs = model.probabilities(trace.features)
        measures = winprob.game_measures(probs, trace.position_game, won, games)
        common = winprob.game_measures(shared.probabilities(trace.features), trace.position_game, won, games)
        brier, counted = winprob.brier_per_game(probs, trace.position_game, won, games)
        hand = winprob.hand_model_probabilities(trace.features, n)
        brier_hand, _ = winprob.brier_per_game(hand, trace.position_game, won, games)
        fair = np.full_like(probs, 1.0 / n)
        brier_fair, _ = winprob.brier_per_game(fair, trace.position_game, won, games)
        reliability += winprob.reliability_counts(probs, trace.position_game, won)
        columns["winner"][rows] = won
        columns["turns"][rows] = trace.results.turns
        columns["decisions"][rows] = trace.results.length
        columns["first_mover"][rows] = trace.results.first_mover
        columns["positions"][rows] = counted
        for name in winprob.GAME_MEASURES:
            columns[name][rows] = measures[name]
            columns[SHARED + name][rows] = common[name]
        columns["brier"][rows] = brier
        columns["brier_hand"][rows] = brier_hand
        columns["brier_fair"][rows] = brier_fair
    return {
        **_header(task),
        "games": {name: [_json_number(v) for v in values] for name, values in columns.items()},
        "reliability": reliability.round(9).tolist(),
    }


def table_batch(task: AtlasTask) -> dict[str, Any]:
    """Every deal at every table (or, with a block, at its block of tables); each game's winner."""
    seeds = task.deal_seeds()

    def play(table: Sequence[str], at: Sequence[int]) -> np.ndarray:
        if task.coin_flip:
            return coin_winners(at, task.players)
        return np.asarray(play_table(task.rules, table, at)["winner"], dtype=np.int64)

    if not task.block:
        return {**_header(task), "winners": [[int(w) for w in play(table, seeds)] for table in task.tables]}
    blocks = np.array([task.block_of(task.first + i) for i in range(task.count)], dtype=np.int64)
    won = np.full((task.block, task.count), -2, dtype=np.int64)
    for b in np.unique(blocks):
        rows = np.flatnonzero(blocks == b)
        at = [seeds[int(r)] for r in rows]
        for slot in range(task.block):
            won[slot, rows] = play(task.tables[int(b) * task.block + slot], at)
    return {**_header(task), "winners": won.tolist()}


def run_task(task: AtlasTask) -> dict[str, Any]:
    """Play one batch and return its result (JSON-ready), with the CPU seconds it took under
    :data:`CPU_KEY` (the runner logs them and keeps them out of the result file)."""
    start = time.process_time()
    if task.stage == "fit":
        result = fit_batch(task)
    elif task.kind in TRACED:
        result = traced_batch(task)
    else:
        result = table_batch(task)
    return {**result, CPU_KEY: round(time.process_time() - start, 3)}


CPU_KEY = "cpu_seconds"
"""The key of a batch's CPU time in what :func:`run_task` returns (logged, never stored)."""


def _header(task: AtlasTask) -> dict[str, Any]:
    return {
        "format": ATLAS_FORMAT,
        "id": task.id,
        "stage": task.stage,
        "kind": task.kind,
        "variant": task.variant,
        "players": task.players,
        "replica": task.replica,
        "rules": str(task.rules),
        "first": task.first,
        "deals": task.count,
        "tables": [list(t) for t in task.tables],
        "focal": list(task.focal),
        "block": task.block,
    }


def _json_number(value: float) -> float | int | None:
    """A float for JSON: integers as integers, NaN as null, others rounded to 9 decimals."""
    if math.isnan(value):
        return None
    if float(value).is_integer():
        return int(value)
    return round(float(value), 9)


def warm_up(spec: AtlasSpec) -> None:
    """Load the compiled loops in this process before a pool forks: the batch simulator with
    a search seat, with a network seat when a cell seats one, and the traced loop."""
    variant, n = spec.cells()[0]
    others = ["greedy"] * (n - 1)
    uno_env.simulate(variant.rules, n, 1, seed=0, policies=["search:sims=2", *others], full_engine=True)
    winprob.trace(variant.rules, n, [0], ["search:sims=2", *others])
    for cell, players in spec.cells():
        networks = [a for a in spec.learned_players(cell, players) if parse_agent(a).kind == "policy"]
        if networks:
            uno_env.simulate(
                cell.rules, players, 1, seed=0, policies=[networks[0]] + ["greedy"] * (players - 1),
                allow_rules_mismatch=True,
            )  # fmt: skip
            break
