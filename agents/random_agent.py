"""The uniform-random legal baseline, with its own seeded generator."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Picks uniformly among the legal actions of a mask; same seed, same choices."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, action_mask: np.ndarray) -> int:
        """A uniformly random legal action id of ``action_mask``."""
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask has no legal action")
        return int(legal[self._rng.integers(legal.size)])
