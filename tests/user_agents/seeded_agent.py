"""A user's agent outside the package, for the agent-spec tests (``seeded_agent.py:Seeded``).

It plays a random legal action from its own generator, re-seeded by ``reset(seed)`` before
each game, so the same deals and seeds give the same games wherever it runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.engine.actions import ActionKind, action_kind


class Seeded:
    """A seeded choice: UNO called whenever it may be, else the lowest legal id (a card play,
    when there is one: the action table lists the plays first) with chance ``bias``, else a
    uniform choice over the legal actions."""

    def __init__(self, seed: int | None = None, bias: float = 0.9) -> None:
        self.name = "seeded"
        self.bias = bias
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """A new generator for the next game."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        """A legal action id."""
        if action_mask is None:  # PettingZoo's observation dict carries it
            action_mask = observation["action_mask"]
        legal = np.flatnonzero(np.asarray(action_mask))
        calls = [a for a in legal if action_kind(int(a))[0] == ActionKind.CALL]
        if calls:
            return int(calls[0])
        if self.rng.random() < self.bias:
            return int(legal[0])
        return int(legal[self.rng.integers(legal.size)])


def make_seeded(seed: int | None = None, bias: float = 0.9) -> Seeded:
    """A factory of :class:`Seeded` agents."""
    return Seeded(seed, bias)


SHARED = Seeded(0)
"""An agent object (not a class or factory)."""


class NeedsReset(Seeded):
    """:class:`Seeded` without a ``seed`` parameter: only ``reset(seed)`` seeds it, and it
    refuses to play before that."""

    def __init__(self) -> None:
        self.name = "needs_reset"
        self.bias = 0.9
        self.rng = None  # type: ignore[assignment]

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        if self.rng is None:
            raise AssertionError("act() before reset(seed)")
        return super().act(observation, action_mask, view)
