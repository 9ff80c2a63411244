"""The results record of the batch simulator: one array per per-game result, filled by the compiled loops.

:func:`uno_env.sim.batch.play_games_with_params` and the network-seat loop of
:mod:`uno_env.sim.guided` write the results of each finished game through
:func:`record_result` into a :class:`GameResults`; :class:`uno_env.sim.batch.BatchResult`
hands them to the user. A new per-game result is one field here, where it is allocated
(:meth:`GameResults.allocate`) and where it is written.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L

ILLEGAL_ACTION = 100
"""Failure code of the batch loops: a policy chose an action outside the mask."""


class GameResults(NamedTuple):
    """The per-game result arrays of a batch (row ``g``: game ``g``), as one record for the
    compiled loops (:func:`play_games_with_params`, the network-seat loop of
    :mod:`uno_env.sim.guided`, :func:`record_result`): a new per-game result is one field here,
    where it is allocated (:meth:`allocate`) and where it is written."""

    winner: np.ndarray  # (games,) int64: the winner's seat, -1 when truncated
    length: np.ndarray  # (games,) int64: decisions
    ranking: np.ndarray  # (games, players) int64: seats best first, -1 when truncated
    scores: np.ndarray  # (games, players) int64: match points at the end
    round_points: np.ndarray  # (games, players) int64: the last round's hand points
    rounds: np.ndarray  # (games,) int64
    turns: np.ndarray  # (games,) int64
    first_mover: np.ndarray  # (games,) int64: the seat of the first decision

    @classmethod
    def allocate(cls, num_games: int, num_players: int) -> GameResults:
        """Result arrays for ``num_games`` games (MemoryError if they do not fit)."""
        return cls(
            winner=np.full(num_games, -1, dtype=np.int64),
            length=np.zeros(num_games, dtype=np.int64),
            ranking=np.full((num_games, num_players), -1, dtype=np.int64),
            scores=np.zeros((num_games, num_players), dtype=np.int64),
            round_points=np.zeros((num_games, num_players), dtype=np.int64),
            rounds=np.zeros(num_games, dtype=np.int64),
            turns=np.zeros(num_games, dtype=np.int64),
            first_mover=np.zeros(num_games, dtype=np.int64),
        )


# inlined into its callers, the batch loops: a call of its own re-emitted compute_ranking and the
# results record's wrapper in every loop
@njit(cache=True, inline="always")
def record_result(state: np.ndarray, spec: np.ndarray, g: int, results: GameResults) -> None:
    """Write the results of finished game ``state`` into row ``g`` of ``results``
    (all but ``first_mover``, written when the game is dealt)."""
    results.winner[g] = state[L.S_WINNER]
    results.length[g] = state[L.S_DECISIONS]
    results.turns[g] = state[L.S_TURNS]
    results.rounds[g] = state[L.S_ROUND]
    engine.compute_ranking(state, spec, results.ranking[g])
    for seat in range(state[L.S_NPLAYERS]):
        results.scores[g, seat] = state[L.SCORE + seat]
        results.round_points[g, seat] = state[L.ROUND_POINTS + seat]
