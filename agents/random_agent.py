"""The uniform-random legal baseline, with its own seeded generator."""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.engine.rng import check_seed

from .base import View, resolve_mask


class RandomAgent:
    """Picks uniformly among the legal actions of a mask; same seed, same choices.

    Needs no view of the game. (The batch simulator's compiled ``random_legal`` policy plays
    the same distribution from each game's own agent generator.) Not the literature's random
    player, which draws only when it has nothing to play: that is ``random_playable``.
    """

    name = "random_legal"

    def __init__(self, seed: int | None = None) -> None:
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's generator (``None``: from the operating system)."""
        self._rng = np.random.default_rng(None if seed is None else check_seed(seed))

    def act(self, observation: Any, action_mask: np.ndarray | None = None, view: View | None = None) -> int:
        """A uniformly random legal action id of the mask."""
        legal = np.flatnonzero(resolve_mask(observation, action_mask))
        return int(legal[self._rng.integers(legal.size)])
