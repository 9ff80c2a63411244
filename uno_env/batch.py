"""The batch simulator: many whole games inside one compiled loop.

:func:`simulate` plays ``num_games`` games of one rule set and player count with compiled
policies and returns per-game results as arrays. Game ``i`` of ``simulate(..., seed=s)`` is
dealt exactly like ``Game(rules, n, seed=s + i)``; the policies draw from each game's
separate agent generator, so their randomness never shifts the game's chance events.
Studies and benchmarks use this path; nothing in it allocates per step.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from . import engine
from . import layout as L
from .rng import rand_below
from .rules import RuleSet, compile_spec, load_rules

POLICY_RANDOM = 0
POLICIES = {"random": POLICY_RANDOM}
POLICY_DOCS = {"random": "uniform over the legal actions"}


@njit(cache=True)
def random_legal_action(state: np.ndarray, mask: np.ndarray, count: int) -> int:
    """A uniformly random legal action, from the game's agent generator."""
    k = rand_below(state, L.AGENT_RNG, count)
    a = 0
    while True:
        if mask[a]:
            if k == 0:
                return a
            k -= 1
        a += 1


@njit(cache=True)
def choose_action(state: np.ndarray, mask: np.ndarray, count: int, policy: int) -> int:
    """The action of a compiled policy for the player to move."""
    # only POLICY_RANDOM exists in the engine layer
    return random_legal_action(state, mask, count)


@njit(cache=True)
def play_games(
    spec: np.ndarray,
    num_players: int,
    deck: np.ndarray,
    seed: int,
    policies: np.ndarray,
    check: bool,
    winner: np.ndarray,
    length: np.ndarray,
    ranking: np.ndarray,
    scores: np.ndarray,
    round_points: np.ndarray,
    rounds: np.ndarray,
) -> tuple[int, int]:
    """Play ``len(winner)`` games; write results; return ``(-1, 0)`` or the first game and
    invariant code that failed when ``check`` is set (invariants checked after every step)."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    for g in range(len(winner)):
        engine.new_game(state, spec, num_players, deck, seed + g, 0)
        count = engine.fill_mask(state, spec, mask)
        while state[L.S_STATUS] == L.ST_RUNNING:
            if check:
                code = engine.check_invariants(state, spec, mask)
                if code != engine.INV_OK:
                    return g, code
            action = choose_action(state, mask, count, policies[state[L.S_CURRENT]])
            engine.apply_action(state, spec, action)
            count = engine.fill_mask(state, spec, mask)
        if check:
            code = engine.check_invariants(state, spec, mask)
            if code != engine.INV_OK:
                return g, code
        winner[g] = state[L.S_WINNER]
        length[g] = state[L.S_DECISIONS]
        rounds[g] = state[L.S_ROUND]
        engine.compute_ranking(state, spec, ranking[g])
        for seat in range(num_players):
            scores[g, seat] = state[L.SCORE + seat]
            round_points[g, seat] = state[L.ROUND_POINTS + seat]
    return -1, 0


@dataclass
class BatchResult:
    """Per-game results of :func:`simulate` (row ``i`` is game ``seed + i``).

    ``winner`` is -1 for a truncated game (E-END-1); ``ranking`` rows list seats best
    first (all -1 when truncated); ``length`` counts decisions.
    """

    rules: str
    num_players: int
    seed: int
    winner: np.ndarray
    length: np.ndarray
    ranking: np.ndarray
    scores: np.ndarray
    round_points: np.ndarray
    rounds: np.ndarray

    @property
    def num_games(self) -> int:
        """Games played."""
        return len(self.winner)

    @property
    def truncated(self) -> np.ndarray:
        """Boolean per game: ended by the decision limit."""
        return self.winner < 0

    def seat_win_rates(self) -> np.ndarray:
        """Fraction of games each seat won (truncated games count for nobody)."""
        return np.bincount(self.winner[self.winner >= 0], minlength=self.num_players) / self.num_games


def simulate(
    rules: RuleSet | str | Path = "uno",
    num_players: int = 4,
    num_games: int = 1000,
    seed: int = 0,
    policies: str | list[str] = "random",
    check_invariants: bool = False,
    **overrides: Any,
) -> BatchResult:
    """Play ``num_games`` complete games in compiled code and return their results.

    ``policies`` names a compiled policy for every seat, or one per seat. With
    ``check_invariants`` the engine invariants are checked after every decision and the
    first failure raises AssertionError naming the game's seed.
    """
    ruleset = load_rules(rules, **overrides)
    ruleset.check_players(num_players)
    names = [policies] * num_players if isinstance(policies, str) else list(policies)
    if len(names) != num_players:
        raise ValueError(f"policies lists {len(names)} names for {num_players} players")
    unknown = [p for p in names if p not in POLICIES]
    if unknown:
        raise ValueError(f"unknown compiled policy {unknown[0]!r}; available: {', '.join(POLICIES)}")
    if num_games < 0:
        raise ValueError(f"num_games must be >= 0, got {num_games}")
    policy_codes = np.array([POLICIES[p] for p in names], dtype=np.int64)
    winner = np.full(num_games, -1, dtype=np.int64)
    length = np.zeros(num_games, dtype=np.int64)
    ranking = np.full((num_games, num_players), -1, dtype=np.int64)
    scores = np.zeros((num_games, num_players), dtype=np.int64)
    round_points = np.zeros((num_games, num_players), dtype=np.int64)
    rounds = np.zeros(num_games, dtype=np.int64)
    failed, code = play_games(
        compile_spec(ruleset),
        num_players,
        ruleset.deck_counts(num_players),
        seed,
        policy_codes,
        check_invariants,
        winner,
        length,
        ranking,
        scores,
        round_points,
        rounds,
    )
    if failed >= 0:
        raise AssertionError(
            f"invariant broken in game seed={seed + failed} ({num_players} players, rules: "
            f"{ruleset}): {engine.INVARIANT_MESSAGES[code]}"
        )
    return BatchResult(str(ruleset), num_players, seed, winner, length, ranking, scores, round_points, rounds)
